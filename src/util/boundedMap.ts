/**
 * Sets `key` in a map that holds at most `max` keys: a new key past the bound first drops the
 * oldest one (the map's insertion order). For memories keyed by what servers or configurations name.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  if (!map.has(key) && map.size >= max) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
  map.set(key, value);
}
