// Loads the conformance corpus (tests/conformance/{pos,neg}) and parses its header lines.
// Format: see tests/conformance/README.md. Used by tests/conformance.test.ts; kept free of
// compiler imports so other suites (e.g. the IR interpreter) can reuse the corpus.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CORPUS_DIR = path.dirname(fileURLToPath(import.meta.url));

export type ProgramKind = 'pos' | 'neg';

export interface ExpectedError {
  /** 1-based line of the diagnostic's span start. */
  line: number;
  /** 1-based column of the diagnostic's span start. */
  col: number;
  /** Substring the diagnostic's message must contain. */
  message: string;
}

export interface CorpusProgram {
  kind: ProgramKind;
  /** File name without `.impala`, e.g. `int_wrap_i32`. */
  name: string;
  /** The part of the name before the first `_`, e.g. `int`. */
  area: string;
  /** Absolute path of the `.impala` file. */
  file: string;
  /** Path relative to the repository root, with `/` separators (used as the source path). */
  relPath: string;
  text: string;
  /** Expected exit code (positive programs; 0 unless `// EXIT: n`). */
  exitCode: number;
  /** Expected stdout bytes (positive programs; empty when there is no `.stdout` file). */
  stdout: Buffer;
  /** Expected errors (negative programs). */
  errors: ExpectedError[];
  /** Malformed or misplaced header lines; the layout test reports them. */
  problems: string[];
}

const EXIT_RE = /^\s*\/\/\s*EXIT:\s*(\d+)\s*$/;
const ERROR_RE = /^\s*\/\/\s*ERROR:\s*(\d+):(\d+):\s*(\S.*?)\s*$/;
const HEADER_WORD_RE = /^\s*\/\/\s*(EXIT|ERROR)\b/;
export const NAME_RE = /^([a-z][a-z0-9]*)_([a-z0-9_]+)$/;

export interface Headers {
  exitCode: number | null;
  errors: ExpectedError[];
  problems: string[];
}

/** Parses `// EXIT: n` and `// ERROR: line:col: message` lines anywhere in a program. */
export function parseHeaders(text: string): Headers {
  const headers: Headers = { exitCode: null, errors: [], problems: [] };
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (!HEADER_WORD_RE.test(line)) return;
    const exit = EXIT_RE.exec(line);
    const error = ERROR_RE.exec(line);
    if (exit) {
      const code = Number(exit[1]);
      if (headers.exitCode !== null) headers.problems.push(`line ${i + 1}: more than one EXIT header`);
      if (code > 255) headers.problems.push(`line ${i + 1}: exit code ${code} is not in 0..255`);
      headers.exitCode = code;
    } else if (error) {
      headers.errors.push({ line: Number(error[1]), col: Number(error[2]), message: error[3]! });
    } else {
      headers.problems.push(`line ${i + 1}: malformed header '${line.trim()}'`);
    }
  });
  for (const e of headers.errors) {
    const src = lines[e.line - 1];
    if (e.line < 1 || src === undefined) {
      headers.problems.push(`ERROR ${e.line}:${e.col}: line is outside the file`);
    } else if (e.col < 1 || e.col > src.replace(/\r$/, '').length + 1) {
      headers.problems.push(`ERROR ${e.line}:${e.col}: column is outside line ${e.line}`);
    }
  }
  return headers;
}

function repoRelative(file: string): string {
  const root = path.resolve(CORPUS_DIR, '..', '..');
  return path.relative(root, file).split(path.sep).join('/');
}

/** Every program of one kind, sorted by name. */
export function loadPrograms(kind: ProgramKind, dir: string = path.join(CORPUS_DIR, kind)): CorpusProgram[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.impala'))
    .sort()
    .map((f) => {
      const file = path.join(dir, f);
      const name = f.slice(0, -'.impala'.length);
      const text = fs.readFileSync(file, 'utf8');
      const h = parseHeaders(text);
      const stdoutFile = path.join(dir, `${name}.stdout`);
      const problems = [...h.problems];
      if (!NAME_RE.test(name)) problems.push(`file name '${f}' is not <area>_<name>.impala (lower case)`);
      if (kind === 'pos') {
        if (h.errors.length > 0) problems.push('positive program has ERROR headers');
        if (!/\bfn\s+main\s*\(/.test(text)) problems.push('positive program has no `fn main`');
      } else {
        if (h.errors.length === 0) problems.push('negative program has no ERROR header');
        if (h.exitCode !== null) problems.push('negative program has an EXIT header');
        if (fs.existsSync(stdoutFile)) problems.push('negative program has a .stdout file');
      }
      return {
        kind,
        name,
        area: name.split('_')[0]!,
        file,
        relPath: repoRelative(file),
        text,
        exitCode: h.exitCode ?? 0,
        stdout: kind === 'pos' && fs.existsSync(stdoutFile) ? fs.readFileSync(stdoutFile) : Buffer.alloc(0),
        errors: h.errors,
        problems,
      };
    });
}

/** Files in pos/ and neg/ that are neither a program nor a positive program's `.stdout`. */
export function strayFiles(): string[] {
  const stray: string[] = [];
  for (const kind of ['pos', 'neg'] as const) {
    const dir = path.join(CORPUS_DIR, kind);
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir)) {
      if (f.endsWith('.impala')) continue;
      const m = /^(.*)\.stdout$/.exec(f);
      if (kind === 'pos' && m && fs.existsSync(path.join(dir, `${m[1]}.impala`))) continue;
      if (kind === 'neg' && m && fs.existsSync(path.join(dir, `${m[1]}.impala`))) continue; // reported as a problem
      stray.push(`${kind}/${f}`);
    }
  }
  return stray;
}
