import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'compiler/src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // vitest's default in run mode leaves one core idle (availableParallelism − 1), which on a
    // two-core machine runs one file at a time; most files wait on compiles, so use every core.
    maxWorkers: os.availableParallelism(),
  },
});
