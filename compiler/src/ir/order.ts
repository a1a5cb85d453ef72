// Graph orders and the memoised bottom-up walk shared by the passes. Iterative,
// never JS recursion: fully unrolled code chains thousands of nodes, and a string
// literal has one operand per byte (so children are pushed one by one, not spread).

/**
 * Nodes reachable from `roots` in post-order (each after the nodes `next` leads
 * to), visiting `next(n)` first to last. Nodes already in `seen` are skipped; the
 * visited ones are added to it.
 */
export function postOrder<T>(roots: Iterable<T>, next: (n: T) => readonly T[], seen = new Set<T>()): T[] {
  const out: T[] = [];
  for (const r of roots) {
    if (seen.has(r)) continue;
    seen.add(r);
    const stack: { n: T; succs: readonly T[]; i: number }[] = [{ n: r, succs: next(r), i: 0 }];
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      if (top.i < top.succs.length) {
        const s = top.succs[top.i++]!;
        if (!seen.has(s)) {
          seen.add(s);
          stack.push({ n: s, succs: next(s), i: 0 });
        }
        continue;
      }
      stack.pop();
      out.push(top.n);
    }
  }
  return out;
}

/**
 * Nodes reachable from `start` in reverse post-order. Successors are visited last
 * to first, so the first successor ends up first in the order.
 */
export function reversePostOrder<T>(start: T, successors: (n: T) => readonly T[]): T[] {
  return postOrder([start], (n) => [...successors(n)].reverse()).reverse();
}

/**
 * The value of `root` in a bottom-up fold over a DAG, memoised in `memo`: each
 * node's `value` is computed once the nodes in `children(node)` have theirs (read
 * them from `memo`). A node with no children is a leaf.
 */
export function foldUp<T, V>(root: T, memo: Map<T, V>, children: (n: T) => readonly T[], value: (n: T) => V): V {
  // A node is expanded (its missing children pushed above it) once, and valued when the
  // walk comes back to it: every child pushed above it has its value by then (a DAG).
  // `children` is asked once per node, not again on the way back.
  const nodes: T[] = [root];
  const expanded: boolean[] = [false];
  while (nodes.length) {
    const top = nodes.length - 1;
    const n = nodes[top]!;
    if (expanded[top]) {
      nodes.pop();
      expanded.pop();
      if (!memo.has(n)) memo.set(n, value(n));
      continue;
    }
    if (memo.has(n)) {
      nodes.pop();
      expanded.pop();
      continue;
    }
    expanded[top] = true;
    for (const c of children(n)) {
      if (memo.has(c)) continue;
      nodes.push(c);
      expanded.push(false);
    }
  }
  return memo.get(root)!;
}
