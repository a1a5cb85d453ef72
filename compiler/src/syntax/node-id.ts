// Unique AST node ids. One counter for the whole process, so nodes that later stages
// synthesise never collide with parsed ones.
let next = 1;

export function freshNodeId(): number {
  return next++;
}
