// What the alignment tests share: running the align app in-process with standard output,
// standard error and console captured, and small FASTA files in a temporary directory.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { vi } from 'vitest';
import { runApp as runImageApp } from '../image/support.ts';

/**
 * Runs `main(args)` with everything it prints captured: the image apps' runner (console and
 * stderr) plus standard output, where align writes its alignments. An app prints either
 * through console.log (with -o) or to standard output, so joining the two keeps the order.
 */
export async function runApp(main: (argv: string[]) => Promise<number>, args: string[]): Promise<{ code: number; out: string; err: string }> {
  let stdout = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  try {
    const r = await runImageApp(main, args);
    return { ...r, out: r.out + stdout };
  } finally {
    spy.mockRestore();
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
