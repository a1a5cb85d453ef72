// The GPU schedules of libs/image/gpu.impala, run by the IR interpreter (which emulates the
// launches on host memory) as emitted and after partial evaluation, against the TypeScript
// reference: `tile_gpu` as the loop of the library's pipelines, the fused `tile_gpu_at`
// through the box3 written with it, and the `gpu_shared` schedule that fuses with it. After evaluation every kernel must be plain code: no
// closure and no indirect call left for kernel extraction to deal with. gpu-opencl.test.ts
// runs the host's GPU variants natively.
import { beforeAll, describe, expect, it } from 'vitest';
import { frontEnd } from '../../compiler/src/driver/pipeline.ts';
import { Continuation, type Def, Param, PrimOp } from '../../compiler/src/ir/defs.ts';
import type { World } from '../../compiler/src/ir/world.ts';
import { arrayCells, arrayPointer, interpret, type Value } from '../../compiler/src/interp/index.ts';
import { partialEvaluate } from '../../compiler/src/pe/index.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { isControlOperand } from '../../compiler/src/ir/jumps.ts';
import { librarySources } from '../../libs/image/host.ts';
import { type Image, makeImage } from '../../libs/image/image.ts';
import { type Boundary, BOUNDARIES } from '../../libs/image/variants.ts';
import { referenceHarris, referenceInteger } from './reference.ts';
import { expectCloseImage, expectSameImage, randomImage } from './support.ts';

/** Smaller than a block, and larger than several blocks without being a multiple of them. */
const SIZES = [[1, 1], [17, 5], [33, 9]] as const;
const OUTSIDE = 77;

const MODE: Record<Boundary, string> = { clamp: 'clamp_mode()', mirror: 'mirror_mode()', repeat: 'repeat_mode()', const: 'const_mode()' };

interface Case {
  name: string;
  pipeline: 'box3' | 'gauss5' | 'sobel' | 'harris';
  type: 'i32' | 'u8';
  channels: number;
  boundary: Boundary;
  /** The exported entry `name(inp, out, w, h, outside)`. */
  entry: string;
}

/** A kernel exported as `name`: `call` reads `i` and writes `o` (channel accessors). */
function integerCase(name: string, pipeline: Case['pipeline'], boundary: Boundary, call: string): Case {
  const entry = `extern fn ${name}(inp: &mut [i32], out: &mut [i32], w: i32, h: i32, outside: i32) -> () {
    let (i, o) = (channel_i32(inp, w, h, 1, 0), channel_i32(out, w, h, 1, 0));
    ${call}
}`;
  return { name, pipeline, type: 'i32', channels: 1, boundary, entry };
}

/** The library's pipelines with their stages produced for the whole image, each one launch of `tile_gpu`. */
const gpuStages = (acc: string, bw: number, bh: number) => `tiled(0, 0, seq(), tile_gpu(${acc}_accelerator(0), ${bw}, ${bh}))`;

const MODULES: readonly (readonly Case[])[] = [
  BOUNDARIES.map((b) => integerCase(`box3_at_nvvm_${b}`, 'box3', b, `box3_gpu_at(i, o, nvvm_accelerator(0), 8, 4, ${MODE[b]}, outside)`)),
  [
    integerCase('box3_at_opencl', 'box3', 'mirror', 'box3_gpu_at(i, o, opencl_accelerator(0), 16, 2, mirror_mode(), outside)'),
    integerCase('box3_at_cuda', 'box3', 'const', 'box3_gpu_at(i, o, cuda_accelerator(0), 4, 4, const_mode(), outside)'),
    // tile_gpu as a plain Loop2D, the way the pipelines use loops.
    integerCase('box3_loop', 'box3', 'repeat', `
    for read, x, y in handle_boundaries(repeat_mode(), outside, 1, 1, tile_gpu(nvvm_accelerator(0), 8, 2), i.read, w, h, 0, 0, w, h) {
        let blur_x = |x: i32, y: i32| (read(x - 1, y) + read(x, y) + read(x + 1, y)) / 3;
        o.write(x, y, (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3)
    }`),
  ],
  [
    integerCase('box3_stages', 'box3', 'clamp', `box3(i, o, ${gpuStages('nvvm', 8, 4)}, clamp_mode(), outside)`),
    integerCase('gauss5_stages', 'gauss5', 'mirror', `gauss5(i, o, ${gpuStages('opencl', 16, 4)}, mirror_mode(), outside)`),
    integerCase('sobel_stages', 'sobel', 'const', `sobel(i, o, ${gpuStages('cuda', 4, 4)}, const_mode(), outside)`),
    {
      name: 'harris_stages', pipeline: 'harris', type: 'u8', channels: 3, boundary: 'repeat',
      entry: `extern fn harris_stages(inp: &mut [u8], out: &mut [f32], w: i32, h: i32, outside: f32) -> () {
    harris(gray_u8(inp, w, h, 3), channel_f32(out, w, h, 1, 0), ${gpuStages('nvvm', 8, 8)}, repeat_mode(), outside)
}`,
    },
  ],
  // The gpu_shared schedule: stages fused per block through shared memory, in Harris on
  // colour one nested in the other's blocks.
  [
    integerCase('gauss5_shared', 'gauss5', 'clamp', 'gauss5(i, o, gpu_shared_stages(1, 0, 8, 4), clamp_mode(), outside)'),
    {
      name: 'harris_shared', pipeline: 'harris', type: 'u8', channels: 3, boundary: 'mirror',
      entry: `extern fn harris_shared(inp: &mut [u8], out: &mut [f32], w: i32, h: i32, outside: f32) -> () {
    harris_staged(gray_u8(inp, w, h, 3), channel_f32(out, w, h, 1, 0), gpu_shared_stages(2, 0, 8, 4), mirror_mode(), outside)
}`,
    },
  ],
];

interface Module {
  world: World;
  exports: Map<string, Continuation>;
}

function build(cases: readonly Case[]): Module {
  const sink = new DiagnosticSink();
  const front = frontEnd([...librarySources(), { path: 'gpu_entry.impala', text: cases.map((c) => c.entry).join('\n\n') }], sink);
  if (!front) throw new Error(sink.list.map((d) => d.message).join('\n'));
  return { world: front.world, exports: new Map(front.emitted.exports.map((c) => [c.name, c])) };
}

function evaluate(m: Module): void {
  const sink = new DiagnosticSink();
  expect(partialEvaluate(m.world, { sink }), sink.list.map((d) => d.message).join('\n')).toBe(true);
}

/** Runs the case's kernel in the interpreter on `img`; returns the output image. */
function run(m: Module, c: Case, img: Image): Image {
  const types = m.world.types;
  const isHarris = c.pipeline === 'harris';
  const cells = (data: ArrayLike<number>, float: boolean): Value[] => Array.from(data, (v) => (float ? v : BigInt(v)));
  const out = makeImage(isHarris ? 'f32' : img.type, img.width, img.height, isHarris ? 1 : img.channels);
  const inPtr = arrayPointer(types, types.prim(img.type), cells(img.data, false));
  const outPtr = arrayPointer(types, types.prim(out.type), cells(out.data, isHarris));
  const outside = isHarris ? 0.25 : BigInt(OUTSIDE);
  interpret(m.world, m.exports.get(c.name)!, [inPtr, outPtr, BigInt(img.width), BigInt(img.height), outside], { stepLimit: 50_000_000 });
  out.data.set(arrayCells(outPtr).map(Number));
  return out;
}

function check(m: Module, c: Case, w: number, h: number, label: string): void {
  const img = randomImage(c.type, w, h, c.channels, w * 7919 + h);
  const out = run(m, c, img);
  if (c.pipeline === 'harris') expectCloseImage(out, referenceHarris(img, c.boundary, 0.25), label);
  else expectSameImage(out, referenceInteger(c.pipeline, img, c.boundary, OUTSIDE), label);
}

/**
 * What keeps a kernel from being plain code, for every launch `from` reaches: a call
 * through a value that is not a return continuation, or a continuation passed as a value
 * (a closure). The kernel is the launch's body and everything its code mentions.
 */
function kernelProblems(from: Continuation): { launches: number; problems: string[] } {
  const problems: string[] = [];
  const launches: Continuation[] = [];
  const visit = (roots: readonly Continuation[], each: (c: Continuation) => void): void => {
    const seen = new Set<Def>(roots);
    const stack: Def[] = [...roots];
    while (stack.length) {
      const d = stack.pop()!;
      if (d instanceof Continuation) each(d);
      for (const o of d instanceof Continuation || d instanceof PrimOp ? d.ops : []) {
        if (!seen.has(o)) {
          seen.add(o);
          stack.push(o);
        }
      }
    }
  };
  visit([from], (c) => {
    const callee = c.hasBody ? c.callee : null;
    if (callee instanceof Continuation && ['cuda', 'nvvm', 'opencl'].includes(callee.intrinsic)) launches.push(c);
  });
  const kernels = launches.map((l) => l.arg(4) as Continuation);
  const closures = (d: Def, found: Continuation[], seen = new Set<Def>()): Continuation[] => {
    if (seen.has(d)) return found;
    seen.add(d);
    if (d instanceof Continuation) found.push(d);
    else if (d instanceof PrimOp) for (const o of d.ops) closures(o, found, seen);
    return found;
  };
  visit(kernels, (c) => {
    if (!c.hasBody) return;
    const callee = c.callee;
    if (!(callee instanceof Continuation) && !(callee instanceof Param && callee.continuation.retParam === callee)) {
      problems.push(`${c.label} calls ${callee.label}, which is not a known function`);
    }
    c.args.forEach((a, i) => {
      if (isControlOperand(c, i + 1)) return;
      for (const k of closures(a, [])) problems.push(`${c.label} passes ${k.label} as a value`);
    });
  });
  return { launches: launches.length, problems };
}

describe.each(MODULES.map((cases) => [cases.map((c) => c.name).join(', '), cases] as const))('%s', (_names, cases) => {
  let emitted: Module;
  let evaluated: Module;
  beforeAll(() => {
    emitted = build(cases);
    evaluated = build(cases);
    evaluate(evaluated);
  });

  for (const c of cases) {
    it(`${c.name} matches the reference as emitted and after partial evaluation`, () => {
      for (const [w, h] of SIZES) {
        check(emitted, c, w, h, `${c.name} ${w}×${h} as emitted`);
        check(evaluated, c, w, h, `${c.name} ${w}×${h} evaluated`);
      }
    });

    it(`${c.name}: after partial evaluation its kernels have no closures and no indirect calls`, () => {
      const { launches, problems } = kernelProblems(evaluated.exports.get(c.name)!);
      expect(launches).toBeGreaterThan(0);
      expect(problems).toEqual([]);
      // The check sees closures where there are some: the same kernels as emitted.
      expect(kernelProblems(emitted.exports.get(c.name)!).problems).not.toEqual([]);
    });
  }
});
