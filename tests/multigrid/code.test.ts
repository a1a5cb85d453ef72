// What partial evaluation makes of the V-cycle: the recursion over the levels is unrolled
// and the level kernels (smoothing, residual and restriction, interpolation) are specialised
// once and shared by every level, so eight levels compile to little more code than two.
import { describe, expect, it } from 'vitest';
import { compileToLLVM } from '../../compiler/src/driver/pipeline.ts';
import { multigridSources } from '../../libs/multigrid/host.ts';

function llvmOf(levels: number): string {
  const r = compileToLLVM(multigridSources([{ levels, schedule: 'seq', merge: false }]), { optLevel: 3 });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.llvm;
}

describe('the V-cycle after partial evaluation', () => {
  it('shares the level kernels between levels: eight levels are less than 1.3 times the code of two', () => {
    const [two, eight] = [llvmOf(2), llvmOf(8)];
    const lines = (s: string) => s.split('\n').length;
    expect(lines(eight)).toBeLessThan(1.3 * lines(two));
    // The same functions: the exports and one copy of each kernel, whatever the depth.
    const defines = (s: string) => s.split('\n').filter((l) => l.startsWith('define')).length;
    expect(defines(eight)).toBe(defines(two));
    // No closure is left: no call goes through a function pointer (`call i32 %f(…)`).
    expect(eight).not.toMatch(/\bcall\b[^@\n]*\s%[\w.]+\(/);
  });
});
