// @ts-check
// A builder thread of bvh.ts: takes subtree tasks from a shared queue and builds each with
// bvh-kernel.mjs into the shared arrays, alongside the main thread. Plain JavaScript, so it
// starts without a TypeScript loader (under tsx, vitest or plain node alike).
//
// Message: { arrays (BuildArrays over SharedArrayBuffers), tasks: Int32Array (start, end,
// extEnd per task), taskBounds: Float64Array (12 per task), control: Int32Array [next task,
// tasks done, failures] }. A task is claimed by Atomics.add on control[0]; control[1]
// counts finished ones and is notified, so the main thread can wait for the last.
import { parentPort } from 'node:worker_threads';
import { buildSubtree, makeScratch } from './bvh-kernel.mjs';

const scratch = makeScratch();

parentPort?.on('message', (/** @type {any} */ job) => {
  const { arrays, tasks, taskBounds, control } = job;
  const count = tasks.length / 3;
  for (;;) {
    const t = Atomics.add(control, 0, 1);
    if (t >= count) break;
    try {
      const start = tasks[3 * t], end = tasks[3 * t + 1], extEnd = tasks[3 * t + 2];
      buildSubtree(arrays, start, end, extEnd, 2 * start, taskBounds.subarray(12 * t, 12 * t + 12), scratch);
    } catch {
      Atomics.add(control, 2, 1);
    }
    Atomics.add(control, 1, 1);
    Atomics.notify(control, 1);
  }
});
