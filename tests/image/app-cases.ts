// What the tests of Halide's app pipelines share: their variants (every CPU schedule with the
// boundary modes spread over them, as boundary handling is the same code under every
// schedule, `opt` in a second mode, and one more element type) and the check of each kernel
// against the pipeline's reference at SIZES, bit for bit. The reference is the slow side, so
// variants that share an input and a boundary mode share its result. Compiling is the slowest
// side: a pipeline whose kernels take minutes checks them in two files (partOf), one per
// vitest worker.
import { beforeAll, describe, it } from 'vitest';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import type { Image } from '../../libs/image/image.ts';
import { type Boundary, BOUNDARIES, exportName, SCHEDULES, type Variant } from '../../libs/image/variants.ts';
import { expectSameImage, SIZES } from './support.ts';

type Format = Pick<Variant, 'pipeline' | 'type' | 'channels'>;

/**
 * `main` under every CPU schedule, mode i % 4 for schedule i; `mirrored` (main unless given)
 * under `opt` in mirror mode; `other` under `opt` in its mode (repeat unless given): eight
 * kernels, two modules.
 */
export function appVariants(main: Format, other: Format & { boundary?: Boundary }, mirrored: Format = main): Variant[] {
  return [
    ...SCHEDULES.map((schedule, i) => ({ ...main, schedule, boundary: BOUNDARIES[i % BOUNDARIES.length]! })),
    { ...mirrored, schedule: 'opt', boundary: 'mirror' },
    { boundary: 'repeat', ...other, schedule: 'opt' },
  ];
}

export interface AppCase {
  title: string;
  variants: readonly Variant[];
  reference: (img: Image, mode: Boundary, outside: number) => Image;
  /** The input of a variant at w × h (deterministic). */
  input: (v: Variant, w: number, h: number) => Image;
  /** The value outside the image in constant mode, on the scale of the variant's type. */
  outside: (v: Variant) => number;
  /**
   * One of `variants` that an app's test also compiles, as the app does: alone, one kernel
   * per module. Compiled first and alone here too, so that whichever file comes second finds
   * it in the artifact cache instead of compiling it again.
   */
  asAnAppCompilesIt?: Variant;
}

/**
 * The variants of `c` under the schedules that fuse stages (`opt`, `slide`: their kernels
 * compile several times longer than the others), or the others and the kernel an app
 * compiles, which is compiled alone anyway: the two halves of a pipeline that compiles for
 * minutes, each a test file of its own so that vitest's two workers share them (and neither
 * file's compile nears the hook's limit on a loaded machine).
 */
export function partOf(c: AppCase, part: 'fused' | 'rest'): AppCase {
  const inFused = (v: Variant) => (v.schedule === 'opt' || v.schedule === 'slide') && v !== c.asAnAppCompilesIt;
  return { ...c, variants: c.variants.filter((v) => inFused(v) === (part === 'fused')) };
}

/** Compiles the variants once and checks each at every size against the reference. */
export function describeAgainstReference(c: AppCase): void {
  const references = new Map<string, Image>();
  const once = (key: string, make: () => Image) => {
    if (!references.has(key)) references.set(key, make());
    return references.get(key)!;
  };
  let kernels: KernelSet;
  // The fused bilateral kernels, about 170 of the 296 s the whole bilateral test took in CI,
  // took over 600 s with two files compiling at once on a machine loaded by other work.
  beforeAll(async () => {
    const alone = c.asAnAppCompilesIt && c.variants.includes(c.asAnAppCompilesIt) && exportName(c.asAnAppCompilesIt);
    const first = alone ? await compileKernels([c.asAnAppCompilesIt!]) : undefined;
    const rest = await compileKernels(c.variants.filter((v) => exportName(v) !== alone));
    kernels = { kernel: (v) => (first && exportName(v) === alone ? first : rest).kernel(v) };
  }, 1_200_000);

  describe.each(c.variants.map((v) => [`${v.type}×${v.channels} ${v.schedule}/${v.boundary}`, v] as const))(`${c.title} %s`, (_label, v) => {
    it.each(SIZES)('%i×%i matches the reference', (w, h) => {
      const outside = c.outside(v);
      const img = c.input(v, w, h);
      const expected = once(`${v.type} ${v.channels} ${v.boundary} ${w}×${h}`, () => c.reference(img, v.boundary, outside));
      expectSameImage(kernels.kernel(v).run(img, { outside }), expected, `${v.schedule}/${v.boundary}`);
    });
  });
}
