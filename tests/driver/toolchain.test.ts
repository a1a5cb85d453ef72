import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRuntime } from '../../compiler/src/driver/runtime-build.ts';
import {
  findToolchain,
  llvmToExecutable,
  llvmToObject,
  MissingToolchainError,
  ToolFailure,
} from '../../compiler/src/driver/toolchain.ts';
import { RUNTIME_DECLS, run, useTempDir } from './helpers.ts';

const tmp = useTempDir();

async function buildAndRun(name: string, ir: string) {
  const exe = path.join(tmp(), name);
  await llvmToExecutable(ir, exe, await buildRuntime(), { optLevel: 2 });
  return run(exe);
}

describe('findToolchain', () => {
  it('finds clang-19, llc-19 and ld.lld-19 on this machine', () => {
    const tc = findToolchain();
    expect(path.basename(tc.clang)).toMatch(/^clang(-19)?$/);
    expect(path.basename(tc.llc)).toMatch(/^llc(-19)?$/);
    expect(path.basename(tc.lld)).toMatch(/^ld\.lld(-19)?$/);
  });

  it('names the Debian packages when the tools are missing', async () => {
    const empty = await mkdtemp(path.join(tmp(), 'no-tools-'));
    let error: unknown;
    try {
      findToolchain({ pathDirs: [empty], llvmDirs: [] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MissingToolchainError);
    const message = (error as Error).message;
    expect(message).toContain('clang-19, llc-19, ld.lld-19 not found');
    expect(message).toContain('apt-get install -y clang-19 llvm-19 lld-19 libtbb-dev');
    expect(message).toContain(empty);
  });

  it('finds unversioned tools only in an LLVM 19 directory, versioned ones on PATH', async () => {
    const bin = path.join(tmp(), 'fake-path');
    const llvm = path.join(tmp(), 'fake-llvm');
    await mkdir(bin);
    await mkdir(llvm);
    const script = '#!/bin/sh\nexit 0\n';
    for (const f of ['clang-19', 'llc', 'ld.lld-19']) await writeFile(path.join(bin, f), script, { mode: 0o755 });
    for (const f of ['clang', 'llc', 'ld.lld']) await writeFile(path.join(llvm, f), script, { mode: 0o755 });
    expect(findToolchain({ pathDirs: [bin], llvmDirs: [llvm] })).toEqual({
      clang: path.join(bin, 'clang-19'),
      llc: path.join(llvm, 'llc'),
      lld: path.join(bin, 'ld.lld-19'),
    });
    expect(() => findToolchain({ pathDirs: [bin], llvmDirs: [] })).toThrow(/llc-19 not found/);
  });
});

describe('LLVM IR to native code', () => {
  it('links the runtime print functions into an executable whose output survives exit', async () => {
    const ir = `${RUNTIME_DECLS}
@hello = private constant [7 x i8] c"hello\\0A\\00"
define i32 @main() {
  call void @anydsl_print_string(ptr @hello)
  call void @anydsl_print_i16(i16 -12)
  call void @anydsl_print_char(i8 32)
  call void @anydsl_print_i32(i32 -2147483648)
  call void @anydsl_print_char(i8 32)
  call void @anydsl_print_i64(i64 -9000000000)
  call void @anydsl_print_char(i8 32)
  call void @anydsl_print_u16(i16 -1)
  call void @anydsl_print_char(i8 32)
  call void @anydsl_print_u32(i32 -1)
  call void @anydsl_print_char(i8 32)
  call void @anydsl_print_u64(i64 -1)
  call void @anydsl_print_char(i8 10)
  call void @anydsl_print_f32(float 0x3FB99999A0000000)
  call void @anydsl_print_char(i8 32)
  call void @anydsl_print_f64(double 1.0e100)
  call void @anydsl_print_char(i8 32)
  call void @anydsl_print_f64(double 2.5)
  call void @anydsl_print_char(i8 32)
  call void @anydsl_print_f64_fixed(double 3.14159, i32 2)
  call void @anydsl_print_char(i8 10)
  ret i32 3
}
`;
    const result = await buildAndRun('print', ir);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('hello\n-12 -2147483648 -9000000000 65535 4294967295 18446744073709551615\n0.1 1e+100 2.5 3.14\n');
    expect(result.code).toBe(3);
  });

  it('runs parallel_for over disjoint sub-ranges covering the whole range, for any thread count', async () => {
    // body(acc, lo, hi) adds the sum and the count of [lo, hi) to acc[0] and acc[1].
    const ir = `${RUNTIME_DECLS}
define void @body(ptr %acc, i32 %lo, i32 %hi) {
entry:
  br label %loop
loop:
  %i = phi i32 [ %lo, %entry ], [ %next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s2, %loop ]
  %i64 = sext i32 %i to i64
  %s2 = add i64 %s, %i64
  %next = add i32 %i, 1
  %done = icmp sge i32 %next, %hi
  br i1 %done, label %exit, label %loop
exit:
  %n = sub i32 %hi, %lo
  %n64 = sext i32 %n to i64
  %old = atomicrmw add ptr %acc, i64 %s2 seq_cst
  %cnt = getelementptr i64, ptr %acc, i64 1
  %old2 = atomicrmw add ptr %cnt, i64 %n64 seq_cst
  ret void
}
define void @run(i32 %threads, i32 %lo, i32 %hi) {
  %acc = call ptr @anydsl_alloc(i32 0, i64 16)
  store i64 0, ptr %acc
  %cnt = getelementptr i64, ptr %acc, i64 1
  store i64 0, ptr %cnt
  call void @anydsl_parallel_for(i32 %threads, i32 %lo, i32 %hi, ptr %acc, ptr @body)
  %s = load i64, ptr %acc
  %c = load i64, ptr %cnt
  call void @anydsl_print_i64(i64 %s)
  call void @anydsl_print_char(i8 32)
  call void @anydsl_print_i64(i64 %c)
  call void @anydsl_print_char(i8 10)
  call void @anydsl_release(i32 0, ptr %acc)
  ret void
}
define i32 @main() {
  call void @run(i32 0, i32 0, i32 100000)
  call void @run(i32 1, i32 0, i32 100000)
  call void @run(i32 2, i32 -500, i32 1500)
  call void @run(i32 0, i32 7, i32 7)
  ret i32 0
}
`;
    const result = await buildAndRun('parallel', ir);
    expect(result.stdout).toBe('4999950000 100000\n4999950000 100000\n999000 2000\n0 0\n');
    expect(result.code).toBe(0);
  });

  it('spawns and syncs threads, allocates 64-byte aligned memory and copies with offsets', async () => {
    const ir = `${RUNTIME_DECLS}
define void @store42(ptr %p) {
  store i32 42, ptr %p
  ret void
}
define i32 @main() {
  %slots = call ptr @anydsl_alloc(i32 0, i64 8)
  %second = getelementptr i32, ptr %slots, i64 1
  %t1 = call i32 @anydsl_spawn_thread(ptr %slots, ptr @store42)
  %t2 = call i32 @anydsl_spawn_thread(ptr %second, ptr @store42)
  call void @anydsl_sync_thread(i32 %t2)
  call void @anydsl_sync_thread(i32 %t1)
  %a = load i32, ptr %slots
  %b = load i32, ptr %second
  %sum = add i32 %a, %b
  call void @anydsl_print_i32(i32 %sum)
  call void @anydsl_print_char(i8 32)

  %misaligned = alloca i64
  store i64 0, ptr %misaligned
  br label %check
check:
  %k = phi i32 [ 0, %0 ], [ %k2, %check ]
  %buf = call ptr @anydsl_alloc(i32 0, i64 24)
  %addr = ptrtoint ptr %buf to i64
  %low = and i64 %addr, 63
  %m = load i64, ptr %misaligned
  %m2 = or i64 %m, %low
  store i64 %m2, ptr %misaligned
  %k2 = add i32 %k, 1
  %more = icmp slt i32 %k2, 100
  br i1 %more, label %check, label %copy
copy:
  %mis = load i64, ptr %misaligned
  call void @anydsl_print_i64(i64 %mis)
  call void @anydsl_print_char(i8 32)
  %src = call ptr @anydsl_alloc(i32 0, i64 8)
  store i64 u0x1122334455667788, ptr %src
  %dst = call ptr @anydsl_alloc(i32 0, i64 8)
  store i64 0, ptr %dst
  call void @anydsl_copy(i32 0, ptr %src, i64 2, i32 0, ptr %dst, i64 4, i64 3)
  %v = load i64, ptr %dst
  call void @anydsl_print_u64(i64 %v)
  call void @anydsl_release(i32 0, ptr %src)
  call void @anydsl_release(i32 0, ptr %dst)
  %t0 = call i64 @anydsl_get_nano_time()
  %t1n = call i64 @anydsl_get_nano_time()
  %mono = icmp sle i64 %t0, %t1n
  %monoc = zext i1 %mono to i32
  call void @anydsl_print_char(i8 32)
  call void @anydsl_print_i32(i32 %monoc)
  %kt = call i64 @anydsl_get_kernel_time()
  call void @anydsl_print_char(i8 32)
  call void @anydsl_print_i64(i64 %kt)
  ret i32 0
}
`;
    const result = await buildAndRun('threads', ir);
    // Bytes 2..4 of 0x1122334455667788 (little endian: 66 55 44) land in bytes 4..6.
    expect(result.stdout).toBe(`84 0 ${0x445566n << 32n} 1 0`);
  });

  it('reports an unknown device platform on stderr and keeps what the program already printed', async () => {
    const ir = `${RUNTIME_DECLS}
@before = private constant [8 x i8] c"before\\0A\\00"
define i32 @main() {
  call void @anydsl_print_string(ptr @before)
  %p = call ptr @anydsl_alloc(i32 5, i64 16)
  ret i32 0
}
`;
    const result = await buildAndRun('bad-device', ir);
    expect(result.stdout).toBe('before\n');
    expect(result.stderr).toContain('anydsl runtime error: anydsl_alloc: device 5 has unknown platform 5 (0 host, 1 CUDA, 2 OpenCL)');
    expect(result.code).toBe(1);
  });

  it('reports syncing a thread that was never spawned', async () => {
    const ir = `${RUNTIME_DECLS}
define i32 @main() {
  call void @anydsl_sync_thread(i32 99)
  ret i32 0
}
`;
    const result = await buildAndRun('bad-sync', ir);
    expect(result.stderr).toContain('sync: no running thread with id 99');
    expect(result.signal).toBe('SIGABRT');
  });

  it('reports invalid IR with clang\'s stderr and keeps the input file', async () => {
    const bad = 'define i32 @main() {\n  ret i32 %nothing\n}\n';
    const error = await llvmToObject(bad, path.join(tmp(), 'bad.o')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolFailure);
    const failure = error as ToolFailure;
    expect(failure.stderr).toContain("use of undefined value '%nothing'");
    expect(failure.keptInput).toBeDefined();
    expect(await readFile(failure.keptInput!, 'utf8')).toBe(bad);
    expect(failure.message).toContain(failure.keptInput!);
  });

  it('passes targetCpu to clang as -march', async () => {
    const ir = 'define i32 @f() {\n  ret i32 1\n}\n';
    const out = path.join(tmp(), 'cpu.o');
    await llvmToObject(ir, out, { targetCpu: 'x86-64-v2', optLevel: 0 });
    const error = await llvmToObject(ir, out, { targetCpu: 'no-such-cpu' }).catch((e: unknown) => e);
    expect((error as ToolFailure).stderr).toContain('no-such-cpu');
  });
});
