// The code the border bands compile to (boundary.impala, `columns_in_order`): a vectorised
// kernel reads its border columns one by one, so no boundary mode leaves a gather in it.
// Gathers there cost seconds of clang time per kernel and a masked 32-lane iteration per
// border row. The interior of an interleaved RGB image runs as one plane
// (`handle_boundaries_interleaved`): contiguous wide loads, no picking of every third byte.
import { describe, expect, it } from 'vitest';
import { compileToLLVM } from '../../compiler/src/driver/pipeline.ts';
import { librarySources } from '../../libs/image/host.ts';
import { entryFunction, type Variant } from '../../libs/image/variants.ts';

function llvmOf(variant: Variant): string {
  const r = compileToLLVM([...librarySources(), { path: 'image_entry.impala', text: `${entryFunction(variant)}\n` }], { optLevel: 3 });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.llvm;
}

describe('border bands of vectorised kernels', () => {
  const cases: Variant[] = [
    { pipeline: 'gauss5', type: 'u8', channels: 3, schedule: 'opt', boundary: 'clamp' },
    { pipeline: 'box3', type: 'u8', channels: 3, schedule: 'vec', boundary: 'mirror' },
  ];
  for (const v of cases) {
    it(`${v.pipeline} ${v.type}×${v.channels} ${v.schedule}/${v.boundary}: no gathers, contiguous interior loads`, () => {
      const llvm = llvmOf(v);
      expect(llvm).not.toContain('@llvm.masked.gather');
      // No deinterleaving shuffle (every third element of a wide load: one channel of the RGB rows)...
      expect(llvm).not.toMatch(/shufflevector <\d+ x i8> %\S+, <\d+ x i8> poison, <\d+ x i32> <i32 0, i32 3, i32 6,/);
      // ...but wide loads of 32 consecutive bytes (the vectoriser's masked loads, all channels at once).
      expect(llvm).toMatch(/masked\.load\.v32i8|load <32 x i8>/);
    });
  }
});
