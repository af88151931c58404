// Facts about endpoints that outlive the process (the era cache's store, the CLI's era file): kept
// by digest, each with the time it was learned, and read back with care (the file is anybody's).
import { setBounded } from './boundedMap';
import { ENDPOINT_DIGEST_LENGTH, textDigest } from './digest';

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

/**
 * Where facts about endpoints outlive the process (the extension's globalState, the CLI's file):
 * read and written whole, keyed by digests of endpoint keys (a path or a query can hold a
 * credential, and a digest is all a lookup needs).
 */
export interface FactStore<T> {
  read(): unknown;
  write(facts: Record<string, T>): void;
}

/** Endpoints a store keeps at most (a process talks to its configured servers; the bound is for any other). */
export const MAX_PERSISTED_FACTS = 512;

/**
 * The facts of one kind that earlier processes learned about endpoints (each with the time it was
 * learned, believed `ttlMs` after it), and the changes this process makes, each written over what
 * the store holds at that moment: another process (a VS Code window, a CLI run) may have written
 * since. Anything malformed in the store (`parse` refuses it) or no longer believed is ignored,
 * and dropped by the next write.
 */
export class PersistedFacts<T extends { readonly learnedAt: number }> {
  private readonly held = new Map<string, T>();
  private store: FactStore<T> | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly parse: (value: Record<string, unknown>) => T | undefined,
  ) {}

  get persisting(): boolean {
    return this.store !== undefined;
  }

  /** Keeps facts in `store` from now on (undefined: this process only), starting with what it holds. */
  use(store: FactStore<T> | undefined): void {
    this.store = store;
    this.reload();
  }

  /**
   * The fact held for the endpoint, if still believed `now` (ms since the epoch): read when the
   * process started, maybe long ago (an editor window, a gateway), it has aged since.
   */
  factOf(key: string, now: number = Date.now()): T | undefined {
    if (this.held.size === 0) return undefined;
    const digest = textDigest(key, ENDPOINT_DIGEST_LENGTH);
    const fact = this.held.get(digest);
    if (fact === undefined || learnedRecently(fact.learnedAt, now, this.ttlMs)) return fact;
    this.held.delete(digest);
    return undefined;
  }

  /** Writes one change (undefined: forgotten) over what the store holds now; nothing when it holds nothing to forget. */
  save(key: string, fact: T | undefined): void {
    const store = this.store;
    if (!store) return;
    const digest = textDigest(key, ENDPOINT_DIGEST_LENGTH);
    this.reload();
    if (fact !== undefined) setBounded(this.held, digest, fact, MAX_PERSISTED_FACTS);
    else if (!this.held.delete(digest)) return;
    store.write(Object.fromEntries(this.held));
  }

  /** Forgets what it held, and stops persisting (tests); the store keeps what it holds. */
  clear(): void {
    this.held.clear();
    this.store = undefined;
  }

  private reload(): void {
    this.held.clear();
    const now = Date.now();
    for (const [digest, fact] of digestEntries(this.store?.read(), MAX_PERSISTED_FACTS, this.parse)) {
      if (learnedRecently(fact.learnedAt, now, this.ttlMs)) this.held.set(digest, fact);
    }
  }
}
