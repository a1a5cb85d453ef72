#!/usr/bin/env node
// The `harris` command: TypeScript run through tsx, found relative to this file so that it
// works from any directory and via npx.
import { register } from 'tsx/esm/api';

register();
try {
  const { main } = await import(new URL('../src/cli.ts', import.meta.url).href);
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  // Only a bug gets here; user errors are reported inside main.
  process.stderr.write(`harris: internal error: ${process.env.ANYDSL_DEBUG ? e?.stack : e?.message ?? e}\n`);
  process.exitCode = 1;
}
