// What this process has learned about each HTTP endpoint, shared by all its sessions: the key
// that names an endpoint (also the key of the era cache, protocol/eraCache.ts), and whether it
// offers the optional GET stream (2025-03-26..2025-11-25 Streamable HTTP: a server without one
// answers the GET with 405), so that later sessions do not ask again.

import { setBounded } from '../util/boundedMap';
import { textDigest } from '../util/digest';
import { PersistedFacts, isLearnedAt, type FactStore } from '../util/persistedFacts';

/** Endpoints remembered at most (a process talks to its configured servers; the bound is for any other). */
const MAX_ENDPOINTS = 512;

/** The key of each URL seen: every session computed it anew (a URL parse, a digest of the query), twice (#21). */
const endpointKeys = new Map<string, string>();

/**
 * The endpoint of a URL: origin, path and a digest of the query. The spec keys the era by origin,
 * but one origin often hosts several MCP servers at different paths (`https://host/github/mcp`
 * beside `https://host/jira/mcp`), or behind one path chosen by the query (`/mcp?server=a`), which
 * may differ in era or GET stream: keyed by origin alone, they would flap, and a 405 of one would
 * cost the other its stream. The query is kept only as a digest (it may carry a key). Never logged.
 */
export function endpointKeyOf(href: string): string {
  let key = endpointKeys.get(href);
  if (key === undefined) setBounded(endpointKeys, href, (key = computeEndpointKey(href)), MAX_ENDPOINTS);
  return key;
}

function computeEndpointKey(href: string): string {
  try {
    const url = new URL(href);
    const query = url.search === '' ? '' : `?#${textDigest(url.search, 22)}`;
    return `${url.origin}${url.pathname}${query}`;
  } catch {
    return textDigest(href);
  }
}

/**
 * How long a 405 to the GET is believed. A server can start offering the stream only when it is
 * deployed anew, which a client cannot see without asking: ten minutes bounds what a long-lived
 * editor misses (server-initiated notifications) to a few sessions, and a session renewal (HTTP
 * 404, often a restarted server) forgets it at once (forgetGetUnsupported).
 */
export const GET_UNSUPPORTED_MEMORY_MS = 10 * 60_000;

/** What a session does about its GET stream. */
export type GetStreamDecision =
  | { readonly kind: 'skip' }
  | { readonly kind: 'open' }
  /** Nobody knows yet: this session asks, and settles what it learns for the others. */
  | { readonly kind: 'find-out'; settle(outcome: GetStreamOutcome): void }
  /** Another session is asking: wait for it, then decide again. */
  | { readonly kind: 'wait'; readonly known: Promise<void> };

/** What a GET taught: 'unknown' when it failed otherwise (network, 5xx, closed before the answer). */
export type GetStreamOutcome = 'supported' | 'unsupported' | 'unknown';

interface GetStreamEntry {
  supported?: boolean;
  /** performance.now() until which a 405 is believed. */
  unsupportedUntil?: number;
  finding?: Promise<void>;
}

export class GetStreamMemory {
  private readonly entries = new Map<string, GetStreamEntry>();

  private entryOf(key: string): GetStreamEntry {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      setBounded(this.entries, key, (entry = {}), MAX_ENDPOINTS);
    }
    return entry;
  }

  /** `now`: performance.now(), given by tests. */
  decide(key: string, now?: number): GetStreamDecision {
    const entry = this.entryOf(key);
    if (entry.unsupportedUntil !== undefined) {
      if ((now ?? performance.now()) < entry.unsupportedUntil) return { kind: 'skip' };
      entry.unsupportedUntil = undefined;
    }
    if (entry.supported) return { kind: 'open' };
    if (entry.finding !== undefined) return { kind: 'wait', known: entry.finding };
    let resolve!: () => void;
    const finding = new Promise<void>((r) => (resolve = r));
    entry.finding = finding;
    const found = entry;
    let settled = false;
    return {
      kind: 'find-out',
      settle: (outcome) => {
        if (settled) return;
        settled = true;
        if (found.finding === finding) found.finding = undefined;
        if (outcome === 'supported') found.supported = true;
        if (outcome === 'unsupported') markUnsupported(found);
        resolve();
      },
    };
  }

  /** A GET answered 405 outside a finding-out (a server that dropped its stream): believed from now on. */
  rememberUnsupported(key: string): void {
    markUnsupported(this.entryOf(key));
  }

  /** The endpoint may have changed (a session renewal): its next session asks again. */
  forgetUnsupported(key: string): void {
    const entry = this.entries.get(key);
    if (entry !== undefined) entry.unsupportedUntil = undefined;
  }

  /** Forgets every endpoint (tests). */
  clear(): void {
    this.entries.clear();
  }
}

/** A 405 to the GET, believed for GET_UNSUPPORTED_MEMORY_MS from now. */
function markUnsupported(entry: GetStreamEntry): void {
  entry.supported = false;
  entry.unsupportedUntil = performance.now() + GET_UNSUPPORTED_MEMORY_MS;
}

/** The one memory of this process, shared by every Streamable HTTP transport. */
export const getStreamMemory = new GetStreamMemory();

/**
 * How long an endpoint found to speak only HTTP+SSE is believed. A server moved to Streamable HTTP
 * at the same URL would otherwise be spoken to over the deprecated transport for as long as an
 * editor window or a gateway runs; after an hour the next session tries POST first again.
 */
export const LEGACY_SSE_MEMORY_MS = 60 * 60_000;

/**
 * Where the endpoints found to speak only HTTP+SSE outlive the process (the CLI's file, so that
 * each run against such a URL does not POST in vain first): digests of endpoint keys (a path or a
 * query may hold a credential), each with when it was learned (ms since the epoch).
 */
export type LegacySseStore = FactStore<LegacySseFact>;

export interface LegacySseFact {
  readonly learnedAt: number;
}

/**
 * Endpoints that answered POST initialize with 400/404/405 and then spoke the legacy HTTP+SSE
 * transport: later sessions of this process (and of later processes, with a store) open the event
 * stream at once, without the POST that only fails again (one round trip, and an error in the
 * server's log, per session). Forgotten when the stream is no HTTP+SSE endpoint's any more (the
 * server was deployed anew with Streamable HTTP), and LEGACY_SSE_MEMORY_MS after it was learned.
 */
export class LegacySseEndpoints {
  /** performance.now() until which each endpoint is believed. */
  private readonly until = new Map<string, number>();
  /** What earlier processes learned, each believed for the rest of its hour. */
  private readonly persisted = new PersistedFacts<LegacySseFact>(LEGACY_SSE_MEMORY_MS, parseLegacySseFact);

  /** Remembers across processes in `store` from now on, starting with what it holds (anything malformed is ignored). */
  persistIn(store: LegacySseStore | undefined): void {
    this.persisted.use(store);
  }

  /** `now`: performance.now(), and `wallNow`: Date.now(), given by tests. */
  has(key: string, now: number = performance.now(), wallNow: number = Date.now()): boolean {
    const until = this.until.get(key);
    if (until !== undefined) {
      if (now < until) return true;
      this.until.delete(key);
      return false;
    }
    const fact = this.persisted.factOf(key, wallNow);
    if (fact === undefined) return false;
    // Believed for the rest of its time, as if this process had learned it.
    setBounded(this.until, key, now + Math.min(LEGACY_SSE_MEMORY_MS, LEGACY_SSE_MEMORY_MS - (wallNow - fact.learnedAt)), MAX_ENDPOINTS);
    return true;
  }

  remember(key: string): void {
    setBounded(this.until, key, performance.now() + LEGACY_SSE_MEMORY_MS, MAX_ENDPOINTS);
    this.persisted.save(key, { learnedAt: Date.now() });
  }

  forget(key: string): void {
    this.until.delete(key);
    this.persisted.save(key, undefined);
  }

  /** Forgets every endpoint (tests), and stops persisting; the store keeps what it holds. */
  clear(): void {
    this.until.clear();
    this.persisted.clear();
  }
}

/** An entry of a store as LegacySseEndpoints writes it, or undefined. */
export function parseLegacySseFact({ learnedAt }: Record<string, unknown>): LegacySseFact | undefined {
  return isLearnedAt(learnedAt) ? { learnedAt } : undefined;
}

/** The one memory of this process, shared by every HTTP transport with fallback (http.ts). */
export const legacySseEndpoints = new LegacySseEndpoints();
