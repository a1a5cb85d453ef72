// Short source-like text for the evaluator's trace and diagnostics: argument
// values and filters as the user wrote them (`?n`, `a < b`, `$x`), not IR dumps.
import { Continuation, type Def, Param, PrimOp, isLit } from '../ir/defs.ts';
import type { Span } from '../syntax/diagnostics.ts';

const infix: Record<string, string> = {
  add: '+', sub: '-', mul: '*', div: '/', rem: '%', and: '&', or: '|', xor: '^', shl: '<<', shr: '>>',
  eq: '==', ne: '!=', lt: '<', le: '<=', gt: '>', ge: '>=',
};

/** A def as an expression, cut off below `depth` levels of primops. */
export function describe(d: Def, depth = 3): string {
  if (d instanceof Param) return paramName(d);
  if (d instanceof Continuation) return d.name || d.label;
  const p = d as PrimOp;
  if (isLit(p)) return String(p.payload);
  if (depth === 0) return '…';
  const sub = (i: number): string => describe(p.op(i), depth - 1);
  const op = infix[p.tag];
  if (op) return `(${sub(0)} ${op} ${sub(1)})`;
  switch (p.tag) {
    case 'hlt':
      return `$${sub(0)}`;
    case 'known':
      return `?${sub(0)}`;
    case 'run':
      return `@@${sub(0)}`;
    case 'bottom':
      return 'undef';
    case 'cast':
      return `${sub(0)} as ${p.type}`;
    case 'tuple':
      return `(${p.ops.map((_, i) => sub(i)).join(', ')})`;
    default:
      return `${p.tag}(${p.ops.map((_, i) => sub(i)).join(', ')})`;
  }
}

/** A param by its source name, or its position when it has none. */
export function paramName(p: Param): string {
  return p.name && p.name !== '_' ? p.name : `#${p.index}`;
}

export function spanText(span: Span | null): string {
  return span ? `${span.file}:${span.line}:${span.col}` : '<unknown location>';
}
