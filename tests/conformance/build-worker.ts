// Child process that runs buildProgram for the conformance runner (tests/conformance.test.ts).
// Builds run in separate processes so two cores are used for the (synchronous) compiler, and so a
// compiler crash, hang or out-of-memory fails one program instead of the whole suite.
// Protocol (IPC): receives { id, sources, opts }, replies { id, result } or { id, error }.
import { buildProgram } from '../../compiler/src/driver/build.ts';

interface Request {
  id: number;
  sources: { path: string; text: string }[];
  opts: Parameters<typeof buildProgram>[1];
}

process.on('message', (msg: Request) => {
  void (async () => {
    try {
      const result = await buildProgram(msg.sources, msg.opts);
      process.send?.({ id: msg.id, result });
    } catch (e) {
      process.send?.({ id: msg.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  })();
});
process.on('disconnect', () => process.exit(0));
