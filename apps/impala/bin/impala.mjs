#!/usr/bin/env node
// The `impala` command. The compiler is TypeScript run through tsx; the CLI module is
// found relative to this file, so the command works from any directory and via npx.
import { register } from 'tsx/esm/api';

register();
try {
  const { main } = await import(new URL('../../../compiler/src/driver/cli.ts', import.meta.url).href);
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  // Only a broken compiler gets here; user errors are reported inside main.
  const detail = process.env.ANYDSL_DEBUG ? e?.stack : e?.message;
  process.stderr.write(`impala: internal compiler error: ${detail ?? e}\n`);
  process.exitCode = 1;
}
