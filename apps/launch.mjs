// What the command-line launchers share: the CLIs are TypeScript run through tsx, found
// relative to the launcher so that a command works from any directory and via npx.
import { register } from 'tsx/esm/api';

/** Runs `main(argv)` of the CLI module at `cli`; only a bug escapes main, reported as `name: <what>: message`. */
export async function launch(name, cli, what = 'internal error') {
  register();
  try {
    const { main } = await import(cli.href);
    process.exitCode = await main(process.argv.slice(2));
  } catch (e) {
    const detail = process.env.ANYDSL_DEBUG ? e?.stack : e?.message;
    process.stderr.write(`${name}: ${what}: ${detail ?? e}\n`);
    process.exitCode = 1;
  }
}
