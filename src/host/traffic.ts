// What a server and the host said to each other: every protocol message of a server, both
// directions, in a bounded ring, and the timeline a person reads from it (requests paired with
// their responses). Recording is one object and one array slot per message; everything else
// (sizes, pairing, redaction) is computed when someone looks.
import { Emitter, type Event } from '../util/event';
import { isRecord } from '../util/isRecord';

export type TrafficDirection = 'send' | 'receive';

/** Who made a request the host sent for someone else: a client of the gateway, by its initialize name. */
export interface TrafficOrigin {
  readonly via: 'gateway';
  readonly name: string;
}

/** One recorded protocol message, or one lifecycle event of the server (started, stopped…). */
export type TrafficEntry =
  | { readonly seq: number; readonly at: number; readonly kind: 'message'; readonly direction: TrafficDirection; readonly message: unknown; readonly origin?: TrafficOrigin }
  | { readonly seq: number; readonly at: number; readonly kind: 'event'; readonly text: string };

/**
 * How much message data one server's ring holds at most: a server that returns large results
 * (files, images) would otherwise keep `capacity` of them alive. The oldest go first.
 */
export const TRAFFIC_BYTES_PER_SERVER = 64 * 1024 * 1024;
/** How soon after a message its size is counted against the budget. */
const ACCOUNT_AFTER_MS = 250;

/** The last `capacity` messages of one server (0: nothing is recorded), within a byte budget. */
export class TrafficRecorder {
  private ring: Array<TrafficEntry | undefined> = [];
  private sizes: number[] = [];
  /** Index of the oldest entry, and how many there are. */
  private start = 0;
  private count = 0;
  private bytes = 0;
  /** Entries whose size is not counted yet (their `sizes` slot is -1), and the timer that counts them. */
  private unsized = 0;
  private accountTimer: ReturnType<typeof setTimeout> | undefined;
  private seq = 0;
  private capacityValue: number;
  private readonly recordedEmitter = new Emitter<void>();
  /** Something was recorded (or the ring was cleared). Fired per message: listeners should batch. */
  readonly onDidRecord: Event<void> = this.recordedEmitter.event;

  constructor(
    capacity: number,
    private readonly maxBytes = TRAFFIC_BYTES_PER_SERVER,
  ) {
    this.capacityValue = normaliseCapacity(capacity);
  }

  get capacity(): number {
    return this.capacityValue;
  }

  get enabled(): boolean {
    return this.capacityValue > 0;
  }

  /** Changes the size; keeps the newest entries that still fit (none when 0). */
  setCapacity(capacity: number): void {
    const value = normaliseCapacity(capacity);
    if (value === this.capacityValue) return;
    const kept = value > 0 ? this.entries().slice(-value) : [];
    this.capacityValue = value;
    this.reset();
    for (const entry of kept) this.push(entry);
    this.recordedEmitter.fire();
  }

  /** `origin`: the gateway client a relayed message was sent for (absent: the host's own). */
  recordMessage(direction: TrafficDirection, message: unknown, origin?: TrafficOrigin): void {
    if (this.capacityValue === 0) return;
    // Performance: two literals rather than a spread of `origin` (an object and a copy per message).
    const seq = ++this.seq;
    this.push(origin ? { seq, at: Date.now(), kind: 'message', direction, message, origin } : { seq, at: Date.now(), kind: 'message', direction, message });
    if (this.recordedEmitter.hasListeners) this.recordedEmitter.fire();
  }

  recordEvent(text: string): void {
    if (this.capacityValue === 0) return;
    this.push({ seq: ++this.seq, at: Date.now(), kind: 'event', text });
    if (this.recordedEmitter.hasListeners) this.recordedEmitter.fire();
  }

  /** The recorded entries, oldest first. */
  entries(): TrafficEntry[] {
    this.account();
    const out: TrafficEntry[] = [];
    for (let i = 0; i < this.count; i++) {
      const entry = this.ring[(this.start + i) % this.capacityValue];
      if (entry) out.push(entry);
    }
    return out;
  }

  clear(): void {
    this.reset();
    this.recordedEmitter.fire();
  }

  dispose(): void {
    if (this.accountTimer) clearTimeout(this.accountTimer);
    this.accountTimer = undefined;
    this.recordedEmitter.dispose();
  }

  private reset(): void {
    this.ring = [];
    this.sizes = [];
    this.start = 0;
    this.count = 0;
    this.bytes = 0;
    this.unsized = 0;
  }

  /**
   * One slot, and nothing else on the message path: sizes are counted (and the byte budget kept) a
   * moment later, off the path of the request, or at once when someone reads the entries.
   */
  private push(entry: TrafficEntry): void {
    if (this.count === this.capacityValue) this.dropOldest();
    const index = (this.start + this.count) % this.capacityValue;
    this.ring[index] = entry;
    this.sizes[index] = -1;
    this.count++;
    if (this.unsized++ === 0 && !this.accountTimer) {
      this.accountTimer = setTimeout(() => {
        this.accountTimer = undefined;
        this.account();
      }, ACCOUNT_AFTER_MS);
      this.accountTimer.unref?.();
    }
  }

  /** Counts the sizes not counted yet, then drops the oldest entries while over the budget. */
  private account(): void {
    if (this.unsized === 0) return;
    for (let i = 0; i < this.count; i++) {
      const index = (this.start + i) % this.capacityValue;
      if (this.sizes[index] >= 0) continue;
      const entry = this.ring[index];
      const size = !entry ? 0 : entry.kind === 'message' ? approximateBytes(entry.message) : entry.text.length;
      this.sizes[index] = size;
      this.bytes += size;
    }
    this.unsized = 0;
    // The newest entry stays even when it alone is over the budget.
    while (this.bytes > this.maxBytes && this.count > 1) this.dropOldest();
  }

  private dropOldest(): void {
    const size = this.sizes[this.start] ?? 0;
    if (size < 0) this.unsized--;
    else this.bytes -= size;
    this.ring[this.start] = undefined;
    this.start = (this.start + 1) % this.capacityValue;
    this.count--;
  }
}

/**
 * About the size of a value as JSON, without making the JSON: a walk that counts string lengths and
 * a few bytes per key, number and bracket. Cheap for the usual message, and for a large result
 * mostly the length of its few large strings. Recursive while shallow (the usual message, and the
 * fastest walk); a deeper part is walked with a stack of its own, so no nesting overflows the call stack.
 */
export function approximateBytes(value: unknown, depth = 0): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value !== 'object' || value === null) return 6;
  if (depth > MAX_RECURSION) return approximateBytesDeep(value);
  let total = 2;
  if (Array.isArray(value)) {
    total += value.length;
    for (let i = 0; i < value.length; i++) total += approximateBytes(value[i], depth + 1);
    return total;
  }
  for (const key in value) total += key.length + 4 + approximateBytes((value as Record<string, unknown>)[key], depth + 1);
  return total;
}

const MAX_RECURSION = 32;

function approximateBytesDeep(value: unknown): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') total += item.length + 2;
    else if (typeof item !== 'object' || item === null) total += 6;
    else if (Array.isArray(item)) {
      total += 2 + item.length;
      for (let i = 0; i < item.length; i++) stack.push(item[i]);
    } else {
      total += 2;
      for (const key in item) {
        total += key.length + 4;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return total;
}

function normaliseCapacity(capacity: number): number {
  return Number.isFinite(capacity) && capacity > 0 ? Math.floor(capacity) : 0;
}

// --- the timeline --------------------------------------------------------------

export type TrafficRowKind = 'request' | 'server-request' | 'notification' | 'response' | 'event';
/** 'unanswered': its connection ended (the next lifecycle event came) before an answer. */
export type TrafficRowStatus = 'ok' | 'error' | 'pending' | 'cancelled' | 'unanswered' | 'none';

/**
 * One line of the timeline: a request with its response, a notification, a response whose request
 * is no longer recorded, or a lifecycle event. `direction` is the first message's.
 */
export interface TrafficRow {
  /** The seq of the row's first entry: stable while the entry is recorded. */
  readonly key: number;
  readonly at: number;
  readonly kind: TrafficRowKind;
  readonly direction?: TrafficDirection;
  readonly method?: string;
  readonly id?: string | number;
  status: TrafficRowStatus;
  /** The error of an error response: code and message. */
  error?: { code?: number; message: string };
  /** Milliseconds from the request to its response. */
  latencyMs?: number;
  readonly first: TrafficEntry;
  response?: TrafficEntry;
  /** A request relayed for a gateway client: who asked (absent: the host itself). */
  readonly origin?: TrafficOrigin;
  /** For an event row, its text. */
  readonly text?: string;
}

type Message = Readonly<Record<string, unknown>>;

function asMessage(value: unknown): Message | undefined {
  return isRecord(value) ? value : undefined;
}

function isId(value: unknown): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}

/**
 * Pairs requests with their responses (a request of ours with the server's answer, a request of the
 * server with ours: ids of the two directions are separate spaces) and marks requests we cancelled.
 * A batch (an array) counts as its members, in order.
 */
export function buildTimeline(entries: readonly TrafficEntry[]): TrafficRow[] {
  const rows: TrafficRow[] = [];
  // Open requests by the direction they were sent in, then id.
  const open: Record<TrafficDirection, Map<string, TrafficRow>> = { send: new Map(), receive: new Map() };
  const idKey = (id: string | number) => `${typeof id}:${id}`;
  for (const entry of entries) {
    if (entry.kind === 'event') {
      // A lifecycle event ends a connection (or begins one): what is still open there was never
      // answered, and ids start again in the next one.
      for (const pending of [...open.send.values(), ...open.receive.values()]) if (pending.status === 'pending') pending.status = 'unanswered';
      open.send.clear();
      open.receive.clear();
      rows.push({ key: entry.seq, at: entry.at, kind: 'event', status: 'none', first: entry, text: entry.text });
      continue;
    }
    const members = Array.isArray(entry.message) ? (entry.message as unknown[]) : [entry.message];
    for (let i = 0; i < members.length; i++) {
      const member = members[i];
      // Members of a batch share their entry's seq: a fraction keeps their keys apart and in order.
      const key = members.length === 1 ? entry.seq : entry.seq + i / members.length;
      const message = asMessage(member);
      const method = typeof message?.method === 'string' ? message.method : undefined;
      const id = message && isId(message.id) ? message.id : undefined;
      const one: TrafficEntry = members.length === 1 ? entry : { ...entry, message: member };
      if (method !== undefined && id !== undefined) {
        const origin = entry.origin;
        const row: TrafficRow = { key, at: entry.at, kind: entry.direction === 'send' ? 'request' : 'server-request', direction: entry.direction, method, id, status: 'pending', first: one, ...(origin ? { origin } : {}) };
        open[entry.direction].set(idKey(id), row);
        rows.push(row);
        continue;
      }
      if (method !== undefined) {
        // A cancellation names a request of its own sender.
        if (method === 'notifications/cancelled') markCancelled(open[entry.direction], message, idKey);
        rows.push({ key, at: entry.at, kind: 'notification', direction: entry.direction, method, status: 'none', first: one });
        continue;
      }
      // A response answers a request sent the other way.
      const asked = id !== undefined ? open[entry.direction === 'send' ? 'receive' : 'send'].get(idKey(id)) : undefined;
      const error = describeError(message?.error);
      if (asked && id !== undefined) {
        open[asked.direction ?? 'send'].delete(idKey(id));
        asked.response = one;
        asked.status = error ? 'error' : 'ok';
        asked.error = error;
        asked.latencyMs = entry.at - asked.at;
        continue;
      }
      rows.push({ key, at: entry.at, kind: 'response', direction: entry.direction, id, status: error ? 'error' : 'ok', error, first: one });
    }
  }
  return rows;
}

function markCancelled(open: Map<string, TrafficRow>, message: Message | undefined, idKey: (id: string | number) => string): void {
  const params = asMessage(message?.params);
  const requestId = params?.requestId;
  if (!isId(requestId)) return;
  const row = open.get(idKey(requestId));
  if (row) row.status = 'cancelled';
}

function describeError(error: unknown): TrafficRow['error'] {
  const value = asMessage(error);
  if (!value) return undefined;
  return { code: typeof value.code === 'number' ? value.code : undefined, message: typeof value.message === 'string' ? value.message : JSON.stringify(value) };
}

// --- sizes, text and export ----------------------------------------------------

const sizes = new WeakMap<object, number>();

/** The size of a message as JSON, in UTF-8 bytes (computed once per message). */
export function messageBytes(message: unknown): number {
  if (typeof message !== 'object' || message === null) return Buffer.byteLength(JSON.stringify(message) ?? '');
  let size = sizes.get(message);
  if (size === undefined) {
    size = Buffer.byteLength(JSON.stringify(message) ?? '');
    sizes.set(message, size);
  }
  return size;
}

/**
 * One line of a traffic export (JSONL), the same in the editor's Export and the CLI's --trace:
 * `{"time", "server", "direction", "message"}` for a message, `{"time", "server", "event"}` for
 * an event. The line is redacted as the server's log is: `redact` runs over its JSON text.
 */
export function trafficJsonLine(entry: TrafficEntry, server: string, redact: (text: string) => string): string {
  const time = new Date(entry.at).toISOString();
  const line = entry.kind === 'event' ? { time, server, event: entry.text } : { time, server, direction: entry.direction, ...(entry.origin ? { origin: entry.origin } : {}), message: entry.message };
  try {
    return redact(JSON.stringify(line));
  } catch (err) {
    // JSON.stringify recurses: a message nested deeper than its stack is recorded by its shape only.
    const why = err instanceof RangeError ? 'nested too deeply to write' : 'could not be written';
    return redact(JSON.stringify({ ...line, message: `[${why}]` }));
  }
}
