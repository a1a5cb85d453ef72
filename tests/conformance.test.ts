// Conformance corpus runner (format: tests/conformance/README.md).
//  - pos/*.impala: built as an executable at -O1, run (10 s limit); exit code and stdout bytes
//    must match `// EXIT: n` (default 0) and the sibling `.stdout` file (empty when absent).
//  - neg/*.impala: must fail to compile with an error at every `// ERROR: line:col: text`.
//  - support/accept.impala: `--emit-llvm -O2`, then `clang-19 x.ll support.c -o prog` links and runs.
// Filter with vitest's -t, e.g. `npx vitest run tests/conformance.test.ts -t closure_`.
// Environment: CONFORMANCE_JOBS (parallel builds), CONFORMANCE_BUILD_TIMEOUT_MS,
// CONFORMANCE_INPROCESS=1 (build in this process), CONFORMANCE_KEEP=1 (keep the temp dir).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildProgram } from '../compiler/src/driver/build.ts';
import { CORPUS_DIR, loadPrograms, strayFiles, type CorpusProgram } from './conformance/corpus.ts';

const POS = loadPrograms('pos');
const NEG = loadPrograms('neg');
const MIN_PROGRAMS = 170;
const RUN_TIMEOUT_MS = 10_000;
const TEST_TIMEOUT_MS = 600_000;
const SUPPORT_DIR = path.join(CORPUS_DIR, 'support');

let tmp = '';
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'impala-conformance-'));
});
afterAll(() => {
  pool.close();
  if (tmp && !process.env.CONFORMANCE_KEEP) fs.rmSync(tmp, { recursive: true, force: true });
});

type BuildSources = Parameters<typeof buildProgram>[0];
type BuildOptions = Parameters<typeof buildProgram>[1];
type BuildResult = Awaited<ReturnType<typeof buildProgram>>;

const REPO_ROOT = path.resolve(CORPUS_DIR, '..', '..');
const WORKER_SCRIPT = path.join(CORPUS_DIR, 'build-worker.ts');
const BUILD_TIMEOUT_MS = Number(process.env.CONFORMANCE_BUILD_TIMEOUT_MS ?? 90_000);
const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
const POOL_SIZE = Number(process.env.CONFORMANCE_JOBS ?? Math.max(2, Math.min(4, cores)));

function failure(message: string): BuildResult {
  return { ok: false, diagnostics: [{ severity: 'error', span: null, message }], rendered: message };
}

interface BuildWorker {
  child: ChildProcess;
  served: number;
  dead: boolean;
  stderr: string;
}

/**
 * Runs buildProgram in a few child processes (tests/conformance/build-worker.ts): the compiler is
 * synchronous, so this is what keeps two or more cores busy, and a crash, hang or out-of-memory in
 * the compiler fails one program (with the process's stderr) instead of the whole suite.
 * CONFORMANCE_INPROCESS=1 calls buildProgram in this process instead (one build at a time).
 */
class BuildPool {
  private readonly idle: BuildWorker[] = [];
  private readonly waiting: ((w: BuildWorker) => void)[] = [];
  private live = 0;
  private seq = 0;
  private inProcessBusy: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly size: number,
    private readonly recycleAfter = 25,
  ) {}

  private spawnWorker(): BuildWorker {
    const child = fork(WORKER_SCRIPT, [], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx', '--max-old-space-size=4096'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const w: BuildWorker = { child, served: 0, dead: false, stderr: '' };
    child.stderr?.on('data', (b: Buffer) => {
      w.stderr = (w.stderr + b.toString('utf8')).slice(-8000);
    });
    child.on('exit', () => {
      w.dead = true;
    });
    return w;
  }

  private async acquire(): Promise<BuildWorker> {
    for (let w = this.idle.pop(); w; w = this.idle.pop()) {
      if (!w.dead) return w;
      this.live--;
    }
    if (this.live < this.size) {
      this.live++;
      return this.spawnWorker();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands a healthy worker to the next job; `null` (or a worker due for recycling) frees a slot. */
  private release(w: BuildWorker | null): void {
    if (w && (w.dead || w.served >= this.recycleAfter)) {
      w.child.kill('SIGKILL');
      w = null;
    }
    const next = this.waiting.shift();
    if (w) {
      if (next) next(w);
      else this.idle.push(w);
    } else if (next) {
      next(this.spawnWorker());
    } else {
      this.live--;
    }
  }

  async build(sources: BuildSources, opts: BuildOptions): Promise<BuildResult> {
    if (process.env.CONFORMANCE_INPROCESS) {
      const run = this.inProcessBusy.then(() => buildProgram(sources, opts));
      this.inProcessBusy = run.catch(() => undefined);
      return run;
    }
    const w = await this.acquire();
    const id = ++this.seq;
    w.stderr = '';
    const outcome = await new Promise<{ result: BuildResult; healthy: boolean }>((resolve) => {
      const cleanup = () => {
        clearTimeout(timer);
        w.child.off('message', onMessage);
        w.child.off('exit', onExit);
      };
      const onMessage = (m: { id: number; result?: BuildResult; error?: string }) => {
        if (m.id !== id) return;
        cleanup();
        if (m.result) resolve({ result: m.result, healthy: true });
        else resolve({ result: failure(`buildProgram threw:\n${m.error ?? '?'}`), healthy: true });
      };
      const onExit = (code: number | null, signal: string | null) => {
        cleanup();
        const how = signal ? `signal ${signal}` : `exit code ${code}`;
        resolve({ result: failure(`the compiler process died (${how}); its stderr:\n${w.stderr}`), healthy: false });
      };
      const timer = setTimeout(() => {
        cleanup();
        resolve({ result: failure(`the build did not finish within ${BUILD_TIMEOUT_MS} ms`), healthy: false });
      }, BUILD_TIMEOUT_MS);
      w.child.on('message', onMessage);
      w.child.on('exit', onExit);
      if (w.dead) onExit(w.child.exitCode, w.child.signalCode);
      else w.child.send({ id, sources, opts });
    });
    w.served++;
    this.release(outcome.healthy ? w : (w.child.kill('SIGKILL'), null));
    return outcome.result;
  }

  close(): void {
    for (const w of this.idle) w.child.kill('SIGKILL');
    this.idle.length = 0;
  }
}
const pool = new BuildPool(POOL_SIZE);

interface RunResult {
  /** Exit code, or `signal SIGSEGV` / `timeout` when the process did not exit normally. */
  status: number | string;
  stdout: Buffer;
  stderr: string;
}

function runProcess(file: string, args: string[], cwd: string, timeoutMs = RUN_TIMEOUT_MS): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const finish = (status: number | string) => {
      clearTimeout(timer);
      resolve({ status, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') });
    };
    child.on('error', (e) => finish(`spawn error: ${e.message}`));
    child.on('close', (code, signal) => {
      if (timedOut) finish(`timeout after ${timeoutMs} ms`);
      else if (code === null) finish(`signal ${signal ?? '?'}`);
      else finish(code);
    });
  });
}

function sourcesOf(p: CorpusProgram) {
  return [{ path: p.relPath, text: p.text }];
}

/** Latin-1 keeps every byte as one character, so binary output (PBM) compares exactly. */
function bytes(b: Buffer): string {
  return b.toString('latin1');
}

function clip(s: string, max = 4000): string {
  return s.length > max ? `${s.slice(0, max)}\n… (${s.length - max} more characters)` : s;
}

describe('conformance corpus layout', () => {
  it(`has at least ${MIN_PROGRAMS} programs, positive and negative`, () => {
    expect(POS.length).toBeGreaterThan(0);
    expect(NEG.length).toBeGreaterThan(0);
    expect(POS.length + NEG.length).toBeGreaterThanOrEqual(MIN_PROGRAMS);
  });

  it('has well-formed names and headers', () => {
    const problems = [...POS, ...NEG].flatMap((p) => p.problems.map((msg) => `${p.kind}/${p.name}: ${msg}`));
    expect(problems).toEqual([]);
  });

  it('has no stray files', () => {
    expect(strayFiles()).toEqual([]);
  });

  it('has the acceptance program and its C support file', () => {
    for (const f of ['accept.impala', 'accept.stdout', 'support.c']) {
      expect(fs.existsSync(path.join(SUPPORT_DIR, f)), f).toBe(true);
    }
  });
});

describe.concurrent('conformance: positive programs (-O1, run)', () => {
  for (const p of POS) {
    it(p.name, async ({ expect }) => {
      const exe = path.join(tmp, p.name);
      const res = await pool.build(sourcesOf(p), { optLevel: 1, kind: 'exe', output: exe });
      if (!res.ok) {
        expect.fail(`${p.relPath} failed to compile:\n${clip(res.rendered)}`);
        return;
      }
      const run = await runProcess(res.output || exe, [], tmp);
      const actual = { exit: run.status, stdout: bytes(run.stdout) };
      const expected = { exit: p.exitCode, stdout: bytes(p.stdout) };
      expect(actual, `${p.relPath}: exit status and stdout\nstderr:\n${clip(run.stderr) || '(empty)'}`).toEqual(expected);
    }, TEST_TIMEOUT_MS);
  }
});

describe.concurrent('conformance: negative programs (must not compile)', () => {
  for (const p of NEG) {
    it(p.name, async ({ expect }) => {
      const res = await pool.build(sourcesOf(p), { optLevel: 1, kind: 'llvm', output: path.join(tmp, `${p.name}.ll`) });
      expect(res.ok, `${p.relPath} compiled, but must fail with ${p.errors.length} error(s)`).toBe(false);
      const errors = res.diagnostics.filter((d) => d.severity === 'error');
      const base = path.basename(p.relPath);
      const listing = errors
        .map((d) => (d.span ? `${d.span.file}:${d.span.line}:${d.span.col}: ${d.message}` : `(no span): ${d.message}`))
        .join('\n');
      const missing = p.errors.filter(
        (e) =>
          !errors.some(
            (d) =>
              d.span !== null &&
              (d.span.file === p.relPath || path.basename(d.span.file) === base) &&
              d.span.line === e.line &&
              d.span.col === e.col &&
              d.message.includes(e.message),
          ),
      );
      expect(
        missing.map((e) => `${e.line}:${e.col}: ${e.message}`),
        `${p.relPath}: expected errors not reported. Reported errors:\n${clip(listing || '(none)')}`,
      ).toEqual([]);
    }, TEST_TIMEOUT_MS);
  }
});

describe('conformance: acceptance (--emit-llvm -O2, clang-19 x.ll support.c)', () => {
  it('accept.impala links with support.c and runs', async () => {
    const src = path.join(SUPPORT_DIR, 'accept.impala');
    const text = fs.readFileSync(src, 'utf8');
    const expectedExit = Number(/^\s*\/\/\s*EXIT:\s*(\d+)\s*$/m.exec(text)?.[1] ?? 0);
    const dir = fs.mkdtempSync(path.join(tmp, 'accept-'));
    const ll = path.join(dir, 'x.ll');
    const res = await pool.build([{ path: 'tests/conformance/support/accept.impala', text }], {
      optLevel: 2,
      kind: 'llvm',
      output: ll,
    });
    if (!res.ok) {
      expect.fail(`accept.impala failed to compile:\n${clip(res.rendered)}`);
      return;
    }
    const llFile = res.output || ll;
    expect(fs.existsSync(llFile), `${llFile} was not written`).toBe(true);
    const prog = path.join(dir, 'prog');
    const cc = await runProcess('clang-19', [llFile, path.join(SUPPORT_DIR, 'support.c'), '-o', prog], dir, 120_000);
    expect(cc.status, `clang-19 x.ll support.c -o prog failed:\n${clip(cc.stderr)}`).toBe(0);
    const run = await runProcess(prog, [], dir);
    expect(
      { exit: run.status, stdout: bytes(run.stdout) },
      `prog: exit status and stdout\nstderr:\n${clip(run.stderr)}`,
    ).toEqual({ exit: expectedExit, stdout: bytes(fs.readFileSync(path.join(SUPPORT_DIR, 'accept.stdout'))) });
  }, TEST_TIMEOUT_MS);
});
