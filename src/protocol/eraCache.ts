// The era of each HTTP endpoint this process has talked to (basic/versioning.mdx: clients SHOULD
// cache it "for the lifetime of the server process (stdio) or origin (HTTP)"). An 'auto' client
// whose endpoint's era is known skips the server/discover probe of a legacy server; concurrent
// first contacts share one probe. Stdio has no key: its era lives and dies with its process.
import type { ProtocolEra } from './era';
import { setBounded } from '../util/boundedMap';
import { ENDPOINT_DIGEST_LENGTH, textDigest } from '../util/digest';
import { digestEntries, isLearnedAt, learnedRecently } from '../util/persistedFacts';

/**
 * Where remembered eras outlive the process (the extension's globalState, the CLI's file), as
 * versioning.mdx allows ("MAY persist it across restarts"). Its keys are digests of endpoint keys:
 * an endpoint's path or query can hold a credential, and a digest is all a lookup needs.
 */
export interface EraStore {
  read(): unknown;
  write(eras: Record<string, PersistedEra>): void;
}

/** An era in the store, and when a probe learned it (ms since the epoch). */
export interface PersistedEra {
  readonly era: ProtocolEra;
  readonly learnedAt: number;
}

/**
 * How long a persisted era is trusted. A remembered legacy endpoint gets initialize, which a
 * server that became dual-era still answers: without an end, it would never be probed again and
 * never be spoken to in the modern era. After a day the next contact probes (one round trip).
 */
export const PERSISTED_ERA_TTL_MS = 24 * 60 * 60 * 1000;
const REWRITE_AFTER_MS = 60 * 60 * 1000;

/** A probe under way: its answer (undefined when it failed and taught nothing). */
interface ProbeFlight {
  readonly answer: Promise<ProtocolEra | undefined>;
  settle(era: ProtocolEra | undefined): void;
}

/** The probe this client makes for everyone waiting on the endpoint; settle it once the era is known or the probe failed. */
export interface ProbeClaim {
  /** The probe told the era (it is remembered) or failed (undefined: nothing remembered); later calls do nothing. */
  settle(era: ProtocolEra | undefined): void;
}

/** Endpoints remembered at most (a process talks to its configured servers; the bound is for any other). */
const MAX_ENDPOINTS = 512;

export class EraCache {
  private readonly known = new Map<string, ProtocolEra>();
  private readonly flights = new Map<string, ProbeFlight>();
  /** What earlier processes learned, by digest of the endpoint key (see EraStore). */
  private readonly persisted = new Map<string, PersistedEra>();
  private store: EraStore | undefined;

  /**
   * Remembers across restarts in `store` from now on, starting with what it holds (anything
   * malformed in it is ignored). Undefined: this process only.
   */
  persistIn(store: EraStore | undefined): void {
    this.store = store;
    this.persisted.clear();
    for (const [digest, era] of readStore(store)) this.persisted.set(digest, era);
  }

  /** The era remembered for the endpoint (in this process, or by an earlier one), if any. */
  eraOf(key: string): ProtocolEra | undefined {
    const known = this.known.get(key);
    if (known !== undefined || this.persisted.size === 0) return known;
    const digest = textDigest(key, ENDPOINT_DIGEST_LENGTH);
    const earlier = this.persisted.get(digest);
    if (earlier === undefined) return undefined;
    // Read when the process started, maybe long ago (an editor window, a gateway): aged since.
    if (!trusted(earlier, Date.now())) {
      this.persisted.delete(digest);
      return undefined;
    }
    setBounded(this.known, key, earlier.era, MAX_ENDPOINTS);
    return earlier.era;
  }

  /** The answer of a probe of the endpoint under way, if one is. */
  probeUnderWay(key: string): Promise<ProtocolEra | undefined> | undefined {
    return this.flights.get(key)?.answer;
  }

  /** This client probes the endpoint; others that ask meanwhile wait for its answer (single flight). */
  claimProbe(key: string): ProbeClaim {
    let resolve!: (era: ProtocolEra | undefined) => void;
    const answer = new Promise<ProtocolEra | undefined>((r) => (resolve = r));
    let settled = false;
    const flight: ProbeFlight = {
      answer,
      settle: (era) => {
        if (settled) return;
        settled = true;
        if (this.flights.get(key) === flight) this.flights.delete(key);
        if (era !== undefined) this.remember(key, era);
        resolve(era);
      },
    };
    this.flights.set(key, flight);
    return flight;
  }

  remember(key: string, era: ProtocolEra): void {
    setBounded(this.known, key, era, MAX_ENDPOINTS);
    if (!this.store) return;
    const digest = textDigest(key, ENDPOINT_DIGEST_LENGTH);
    const held = this.persisted.get(digest);
    const now = Date.now();
    // A probe that taught it again restarts the entry's day; a modern endpoint, probed by every
    // handshake (server/discover is its handshake), rewrites the store once an hour at most.
    if (held?.era === era && now - held.learnedAt < REWRITE_AFTER_MS) return;
    this.save(digest, { era, learnedAt: now });
  }

  /** The remembered era proved wrong: the next contact probes again (in later processes, too). */
  forget(key: string): void {
    this.known.delete(key);
    if (!this.store) return;
    const digest = textDigest(key, ENDPOINT_DIGEST_LENGTH);
    if (this.persisted.has(digest)) this.save(digest, undefined);
  }

  /**
   * Writes one change (undefined: forgotten) over what the store holds now: another VS Code
   * window may have written since this one read it.
   */
  private save(digest: string, entry: PersistedEra | undefined): void {
    const store = this.store;
    if (!store) return;
    this.persisted.clear();
    for (const [d, e] of readStore(store)) this.persisted.set(d, e);
    if (entry === undefined) this.persisted.delete(digest);
    else setBounded(this.persisted, digest, entry, MAX_ENDPOINTS);
    store.write(Object.fromEntries(this.persisted));
  }

  /** Forgets every endpoint (tests), and stops persisting; the store keeps what it holds. */
  clear(): void {
    this.known.clear();
    this.persisted.clear();
    this.store = undefined;
    for (const flight of this.flights.values()) flight.settle(undefined);
    this.flights.clear();
  }
}

/** Less than a day old, by a clock not set back since (persistedFacts.ts). */
function trusted(entry: PersistedEra, now: number): boolean {
  return learnedRecently(entry.learnedAt, now, PERSISTED_ERA_TTL_MS);
}

/**
 * The well-formed, trusted entries a store holds (at most MAX_ENDPOINTS); anything else in it is
 * ignored, and dropped by the next write.
 */
function readStore(store: EraStore | undefined): Array<[string, PersistedEra]> {
  const now = Date.now();
  return digestEntries(store?.read(), MAX_ENDPOINTS, ({ era, learnedAt }) => {
    if ((era !== 'legacy' && era !== 'modern') || !isLearnedAt(learnedAt)) return undefined;
    const entry: PersistedEra = { era, learnedAt };
    return trusted(entry, now) ? entry : undefined;
  });
}

/** The one cache of this process: every McpClient over HTTP shares it. */
export const httpEraCache = new EraCache();
