// The TypeScript side of the multigrid library: writes the entry module for the chosen
// variants (levels, schedule, merged or not), compiles it with the library and the image
// library's schedule and boundary code through the artifact cache, and runs the V-cycle on
// Float64Arrays. GPU variants take host arrays too: each call copies the problem to the
// device once and the solution back once.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compile, type SourceFile } from '@anydsl/compiler';
import { checkGpuDeviceNumber, deviceRuntime, gpuPlatform } from '../shared/device.ts';
import { librarySources as imageSources } from '../image/host.ts';
import { DEFAULT_GPU_DEVICE } from '../image/variants.ts';

const LIBRARY_FILES = ['vcycle.impala', 'poisson.impala'];

export const MG_SCHEDULES = ['seq', 'par', 'vec', 'gpu', 'gpu_shared'] as const;
export type MgScheduleName = (typeof MG_SCHEDULES)[number];
/** The schedules whose kernels run on a GPU (libs/image/gpu.impala's launches), on the variant's `device`. */
export const MG_GPU_SCHEDULES: readonly MgScheduleName[] = ['gpu', 'gpu_shared'];

export const MG_SCHEDULE_DESCRIPTIONS: Record<MgScheduleName, string> = {
  seq: 'rows then columns, one thread',
  par: 'strips of 8 rows spread over all cores (TBB), columns sequential',
  vec: 'as par, with smoother and residual vectorised 8 lanes of f64 (AVX-512); restriction and interpolation scalar',
  gpu: 'one work item per cell in 32 × 4 blocks on a GPU (ANYDSL_DEVICE picks), every grid in device memory; merged, a work item per coarse cell computes the four fine residuals it restricts',
  gpu_shared: 'as gpu; merged, blocks of 32 × 8 fine cells compute their residual into shared memory and restrict it after a barrier (GPCE\'15 §5.2)',
};

/** One compiled V-cycle: the number of levels is static (the recursion is unrolled), sizes are not. */
export interface MgVariant {
  levels: number;
  schedule: MgScheduleName;
  /** Residual and restriction merged (two fine rows of residual at a time, GPCE'15 Figure 8; on a GPU, one launch without a residual field). */
  merge: boolean;
  /**
   * GPU schedules only: the runtime device the kernels run on, platform | (index << 4)
   * (1: CUDA device 0, 2: OpenCL device 0, the default).
   */
  device?: number;
}

/** The most levels a variant may have (a 2^15 grid coarsened to one cell). */
export const MAX_LEVELS = 16;

export function isGpuVariant(v: MgVariant): boolean {
  return MG_GPU_SCHEDULES.includes(v.schedule);
}

/** The runtime device of a GPU variant. */
export function gpuDevice(v: MgVariant): number {
  return v.device ?? DEFAULT_GPU_DEVICE;
}

/** The Impala expressions of the variant's stencil and transfer Stages. */
function scheduleImpala(v: MgVariant): { stencil: string; transfer: string } {
  switch (v.schedule) {
    case 'seq':
      return { stencil: 'seq_stages()', transfer: 'seq_stages()' };
    case 'par':
      return { stencil: 'tiled(0, 8, par(0), combine_xy(seq(), seq()))', transfer: 'tiled(0, 8, par(0), combine_xy(seq(), seq()))' };
    case 'vec':
      return { stencil: 'tiled(0, 8, par(0), combine_xy(vec(8), seq()))', transfer: 'tiled(0, 8, par(0), combine_xy(seq(), seq()))' };
    case 'gpu':
    case 'gpu_shared': {
      const { platform, index } = gpuPlatform(gpuDevice(v));
      const blocks = `gpu_stages(${platform}, ${index}, 32, 4)`;
      return { stencil: v.schedule === 'gpu' ? blocks : `gpu_shared_stages(${platform}, ${index}, 32, 8)`, transfer: blocks };
    }
  }
}

export function variantName(v: MgVariant): string {
  return `vcycle_l${v.levels}_${v.schedule}${isGpuVariant(v) ? `_d${gpuDevice(v)}` : ''}${v.merge ? '_merged' : ''}`;
}

/** Throws a message for a user when the variant is not one the library builds. */
export function checkVariant(v: MgVariant): void {
  if (!Number.isInteger(v.levels) || v.levels < 1 || v.levels > MAX_LEVELS) throw new Error(`levels must be an integer from 1 to ${MAX_LEVELS}, not ${v.levels}`);
  if (!MG_SCHEDULES.includes(v.schedule)) throw new Error(`unknown schedule '${v.schedule}' (${MG_SCHEDULES.join(', ')})`);
  if (v.device !== undefined) {
    if (!isGpuVariant(v)) throw new Error(`only GPU schedules run on a device, not ${v.schedule}`);
    checkGpuDeviceNumber(v.device);
  }
}

/** The exported functions of one variant. */
function entryFunctions(v: MgVariant): string {
  const name = variantName(v);
  const s = scheduleImpala(v);
  const schedule = `${name}_schedule`;
  const components = 'jacobi, poisson_residual, restrict_mean, interpolate_bilinear';
  const field = 'workspace_field(sol, rhs, work, n)';
  const workLevels = Math.max(v.levels, 2); // the first level alone needs level 1
  if (isGpuVariant(v)) {
    // The host's arrays; the field and its workspace live on the device for the whole call.
    const onDevice = (levels: number, back: boolean, body: string) =>
      `with_device_field(${gpuDevice(v)}, sol, rhs, n, ${levels}, ${back}, |field| ${body})`;
    return [
      `fn @${schedule}() -> MgSchedule { MgSchedule { stencil: ${s.stencil}, transfer: ${s.transfer}, merge: ${v.merge} } }`,
      `extern fn ${name}(sol: &mut [f64], rhs: &mut [f64], n: i32, vsteps: i32, ssteps: i32) -> () {`,
      `    ${onDevice(v.levels, true, `vcycle(field, ${v.levels}, vsteps, ssteps, ${components}, ${schedule})`)}`,
      `}`,
      `extern fn ${name}_first_level(sol: &mut [f64], rhs: &mut [f64], n: i32, ssteps: i32) -> () {`,
      `    ${onDevice(workLevels, true, `vcycle_level(field, 0, ssteps, ${schedule}, ${components}, || ())`)}`,
      `}`,
      `extern fn ${name}_norm(sol: &mut [f64], rhs: &mut [f64], n: i32) -> f64 {`,
      `    let mut norm = 0.0;`,
      `    ${onDevice(1, false, `norm = residual_norm(field, ${schedule}, poisson_residual)`)};`,
      `    norm`,
      `}`,
    ].join('\n');
  }
  return [
    `fn @${schedule}() -> MgSchedule { MgSchedule { stencil: ${s.stencil}, transfer: ${s.transfer}, merge: ${v.merge} } }`,
    `extern fn ${name}(sol: &mut [f64], rhs: &mut [f64], work: &mut [f64], n: i32, vsteps: i32, ssteps: i32) -> () {`,
    `    vcycle(${field}, ${v.levels}, vsteps, ssteps, ${components}, ${schedule})`,
    `}`,
    `extern fn ${name}_first_level(sol: &mut [f64], rhs: &mut [f64], work: &mut [f64], n: i32, ssteps: i32) -> () {`,
    `    vcycle_level(${field}, 0, ssteps, ${schedule}, ${components}, || ())`,
    `}`,
    `extern fn ${name}_norm(sol: &mut [f64], rhs: &mut [f64], n: i32) -> f64 {`,
    `    residual_norm(workspace_field(sol, rhs, sol, n), ${schedule}, poisson_residual)`,
    `}`,
    `extern fn ${name}_work(n: i32) -> i64 { work_size(n, ${workLevels}) }`,
  ].join('\n');
}

/** The library with the image library and the entry module of `variants`. */
export function multigridSources(variants: readonly MgVariant[]): SourceFile[] {
  // The image library gives the loop schedules, the boundary regions and scratch memory.
  return [
    ...imageSources(),
    ...LIBRARY_FILES.map((file) => ({ path: `libs/multigrid/${file}`, text: readFileSync(fileURLToPath(new URL(file, import.meta.url)), 'utf8') })),
    { path: 'multigrid_entry.impala', text: variants.map(entryFunctions).join('\n\n') + '\n' },
  ];
}

/** A compiled variant; sol is updated in place, rhs is read, both n × n in row order. */
export interface Multigrid {
  readonly variant: MgVariant;
  /** `vsteps` V-cycles with `ssteps` smoothing sweeps before and after each coarse-grid correction. */
  vcycle(sol: Float64Array, rhs: Float64Array, n: number, vsteps: number, ssteps: number): void;
  /** Only the finest level's work (smoothing, residual, restriction, interpolation of whatever the next level holds, smoothing): the paper's Figure 9 measurement. */
  firstLevel(sol: Float64Array, rhs: Float64Array, n: number, ssteps: number): void;
  /** The discrete L2 norm of the residual, sqrt(h² Σ (f − A·u)²). */
  residualNorm(sol: Float64Array, rhs: Float64Array, n: number): number;
  /** GPU variants: the device the kernels run on, the microseconds they have run so far, and those of the copies to and from the device. */
  readonly gpu?: { deviceName(): string; kernelMicros(): number; copyMicros(): number };
}

/** Why n cannot be the size of a variant's finest grid, or undefined when it can. */
export function sizeProblem(n: number, levels: number): string | undefined {
  if (!Number.isInteger(n) || n < 1 || n > 32768) return `the size must be an integer from 1 to 32768, not ${n}`;
  const step = 2 ** (levels - 1);
  if (n % step !== 0) return `the size ${n} must be divisible by 2^(levels − 1) = ${step} for ${levels} levels`;
  return undefined;
}

/** The most levels a grid of n cells per side has: halved until odd. */
export function maxLevels(n: number): number {
  let levels = 1;
  while (n % 2 === 0 && n > 1 && levels < MAX_LEVELS) {
    n /= 2;
    levels++;
  }
  return levels;
}

/** Compiles `variants` into one library at -O3 for this machine's CPU. */
export async function compileMultigrid(variants: readonly MgVariant[]): Promise<Map<string, Multigrid>> {
  variants.forEach(checkVariant);
  const unique = [...new Map(variants.map((v) => [variantName(v), v])).values()];
  const library = await compile({ sources: multigridSources(unique), options: { optLevel: 3 } });
  const result = new Map<string, Multigrid>();
  for (const v of unique) {
    const name = variantName(v);
    const run = library.fn(name);
    const first = library.fn(`${name}_first_level`);
    const norm = library.fn(`${name}_norm`);
    const gpu = isGpuVariant(v);
    const workSize = gpu ? undefined : library.fn(`${name}_work`);
    // The workspace of the last size, kept between calls so that repeated cycles do not fault
    // in fresh pages (a GPU variant's is on the device, where the runtime pools released buffers).
    let work = new Float64Array(0);
    const workFor = (n: number): Float64Array => {
      const size = Number(workSize!(n));
      if (work.length !== size) work = new Float64Array(size);
      return work;
    };
    const runtime = gpu ? deviceRuntime(library.path) : undefined;
    const check = (sol: Float64Array, rhs: Float64Array, n: number, levels: number) => {
      const problem = sizeProblem(n, levels);
      if (problem) throw new Error(problem);
      if (sol.length !== n * n || rhs.length !== n * n) throw new Error(`sol and rhs must hold ${n}×${n} values, not ${sol.length} and ${rhs.length}`);
    };
    const steps = (what: string, k: number) => {
      if (!Number.isInteger(k) || k < 0 || k > 1_000_000) throw new Error(`${what} must be an integer from 0 to 1000000, not ${k}`);
    };
    result.set(name, {
      variant: v,
      gpu: runtime && { deviceName: () => runtime.name(gpuDevice(v)), kernelMicros: runtime.kernelMicros, copyMicros: runtime.copyMicros },
      vcycle(sol, rhs, n, vsteps, ssteps) {
        check(sol, rhs, n, v.levels);
        steps('vsteps', vsteps);
        steps('ssteps', ssteps);
        if (gpu) run(sol, rhs, n, vsteps, ssteps);
        else run(sol, rhs, workFor(n), n, vsteps, ssteps);
      },
      firstLevel(sol, rhs, n, ssteps) {
        check(sol, rhs, n, Math.max(v.levels, 2));
        steps('ssteps', ssteps);
        if (gpu) first(sol, rhs, n, ssteps);
        else first(sol, rhs, workFor(n), n, ssteps);
      },
      residualNorm(sol, rhs, n) {
        check(sol, rhs, n, 1);
        return Number(norm(sol, rhs, n));
      },
    });
  }
  return result;
}

/** Compiles one variant. */
export async function compileVariant(v: MgVariant): Promise<Multigrid> {
  return (await compileMultigrid([v])).get(variantName(v))!;
}
