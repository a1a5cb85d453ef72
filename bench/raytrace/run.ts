// The paper's Fig. 7 CPU table on this machine: libs/raytrace against Embree 3.13 (Debian's
// libembree-dev) on the classic scenes, BVH4 and BVH8, for primary, AO and diffuse rays.
// Both sides trace the same stored rays (libs/raytrace/workloads.ts, cached under
// .cache/bench/raytrace/workloads) with the same number of threads; Mrays/s are medians of
// warm runs (one untimed run first); every hit is compared (same triangle, or a tie within
// 1e-4 relative; occlusion for AO). Ours is reported with its best traversal variant and with
// each; Embree with its best API and with each (rtcIntersect1, packets of 4/8/16, the stream
// API; COHERENT context for primary rays). A second table compares the builders: build
// times, the SAH cost of our tree, of Embree's own tree from rtcBuildBVH (same cost
// constants and leaf size) and our traversal on both trees, and memory per triangle.
//
//   npx tsx bench/raytrace/run.ts [--scene NAME|FILE]... [--width 640] [--height 480] [--runs 5]
//        [--builds 3] [--threads N] [--variants single,packet8,...] [--json out/bench/raytrace.json]
//        [--builders-only]   (the builders' table alone: no kernels compiled, no rays traced)
//
// Scenes are found in datasets/scenes (NAME.obj.xz) unless a path is given. Embree is
// installed with apt-get when missing and running as root; otherwise the command is named
// and only our side is measured. No number is ever made up.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, timeEach } from '../../libs/image/bench.ts';
import { buildBvh, type Bvh, checkBvh, DEFAULT_SAH, sahCost } from '../../libs/raytrace/bvh.ts';
import { sceneCamera, sceneName } from '../../libs/raytrace/camera.ts';
import { compileTracers, type FlatScene, flatten, type PacketSize, type Tracer, type Traversal } from '../../libs/raytrace/host.ts';
import { leafWidthFor } from '../../libs/raytrace/layout.ts';
import type { Mesh } from '../../libs/raytrace/mesh.ts';
import { loadObj } from '../../libs/raytrace/obj.ts';
import { type Hits, makeHits, type Rays } from '../../libs/raytrace/rays.ts';
import { ANY_HIT, loadWorkloads, type Workload, WORKLOADS } from '../../libs/raytrace/workloads.ts';
import {
  type Agreement,
  describeAgreement,
  EMBREE_MODES,
  EMBREE_TITLE,
  type EmbreeMode,
  embreeBuildBvh,
  embreeTrace,
  type EmbreeTrace,
  judgeAgainstEmbree,
  EMBREE_PACKAGES,
} from './references.ts';
import { benchArgs, benchFail, runBench } from '../shared/cli.ts';
import { installMissing } from '../shared/native.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

const DEFAULT_SCENES = ['sponza_crytek', 'conference', 'sibenik'];
/** Most triangles per leaf for both builders (Embree's scene BVHs use leaves of 4-triangle blocks). */
const ALL_VARIANTS = ['single', 'packet8', 'packet16', 'hybrid8', 'hybrid16'] as const;
type VariantName = (typeof ALL_VARIANTS)[number];

const cli = benchArgs(import.meta.url, {
  scene: { type: 'string', multiple: true, default: [] },
  width: { type: 'string', default: '640' },
  height: { type: 'string', default: '480' },
  runs: { type: 'string', default: '5' },
  builds: { type: 'string', default: '3' },
  threads: { type: 'string', default: String(os.availableParallelism()) },
  variants: { type: 'string', default: ALL_VARIANTS.join(',') },
  json: { type: 'string', default: path.join(root, 'out', 'bench', 'raytrace.json') },
  'builders-only': { type: 'boolean', default: false },
});

function positive(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) benchFail(import.meta.url, `--${name} must be a positive integer, not '${value}'`);
  return n;
}

const width = positive('width', cli.width!);
const height = positive('height', cli.height!);
const runs = positive('runs', cli.runs!);
const builds = positive('builds', cli.builds!);
const threads = positive('threads', cli.threads!);
const buildersOnly = cli['builders-only']!;
const variants = cli.variants!.split(',').map((v) => {
  if (!(ALL_VARIANTS as readonly string[]).includes(v)) benchFail(import.meta.url, `--variants: '${v}' is not one of ${ALL_VARIANTS.join(', ')}`);
  return v as VariantName;
});

function variantOptions(v: VariantName): { traversal: Traversal; packetSize?: PacketSize } {
  if (v === 'single') return { traversal: 'single' };
  return { traversal: v.startsWith('packet') ? 'packet' : 'hybrid', packetSize: Number(v.replace(/\D+/, '')) as PacketSize };
}

/** Installs libembree-dev as root when missing (otherwise names the command); whether Embree can run. */
const ensureEmbree = async (): Promise<boolean> => (await installMissing('bench/raytrace', EMBREE_PACKAGES)).length === 0;

function sceneFile(name: string): string {
  if (name.includes('/') || name.includes('.')) return name;
  const file = path.join(root, 'datasets', 'scenes', `${name}.obj.xz`);
  if (!existsSync(file)) throw new Error(`no scene '${name}': ${path.relative(process.cwd(), file)} is missing (give a path with --scene FILE)`);
  return file;
}

const mrays = (rays: number, ms: readonly number[]) => rays / median(ms) / 1e3;
const log = (s: string) => process.stderr.write(`${s}\n`);

/** Bytes of the arrays our kernels read for a scene. */
function flatBytes(s: FlatScene): number {
  return s.nodes.byteLength + s.children.byteLength + s.tris.byteLength + s.ids.byteLength;
}

interface Cell {
  scene: string;
  arity: 4 | 8;
  workload: Workload;
  rays: number;
  ours: Partial<Record<VariantName, { mrays: number; ms: number[]; agreement?: Agreement }>>;
  embree?: Partial<Record<EmbreeMode, { mrays: number; ms: number[] }>>;
}

interface BuildRow {
  scene: string;
  triangles: number;
  arity: 4 | 8;
  oursBuildMs: number[];
  /** SAH cost charging a leaf per triangle, and per started block of the kernels' leaf width. */
  oursSah: number;
  oursBlockSah: number;
  oursTrisPerLeaf: number;
  oursBytesPerTri: number;
  embreeCommitMs?: number[];
  embreeBytesPerTri?: number;
  embreeTreeMs?: number[];
  embreeTreeSah?: number;
  embreeTreeBlockSah?: number;
  embreeTreeTrisPerLeaf?: number;
  /** Our best primary-ray variant on our tree and on Embree's rtcBuildBVH tree. */
  primaryOnOurs?: number;
  primaryOnEmbree?: number;
}

/** Embree's own tree of the scene (rtcBuildBVH, the same leaf block and cost constants as ours): its build times, SAH costs and leaf fill into the row. */
async function embreeTree(mesh: Mesh, arity: 4 | 8, row: BuildRow): Promise<Bvh> {
  const block = leafWidthFor(arity);
  log(`${row.scene} BVH${arity}: ${EMBREE_TITLE}'s own tree (rtcBuildBVH, ${builds}×)`);
  const tree = await embreeBuildBvh(mesh, { arity, maxLeafSize: block, sahBlock: block, ...DEFAULT_SAH, quality: 'high', threads, builds });
  row.embreeTreeMs = tree.buildMs;
  row.embreeTreeSah = sahCost(tree.bvh, mesh, DEFAULT_SAH);
  row.embreeTreeBlockSah = sahCost(tree.bvh, mesh, DEFAULT_SAH, block);
  row.embreeTreeTrisPerLeaf = trianglesPerLeaf(tree.bvh);
  return tree.bvh;
}

/** Our side of one scene and arity: every variant on every workload; hits of the first variant per workload. */
async function traceOurs(
  tracers: Map<string, Tracer>,
  scene: FlatScene,
  sets: Record<Workload, Rays>,
  onCell: (w: Workload, v: VariantName, ms: number[], hits: Hits) => void,
): Promise<void> {
  for (const w of WORKLOADS) {
    for (const v of variants) {
      const tracer = tracers.get(`${v}/${ANY_HIT[w]}`)!;
      const hits = makeHits(sets[w].count);
      const ms = await timeEach(runs, () => tracer.trace(scene, sets[w], hits, { threads }));
      onCell(w, v, ms, hits);
    }
  }
}

async function main(): Promise<number> {
  const withEmbree = await ensureEmbree();
  const names = cli.scene!.length ? cli.scene! : DEFAULT_SCENES;
  const cells: Cell[] = [];
  const buildRows: BuildRow[] = [];
  const embreeAbout = new Set<string>();
  let oursWrong = 0;
  for (const name of names) {
    const file = sceneFile(name);
    log(`${name}: reading ${path.relative(process.cwd(), file)}`);
    const mesh: Mesh = await loadObj(file);
    const label = sceneName(file);
    const camera = sceneCamera(label, mesh.bounds(), width / height);
    for (const arity of [4, 8] as const) {
      const list = buildersOnly ? [] : variants.flatMap((v) => [false, true].map((anyHit) => ({ v, anyHit, ...variantOptions(v) })));
      if (list.length > 0) log(`${label} BVH${arity}: compiling our kernels`);
      const compiled = list.length === 0 ? [] : await compileTracers(list.map(({ traversal, packetSize, anyHit }) => ({ arity, traversal, packetSize, anyHit })));
      const tracers = new Map(list.map((x, i) => [`${x.v}/${x.anyHit}`, compiled[i]!]));

      log(`${label} BVH${arity}: building our tree (${builds}×)`);
      let bvh: Bvh | undefined;
      const oursBuildMs: number[] = [];
      for (let b = 0; b < builds; b++) {
        const start = performance.now();
        bvh = buildBvh(mesh, { arity, spatialSplits: true, threads });
        oursBuildMs.push(performance.now() - start);
      }
      // Leaves hold up to one block of the kernels' leaf width, and both builders charge a
      // leaf per started block (Embree's sahBlockSize), the cost our kernels really pay.
      const block = leafWidthFor(arity);
      checkBvh(bvh!, mesh, { maxLeafSize: block, spatialSplits: true });
      const flat = flatten(bvh!, mesh);
      const row: BuildRow = {
        scene: label, triangles: mesh.triangleCount, arity, oursBuildMs,
        oursSah: sahCost(bvh!, mesh, DEFAULT_SAH), oursBlockSah: sahCost(bvh!, mesh, DEFAULT_SAH, block),
        oursTrisPerLeaf: trianglesPerLeaf(bvh!), oursBytesPerTri: flatBytes(flat) / mesh.triangleCount,
      };
      buildRows.push(row);
      if (buildersOnly) {
        if (withEmbree) await embreeTree(mesh, arity, row);
        continue;
      }

      // The rays are made once per scene (by our closest-hit single-ray kernel) and stored.
      const first = tracers.get(`${variants[0]}/false`)!;
      const sets = await loadWorkloads(path.join(root, '.cache', 'bench', 'raytrace', 'workloads'), mesh, { camera, width, height, seed: 1, aoSamples: 1 }, async (rays) => {
        const hits = makeHits(rays.count);
        first.trace(flat, rays, hits, { threads });
        return hits;
      });

      let embree: EmbreeTrace | undefined;
      if (withEmbree) {
        log(`${label} BVH${arity}: ${EMBREE_TITLE} (${builds} scene builds, ${EMBREE_MODES.length} APIs × 3 workloads × ${runs + 1} runs)`);
        embree = await embreeTrace(mesh, WORKLOADS.map((w) => ({ rays: sets[w], anyHit: ANY_HIT[w], coherent: w === 'primary' })), { arity, modes: EMBREE_MODES, runs, threads, builds });
        embreeAbout.add(`${EMBREE_TITLE} (version ${embree.version}; ${embree.config})`);
        row.embreeCommitMs = embree.buildMs;
        row.embreeBytesPerTri = embree.bytes / mesh.triangleCount;
        const onEmbree = flatten(await embreeTree(mesh, arity, row), mesh);
        const hits = makeHits(sets.primary.count);
        for (const [tree_, key] of [[flat, 'primaryOnOurs'], [onEmbree, 'primaryOnEmbree']] as const) {
          let best = 0;
          for (const v of variants) {
            const ms = await timeEach(runs, () => tracers.get(`${v}/false`)!.trace(tree_, sets.primary, hits, { threads }));
            best = Math.max(best, mrays(sets.primary.count, ms));
          }
          row[key] = best;
        }
      }

      log(`${label} BVH${arity}: ours (${variants.length} variants × 3 workloads × ${runs + 1} runs)`);
      const byWorkload = new Map<Workload, Cell>(WORKLOADS.map((w) => [w, { scene: label, arity, workload: w, rays: sets[w].count, ours: {} }]));
      await traceOurs(tracers, flat, sets, (w, v, ms, hits) => {
        const cell = byWorkload.get(w)!;
        const ref = embree?.jobs[WORKLOADS.indexOf(w)]?.modes.single?.hits;
        const agreement = ref ? judgeAgainstEmbree(mesh, sets[w], ref, hits, ANY_HIT[w]) : undefined;
        oursWrong += agreement?.oursWrong ?? 0;
        cell.ours[v] = { mrays: mrays(sets[w].count, ms), ms, agreement };
        log(`  ${w} ${v}: ${cell.ours[v]!.mrays.toFixed(2)} Mrays/s${agreement ? `, hits vs ${EMBREE_TITLE}: ${describeAgreement(agreement, sets[w].count)}` : ''}`);
      });
      for (const [j, w] of WORKLOADS.entries()) {
        const cell = byWorkload.get(w)!;
        if (embree) cell.embree = Object.fromEntries(EMBREE_MODES.map((m) => [m, { mrays: mrays(sets[w].count, embree!.jobs[j]!.modes[m]!.ms), ms: embree!.jobs[j]!.modes[m]!.ms }]));
        cells.push(cell);
      }
    }
  }

  if (!buildersOnly) printTraceTable(cells);
  printBuildTable(buildRows);
  console.log('');
  console.log(`machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores; ${threads} thread${threads > 1 ? 's' : ''} per side; ${width}×${height} primary rays, 1 AO and 1 diffuse ray per primary hit (seed 1); medians of ${runs} warm runs`);
  for (const about of embreeAbout) console.log(`reference: ${about}`);
  if (embreeAbout.size) console.log(`${EMBREE_TITLE}'s rays are reset (and packets transposed to SoA) before each run, outside the timed region`);
  mkdirSync(path.dirname(cli.json!), { recursive: true });
  writeFileSync(cli.json!, `${JSON.stringify({ machine: os.cpus()[0]?.model, threads, width, height, runs, builds, embree: [...embreeAbout], cells, builders: buildRows }, null, 2)}\n`);
  console.log(`raw numbers: ${path.relative(process.cwd(), cli.json!)}`);
  return oursWrong > 0 ? 1 : 0;
}

function printRows(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (c: string[]) => `| ${c.map((s, i) => s.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

function best<K extends string>(m: Partial<Record<K, { mrays: number }>>): [K, number] | undefined {
  let b: [K, number] | undefined;
  for (const [k, v] of Object.entries(m) as [K, { mrays: number }][]) if (!b || v.mrays > b[1]) b = [k, v.mrays];
  return b;
}

function printTraceTable(cells: Cell[]): void {
  console.log('');
  console.log('Mrays/s (medians); ratio = ours best / Embree best (> 1: ours is faster)');
  const header = ['scene', 'BVH', 'rays', 'count', 'ours best', 'Embree best', 'ratio', ...variants.map((v) => `ours ${v}`), ...EMBREE_MODES.map((m) => `E ${m}`), 'hits vs Embree'];
  const rows = cells.map((c) => {
    const ob = best(c.ours);
    const eb = c.embree ? best(c.embree) : undefined;
    // The variant that agrees least speaks for the cell.
    const agreements = Object.values(c.ours).map((o) => o!.agreement);
    const worst = agreements.reduce<Agreement | undefined>((w, a) => (a && (!w || a.oursWrong > w.oursWrong || (a.oursWrong === w.oursWrong && a.disagree > w.disagree)) ? a : w), undefined);
    return [
      c.scene,
      `${c.arity}`,
      c.workload,
      `${c.rays}`,
      ob ? `${ob[1].toFixed(2)} (${ob[0]})` : '-',
      eb ? `${eb[1].toFixed(2)} (${eb[0]})` : 'n/a',
      ob && eb ? `${(ob[1] / eb[1]).toFixed(2)}×` : 'n/a',
      ...variants.map((v) => c.ours[v]?.mrays.toFixed(2) ?? '-'),
      ...EMBREE_MODES.map((m) => c.embree?.[m]?.mrays.toFixed(2) ?? 'n/a'),
      worst ? describeAgreement(worst, c.rays) : 'n/a',
    ];
  });
  printRows(header, rows);
}

/** Mean triangles per leaf. */
function trianglesPerLeaf(bvh: Bvh): number {
  let leaves = 0, prims = 0;
  for (const n of bvh.nodes) if (n.children.length === 0) { leaves++; prims += n.prims.length; }
  return leaves ? prims / leaves : 0;
}

function printBuildTable(rows: BuildRow[]): void {
  console.log('');
  console.log('Builders: medians of build times; SAH cost with traversal 1, intersection 1 (relative to the root box), a leaf charged per started block of the kernels\' leaf width (4 for BVH4, 8 for BVH8: what both builders minimise) and, in brackets, per triangle; triangles per leaf; memory per triangle of the structures traced');
  const header = ['scene', 'tris', 'BVH', 'ours build ms', 'Embree scene ms', 'Embree rtcBuildBVH ms', 'SAH ours', 'SAH Embree tree', 'tris/leaf ours', 'tris/leaf Embree tree', 'B/tri ours', 'B/tri Embree', 'ours on ours (primary)', 'ours on Embree tree'];
  printRows(
    header,
    rows.map((r) => [
      r.scene,
      `${r.triangles}`,
      `${r.arity}`,
      median(r.oursBuildMs).toFixed(0),
      r.embreeCommitMs ? median(r.embreeCommitMs).toFixed(0) : 'n/a',
      r.embreeTreeMs ? median(r.embreeTreeMs).toFixed(0) : 'n/a',
      `${r.oursBlockSah.toFixed(2)} (${r.oursSah.toFixed(2)})`,
      r.embreeTreeBlockSah !== undefined ? `${r.embreeTreeBlockSah.toFixed(2)} (${r.embreeTreeSah!.toFixed(2)})` : 'n/a',
      r.oursTrisPerLeaf.toFixed(2),
      r.embreeTreeTrisPerLeaf?.toFixed(2) ?? 'n/a',
      r.oursBytesPerTri.toFixed(1),
      r.embreeBytesPerTri?.toFixed(1) ?? 'n/a',
      r.primaryOnOurs?.toFixed(2) ?? '-',
      r.primaryOnEmbree?.toFixed(2) ?? 'n/a',
    ]),
  );
}

await runBench(import.meta.url, main);
