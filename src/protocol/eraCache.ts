// The era of each HTTP endpoint this process has talked to (basic/versioning.mdx: clients SHOULD
// cache it "for the lifetime of the server process (stdio) or origin (HTTP)"). An 'auto' client
// whose endpoint's era is known skips the server/discover probe of a legacy server; concurrent
// first contacts share one probe. Stdio has no key: its era lives and dies with its process.
import type { ProtocolEra } from './era';
import { setBounded } from '../util/boundedMap';
import { PersistedFacts, isLearnedAt, learnedRecently, type FactStore } from '../util/persistedFacts';

/**
 * Where remembered eras outlive the process (the extension's globalState, the CLI's file), as
 * versioning.mdx allows ("MAY persist it across restarts"): digests of endpoint keys, never a URL.
 */
export type EraStore = FactStore<PersistedEra>;

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
  /** What this process knows, and when it was learned: trusted for a day too (an editor window or a gateway runs for days). */
  private readonly known = new Map<string, PersistedEra>();
  private readonly flights = new Map<string, ProbeFlight>();
  /** What earlier processes learned (see EraStore), each trusted for a day. */
  private readonly persisted = new PersistedFacts<PersistedEra>(PERSISTED_ERA_TTL_MS, parsePersistedEra);

  /**
   * Remembers across restarts in `store` from now on, starting with what it holds (anything
   * malformed in it is ignored). Undefined: this process only.
   */
  persistIn(store: EraStore | undefined): void {
    this.persisted.use(store);
  }

  /** The era remembered for the endpoint (in this process, or by an earlier one), if any. */
  eraOf(key: string): ProtocolEra | undefined {
    const known = this.known.get(key);
    if (known !== undefined) {
      if (learnedRecently(known.learnedAt, Date.now(), PERSISTED_ERA_TTL_MS)) return known.era;
      this.known.delete(key);
    }
    const earlier = this.persisted.factOf(key);
    if (earlier === undefined) return undefined;
    setBounded(this.known, key, earlier, MAX_ENDPOINTS);
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
    const now = Date.now();
    setBounded(this.known, key, { era, learnedAt: now }, MAX_ENDPOINTS);
    if (!this.persisted.persisting) return;
    const held = this.persisted.factOf(key);
    // A probe that taught it again restarts the entry's day; a modern endpoint, probed by every
    // handshake (server/discover is its handshake), rewrites the store once an hour at most.
    if (held?.era === era && now - held.learnedAt < REWRITE_AFTER_MS) return;
    this.persisted.save(key, { era, learnedAt: now });
  }

  /** The remembered era proved wrong: the next contact probes again (in later processes, too). */
  forget(key: string): void {
    this.known.delete(key);
    this.persisted.save(key, undefined);
  }

  /** Forgets every endpoint (tests), and stops persisting; the store keeps what it holds. */
  clear(): void {
    this.known.clear();
    this.persisted.clear();
    for (const flight of this.flights.values()) flight.settle(undefined);
    this.flights.clear();
  }
}

/** An entry of the store as EraCache writes it, or undefined. */
export function parsePersistedEra({ era, learnedAt }: Record<string, unknown>): PersistedEra | undefined {
  return (era === 'legacy' || era === 'modern') && isLearnedAt(learnedAt) ? { era, learnedAt } : undefined;
}

/** The one cache of this process: every McpClient over HTTP shares it. */
export const httpEraCache = new EraCache();
