// The conformance corpus seen by sema alone: positive programs check clean; the
// expected errors of negative programs that get past the parser are reported.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { parseModule } from '../../compiler/src/syntax/parser.ts';
import { checkProgram } from '../../compiler/src/sema/check.ts';
import { preludeSource } from './helpers.ts';

const root = fileURLToPath(new URL('../conformance/', import.meta.url));

function programs(dir: string): string[] {
  try {
    return readdirSync(root + dir).filter((f) => f.endsWith('.impala')).sort();
  } catch {
    return [];
  }
}

function run(path: string): { parsed: boolean; diagnostics: DiagnosticSink } {
  const sink = new DiagnosticSink();
  const modules = [parseModule(preludeSource, sink), parseModule({ path, text: readFileSync(root + path, 'utf8') }, sink)];
  if (sink.hasErrors) return { parsed: false, diagnostics: sink };
  checkProgram(modules, sink);
  return { parsed: true, diagnostics: sink };
}

// Programs that need prelude files beyond prelude.impala (the 2018 runtime's declarations in
// runtime.impala, the rv_* definitions in lanes.impala), which this test does not load; the
// conformance run (tests/conformance.test.ts) checks them through the whole driver.
const NEEDS_WHOLE_PRELUDE = new Set(['pos/compat_runtime_taskgraph.impala', 'neg/compat_runtime_closure_to_c.impala', 'neg/compat_rv_signature.impala']);
const own = (dir: string) => programs(dir).filter((f) => !NEEDS_WHOLE_PRELUDE.has(`${dir}/${f}`));

describe('conformance corpus through sema', () => {
  it('the programs left to the whole driver exist', () => {
    for (const p of NEEDS_WHOLE_PRELUDE) expect(programs(p.split('/')[0]!)).toContain(p.split('/')[1]);
  });

  it.each(own('pos'))('pos/%s checks clean', (f) => {
    const { diagnostics } = run(`pos/${f}`);
    expect(diagnostics.list.map((d) => `${d.span?.line}:${d.span?.col}: ${d.message}`)).toEqual([]);
  });

  it.each(own('neg'))('neg/%s reports its expected errors', (f) => {
    const path = `neg/${f}`;
    const { parsed, diagnostics } = run(path);
    if (!parsed) return; // lexical and syntax errors are the parser's to test
    const expected = [...readFileSync(root + path, 'utf8').matchAll(/\/\/ ERROR: (\d+):(\d+): (.*)/g)].map((m) => `${m[1]}:${m[2]}: ${m[3]}`);
    const got = diagnostics.list.map((d) => `${d.span?.line}:${d.span?.col}: ${d.message}`);
    for (const e of expected) {
      const [pos, text] = [e.slice(0, e.indexOf(': ')), e.slice(e.indexOf(': ') + 2)];
      expect(got.some((g) => g.startsWith(`${pos}: `) && g.includes(text)), `${e}\ngot:\n${got.join('\n')}`).toBe(true);
    }
    expect(got).toHaveLength(expected.length);
  });
});
