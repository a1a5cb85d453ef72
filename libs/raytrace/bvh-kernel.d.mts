// Types of bvh-kernel.mjs (the binary build, object and spatial splits, shared by the main thread and the builder's workers).

export interface BuildArrays {
  /** 6 floats per slot: the box of the reference in it. */
  refBounds: Float32Array;
  /** The triangle of the reference in each slot. */
  refPrim: Uint32Array;
  nodeBounds: Float32Array;
  nodeA: Int32Array;
  nodeB: Int32Array;
  nodeCount: Int32Array;
  maxLeafSize: number;
  /** Triangles the kernels test in one operation; the SAH charges leaves per block (blockSlots). */
  leafBlock: number;
  traversalCost: number;
  intersectionCost: number;
  /** The mesh, for spatial splits (null: object splits only). */
  positions: Float32Array | null;
  triangles: Uint32Array | null;
  /** Half-area of the root's box (the spatial splits' overlap threshold is relative to it). */
  rootArea: number;
}

export interface Scratch {
  split: Float64Array;
  childBounds: Float64Array;
  ranges: Int32Array;
}

export const MAX_BINS: number;
export function blockSlots(n: number, block: number): number;
export function halfArea(b: ArrayLike<number>, o: number): number;
export function makeScratch(): Scratch;
export function rangeBounds(a: BuildArrays, start: number, end: number, out: Float64Array, o: number): void;
export function findSplit(a: BuildArrays, start: number, end: number, cb: Float64Array, o: number, s: Scratch): void;
export function partition(a: BuildArrays, start: number, end: number, s: Scratch, mid: number): number;
export function splitNode(a: BuildArrays, start: number, end: number, extEnd: number, boxes: Float64Array, o: number, s: Scratch): boolean;
export function buildSubtree(a: BuildArrays, start: number, end: number, extEnd: number, nodeBase: number, bounds: Float64Array, s: Scratch): number;
