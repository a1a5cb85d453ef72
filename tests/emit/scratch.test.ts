import { test } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { emit, dump } from './helpers.ts';
test('conformance', () => {
  const dir = 'tests/conformance/pos';
  let ok = 0;
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.impala'))) {
    try { emit(readFileSync(`${dir}/${f}`, 'utf8')); ok++; } catch (e) { console.log(f, String((e as Error).stack).split('\n').slice(0, 6).join('\n')); }
  }
  console.log('ok', ok);
});
