// Types of bvh-kernel.mjs (the binned SAH build shared by the main thread and the builder's workers).

export interface BuildArrays {
  refBounds: Float32Array;
  order: Uint32Array;
  nodeBounds: Float32Array;
  nodeA: Int32Array;
  nodeB: Int32Array;
  nodeCount: Int32Array;
  maxLeafSize: number;
  /** Triangles the kernels test in one operation; the SAH charges leaves per block (blockSlots). */
  leafBlock: number;
  traversalCost: number;
  intersectionCost: number;
}

export interface Scratch {
  binBounds: Float32Array;
  binCount: Int32Array;
  rightArea: Float64Array;
  split: Float64Array;
  childBounds: Float64Array;
}

export const MAX_BINS: number;
export function blockSlots(n: number, block: number): number;
export function makeScratch(): Scratch;
export function rangeBounds(a: BuildArrays, start: number, end: number, out: Float64Array, o: number): void;
export function findSplit(a: BuildArrays, start: number, end: number, cb: Float64Array, o: number, s: Scratch): void;
export function partition(a: BuildArrays, start: number, end: number, s: Scratch, mid: number): number;
export function buildSubtree(a: BuildArrays, start: number, end: number, nodeBase: number, bounds: Float64Array, s: Scratch): number;
