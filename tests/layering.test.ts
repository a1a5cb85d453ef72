// The layer order of docs/architecture.md (its ```layers block) is the rule every
// import follows: a file imports its own folder and the layers below it, never a
// layer above nor a sibling on the same line. This test reads the order from the
// doc, so the doc stays the one place that states it, and scans every source file
// of the layered folders for the modules it imports (static imports and exports,
// `import type`, dynamic `import(…)`), found by TypeScript's own import scanner.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const sourceExtensions = /\.(ts|mts|cts|mjs|cjs|js)$/;

/** Layers from the bottom up; each layer is the folders (or files) on one line. */
function parseLayers(doc: string): string[][] {
  const block = /^```layers\s*\n([\s\S]*?)^```/m.exec(doc);
  if (!block) throw new Error('docs/architecture.md has no ```layers block');
  return block[1]!
    .split('\n')
    .map((line) => line.trim().split(/\s+/).filter(Boolean).map((e) => e.replace(/\/+$/, '')))
    .filter((entries) => entries.length > 0);
}

interface Placement {
  /** The folder or file of the layer table the path is in (the longest that contains it). */
  readonly entry: string;
  readonly layer: number;
}

function placementOf(path: string, layers: readonly (readonly string[])[]): Placement | null {
  let best: Placement | null = null;
  layers.forEach((entries, layer) => {
    for (const entry of entries) {
      const inside = path === entry || path.startsWith(`${entry}/`);
      if (inside && (!best || entry.length > best.entry.length)) best = { entry, layer };
    }
  });
  return best;
}

/** Workspace packages by name: what `@anydsl/compiler` and the like resolve to (the package's "." export, else its folder). */
function workspacePackages(readText: (path: string) => string | undefined): Map<string, string> {
  const packages = new Map<string, string>();
  const rootPackage = JSON.parse(readText('package.json') ?? '{}') as { workspaces?: string[] };
  for (const folder of rootPackage.workspaces ?? []) {
    const text = readText(`${folder}/package.json`);
    if (text === undefined) continue;
    const pkg = JSON.parse(text) as { name?: string; exports?: string | Record<string, string> };
    if (!pkg.name) continue;
    const main = typeof pkg.exports === 'string' ? pkg.exports : pkg.exports?.['.'];
    packages.set(pkg.name, main ? posix.join(folder, main) : folder);
  }
  return packages;
}

/** The repository path an import specifier names, or null for modules outside the repository (node:, npm packages). */
function target(importer: string, spec: string, packages: ReadonlyMap<string, string>): string | null {
  if (spec.startsWith('.')) return posix.normalize(posix.join(posix.dirname(importer), spec));
  for (const [name, path] of packages) {
    if (spec === name) return path;
    if (spec.startsWith(`${name}/`)) return posix.join(path, spec.slice(name.length + 1));
  }
  return null;
}

/**
 * Every import in `files` (repository path → source text) that breaks the layer
 * order, as `file:line: …` naming both layers.
 */
function layeringViolations(
  files: ReadonlyMap<string, string>,
  layers: readonly (readonly string[])[],
  packages: ReadonlyMap<string, string>,
): string[] {
  const out: string[] = [];
  const name = (p: Placement): string => `layer ${p.layer + 1} (${layers[p.layer]!.join(' ')})`;
  for (const [file, text] of files) {
    const from = placementOf(file, layers);
    if (!from) {
      out.push(`${file}: is in no layer of docs/architecture.md`);
      continue;
    }
    for (const imported of ts.preProcessFile(text, true, true).importedFiles) {
      const path = target(file, imported.fileName, packages);
      if (path === null) continue;
      const line = text.slice(0, imported.pos).split('\n').length;
      const to = placementOf(path, layers);
      const where = `${file}:${line}: imports '${imported.fileName}'`;
      if (!to) out.push(`${where}, which is in no layer of docs/architecture.md`);
      else if (to.entry === from.entry || to.layer < from.layer) continue;
      else if (to.layer === from.layer) out.push(`${where}: ${from.entry} and ${to.entry} are siblings in ${name(from)}`);
      else out.push(`${where}: ${from.entry} in ${name(from)} imports ${to.entry} in ${name(to)}, above it`);
    }
  }
  return out;
}

/** The source files under the layered folders (and the folders that hold them, so that an unlisted folder shows up). */
function sourceFiles(layers: readonly (readonly string[])[]): Map<string, string> {
  const roots = new Set<string>();
  for (const entry of layers.flat()) {
    roots.add(entry);
    for (let d = posix.dirname(entry); d !== '.'; d = posix.dirname(d)) roots.add(d);
  }
  const files = new Map<string, string>();
  const visit = (abs: string): void => {
    const st = statSync(abs, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const e of readdirSync(abs)) if (e !== 'node_modules' && !e.startsWith('.')) visit(join(abs, e));
    } else if (sourceExtensions.test(abs)) {
      files.set(relative(root, abs).split('\\').join('/'), readFileSync(abs, 'utf8'));
    }
  };
  for (const r of roots) visit(join(root, r));
  return files;
}

const readRepoText = (path: string): string | undefined => {
  try {
    return readFileSync(join(root, path), 'utf8');
  } catch {
    return undefined;
  }
};

describe('layering', () => {
  const layers = parseLayers(readFileSync(join(root, 'docs/architecture.md'), 'utf8'));

  it('reads the layer table of docs/architecture.md', () => {
    expect(layers[0]).toEqual(['compiler/src/syntax']);
    expect(layers.find((l) => l.includes('compiler/src/transform'))).toContain('compiler/src/emit');
    expect(layers.flat()).toContain('scripts');
  });

  it('reports upward and sibling imports of every kind, and only those', () => {
    const tiny = [['a/low'], ['a/mid', 'a/side'], ['a/top.ts'], ['app']];
    const packages = new Map([['@x/top', 'a/top.ts']]);
    const files = new Map<string, string>([
      ['a/low/ok.ts', `import { z } from './other.ts';\nimport fs from 'node:fs';\n`],
      ['a/low/up.ts', `// line 1\nimport type { T } from '../mid/m.ts';\n`],
      ['a/low/dyn.ts', `const m = await import(\n  '../top.ts');\n`],
      ['a/mid/m.ts', `import { l } from '../low/ok.ts';\nexport * from '../side/s.ts';\n`],
      ['a/side/s.ts', `export { l } from '../low/ok.ts';\n`],
      ['app/main.mjs', `import { top } from '@x/top';\nimport { m } from '../a/mid/m.ts';\n`],
      ['a/low/pkg.ts', `import { top } from '@x/top';\n`],
      ['a/stray.ts', ``],
    ]);
    const found = layeringViolations(files, tiny, packages);
    expect(found).toEqual([
      `a/low/up.ts:2: imports '../mid/m.ts': a/low in layer 1 (a/low) imports a/mid in layer 2 (a/mid a/side), above it`,
      `a/low/dyn.ts:2: imports '../top.ts': a/low in layer 1 (a/low) imports a/top.ts in layer 3 (a/top.ts), above it`,
      `a/mid/m.ts:2: imports '../side/s.ts': a/mid and a/side are siblings in layer 2 (a/mid a/side)`,
      `a/low/pkg.ts:1: imports '@x/top': a/low in layer 1 (a/low) imports a/top.ts in layer 3 (a/top.ts), above it`,
      `a/stray.ts: is in no layer of docs/architecture.md`,
    ]);
  });

  it('resolves the workspace packages', () => {
    expect(workspacePackages(readRepoText).get('@anydsl/compiler')).toBe('compiler/src/index.ts');
  });

  it('holds for every source file: no import points up the layer order', () => {
    const files = sourceFiles(layers);
    expect(files.size).toBeGreaterThan(100);
    expect(layeringViolations(files, layers, workspacePackages(readRepoText))).toEqual([]);
  });
});
