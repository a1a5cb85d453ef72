import { readdir, realpath, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../compiler/src/driver/cache.ts';
import { buildRuntime, RUNTIME_LINK_FLAGS, startRuntimeBuild } from '../../compiler/src/driver/runtime-build.ts';
import { findToolchain } from '../../compiler/src/driver/toolchain.ts';
import { run, usePrivateCache, useTempDir } from './helpers.ts';

const cache = usePrivateCache();
const tmp = useTempDir();

describe('buildRuntime', () => {
  it('starts the build and returns while clang still runs, with the key of the object it will publish', async () => {
    const previous = process.env.ANYDSL_CACHE;
    process.env.ANYDSL_CACHE = path.join(tmp(), 'empty-cache');
    try {
      const build = await startRuntimeBuild();
      // Compiling threads.cpp alone takes clang far longer than getting here: only the scratch directory exists.
      expect((await readdir(path.join(tmp(), 'empty-cache', 'runtime'))).every((e) => e.startsWith('.tmp-'))).toBe(true);
      const artifact = await build.ready;
      expect(artifact.key).toBe(build.key);
      expect((await stat(artifact.objects[0]!)).size).toBeGreaterThan(0);
    } finally {
      process.env.ANYDSL_CACHE = previous;
    }
  });

  it('builds one object into the cache and reuses it without recompiling', async () => {
    const first = await buildRuntime();
    expect(first.objects).toHaveLength(1);
    const object = first.objects[0]!;
    expect(path.dirname(object)).toBe(path.join(cache(), 'runtime'));
    expect(first.linkFlags).toEqual([...RUNTIME_LINK_FLAGS]);
    const built = await stat(object);
    expect(built.size).toBeGreaterThan(0);

    const again = await buildRuntime();
    expect(again).toEqual(first);
    expect((await stat(object)).mtimeMs).toBe(built.mtimeMs);
    // Only the published object remains: no scratch directories left behind.
    expect(await readdir(path.join(cache(), 'runtime'))).toEqual([path.basename(object)]);
  });

  it('survives two processes building into the same empty cache at once', async () => {
    const shared = path.join(tmp(), 'shared-cache');
    const script = path.join(tmp(), 'build-runtime.mts');
    const module = path.join(repoRoot, 'compiler/src/driver/runtime-build.ts');
    await writeFile(script, `import { buildRuntime } from ${JSON.stringify(module)};\nconsole.log((await buildRuntime()).objects[0]);\n`);
    const env = { ...process.env, ANYDSL_CACHE: shared };
    const results = await Promise.all([0, 1].map(() => run(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, env })));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const [a, b] = results.map((r) => r.stdout.trim());
    expect(a).toBe(b);
    expect(await readdir(path.join(shared, 'runtime'))).toEqual([path.basename(a!)]);
    // llvm-nm sits next to the real clang binary (llvm-19 is one of the required packages).
    const nm = path.join(path.dirname(await realpath(findToolchain().clang)), 'llvm-nm');
    const check = await run(nm, ['--defined-only', a!]);
    const symbols = ['anydsl_alloc', 'anydsl_parallel_for', 'anydsl_print_flush', 'anydsl_spawn_thread', 'anydsl_get_micro_time'];
    const devices = ['anydsl_launch_kernel', 'anydsl_synchronize', 'anydsl_device_pick', 'anydsl_alloc_unified', 'anydsl_get_kernel_time'];
    for (const symbol of [...symbols, ...devices]) {
      expect(check.stdout).toMatch(new RegExp(` T ${symbol}$`, 'm'));
    }
    // The accelerator drivers are opened at run time, never linked: nothing of them is undefined.
    const imports = await run(nm, ['--undefined-only', a!]);
    expect(imports.stdout).not.toMatch(/\b(cl|cu)[A-Z]\w+/);
  });
});
