// The TypeScript side of the image library: writes the entry module for the chosen
// variants, compiles it with the library through the artifact cache (a repeated choice
// loads in milliseconds) and runs the kernels on images in memory.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CompiledLibrary, compile, type SourceFile } from '@anydsl/compiler';
import { deviceRuntime } from '../shared/device.ts';
import { type Image, type Pixels, makeImage } from './image.ts';
import { checkVariant, entryFunction, exportName, gpuDevice, isFloatPipeline, isGpuVariant, type Variant } from './variants.ts';

const LIBRARY_FILES = ['schedule.impala', 'boundary.impala', 'image.impala', 'pipelines.impala', 'effects.impala', 'gpu.impala', 'multiscale.impala', 'bilateral.impala', 'interpolate.impala', 'local_laplacian.impala'];

/** The library's Impala sources, with paths relative to the repository for diagnostics. */
export function librarySources(): SourceFile[] {
  return LIBRARY_FILES.map((file) => ({
    path: `libs/image/${file}`,
    text: readFileSync(fileURLToPath(new URL(file, import.meta.url)), 'utf8'),
  }));
}

/** The generated entry module exporting one function per variant. */
function entryModule(variants: readonly Variant[]): SourceFile {
  const text = variants.map(entryFunction).join('\n\n') + '\n';
  return { path: 'image_entry.impala', text };
}

export interface Kernel {
  /** Runs on `input` into `output` (allocated when omitted) and returns the output. */
  run(input: Image, options?: { outside?: number; output?: Image }): Image;
  /** GPU variants: the device the kernels run on, the microseconds they have run so far, and those of the copies to and from the device. */
  gpu?: { deviceName(): string; kernelMicros(): number; copyMicros(): number };
}

export interface KernelSet {
  kernel(variant: Variant): Kernel;
}

/**
 * Kernels per compilation: they share the fixed cost of compiling the library, while a
 * module small enough keeps clang's time per module short and lets a changed choice of
 * kernels reuse most of the cache (the partial evaluator's budget is per kernel).
 */
const KERNELS_PER_MODULE = 4;

/** Compiles `variants` at -O3 for this machine's CPU (a few per library, each library cached on its own). */
export async function compileKernels(variants: readonly Variant[]): Promise<KernelSet> {
  variants.forEach(checkVariant);
  const unique = [...new Map(variants.map((v) => [exportName(v), v])).values()];
  const owner = new Map<string, CompiledLibrary>();
  for (let i = 0; i < unique.length; i += KERNELS_PER_MODULE) {
    const group = unique.slice(i, i + KERNELS_PER_MODULE);
    const library = await compile({ sources: [...librarySources(), entryModule(group)], options: { optLevel: 3 } });
    for (const v of group) owner.set(exportName(v), library);
  }
  return {
    kernel(variant) {
      const library = owner.get(exportName(variant));
      if (!library) throw new Error(`kernel ${exportName(variant)} was not compiled in this set`);
      const fn = library.fn(exportName(variant));
      const runtime = isGpuVariant(variant) ? deviceRuntime(library.path) : undefined;
      return {
        gpu: runtime && { deviceName: () => runtime.name(gpuDevice(variant)), kernelMicros: runtime.kernelMicros, copyMicros: runtime.copyMicros },
        run(input, opts = {}) {
          checkInput(variant, input);
          const output = opts.output ?? outputFor(variant, input);
          const outside = opts.outside ?? 0;
          checkOutside(variant, outside);
          fn(input.data, output.data, input.width, input.height, outside);
          return output;
        },
      };
    },
  };
}

/** Compiles one variant. */
export async function compileKernel(variant: Variant): Promise<Kernel> {
  return (await compileKernels([variant])).kernel(variant);
}

/** The output image a variant writes for `input`: same type and channels, or one f32 channel for Harris. */
function outputFor(variant: Variant, input: Image): Image {
  if (isFloatPipeline(variant.pipeline)) return makeImage('f32', input.width, input.height, 1);
  return makeImage(input.type, input.width, input.height, input.channels);
}

/**
 * The value outside the image is a pixel of the input's type (gray in [0, 1] for Harris on
 * u8); a message for a user otherwise, which apps check before compiling.
 */
export function checkOutside(v: Variant, outside: number): void {
  if (!Number.isFinite(outside)) throw new Error(`the value outside the image must be a finite number, not ${outside}`);
  if (isFloatPipeline(v.pipeline)) {
    if (v.type === 'u8' && !(outside >= 0 && outside <= 1)) throw new Error(`the gray value outside the image must be from 0 to 1, not ${outside}`);
    return;
  }
  if (v.type === 'u8' && !(Number.isInteger(outside) && outside >= 0 && outside <= 255)) {
    throw new Error(`the value outside a u8 image must be an integer from 0 to 255, not ${outside}`);
  }
  if (v.type === 'i32' && !(Number.isInteger(outside) && outside >= -(2 ** 31) && outside < 2 ** 31)) {
    throw new Error(`the value outside an i32 image must be a 32-bit integer, not ${outside}`);
  }
}

function checkInput(v: Variant, img: Image): void {
  if (img.type !== v.type || img.channels !== v.channels) {
    throw new Error(`kernel ${exportName(v)} takes ${v.type} images with ${v.channels} channel(s), got ${img.type} with ${img.channels}`);
  }
  const expected = img.width * img.height * img.channels;
  if ((img.data as Pixels).length !== expected) {
    throw new Error(`image data has ${img.data.length} elements, ${img.width}×${img.height}×${img.channels} needs ${expected}`);
  }
}
