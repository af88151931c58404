// The era of each HTTP endpoint this process has talked to (basic/versioning.mdx: clients SHOULD
// cache it "for the lifetime of the server process (stdio) or origin (HTTP)"). An 'auto' client
// whose endpoint's era is known skips the server/discover probe of a legacy server; concurrent
// first contacts share one probe. Stdio has no key: its era lives and dies with its process.
import type { ProtocolEra } from './era';
import { setBounded } from '../util/boundedMap';

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

  /** The era remembered for the endpoint, if any. */
  eraOf(key: string): ProtocolEra | undefined {
    return this.known.get(key);
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
  }

  /** The remembered era proved wrong: the next contact probes again. */
  forget(key: string): void {
    this.known.delete(key);
  }

  /** Forgets every endpoint (tests). */
  clear(): void {
    this.known.clear();
    for (const flight of this.flights.values()) flight.settle(undefined);
    this.flights.clear();
  }
}

/** The one cache of this process: every McpClient over HTTP shares it. */
export const httpEraCache = new EraCache();
