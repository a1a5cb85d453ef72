// The integer a pointer casts to. Memory here is typed blocks, not bytes, but a program
// may still look at addresses (`&s.f as u64 - &s as u64`, alignment checks); so each
// block gets a base address the first time one of its pointers is cast, far enough from
// every other block's, and a pointer is its block's base plus the byte offset of its
// element path under ir/layout.ts, which is where native code finds the same element.
import { cpuLayout } from '../ir/layout.ts';
import type { IRType } from '../ir/types.ts';
import { typeAt } from './memory.ts';
import { InterpError, type MemBlock, type Pointer } from './values.ts';

/** Block bases are multiples of this, so every alignment a type can ask for holds. */
const BASE_ALIGN = 4096n;

export class Addresses {
  private readonly bases = new WeakMap<MemBlock, bigint>();
  /** The first address after the last block placed (0 stays the null pointer). */
  private next = BASE_ALIGN;

  of(ptr: Pointer): bigint {
    const block = ptr.block;
    if (!block) {
      if (ptr.path.length) throw new InterpError('unsupported in interpreter: the address of an element of a null pointer');
      return 0n;
    }
    return this.base(block) + BigInt(offset(block, ptr.path));
  }

  private base(block: MemBlock): bigint {
    let b = this.bases.get(block);
    if (b === undefined) {
      b = this.next;
      const bytes = BigInt(block.type ? cpuLayout.size(block.type) : (block.bytes ?? 0));
      // One byte more than the block, so a pointer just past its end is no other block's start.
      this.next = ((b + bytes + BASE_ALIGN) / BASE_ALIGN) * BASE_ALIGN;
      this.bases.set(block, b);
    }
    return b;
  }
}

function offset(block: MemBlock, path: readonly number[]): number {
  if (!path.length) return 0;
  if (!block.type) throw new InterpError(`unsupported in interpreter: the address of an element of ${block.what} before it is typed by an access`);
  let t: IRType | null = block.type;
  let bytes = 0;
  for (const i of path) {
    if (!t) throw new InterpError(`unsupported in interpreter: an address inside ${block.what} that its type does not have`);
    bytes += cpuLayout.offset(t, i);
    t = typeAt(t, [i]);
  }
  return bytes;
}
