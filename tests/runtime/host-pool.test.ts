// The runtime's pool of released host buffers (runtime/memory.c), driven from C by
// host-pool.c against the runtime object every artifact links: a released buffer of 64 KiB
// or more comes back whole to the next allocation it holds, the most recently released
// first; smaller ones stay with malloc; at most 64 buffers and ANYDSL_HOST_POOL_BYTES are
// kept, oldest out first; threads share it without one buffer reaching two of them; a
// double release is one clear error. Each case runs in a process of its own, so that
// neither the pool nor glibc's thresholds carry over from another case.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../compiler/src/driver/cache.ts';
import { type RunResult, useTempDir } from '../driver/helpers.ts';
import { buildHarness, runHarness } from './support.ts';

const tmp = useTempDir('anydsl-host-pool-');
let harness = '';

beforeAll(async () => {
  harness = await buildHarness(tmp(), path.join(repoRoot, 'tests', 'runtime', 'host-pool.c'));
});

/** Runs one case with ANYDSL_HOST_POOL_BYTES as given (unset: the default). */
function runCase(what: string, poolBytes?: number | string): Promise<RunResult> {
  return runHarness(harness, [what], { ANYDSL_HOST_POOL_BYTES: poolBytes === undefined ? undefined : String(poolBytes) });
}

/** What one case prints; it must succeed. */
async function line(what: string, poolBytes?: number | string): Promise<string> {
  const r = await runCase(what, poolBytes);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.trimEnd();
}

const MiB = 1 << 20;

describe('released host buffers', () => {
  it('come back whole to the next allocations of their size, the most recently released first', async () => {
    expect(await line(`reuse:${MiB}`)).toBe('reuse 1 0');
    expect(await line(`reuse:${64 << 10}`)).toBe('reuse 1 0');
  });

  it('serve a request only when they hold it with at most an eighth to spare', async () => {
    // Twice the size does not fit; half would waste half of it; 15/16 takes it.
    expect(await line(`fit:${MiB}`)).toBe('fit new new 0');
  });

  it('of anydsl_alloc_host and anydsl_alloc_unified on the host are the same pool', async () => {
    expect(await line(`kinds:${MiB}`)).toBe('kinds 0 0');
  });

  it('stay with malloc below 64 KiB, and everywhere with ANYDSL_HOST_POOL_BYTES=0', async () => {
    // free() writes its list pointers into the buffer (or unmaps it): never whole again.
    expect(await line('reuse:512')).toBe('reuse new new');
    expect(await line(`reuse:${MiB}`, 0)).toBe('reuse new new');
    expect(await line(`fit:${MiB}`, 0)).toBe('fit new new new');
  });
});

describe('the bounds of the pool', () => {
  it('keeps at most 64 buffers, the oldest going first', async () => {
    const kept = Array.from({ length: 64 }, (_, i) => String(64 - i));
    expect(await line(`bound:65:${128 << 10}`)).toBe(['bound', ...kept, 'new'].join(' '));
  });

  it('keeps at most ANYDSL_HOST_POOL_BYTES, the oldest going first, and never a buffer larger than that', async () => {
    // Three 1 MiB buffers (and malloc's few bytes over) fit in 3.5 MiB, four do not.
    expect(await line(`bound:4:${MiB}`, 3.5 * MiB)).toBe('bound 3 2 1 new');
    expect(await line(`reuse:${MiB}`, MiB)).toBe('reuse new new');
  });

  it('rejects an ANYDSL_HOST_POOL_BYTES that is not a number of bytes', async () => {
    const r = await runCase(`reuse:${MiB}`, '1G');
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd()).toBe(
      'anydsl runtime error: ANYDSL_HOST_POOL_BYTES "1G": expected the bytes of released host memory to keep (0: none)',
    );
  });
});

describe('the pool under threads and misuse', () => {
  it('hands no buffer to two of 8 threads allocating and releasing at once, and keeps what they released', async () => {
    expect(await line('threads:8:2000')).toBe('threads 0 overwritten, 3 of 3 sizes pooled');
  });

  it('ends a program that releases a host buffer twice with one clear message', async () => {
    const r = await runCase(`double-release:${MiB}`);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd()).toBe('anydsl runtime error: anydsl_release: host memory (device 0) released twice');
  });
});
