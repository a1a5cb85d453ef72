// The choices a compiled image kernel is made of, and the Impala each choice stands for.
// Everything here is static: the host writes it into the entry module, and partial
// evaluation turns the combination into one specialised kernel.

export const PIPELINES = ['box3', 'gauss5', 'sobel', 'unsharp', 'harris'] as const;
export type Pipeline = (typeof PIPELINES)[number];

export const SCHEDULES = ['seq', 'par', 'tile', 'opt'] as const;
export type Schedule = (typeof SCHEDULES)[number];

export const BOUNDARIES = ['clamp', 'mirror', 'repeat', 'const'] as const;
export type Boundary = (typeof BOUNDARIES)[number];

export const ELEMENT_TYPES = ['u8', 'i32', 'f32'] as const;
export type ElementType = (typeof ELEMENT_TYPES)[number];

/** One kernel: a pipeline on images of one element type and channel count, with a schedule and a boundary mode. */
export interface Variant {
  pipeline: Pipeline;
  schedule: Schedule;
  boundary: Boundary;
  /** The element type of the input image. */
  type: ElementType;
  channels: 1 | 2 | 3 | 4;
}

export const SCHEDULE_DESCRIPTIONS: Record<Schedule, string> = {
  seq: 'rows then columns, one thread',
  par: 'rows spread over all cores (TBB), columns sequential',
  tile: '512 × 32 tiles, rows of tiles over all cores',
  opt: '512 × 32 tiles, rows of tiles over all cores, 8-lane vectorize inside tiles (needs the vectoriser)',
};

const SCHEDULE_IMPALA: Record<Schedule, string> = {
  seq: 'combine_xy(seq(), seq())',
  par: 'combine_xy(seq(), par(0))',
  tile: 'tile(512, 32, seq(), par(0))',
  opt: 'tile(512, 32, vec(8), par(0))',
};

const BOUNDARY_IMPALA: Record<Boundary, string> = {
  clamp: 'clamp_mode()',
  mirror: 'mirror_mode()',
  repeat: 'repeat_mode()',
  const: 'const_mode()',
};

/** Harris computes in f32 and returns one f32 channel; the others compute in i32 and keep the input's type and channels. */
export function isFloatPipeline(p: Pipeline): boolean {
  return p === 'harris';
}

/** Throws a message for a user when the combination is not supported. */
export function checkVariant(v: Variant): void {
  if (isFloatPipeline(v.pipeline)) {
    if (v.type === 'i32') throw new Error(`${v.pipeline} takes u8 or f32 images, not i32`);
    if (v.type === 'f32' && v.channels !== 1) throw new Error(`${v.pipeline} on f32 takes a gray image (1 channel), not ${v.channels}`);
  } else if (v.type === 'f32') {
    throw new Error(`${v.pipeline} computes in integers and takes u8 or i32 images, not f32`);
  }
}

export function exportName(v: Variant): string {
  return `${v.pipeline}_${v.type}_c${v.channels}_${v.schedule}_${v.boundary}`;
}

/** The exported entry of one variant: `name(in, out, width, height, outside)`. */
export function entryFunction(v: Variant): string {
  checkVariant(v);
  const schedule = SCHEDULE_IMPALA[v.schedule];
  const mode = BOUNDARY_IMPALA[v.boundary];
  const name = exportName(v);
  if (isFloatPipeline(v.pipeline)) {
    const input = v.type === 'u8' ? `gray_u8(inp, w, h, ${v.channels})` : 'channel_f32(inp, w, h, 1, 0)';
    return [
      `extern fn ${name}(inp: &mut [${v.type}], out: &mut [f32], w: i32, h: i32, outside: f32) -> () {`,
      `    ${v.pipeline}(${input}, channel_f32(out, w, h, 1, 0), ${schedule}, ${mode}, outside)`,
      `}`,
    ].join('\n');
  }
  const channel = `channel_${v.type}`;
  return [
    `extern fn ${name}(inp: &mut [${v.type}], out: &mut [${v.type}], w: i32, h: i32, outside: i32) -> () {`,
    `    for c in unroll(0, ${v.channels}) {`,
    `        ${v.pipeline}(${channel}(inp, w, h, ${v.channels}, c), ${channel}(out, w, h, ${v.channels}, c), ${schedule}, ${mode}, outside)`,
    `    }`,
    `}`,
  ].join('\n');
}
