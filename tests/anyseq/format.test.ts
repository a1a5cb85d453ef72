// The output formats on alignments of random pairs (the reference's tracebacks): the
// aligned strings give back the inputs, the counts in every format agree with a recount
// from the strings, the pretty output wraps and numbers its lines correctly, SAM's CIGAR
// covers the whole query, JSON parses, TSV has one line per pair.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSequences, type SequenceRecord } from '../../libs/anyseq/fasta.ts';
import { alignedStrings, alignmentStats, formatter, type OutputFormat, type PairOutcome, PRETTY_WIDTH, type Settings } from '../../libs/anyseq/format.ts';
import { referenceAlign, referenceScore } from '../../libs/anyseq/reference.ts';
import { bundledMatrix, encode, type Mode, MODES } from '../../libs/anyseq/scoring.ts';

const blosum62 = bundledMatrix('BLOSUM62')!;
const letters = 'ARNDCQEGHILKMFPSTWYV';

function record(id: string, residues: string): SequenceRecord {
  return parseSequences([Buffer.from(`>${id} some description\n${residues}\n`)], `${id}.fa`)[0]!;
}

function outcome(qs: string, ts: string, settings: Settings, scoreOnly = false): PairOutcome {
  const query = record('query_1', qs);
  const target = record('target_2', ts);
  const q = encode(query.residues, settings.sub);
  const t = encode(target.residues, settings.sub);
  if (scoreOnly) return { query, target, q, t, ...referenceScore(q, t, settings.mode, settings.gaps, settings.sub) };
  const a = referenceAlign(q, t, settings.mode, settings.gaps, settings.sub);
  return { query, target, q, t, score: a.score, endQ: a.endQ, endT: a.endT, alignment: a };
}

const protein = (max: number) => fc.array(fc.constantFrom(...letters), { maxLength: max }).map((a) => a.join('').toLowerCase());
const settingsArb = fc.record({
  mode: fc.constantFrom<Mode>(...MODES),
  gaps: fc.constantFrom({ kind: 'affine' as const, open: 11, extend: 1 }, { kind: 'linear' as const, gap: 4 }, { kind: 'affine' as const, open: 3, extend: 1 }),
  sub: fc.constant(blosum62),
});

function render(format: OutputFormat, pairs: PairOutcome[], settings: Settings, scoreOnly = false): string {
  const f = formatter(format, settings, { targets: pairs.map((p) => p.target), commandLine: 'align q.fa t.fa', scoreOnly });
  return f.header() + pairs.map((p, k) => f.pair(p, k)).join('') + f.footer();
}

describe('alignment strings and counts', () => {
  it('give back the aligned ranges, and the counts agree with a recount', () => {
    fc.assert(
      fc.property(protein(40), protein(40), settingsArb, (qs, ts, settings) => {
        const p = outcome(qs, ts, settings);
        const a = p.alignment!;
        const s = alignedStrings(p, settings.sub);
        expect(s.query.length).toBe(s.target.length);
        expect(s.match.length).toBe(s.query.length);
        expect(s.query.replaceAll('-', '')).toBe(qs.slice(a.beginQ, a.endQ));
        expect(s.target.replaceAll('-', '')).toBe(ts.slice(a.beginT, a.endT));
        let identity = 0;
        let similarity = 0;
        let gaps = 0;
        for (let c = 0; c < s.query.length; c++) {
          const x = s.query[c]!;
          const y = s.target[c]!;
          if (x === '-' || y === '-') {
            gaps++;
            expect(s.match[c]).toBe(' ');
            continue;
          }
          const v = settings.sub.scores[settings.sub.alphabet.indexOf(x.toUpperCase()) * settings.sub.size + settings.sub.alphabet.indexOf(y.toUpperCase())]!;
          if (x === y) identity++;
          if (v > 0) similarity++;
          expect(s.match[c]).toBe(x === y ? '|' : v > 0 ? ':' : v === 0 ? '.' : ' ');
        }
        expect(alignmentStats(p, settings.sub)).toEqual({ length: s.query.length, identity, similarity, gaps, mismatches: s.query.length - gaps - identity });
      }),
      { numRuns: 150 },
    );
  });
});

describe('pretty', () => {
  it(`wraps at ${PRETTY_WIDTH} columns and numbers each line by its first and last residue`, () => {
    const settings: Settings = { mode: 'global', gaps: { kind: 'affine', open: 11, extend: 1 }, sub: blosum62 };
    const qs = 'MKVLAAGIVALLLAAGCSSSKEETSKKAEPTTPAPVAAPAATPAEEKPAAEAPKEAAAEKPAAEAPKEAAAEKKPAAEKSAEKKEEKPAEEKPAE';
    const ts = qs.slice(0, 40) + 'WWWW' + qs.slice(52);
    const p = outcome(qs, ts, settings);
    const text = render('pretty', [p], settings);
    expect(text).toMatch(new RegExp(`^# 1: query_1 \\(${qs.length} residues\\)$`, 'm'));
    expect(text).toMatch(/^# Identity: +\d+\/\d+ \(\d+\.\d%\)$/m);
    expect(text).toMatch(new RegExp(`^# Score: ${p.score}$`, 'm'));
    const q = [...text.matchAll(/^query_1 +(\d+) (\S+) (\d+)$/gm)];
    const t = [...text.matchAll(/^target_2 +(\d+) (\S+) (\d+)$/gm)];
    expect(q.length).toBe(Math.ceil(alignedStrings(p, blosum62).query.length / PRETTY_WIDTH));
    expect(q.map((m) => m[2]).join('')).toBe(alignedStrings(p, blosum62).query);
    expect(t.map((m) => m[2]).join('')).toBe(alignedStrings(p, blosum62).target);
    for (const lines of [q, t]) {
      let last = 0;
      for (const m of lines) {
        expect(m[2]!.length).toBeLessThanOrEqual(PRETTY_WIDTH);
        const residues = m[2]!.replaceAll('-', '').length;
        expect(Number(m[3])).toBe(last + residues);
        if (residues) expect(Number(m[1])).toBe(last + 1);
        last = Number(m[3]);
      }
    }
  });

  it('score only: the score and the end', () => {
    const settings: Settings = { mode: 'local', gaps: { kind: 'linear', gap: 4 }, sub: blosum62 };
    const p = outcome('MKVLAW', 'KVLA', settings, true);
    expect(render('pretty', [p], settings, true)).toContain(`# Score: ${p.score}\n# End: query_1 ${p.endQ}, target_2 ${p.endT}\n`);
  });
});

describe('tsv, sam, json', () => {
  it('carry the same pairs, scores and positions', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(protein(30), protein(30)), { minLength: 1, maxLength: 4 }), settingsArb, (inputs, settings) => {
        const pairs = inputs.map(([q, t]) => outcome(q, t, settings));
        const tsv = render('tsv', pairs, settings).split('\n');
        expect(tsv.pop()).toBe('');
        expect(tsv.length).toBe(pairs.length);
        const json = JSON.parse(render('json', pairs, settings)) as { mode: string; pairs: Record<string, unknown>[] };
        expect(json.mode).toBe(settings.mode);
        const sam = render('sam', pairs, settings).split('\n').filter((l) => l && !l.startsWith('@'));
        pairs.forEach((p, k) => {
          const a = p.alignment!;
          const st = alignmentStats(p, settings.sub);
          expect(tsv[k]!.split('\t')).toEqual(['query_1', 'target_2', String(p.score), String(p.q.length), String(p.t.length), String(a.beginQ + 1), String(a.endQ), String(a.beginT + 1), String(a.endT), String(st.length), String(st.identity), String(st.similarity), String(st.gaps), a.cigar || '*']);
          expect(json.pairs[k]).toMatchObject({ query: 'query_1', target: 'target_2', score: p.score, queryBegin: a.beginQ + 1, queryEnd: a.endQ, cigar: a.cigar, ...st });
          const f = sam[k]!.split('\t');
          expect(f[0]).toBe('query_1');
          expect(f[9]).toBe(p.query.residues.length ? Buffer.from(p.query.residues).toString() : '*');
          expect(f).toContain(`AS:i:${p.score}`);
          if (!a.cigar) {
            expect(f[1]).toBe('4');
            return;
          }
          expect(f[3]).toBe(String(a.beginT + 1));
          // The CIGAR covers the whole query (soft clips around the aligned range).
          let queryUsed = 0;
          for (const m of f[5]!.matchAll(/(\d+)([=XIDS])/g)) if ('=XIS'.includes(m[2]!)) queryUsed += Number(m[1]);
          expect(queryUsed).toBe(p.query.residues.length);
        });
      }),
      { numRuns: 60 },
    );
  });

  it('TSV with --score-only: the end positions', () => {
    const settings: Settings = { mode: 'semi', gaps: { kind: 'affine', open: 11, extend: 1 }, sub: blosum62 };
    const p = outcome('MKVL', 'AAMKVLAA', settings, true);
    expect(render('tsv', [p], settings, true)).toBe(`query_1\ttarget_2\t${p.score}\t4\t8\t${p.endQ}\t${p.endT}\n`);
  });

  it('SAM needs the alignments', () => {
    const settings: Settings = { mode: 'semi', gaps: { kind: 'affine', open: 11, extend: 1 }, sub: blosum62 };
    expect(() => formatter('sam', settings, { targets: [], commandLine: '', scoreOnly: true })).toThrow(/does not go with --score-only/);
  });
});
