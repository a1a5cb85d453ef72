// GPU launches (`cuda`, `nvvm`, `opencl`) on the interpreter's single thread, so
// that GPU schedules have an oracle before any GPU backend exists.
//
// A launch runs its blocks one after another. The work items of a block are
// cooperative coroutines, which costs nothing in the interpreter's CPS: a work item
// is just its next jump. One runs until it finishes or reaches a barrier; at a
// barrier its return jump is parked and the next ready item of the block runs.
// When every item waits, all of them resume, in order. Items run to their next
// barrier one at a time, so a kernel that lacks a barrier reads what other items
// have not written yet, as it may on hardware, and its results come out wrong.
//
// The targets' builtins answer for the running item: NVVM's special registers
// (`llvm.nvvm.read.ptx.sreg.tid.x`, …, `llvm.nvvm.barrier0`), which `cuda` kernels
// use as well since both compile to NVVM IR, and OpenCL's work-item functions
// (`get_local_id(d)`, …, `barrier(flags)`). `reserve_shared` gives every item of a
// block the same memory: the k-th call of each item gets the block's k-th array,
// which is how the static shared arrays of a kernel behave when each call runs
// once per item.
//
// What hardware rejects is an error here too: a grid that is empty or not a
// multiple of the block, a launch inside a launch, builtins of another target or
// outside any launch, and a barrier that only some items of a block reach.
import type { Continuation } from '../ir/defs.ts';
import { FnType, IndefiniteArrayType, PrimType, PtrType } from '../ir/types.ts';
import { newBlock } from './memory.ts';
import { wrapInt } from './numeric.ts';
import { defaultValue, InterpError, type Jump, MemBlock, NativeFn, Pointer, type Value } from './values.ts';

export type LaunchKind = 'cuda' | 'nvvm' | 'opencl';

type Dim3 = readonly [number, number, number];

type Query = 'tid' | 'ntid' | 'ctaid' | 'nctaid' | 'global_id' | 'global_size';

/** NVVM special registers by name; the dimension is the suffix. */
const NVVM_SREG = /^llvm\.nvvm\.read\.ptx\.sreg\.(tid|ntid|ctaid|nctaid)\.([xyz])$/;

const OPENCL_QUERIES: Readonly<Record<string, Query>> = {
  get_local_id: 'tid',
  get_local_size: 'ntid',
  get_group_id: 'ctaid',
  get_num_groups: 'nctaid',
  get_global_id: 'global_id',
  get_global_size: 'global_size',
};

interface WorkItem {
  readonly tid: Dim3;
  /** Where the item continues: its body at first, then the return of the barrier it waits at. */
  resume: Jump;
  done: boolean;
  /** How many `reserve_shared` calls it has made. */
  shared: number;
}

interface SharedArray {
  readonly pointer: Pointer;
  readonly type: PtrType;
  readonly length: number;
}

class Launch {
  private block: Dim3 = [0, 0, 0];
  private blockIndex = -1;
  private items: WorkItem[] = [];
  private ready: WorkItem[] = [];
  private waiting: WorkItem[] = [];
  private shared: SharedArray[] = [];
  current!: WorkItem;
  private readonly finish: NativeFn;

  constructor(
    readonly kind: LaunchKind,
    private readonly blockDim: Dim3,
    private readonly blocks: Dim3,
    private readonly body: Value,
    private readonly ret: Value,
    private readonly end: () => void,
  ) {
    this.finish = new NativeFn(`${kind}.item_done`, ([m]) => {
      this.current.done = true;
      return this.next(m!);
    });
  }

  /** The jump of the next ready item, after starting the next block or ending the launch when none is left. */
  next(mem: Value): Jump {
    for (;;) {
      const item = this.ready.shift();
      if (item) {
        this.current = item;
        return item.resume;
      }
      if (this.waiting.length) {
        if (this.items.some((i) => i.done)) {
          throw new InterpError(`${this.kind} launch: in block (${this.block.join(', ')}), ${this.waiting.length} of ${this.items.length} work items wait at a barrier the others finished without reaching`);
        }
        [this.ready, this.waiting] = [this.waiting, []];
        continue;
      }
      for (const s of this.shared) (s.pointer.block as MemBlock).freed = true;
      this.shared = [];
      if (++this.blockIndex === this.blocks[0] * this.blocks[1] * this.blocks[2]) {
        this.end();
        return { callee: this.ret, args: [mem] };
      }
      this.startBlock(mem);
    }
  }

  private startBlock(mem: Value): void {
    const [nx, ny] = this.blocks;
    const b = this.blockIndex;
    this.block = [b % nx, Math.floor(b / nx) % ny, Math.floor(b / (nx * ny))];
    const [bx, by, bz] = this.blockDim;
    this.items = [];
    for (let z = 0; z < bz; z++) {
      for (let y = 0; y < by; y++) {
        for (let x = 0; x < bx; x++) {
          this.items.push({ tid: [x, y, z], resume: { callee: this.body, args: [mem, this.finish] }, done: false, shared: 0 });
        }
      }
    }
    this.ready = [...this.items];
  }

  barrier(mem: Value, ret: Value): Jump {
    this.current.resume = { callee: ret, args: [mem] };
    this.waiting.push(this.current);
    return this.next(mem);
  }

  query(q: Query, dim: number): number {
    if (dim > 2) return q === 'ntid' || q === 'nctaid' || q === 'global_size' ? 1 : 0;
    switch (q) {
      case 'tid': return this.current.tid[dim]!;
      case 'ntid': return this.blockDim[dim]!;
      case 'ctaid': return this.block[dim]!;
      case 'nctaid': return this.blocks[dim]!;
      case 'global_id': return this.block[dim]! * this.blockDim[dim]! + this.current.tid[dim]!;
      case 'global_size': return this.blocks[dim]! * this.blockDim[dim]!;
    }
  }

  reserveShared(type: PtrType, length: number): Pointer {
    const k = this.current.shared++;
    const known = this.shared[k];
    if (!known) {
      const elem = (type.pointee as IndefiniteArrayType).elem;
      const cells = Array.from({ length }, () => defaultValue(elem));
      const pointer = new Pointer(newBlock(type.pointee, `shared array ${k} of block (${this.block.join(', ')})`, cells), []);
      this.shared.push({ pointer, type, length });
      return pointer;
    }
    if (known.type !== type || known.length !== length) {
      throw new InterpError(`reserve_shared: call ${k + 1} of a work item asks for ${length} × ${type.pointee}, the block's array ${k + 1} is ${known.length} × ${known.type.pointee}`);
    }
    return known.pointer;
  }
}

export class GpuEmulator {
  private active: Launch | null = null;

  /** A launch intrinsic's jump; `args` are mem, device, grid, block, body and the return continuation. */
  launch(kind: LaunchKind, args: readonly Value[]): Jump {
    const [mem, , grid, block, body, ret] = args;
    if (this.active) throw new InterpError(`${kind} launch inside a GPU kernel`);
    const g = dim3(grid!);
    const b = dim3(block!);
    if (b.some((n) => n < 1)) throw new InterpError(`${kind} launch with block (${b.join(', ')}): every dimension must be at least 1`);
    if (g.some((n, i) => n < 1 || n % b[i]! !== 0)) {
      throw new InterpError(`${kind} launch with grid (${g.join(', ')}) and block (${b.join(', ')}): the grid counts work items and must be a non-empty multiple of the block`);
    }
    const launch = new Launch(kind, b, [g[0] / b[0], g[1] / b[1], g[2] / b[2]], body!, ret!, () => (this.active = null));
    this.active = launch;
    return launch.next(mem!);
  }

  reserveShared(callee: Continuation, args: readonly Value[]): Jump {
    const [mem, n, ret] = args;
    const result = (callee.retParam?.type as FnType).params[1];
    if (!(result instanceof PtrType) || !(result.pointee instanceof IndefiniteArrayType)) {
      throw new InterpError(`reserve_shared: unexpected signature ${callee.type}`);
    }
    const length = Number(n as bigint);
    if (length < 0) throw new InterpError(`reserve_shared of ${length} elements`);
    return { callee: ret!, args: [mem!, this.inside('reserve_shared').reserveShared(result, length)] };
  }

  /** Whether `callee` (an imported function) is a builtin this emulator answers. */
  handles(callee: Continuation): boolean {
    if (callee.cc !== 'device') return false;
    const name = callee.linkName ?? callee.name;
    return NVVM_SREG.test(name) || name === 'llvm.nvvm.barrier0' || Object.hasOwn(OPENCL_QUERIES, name) || name === 'barrier';
  }

  /** The call of a builtin that `handles` accepted; `args` are mem, the builtin's arguments and the return continuation. */
  call(callee: Continuation, args: readonly Value[]): Jump {
    const name = callee.linkName ?? callee.name;
    const mem = args[0]!;
    const ret = args[args.length - 1]!;
    const nvvm = NVVM_SREG.exec(name);
    const launch = this.inside(name);
    const family = nvvm || name === 'llvm.nvvm.barrier0' ? 'nvvm' : 'opencl';
    if ((family === 'nvvm') !== (launch.kind !== 'opencl')) throw new InterpError(`${name} is an ${family} builtin, used in a kernel launched with ${launch.kind}`);
    if (name === 'llvm.nvvm.barrier0' || name === 'barrier') return launch.barrier(mem, ret);
    const value = nvvm
      ? launch.query(nvvm[1] as Query, 'xyz'.indexOf(nvvm[2]!))
      : launch.query(OPENCL_QUERIES[name]!, Number(args[1] as bigint));
    return { callee: ret, args: [mem, wrapInt(resultType(callee), BigInt(value))] };
  }

  private inside(what: string): Launch {
    if (!this.active) throw new InterpError(`${what} outside a GPU kernel`);
    return this.active;
  }
}

function dim3(v: Value): Dim3 {
  if (!Array.isArray(v) || v.length !== 3) throw new InterpError('a launch dimension must be a triple of i32');
  return [Number(v[0] as bigint), Number(v[1] as bigint), Number(v[2] as bigint)];
}

function resultType(callee: Continuation): PrimType {
  const t = (callee.retParam?.type as FnType | undefined)?.params[1];
  if (!(t instanceof PrimType) || !t.isInt) throw new InterpError(`${callee.name}: a work-item query must return an integer`);
  return t;
}
