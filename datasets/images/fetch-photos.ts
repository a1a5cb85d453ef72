// Real photographs for bench/image, from a public registry so that anyone can reproduce the
// inputs: Debian's mate-backgrounds package (GPL-2+ nature photos). `apt-get download` needs
// no root; the .deb is kept in .cache/datasets/ and a handful of its photos, a range of
// sizes, are copied to datasets/images/photos/ (not in git) with a README naming their
// authors and licence.
//
//   npx tsx datasets/images/fetch-photos.ts      (npm run datasets:photos)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const PACKAGE = 'mate-backgrounds';
const CACHE = path.join(root, '.cache', 'datasets');
const SOURCE_DIR = 'usr/share/backgrounds/mate';
export const PHOTOS_DIR = path.join(here, 'photos');

/**
 * Paths under SOURCE_DIR, largest first: Wood is the package's largest photograph (its
 * abstract/Elephants_5640x3172.jpg is bigger but a painting, whose flat brushwork is not
 * what a photograph gives the kernels).
 */
const PHOTOS = ['nature/Wood.jpg', 'nature/LadyBird.jpg', 'nature/Storm.jpg', 'nature/GreenMeadow.jpg'];

const README = 'README.md';

/** The photos in datasets/images/photos/, fetched first unless all are there already. */
export async function fetchPhotos(log: (line: string) => void = () => {}): Promise<string[]> {
  const targets = PHOTOS.map((p) => path.join(PHOTOS_DIR, path.basename(p)));
  // The README is written last, so with it every photo is complete.
  if (existsSync(path.join(PHOTOS_DIR, README)) && targets.every((t) => existsSync(t))) return targets;
  const deb = cachedDeb() ?? (await download(log));
  mkdirSync(PHOTOS_DIR, { recursive: true });
  const tree = await mkdtemp(path.join(CACHE, `${PACKAGE}-`));
  try {
    run('dpkg-deb', ['-x', deb, tree], 'install the dpkg package, which has it');
    for (const [i, p] of PHOTOS.entries()) {
      const from = path.join(tree, SOURCE_DIR, p);
      if (!existsSync(from)) throw new Error(`${path.basename(deb)} has no ${SOURCE_DIR}/${p}; delete it from ${path.relative(process.cwd(), CACHE)} to fetch the package again`);
      // Through a temporary name, so an interrupted copy never passes for a photo.
      copyFileSync(from, `${targets[i]}.part`);
      renameSync(`${targets[i]}.part`, targets[i]!);
    }
    const copyright = readFileSync(path.join(tree, 'usr/share/doc', PACKAGE, 'copyright'), 'utf8');
    writeFileSync(path.join(PHOTOS_DIR, 'copyright'), copyright);
    const version = run('dpkg-deb', ['-f', deb, 'Version'], 'install the dpkg package, which has it').trim();
    writeFileSync(path.join(PHOTOS_DIR, README), await readme(version, copyright, targets));
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
  log(`${PHOTOS.length} photos from ${PACKAGE} in ${path.relative(process.cwd(), PHOTOS_DIR)}`);
  return targets;
}

function cachedDeb(): string | undefined {
  if (!existsSync(CACHE)) return undefined;
  const debs = readdirSync(CACHE).filter((f) => f.startsWith(`${PACKAGE}_`) && f.endsWith('.deb'));
  return debs.length ? path.join(CACHE, debs.sort().at(-1)!) : undefined;
}

/** Downloads the package into the cache; apt-get writes into its working directory, a fresh one so a failed download leaves nothing behind. */
async function download(log: (line: string) => void): Promise<string> {
  mkdirSync(CACHE, { recursive: true });
  const dir = await mkdtemp(path.join(CACHE, 'download-'));
  try {
    log(`downloading the Debian package ${PACKAGE} (47 MB) with apt-get`);
    run('apt-get', ['download', PACKAGE], 'the photos come from a Debian package, which takes apt (Debian, Ubuntu)', dir);
    const deb = readdirSync(dir).find((f) => f.endsWith('.deb'));
    if (!deb) throw new Error(`apt-get download ${PACKAGE} succeeded but left no .deb`);
    renameSync(path.join(dir, deb), path.join(CACHE, deb));
    return path.join(CACHE, deb);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs a tool and returns its stdout; its failure is one line saying what to do (`whenMissing` if it is not installed). */
function run(cmd: string, args: string[], whenMissing: string, cwd?: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(missing ? `${cmd} is not installed; ${whenMissing}` : `${cmd}: ${r.error.message}`);
  }
  if (r.status === 0) return r.stdout;
  const output = `${r.stdout}\n${r.stderr}`;
  // apt's first error is the cause (which URL, why); the later ones sum it up.
  const why = output.split('\n').find((l) => l.startsWith('E: '))?.slice(3).replace(/\s+/g, ' ') ?? output.trim().split('\n').at(-1) ?? `exit status ${r.status}`;
  if (cmd === 'apt-get' && /Unable to locate package|No packages found|has no installation candidate/.test(output)) {
    throw new Error(`apt does not know ${PACKAGE} (${why}); it is in Debian main and Ubuntu universe: enable one of them and run apt-get update`);
  }
  if (cmd === 'apt-get') throw new Error(`apt-get download ${PACKAGE} failed (${why}); it needs network access to a Debian or Ubuntu mirror`);
  throw new Error(`${cmd} ${args.join(' ')} failed: ${why}`);
}

/** The README next to the photos: where they come from, each one's size, authors and licence, from the package's machine-readable copyright file. */
async function readme(version: string, copyright: string, targets: string[]): Promise<string> {
  const stanzas = copyright.split(/\n\s*\n/).map(fields);
  const rows = await Promise.all(
    PHOTOS.map(async (p, i) => {
      const { width, height } = await sharp(targets[i]!).metadata();
      const stanza = stanzas.find((s) => (s.get('Files') ?? '').split(/\s+/).some((glob) => matches(glob, p)));
      const holders = (stanza?.get('Copyright') ?? 'not stated').split('\n').map((l) => l.trim()).join('; ');
      return `| ${path.basename(p)} | ${width}×${height} | ${holders} | ${stanza?.get('License')?.split('\n')[0] ?? 'see copyright'} |`;
    }),
  );
  return [
    '# Photographs for bench/image',
    '',
    `Copied from the Debian package ${PACKAGE} ${version} (\`/${SOURCE_DIR}/\`) by`,
    '`datasets/images/fetch-photos.ts`; not in git. `copyright` is the package\'s copyright file,',
    'with the licence texts (GPL-2+: GNU General Public License, version 2 or later).',
    '',
    '| file | size | copyright | licence |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** A DEP-5 stanza's fields; continuation lines (indented) join their field with newlines. */
function fields(stanza: string): Map<string, string> {
  const out = new Map<string, string>();
  let key = '';
  for (const line of stanza.split('\n')) {
    const m = /^([\w-]+):\s*(.*)$/.exec(line);
    if (m) out.set((key = m[1]!), m[2]!);
    else if (key && /^\s/.test(line)) out.set(key, `${out.get(key)}\n${line.trim()}`);
  }
  return out;
}

function matches(glob: string, file: string): boolean {
  return new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(file);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    for (const p of await fetchPhotos((line) => console.error(`datasets:photos: ${line}`))) console.log(path.relative(process.cwd(), p));
  } catch (e) {
    console.error(`datasets:photos: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}
