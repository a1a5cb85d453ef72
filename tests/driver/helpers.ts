// Shared by the driver tests: temp directories, a private artifact cache, running a built program.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** A temp directory for the current test file, removed afterwards; the getter is valid inside tests. */
export function useTempDir(prefix = 'anydsl-test-'): () => string {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}

/** Points ANYDSL_CACHE at a fresh directory for this test file, so hits and misses are deterministic. */
export function usePrivateCache(): () => string {
  const dir = useTempDir('anydsl-cache-');
  let saved: string | undefined;
  beforeAll(() => {
    saved = process.env.ANYDSL_CACHE;
    process.env.ANYDSL_CACHE = dir();
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.ANYDSL_CACHE;
    else process.env.ANYDSL_CACHE = saved;
  });
  return dir;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function run(command: string, args: readonly string[] = [], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * The LLVM declarations of the runtime's C ABI, for hand-written test modules. Small integer
 * parameters carry signext/zeroext as clang emits them: the C side relies on the caller
 * having widened them to 32 bits (x86-64 SysV as implemented by clang and GCC).
 */
export const RUNTIME_DECLS = `
declare ptr @anydsl_alloc(i32, i64)
declare void @anydsl_release(i32, ptr)
declare void @anydsl_copy(i32, ptr, i64, i32, ptr, i64, i64)
declare void @anydsl_print_i16(i16 signext)
declare void @anydsl_print_i32(i32)
declare void @anydsl_print_i64(i64)
declare void @anydsl_print_u16(i16 zeroext)
declare void @anydsl_print_u32(i32)
declare void @anydsl_print_u64(i64)
declare void @anydsl_print_f32(float)
declare void @anydsl_print_f64(double)
declare void @anydsl_print_f64_fixed(double, i32)
declare void @anydsl_print_char(i8 zeroext)
declare void @anydsl_print_string(ptr)
declare void @anydsl_print_flush()
declare i64 @anydsl_get_micro_time()
declare i64 @anydsl_get_nano_time()
declare i64 @anydsl_get_kernel_time()
declare void @anydsl_parallel_for(i32, i32, i32, ptr, ptr)
declare i32 @anydsl_spawn_thread(ptr, ptr)
declare void @anydsl_sync_thread(i32)
`;
