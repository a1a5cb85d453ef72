// How anydsl_parallel_for (runtime/threads.cpp) cuts a loop into calls of its body: at least
// 8 chunks per thread, so that when another process takes a core the other threads take
// over all but the one chunk its thread is running (no static halves), and one call per
// iteration where there are fewer iterations than that.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRuntime } from '../../compiler/src/driver/runtime-build.ts';
import { llvmToExecutable } from '../../compiler/src/driver/toolchain.ts';
import { RUNTIME_DECLS, run, useTempDir } from './helpers.ts';

const tmp = useTempDir();

// body(acc, lo, hi) counts its calls in acc[0], the iterations it got in acc[1] and the
// largest chunk in acc[2]; run(threads, lo, hi) prints the three.
const IR = `${RUNTIME_DECLS}
define void @body(ptr %acc, i32 %lo, i32 %hi) {
  %n = sub i32 %hi, %lo
  %n64 = sext i32 %n to i64
  %old = atomicrmw add ptr %acc, i64 1 seq_cst
  %sum = getelementptr i64, ptr %acc, i64 1
  %old2 = atomicrmw add ptr %sum, i64 %n64 seq_cst
  %max = getelementptr i64, ptr %acc, i64 2
  %old3 = atomicrmw max ptr %max, i64 %n64 seq_cst
  ret void
}
define void @run(i32 %threads, i32 %lo, i32 %hi) {
  %acc = call ptr @anydsl_alloc(i32 0, i64 24)
  call void @llvm.memset.p0.i64(ptr %acc, i8 0, i64 24, i1 false)
  call void @anydsl_parallel_for(i32 %threads, i32 %lo, i32 %hi, ptr %acc, ptr @body)
  %sum = getelementptr i64, ptr %acc, i64 1
  %max = getelementptr i64, ptr %acc, i64 2
  %c = load i64, ptr %acc
  %s = load i64, ptr %sum
  %m = load i64, ptr %max
  call void @anydsl_print_i64(i64 %c)
  call void @anydsl_print_char(i8 32)
  call void @anydsl_print_i64(i64 %s)
  call void @anydsl_print_char(i8 32)
  call void @anydsl_print_i64(i64 %m)
  call void @anydsl_print_char(i8 10)
  call void @anydsl_release(i32 0, ptr %acc)
  ret void
}
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; stall_body: the thread that gets iteration 0 stops for 300 ms there, as a thread whose core
; another process took; every iteration that thread runs afterwards is counted in acc[0].
@stalled = internal thread_local global i32 0
declare i32 @usleep(i32)
define void @stall_body(ptr %acc, i32 %lo, i32 %hi) {
entry:
  %first = icmp eq i32 %lo, 0
  br i1 %first, label %stall, label %count
stall:
  %flag = call ptr @llvm.threadlocal.address.p0(ptr @stalled)
  store i32 1, ptr %flag
  %r = call i32 @usleep(i32 300000)
  ret void
count:
  %flag2 = call ptr @llvm.threadlocal.address.p0(ptr @stalled)
  %late = load i32, ptr %flag2
  %was = icmp ne i32 %late, 0
  br i1 %was, label %add, label %done
add:
  %n = sub i32 %hi, %lo
  %n64 = sext i32 %n to i64
  %old = atomicrmw add ptr %acc, i64 %n64 seq_cst
  br label %done
done:
  ret void
}
declare ptr @llvm.threadlocal.address.p0(ptr)
define void @stall(i32 %threads, i32 %hi) {
  %acc = call ptr @anydsl_alloc(i32 0, i64 8)
  store i64 0, ptr %acc
  call void @anydsl_parallel_for(i32 %threads, i32 0, i32 %hi, ptr %acc, ptr @stall_body)
  %late = load i64, ptr %acc
  call void @anydsl_print_i64(i64 %late)
  call void @anydsl_print_char(i8 10)
  call void @anydsl_release(i32 0, ptr %acc)
  ret void
}

define i32 @main() {
  call void @run(i32 1, i32 0, i32 100000)
  call void @run(i32 2, i32 0, i32 100000)
  call void @run(i32 2, i32 -7, i32 100003)
  call void @run(i32 2, i32 10, i32 15)
  call void @run(i32 0, i32 0, i32 100000)
  call void @stall(i32 2, i32 100000)
  ret i32 0
}
`;

describe('anydsl_parallel_for', () => {
  it('hands the body at least 8 chunks per thread, none larger than needed for that, every iteration once', async () => {
    const exe = path.join(tmp(), 'chunks');
    await llvmToExecutable(IR, exe, await buildRuntime(), { optLevel: 2 });
    const result = await run(exe);
    // A machine with one core warns that an arena of two threads gets one.
    expect(result.stderr.replace(/^TBB Warning: .*\n/gm, '')).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n').map((l) => l.split(' ').map(Number) as [number, number, number]);
    const cases: [threads: number, iterations: number][] = [[1, 100000], [2, 100000], [2, 100010], [2, 5]];
    cases.forEach(([threads, n], i) => {
      const [calls, total, largest] = lines[i]!;
      expect(total, `${threads} threads`).toBe(n);
      expect(calls, `${threads} threads`).toBeGreaterThanOrEqual(Math.min(8 * threads, n));
      expect(largest, `${threads} threads`).toBeLessThanOrEqual(Math.ceil(n / (8 * threads)));
    });
    // All cores (however many this machine has): still at least 8 chunks.
    const [calls, total] = lines[4]!;
    expect(total).toBe(100000);
    expect(calls).toBeGreaterThanOrEqual(8);
    // The thread stalled in its first chunk leaves the rest to the other thread: nothing of
    // the loop waits for it but that chunk (with the auto-partitioner it ran a quarter of the
    // loop after waking up, the pieces it had split for itself). One core runs one thread.
    const [late] = lines[5]!;
    if (availableParallelism() >= 2) expect(late).toBe(0);
  });
});
