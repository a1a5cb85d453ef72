// What the alignment tests share: running the align app in-process with standard output,
// standard error and console captured, and small FASTA files in a temporary directory.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { vi } from 'vitest';

/** Runs `main(args)` with everything it prints captured. */
export async function runApp(main: (argv: string[]) => Promise<number>, args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const spies = [
    vi.spyOn(console, 'log').mockImplementation((...a) => void (out += `${a.join(' ')}\n`)),
    vi.spyOn(console, 'error').mockImplementation((...a) => void (err += `${a.join(' ')}\n`)),
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true)),
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true)),
  ];
  try {
    return { code: await main(args), out, err };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

/** A temporary directory and a function writing a file into it, returning its path. */
export function scratch(prefix: string): { dir: string; file: (name: string, content?: string | Uint8Array) => string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    dir,
    file: (name, content) => {
      const p = path.join(dir, name);
      if (content !== undefined) writeFileSync(p, content);
      return p;
    },
  };
}
