// Facts about endpoints that outlive the process (the era cache's store, the CLI's era file): kept
// by digest, each with the time it was learned, and read back with care (the file is anybody's).

/**
 * How far in the future a time another process wrote may be: two machines sharing a home
 * directory need not agree to the second.
 */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * Whether a fact an earlier process learned at `learnedAt` (ms since the epoch) is still believed
 * `now`, for `ttlMs` after it was learned. A time further in the future than a clock's skew was
 * written under a wrong clock since set back: not believed (it would otherwise stay young until
 * the clock caught up, and `ttlMs` after that).
 */
export function learnedRecently(learnedAt: number, now: number, ttlMs: number): boolean {
  return learnedAt <= now + CLOCK_SKEW_MS && now - learnedAt < ttlMs;
}

/** Whether a stored value is a usable time (ms since the epoch). */
export function isLearnedAt(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * The entries a store held, by digest: keys no longer than a digest, objects that `parse` accepts
 * (it returns undefined for the rest), `max` at most. Anything else is ignored.
 */
export function digestEntries<T>(held: unknown, max: number, parse: (value: Record<string, unknown>) => T | undefined): Array<[string, T]> {
  if (typeof held !== 'object' || held === null) return [];
  const entries: Array<[string, T]> = [];
  for (const [digest, value] of Object.entries(held)) {
    if (entries.length >= max) break;
    if (digest.length > 64 || typeof value !== 'object' || value === null) continue;
    const entry = parse(value as Record<string, unknown>);
    if (entry !== undefined) entries.push([digest, entry]);
  }
  return entries;
}
