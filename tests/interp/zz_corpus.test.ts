import { it } from 'vitest';
import { loadPrograms } from '../conformance/corpus.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { parseModule } from '../../compiler/src/syntax/parser.ts';
import { checkProgram } from '../../compiler/src/sema/check.ts';
import { emitProgram } from '../../compiler/src/emit/index.ts';
import { World } from '../../compiler/src/ir/world.ts';
import { preludeSources } from '../../compiler/src/driver/pipeline.ts';
import { interpret } from '../../compiler/src/interp/index.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
import { writeFileSync } from 'node:fs';

it('corpus', () => {
  const lines: string[] = [];
  let ok = 0, total = 0;
  for (const p of loadPrograms('pos')) {
    total++;
    const sink = new DiagnosticSink();
    let status = '';
    try {
      const modules = [...preludeSources(), { path: p.relPath, text: p.text }].map((s) => parseModule(s, sink));
      const program = checkProgram(modules, sink);
      if (sink.hasErrors) { lines.push(`${p.name}: FRONTEND ${sink.list[0]?.message}`); continue; }
      const world = new World();
      const em = emitProgram(program, world, sink);
      if (sink.hasErrors || !em.main) { lines.push(`${p.name}: EMIT ${sink.list[0]?.message}`); continue; }
      const v = verify(world).filter((x) => !x.startsWith('note:'));
      const params = em.main.params.length - 2;
      const args = params === 0 ? [] : [1n, null];
      const r = interpret(world, em.main, args as never, { stepLimit: 50_000_000 });
      const exit = typeof r.result === 'bigint' ? Number(r.result) : 0;
      const good = r.stdout === p.stdout.toString('utf8') && exit === p.exitCode;
      if (good) ok++;
      status = good ? 'OK' : `MISMATCH exit ${exit} vs ${p.exitCode}\n--- got\n${r.stdout.slice(0, 400)}\n--- want\n${p.stdout.toString().slice(0, 400)}`;
      if (v.length) status += `\n  verify: ${v.slice(0, 3).join(' | ')}`;
    } catch (e) {
      status = `THROW ${(e as Error).message.split('\n')[0]}`;
    }
    lines.push(`${p.name}: ${status}`);
  }
  writeFileSync('/tmp/corpus.txt', `${ok}/${total}\n` + lines.join('\n'));
});
