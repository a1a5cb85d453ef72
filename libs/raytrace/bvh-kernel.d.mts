// Types of bvh-kernel.mjs (the binned SAH build shared by the main thread and the builder's workers).

export interface BuildArrays {
  refBounds: Float32Array;
  order: Uint32Array;
  nodeBounds: Float32Array;
  nodeA: Int32Array;
  nodeB: Int32Array;
  nodeCount: Int32Array;
  maxLeafSize: number;
  traversalCost: number;
  intersectionCost: number;
}

export interface Scratch {
  binBounds: Float32Array;
  binCount: Int32Array;
  rightArea: Float64Array;
  axis: number;
  bin: number;
  cost: number;
  cmin: number;
  scale: number;
}

export const MAX_BINS: number;
export function makeScratch(): Scratch;
export function rangeBounds(a: BuildArrays, start: number, end: number, node: number, cb: Float64Array): void;
export function findSplit(a: BuildArrays, start: number, end: number, cb: Float64Array, s: Scratch): void;
export function partition(a: BuildArrays, start: number, end: number, s: Scratch): number;
export function divide(a: BuildArrays, start: number, end: number, node: number, cb: Float64Array, s: Scratch): number;
export function buildSubtree(a: BuildArrays, start: number, end: number, nodeBase: number, s: Scratch): number;
