import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds the slowest files took in a cold CI run (fresh clone, empty compile cache, two
 * cores), most of it compiling kernels. The bilateral and interpolate figures are their
 * shares of the 296 s and 197 s of the single files they were split from, interpolate's
 * halved since: 933dfc5 (no cycle search for return blocks) about halved it cold. Without
 * recorded durations vitest starts the largest files first, and these are short files that
 * compile a lot: the 300 s bilateral test ran last, alone on one core. A stale figure only
 * costs balance, never a result.
 */
const COLD_SECONDS: Record<string, number> = {
  'tests/conformance.test.ts': 173,
  'tests/image/bilateral-fused.test.ts': 170,
  'tests/image/bilateral.test.ts': 126,
  'tests/image/halide-apps-gpu.test.ts': 120,
  'tests/properties/differential.test.ts': 109,
  'tests/image/pipelines.test.ts': 109,
  'tests/image/camera.test.ts': 68,
  'tests/image/effects.test.ts': 65,
  'tests/anyseq/app.test.ts': 55,
  'tests/image/apps.test.ts': 51,
  'tests/image/interpolate-fused.test.ts': 50,
  'tests/image/local-laplacian.test.ts': 50,
  'tests/image/box3.test.ts': 46,
  'tests/image/interpolate.test.ts': 45,
  'tests/image/gpu-opencl-effects.test.ts': 45,
  'tests/arrays/ops.test.ts': 43,
  'tests/driver/robustness.test.ts': 38,
  'tests/arrays/programs.test.ts': 34,
  'tests/interp/corpus.test.ts': 33,
  'tests/fuzz/fuzz.test.ts': 30,
};

/**
 * Longest first, so that two workers finish together: by the duration vitest recorded in an
 * earlier run where there is one, else by COLD_SECONDS, else by file size as vitest does.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const byVitest = await super.sort(files);
    const file = (f: TestSpecification) => path.relative(this.ctx.config.root, f.moduleId);
    const recorded = (f: TestSpecification) => this.ctx.cache.getFileTestResults(`${f.project.name}:${file(f)}`);
    const seconds = (f: TestSpecification) => {
      const r = recorded(f);
      return r ? r.duration / 1000 : (COLD_SECONDS[file(f).split(path.sep).join('/')] ?? 0);
    };
    const failed = (f: TestSpecification) => (recorded(f)?.failed ? 1 : 0);
    // Array.prototype.sort is stable: files with no figure keep vitest's order (larger first).
    return byVitest.sort((a, b) => failed(b) - failed(a) || seconds(b) - seconds(a));
  }
}

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'compiler/src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // vitest's default in run mode leaves one core idle (availableParallelism − 1), which on a
    // two-core machine runs one file at a time; most files wait on compiles, so use every core.
    maxWorkers: os.availableParallelism(),
    sequence: { sequencer: LongestFirst },
  },
});
