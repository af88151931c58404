/** A JSON object: not null, not an array (what a message, its params or its `_meta` must be). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
