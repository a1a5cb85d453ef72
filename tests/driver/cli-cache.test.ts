// `impala -o` and `impala --shared` go through the artifact cache: a repeated build of the
// same program with the same options copies the cached file and never runs clang. The
// command runs as a subprocess whose PATH finds a clang-19 that logs each call and then
// runs the real one, so "never runs clang" is observed, not inferred.
import { chmod, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findToolchain } from '../../compiler/src/driver/toolchain.ts';
import { repoRoot } from '../../compiler/src/driver/cache.ts';
import { run, useTempDir } from './helpers.ts';

const tmp = useTempDir('anydsl-cli-cache-');
const bin = path.join(repoRoot, 'apps/impala/bin/impala.mjs');
let env: NodeJS.ProcessEnv = {};
let log = '';
let source = '';

beforeAll(async () => {
  const wrappers = path.join(tmp(), 'bin');
  log = path.join(tmp(), 'clang-calls.log');
  await import('node:fs/promises').then((fs) => fs.mkdir(wrappers));
  const real = findToolchain().clang;
  const wrapper = path.join(wrappers, 'clang-19');
  await writeFile(wrapper, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  await chmod(wrapper, 0o755);
  await writeFile(log, '');
  source = path.join(tmp(), 'answer.impala');
  await writeFile(source, 'extern fn answer() -> i32 { pe_info("answer", 42); 42 }\nfn main() -> i32 { answer() }\n');
  env = { ...process.env, PATH: `${wrappers}${path.delimiter}${process.env.PATH ?? ''}`, ANYDSL_CACHE: path.join(tmp(), 'cache') };
});

async function impala(...args: string[]) {
  const r = await run(process.execPath, [bin, ...args], { cwd: tmp(), env });
  const calls = (await readFile(log, 'utf8')).split('\n').filter((l) => l !== '').length;
  return { ...r, clangCalls: calls };
}

async function entries(): Promise<string[]> {
  return (await readdir(path.join(tmp(), 'cache', 'cli'))).sort();
}

describe('impala through the artifact cache', () => {
  it('builds an executable once; the same build again is a copy without clang, warnings included', async () => {
    const first = await impala('-O1', source, '-o', 'first');
    expect(first.code).toBe(0);
    expect(first.clangCalls).toBeGreaterThan(0);
    expect(first.stderr).toContain('pe_info: answer: 42');
    const cached = await entries();
    expect(cached).toHaveLength(1);

    const second = await impala('-O1', source, '-o', 'second');
    expect(second.code).toBe(0);
    expect(second.clangCalls).toBe(first.clangCalls);
    expect(second.stderr).toBe(first.stderr);
    expect(await entries()).toEqual(cached);
    expect(await readFile(path.join(tmp(), 'second'))).toEqual(await readFile(path.join(tmp(), 'first')));
    expect((await run(path.join(tmp(), 'second'))).code).toBe(42);

    // Another optimisation level is another artifact.
    const other = await impala('-O2', source, '-o', 'third');
    expect(other.code).toBe(0);
    expect(other.clangCalls).toBeGreaterThan(second.clangCalls);
    expect(await entries()).toHaveLength(2);
  });

  it('caches shared libraries the same way', async () => {
    const first = await impala('--shared', source, '-o', 'liba.so');
    expect(first.code).toBe(0);
    const second = await impala('--shared', source, '-o', 'libb.so');
    expect(second.code).toBe(0);
    expect(second.clangCalls).toBe(first.clangCalls);
    expect(await readFile(path.join(tmp(), 'libb.so'))).toEqual(await readFile(path.join(tmp(), 'liba.so')));
  });

  it('reports an unwritable output on a hit as on a miss', async () => {
    const r = await impala('-O1', source, '-o', 'missing-dir/prog');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot write 'missing-dir/prog'");
  });
});
