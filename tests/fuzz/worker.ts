// Child process of the fuzzer (runner.ts): compiles one mutant at a time to LLVM IR with
// buildProgram, as `impala --emit-llvm` does, and checks the IR of a successful build with
// llvm-as. The parent enforces the time limit and restarts the process after a crash.
// Protocol (IPC): receives { id, text }, replies { id, verdict }.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildProgram } from '../../compiler/src/driver/build.ts';
import { classify, type Verdict } from './verdict.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'impala-fuzz-'));
const output = path.join(dir, 'mutant.ll');
const LLVM_AS = '/usr/lib/llvm-19/bin/llvm-as';
const canVerify = existsSync(LLVM_AS);

async function check(text: string): Promise<Verdict> {
  let result;
  try {
    result = await buildProgram([{ path: 'mutant.impala', text }], { kind: 'llvm', output, optLevel: 1, targetCpu: 'x86-64' });
  } catch (e) {
    return { kind: 'exception', detail: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
  const verdict = classify(result);
  if (verdict.kind !== 'compiled' || !canVerify) return verdict;
  const as = spawnSync(LLVM_AS, ['-o', '/dev/null', output], { encoding: 'utf8' });
  return as.status === 0 ? verdict : { kind: 'invalid-llvm', detail: as.stderr.slice(0, 2000) };
}

process.on('message', (msg: { id: number; text: string }) => {
  void check(msg.text).then((verdict) => process.send?.({ id: msg.id, verdict }));
});
process.on('disconnect', () => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
