// The device runtime inside node, as the apps use it: the runtime object linked into a
// shared library and loaded with koffi. Device choice is queried without ending the
// process (anydsl_device_unavailable), and a device error inside node ends it with the
// one-line message and exit status 1, not a signal.
import koffi from 'koffi';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../compiler/src/driver/cache.ts';
import { buildRuntime } from '../../compiler/src/driver/runtime-build.ts';
import { findToolchain, runTool } from '../../compiler/src/driver/toolchain.ts';
import { run, useTempDir } from '../driver/helpers.ts';

const tmp = useTempDir('anydsl-runtime-node-');
let library = '';

beforeAll(async () => {
  const toolchain = findToolchain();
  const runtime = await buildRuntime(toolchain);
  library = path.join(tmp(), 'libanydsl-runtime.so');
  await runTool(toolchain.clang, ['-shared', ...runtime.objects, `--ld-path=${toolchain.lld}`, ...runtime.linkFlags, '-o', library]);
});

describe('the runtime loaded into node', () => {
  it('answers whether a device request can be met, with the reason when not', () => {
    const lib = koffi.load(library);
    const unavailable = lib.func('const char* anydsl_device_unavailable(const char* request)');
    const pick = lib.func('int32_t anydsl_device_pick(const char* request)');
    const name = lib.func('const char* anydsl_device_name(int32_t dev)');
    expect(unavailable('host')).toBeNull();
    expect(unavailable('gpu')).toBe('device request "gpu": expected auto, cuda, opencl or host (cuda and opencl optionally with an index, as in opencl:1)');
    expect(unavailable('opencl:x')).toContain('the index after \':\' must be a number');
    // auto always finds something: the host at least.
    expect(unavailable('auto')).toBeNull();
    const opencl = unavailable('opencl') as string | null;
    if (opencl === null) expect(name(pick('opencl'))).toMatch(/^OpenCL 0: /);
    else expect(opencl).toMatch(/^device request "opencl": no OpenCL/);
    const cuda = unavailable('cuda') as string | null;
    if (cuda === null) expect(name(pick('cuda'))).toMatch(/^CUDA 0: /);
    else expect(cuda).toMatch(/^device request "cuda": no CUDA/);
    expect(name(0)).toBe('host: the CPU');
  });

  it('ends node with the message and exit status 1 on a device error', async () => {
    const script = path.join(tmp(), 'misuse.mjs');
    await writeFile(
      script,
      `import { createRequire } from 'node:module';
const koffi = createRequire(${JSON.stringify(path.join(repoRoot, 'package.json'))})('koffi');
const lib = koffi.load(${JSON.stringify(library)});
const copy = lib.func('void anydsl_copy(int32_t, const void*, int64_t, int32_t, void*, int64_t, int64_t)');
const host = Buffer.alloc(16);
console.log('before');
copy(2, host, 0, 0, host, 0, 16);
console.log('after');
`,
    );
    const r = await run(process.execPath, [script]);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('before\n');
    // Device 2 is OpenCL 0: not a buffer of it where OpenCL exists, else OpenCL is missing.
    expect(r.stderr).toMatch(/^anydsl runtime error: anydsl_copy: (the source is not a buffer of device 2 \(OpenCL 0\) \(a host pointer\?\)|device 2 \(OpenCL 0\): no OpenCL)/);
  });
});
