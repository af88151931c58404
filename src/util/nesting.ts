/**
 * How deep a message may nest. Everything downstream of the protocol layer recurses over a
 * result (JSON.stringify for the CLI, traces and views; schema validation): V8's stack ends a few
 * thousand levels down, and a hostile server can send 150,000. Real MCP results nest a few dozen.
 */
export const MAX_MESSAGE_DEPTH = 512;

/**
 * Whether a parsed JSON value nests objects and arrays deeper than `max`. Iterative (it must not
 * itself overflow the stack) and it stops at the first branch that is too deep; strings and other
 * leaves are never entered, so a large text costs nothing.
 */
export function nestsDeeperThan(value: unknown, max: number = MAX_MESSAGE_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(node) ? (node as unknown[]) : Object.values(node);
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (typeof child === 'object' && child !== null) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
