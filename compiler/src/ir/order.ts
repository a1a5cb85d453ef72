// Graph orders shared by the passes. Iterative: fully unrolled code chains thousands of nodes.

/**
 * Nodes reachable from `start` in reverse post-order. Successors are visited last to
 * first, so the first successor ends up first in the order.
 */
export function reversePostOrder<T>(start: T, successors: (n: T) => readonly T[]): T[] {
  const seen = new Set<T>([start]);
  const post: T[] = [];
  const stack: [T, T[]][] = [[start, [...successors(start)]]];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    const next = top[1].pop();
    if (next === undefined) {
      stack.pop();
      post.push(top[0]);
    } else if (!seen.has(next)) {
      seen.add(next);
      stack.push([next, [...successors(next)]]);
    }
  }
  return post.reverse();
}
