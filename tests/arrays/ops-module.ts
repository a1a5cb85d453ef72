// The Impala entries tests/arrays/ops.test.ts compiles in one module: every operation and
// with-loop form of libs/arrays for each rank 1 to 4 (the rank static, as in the programs),
// plus transpose with the rank a run-time value (programs.impala). Every entry has the C signature
// (a, b, out, ext, p) -> i32: inputs a and b, the output, a's extents and the parameters.

export const RANKS = [1, 2, 3, 4] as const;

/** Entries whose body uses rank R; `R` is replaced by the rank. */
const PER_RANK: Record<string, string> = {
  // Two parts with their bounds, strictness, step and width from p (see testGen).
  genarray: `sac::store(sac::seq_sched(), sac::genarray(s, 7, two_parts(s, x, p)), out); 0`,
  genarray_opt: `sac::store(sac::par_vec_sched(16), sac::genarray(s, 7, two_parts(s, x, p)), out); 0`,
  genarray_tiled: `sac::store(sac::tiled(sac::par_vec_sched(16), 3), sac::genarray(s, 7, two_parts(s, x, p)), out); 0`,
  modarray: `sac::store(sac::vec_sched(8), sac::modarray(x, two_parts(s, x, p)), out); 0`,
  // The same two parts with step 3 on every axis, known statically, written in place by
  // update (from rank 3 on, rows in blocks of the step; p's steps are not read).
  update_step3: `sac::store(sac::seq_sched(), sac::constant(s, 7), out); sac::update(sac::par_sched(), s, out, two_parts_step(s, x, p, 3)); 0`,
  fold: `sac::fold(|acc: i32, v: i32| acc * 31 + v, 1, two_parts(s, x, p))`,
  reshape: `sac::store(sac::seq_sched(), sac::reshape(sac::Shape { rank: R, ext: sac::ix_gen(R, |d| ext(R - 1 - d)) }, x), out); 0`,
  cat: `sac::store(sac::seq_sched(), sac::cat(p(0), x, sac::view(sac::shape_of(R, &p(1) as &[i32]), b)), out); 0`,
  take: `sac::store(sac::seq_sched(), sac::take(ix(p, 0), x), out); 0`,
  drop: `sac::store(sac::seq_sched(), sac::drop(ix(p, 0), x), out); 0`,
  tile: `sac::store(sac::seq_sched(), sac::tile(ix(p, 0), ix(p, 4), x), out); 0`,
  shift: `sac::store(sac::seq_sched(), sac::shift(ix(p, 0), p(4), x), out); 0`,
  rotate: `sac::store(sac::par_vec_sched(16), sac::rotate(ix(p, 0), x), out); 0`,
  where: `sac::store(sac::seq_sched(), sac::where(sac::lt(num, y, x), x, y), out); 0`,
  transpose: `sac::store(sac::tiled(sac::par_sched(), 2), sac::transpose(x), out); 0`,
  arith: `sac::store(sac::vec_sched(16), sac::add(num, sac::mul(num, x, y), sac::sub(num, x, sac::div(num, x, sac::map(y, |v: i32| if v == 0 { 1 } else { v })))), out); 0`,
  compare: [
    `let bit = |c: sac::Arr[bool], k: i32| sac::map(c, |v: bool| if v { 1 << k } else { 0 });`,
    `let bits = sac::add(num, sac::add(num, sac::add(num, bit(sac::lt(num, x, y), 0), bit(sac::le(num, x, y), 1)), sac::add(num, bit(sac::gt(num, x, y), 2), bit(sac::ge(num, x, y), 3))), sac::add(num, bit(sac::eq(num, x, y), 4), bit(sac::ne(num, x, y), 5)));`,
    `sac::store(sac::seq_sched(), bits, out); 0`,
  ].join('\n    '),
  reduce: [
    `let k = sac::constant(s, p(0));`,
    `out(0) = sac::sum(num, x); out(1) = sac::prod(num, x); out(2) = sac::max(num, x); out(3) = sac::min(num, x);`,
    `out(4) = if sac::all(sac::gt(num, x, k)) { 1 } else { 0 }; out(5) = if sac::any(sac::gt(num, x, k)) { 1 } else { 0 };`,
    `out(6) = sac::dim(x); out(7) = sac::size(sac::shape(x)); 0`,
  ].join('\n    '),
  sel_block: `if R > 1 { sac::store(sac::seq_sched(), sac::sel_block(1, ix(p, 0), x), out) } sac::sel(ix(p, 4), x)`,
  // Three with-loops, stored once (fused) or each into a temporary in b (unfused).
  chain_fused: `sac::store(sac::par_vec_sched(16), chain3(s, x, p, sac::seq_sched(), b, false), out); 0`,
  chain_unfused: `sac::store(sac::par_vec_sched(16), chain3(s, x, p, sac::par_vec_sched(16), b, true), out); 0`,
};

const HELPERS = `
fn @ix(p: &[i32], o: i32) -> sac::Ix { sac::ix4(p(o), p(o + 1), p(o + 2), p(o + 3)) }

// A generator from p at o: lo (4), hi (4), step (4), width (4), lo strict, hi strict.
fn @test_gen(r: i32, p: &[i32], o: i32) -> sac::Gen {
    let g = sac::gen_bounds(r, ix(p, o), p(o + 16) != 0, ix(p, o + 4), p(o + 17) != 0);
    sac::gen_step(g, ix(p, o + 8), ix(p, o + 12))
}

fn @two_parts(s: sac::Shape, x: sac::Arr[i32], p: &[i32]) -> sac::With[i32] {
    sac::also(sac::part(test_gen(s.rank, p, 0), |iv| sac::sel(iv, x) * 3 + iv(0)), test_gen(s.rank, p, 18), |iv| sac::offset(s, iv) - 5)
}

// two_parts with the step of both generators fixed to the given one on every axis.
fn @two_parts_step(s: sac::Shape, x: sac::Arr[i32], p: &[i32], step: i32) -> sac::With[i32] {
    let g = @|o: i32| { let t = test_gen(s.rank, p, o); sac::gen_step(t, sac::ix_fill(s.rank, step), ix(p, o + 12)) };
    sac::also(sac::part(g(0), |iv| sac::sel(iv, x) * 3 + iv(0)), g(18), |iv| sac::offset(s, iv) - 5)
}

fn @chain3(s: sac::Shape, x: sac::Arr[i32], p: &[i32], sched: sac::Sched, tmp: &mut [i32], unfused: bool) -> sac::Arr[i32] {
    let n = sac::size(s);
    let keep = |a: sac::Arr[i32], at: i32| if unfused { sac::force(sched, a, &mut tmp(at) as &mut [i32]) } else { a };
    let one = keep(sac::genarray(s, 0, sac::part(sac::gen_all(s), |iv| sac::sel(iv, x) + 1)), 0);
    let two = keep(sac::modarray(one, sac::part(sac::gen_interior(s), |iv| sac::sel(iv, one) * 2 - sac::sel(iv, x))), n);
    sac::genarray(s, -1, sac::part(test_gen(s.rank, p, 0), |iv| sac::sel(iv, two) - sac::sel(iv, one)))
}
`;

export const PER_RANK_OPS = Object.keys(PER_RANK);

export function entryName(op: string, rank: number): string {
  return `${op}_r${rank}`;
}

export function opsModule(): string {
  const entries: string[] = [HELPERS];
  for (const [op, body] of Object.entries(PER_RANK)) {
    for (const r of RANKS) {
      entries.push(
        [
          `extern fn ${entryName(op, r)}(a: &[i32], b: &mut [i32], out: &mut [i32], ext: &[i32], p: &[i32]) -> i32 {`,
          `    let s = sac::shape_of(${r}, ext); let x = sac::view(s, a); let y = sac::view(s, b); let num = sac::num_i32();`,
          `    ${body.replaceAll(/\bR\b/g, String(r))}`,
          `}`,
        ].join('\n'),
      );
    }
  }
  entries.push(
    [
      `// The rank is p(0), a run-time value: the generic loops of the seed's Figure 9.`,
      `extern fn transpose_any(a: &[i32], b: &mut [i32], out: &mut [i32], ext: &[i32], p: &[i32]) -> i32 {`,
      `    transpose_generic(p(0), ext, a, out); 0`,
      `}`,
    ].join('\n'),
  );
  return entries.join('\n\n') + '\n';
}
