// The runtime declares the parts of the OpenCL and CUDA driver APIs it uses itself (so it
// builds without their headers) and resolves them with dlsym, where a wrong prototype or
// constant would be a silent wrong call. This test compiles those declarations against the
// vendors' headers where they are installed (opencl-c-headers; the CUDA toolkit's cuda.h):
// every function pointer must take the header's function, every constant and error name
// must equal the header's. Skipped, saying which header is missing, elsewhere.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../compiler/src/driver/cache.ts';
import { findToolchain, runTool } from '../../compiler/src/driver/toolchain.ts';
import { useTempDir } from '../driver/helpers.ts';

const tmp = useTempDir('anydsl-runtime-decls-');

/** The entries X(a, b, (params)) of the X-macro list `#define <list>(X)` in `source`. */
function xList(source: string, list: string): string[][] {
  const start = source.indexOf(`#define ${list}(X)`);
  if (start < 0) throw new Error(`no ${list} in the source`);
  const lines: string[] = [];
  for (const line of source.slice(start).split('\n')) {
    lines.push(line.replace(/\\$/, ''));
    if (!line.endsWith('\\')) break;
  }
  const text = lines.join(' ').slice(`#define ${list}(X)`.length);
  const entries: string[][] = [];
  for (let i = text.indexOf('X('); i >= 0; i = text.indexOf('X(', i)) {
    let depth = 0;
    let field = '';
    const fields: string[] = [];
    for (i += 2; ; i++) {
      const c = text[i]!;
      if (c === '(') depth++;
      if (c === ')' && depth-- === 0) break;
      if (c === ',' && depth === 0) {
        fields.push(field.trim());
        field = '';
      } else field += c;
    }
    fields.push(field.trim());
    entries.push(fields);
  }
  return entries;
}

/** `_Static_assert`s that each `#define NAME VALUE` of `prefix` in `source` equals the header's NAME. */
function constantChecks(source: string, prefix: RegExp): string[] {
  return [...source.matchAll(/^#define (\w+) (.+)$/gm)]
    .filter(([, name]) => prefix.test(name!))
    .map(([, name, value]) => `_Static_assert((${name}) == (${value}), "${name}");`);
}

async function compiles(name: string, code: string, flags: string[]): Promise<string> {
  const file = path.join(tmp(), `${name}.c`);
  await writeFile(file, code);
  try {
    await runTool(findToolchain().clang, ['-std=c11', '-fsyntax-only', '-Wall', '-Werror', ...flags, file]);
    return '';
  } catch (e) {
    return (e as { stderr?: string }).stderr ?? String(e);
  }
}

describe('the runtime\'s driver declarations match the vendor headers', () => {
  it('OpenCL: functions, constants and error names as in CL/cl.h', async (ctx) => {
    const header = ['/usr/include/CL/cl.h', '/usr/local/include/CL/cl.h'].find((h) => existsSync(h));
    if (!header) {
      console.warn('skipped: no CL/cl.h (install opencl-c-headers)');
      return ctx.skip();
    }
    const source = await readFile(path.join(repoRoot, 'runtime', 'opencl.c'), 'utf8');
    const functions = [...xList(source, 'CL_API'), ...xList(source, 'CL_API_OPTIONAL')];
    expect(functions.length).toBeGreaterThan(20);
    const errors = [...source.matchAll(/case (-?\d+): return "(CL_\w+)";/g)];
    expect(errors.length).toBeGreaterThan(50);
    const code = [
      '#define CL_TARGET_OPENCL_VERSION 300',
      '#include <CL/cl.h>',
      '#include <CL/cl_ext.h>',
      ...constantChecks(source, /^CL_/),
      ...errors.map(([, value, name]) => `_Static_assert((${name}) == (${value}), "${name}");`),
      ...functions.map(([name, ret, params], i) => `${ret} (*check_${i}) ${params} = ${name};`),
    ].join('\n');
    expect(await compiles('opencl', code, ['-I', path.dirname(path.dirname(header)), '-Wno-deprecated-declarations'])).toBe('');
  });

  it('CUDA: functions and constants as in cuda.h', async (ctx) => {
    const include = ['/usr/local/cuda/include', '/usr/include'].find((d) => existsSync(path.join(d, 'cuda.h')));
    if (!include) {
      console.warn('skipped: no cuda.h (the CUDA toolkit is not installed)');
      return ctx.skip();
    }
    const source = await readFile(path.join(repoRoot, 'runtime', 'cuda.c'), 'utf8');
    const functions = xList(source, 'CUDA_API');
    expect(functions.length).toBeGreaterThan(20);
    const code = [
      '#include <cuda.h>',
      ...constantChecks(source, /^CU/),
      // The symbol, not the name: cuda.h's macros map the names to the versioned symbols too.
      ...functions.map(([, symbol, params], i) => `CUresult (*check_${i}) ${params} = ${symbol};`),
    ].join('\n');
    expect(await compiles('cuda', code, ['-I', include])).toBe('');
  });
});
