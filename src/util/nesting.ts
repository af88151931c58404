/**
 * How deep a message may nest. Everything downstream of the protocol layer recurses over a
 * result (JSON.stringify for the CLI, traces and views; schema validation): V8's stack ends a few
 * thousand levels down, and a hostile server can send 150,000. Real MCP results nest a few dozen.
 */
export const MAX_MESSAGE_DEPTH = 512;

/**
 * Whether JSON text of this length (in characters or UTF-8 bytes) can nest deeper than `max`:
 * each of the max + 1 nested containers takes an opening and a closing bracket, so a shorter text
 * cannot, and its value needs no walk. A transport that knows a message's text length says it.
 */
export function textMayNestDeeperThan(length: number, max: number = MAX_MESSAGE_DEPTH): boolean {
  return length >= 2 * (max + 1);
}

/** The shortest text that may nest deeper than MAX_MESSAGE_DEPTH (textMayNestDeeperThan's bound). */
export const SHORTEST_TOO_DEEP_TEXT = 2 * (MAX_MESSAGE_DEPTH + 1);

/**
 * Whether a parsed JSON value nests objects and arrays deeper than `max`. It stops at the first
 * branch that is too deep, so its own recursion is never more than `max` frames (a shallow stack);
 * strings and other leaves are never entered, so a large text costs nothing. Recursive with
 * `for...in` rather than an explicit stack of `Object.values` arrays: it runs on every message, and
 * that allocation-free form is about 20 times faster on the small messages that are most of them.
 */
export function nestsDeeperThan(value: unknown, max: number = MAX_MESSAGE_DEPTH): boolean {
  return typeof value === 'object' && value !== null && exceedsBudget(value, max);
}

function exceedsBudget(node: object, levelsLeft: number): boolean {
  if (levelsLeft <= 0) return true;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (typeof child === 'object' && child !== null && exceedsBudget(child, levelsLeft - 1)) return true;
    }
    return false;
  }
  for (const key in node) {
    const child: unknown = (node as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && exceedsBudget(child, levelsLeft - 1)) return true;
  }
  return false;
}
