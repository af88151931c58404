// What a server and the host said to each other: every protocol message of a server, both
// directions, in a bounded ring, and the timeline a person reads from it (requests paired with
// their responses). Recording is one slot in a few arrays per message; everything else
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
/** How soon after a message its size is counted against the budget, while messages keep coming. */
const ACCOUNT_AFTER_MS = 250;
/**
 * When messages stop coming: how soon the sizes not counted yet are counted anyway, by a timer.
 *
 * Performance: the clock of the next message counts them while messages come, not a 250 ms
 * timer. When the first timer of a process fires, Node writes its `_destroyed` field, and V8
 * drops the optimised code that took that field for a constant, the protocol's request path
 * among it (it refs and unrefs its timeout timer): that cost 5,000 sequential calls about 20 ms
 * CPU. A 2 s timer fires seldom, and not within a short burst of calls.
 */
const ACCOUNT_IDLE_AFTER_MS = 2000;

/** What a slot holds (the recorder's `kinds`). */
const SENT = 0;
const RECEIVED = 1;
const EVENT = 2;
/** The largest size an entry is counted at (what an Int32Array slot holds). */
const MAX_ENTRY_SIZE = 0x7fffffff;
/** The first size of the slot arrays; they double up to the capacity as the ring fills. */
const FIRST_SLOTS = 64;

/**
 * The last `capacity` messages of one server (0: nothing is recorded), within a byte budget.
 *
 * Performance: an entry is a slot in parallel arrays (its message, kind, time and size), not an
 * object: recording a message allocates nothing but the slot's first use, and its time is a
 * float in a typed array rather than a boxed number. Entry objects are made when someone reads
 * the entries, and kept (the same object on every read) while the entry is recorded.
 */
export class TrafficRecorder {
  /** A message's value, or an event's text. */
  private values: unknown[] = [];
  private kinds = new Uint8Array(0);
  private times = new Float64Array(0);
  /**
   * An entry's size against the budget; -1: not counted yet. Int32, at most MAX_ENTRY_SIZE: a
   * size read from a Float64Array made the byte total a double (a heap number), and that change
   * of the recorder's field dropped V8's optimised message path when the ring first wrapped.
   */
  private sizes = new Int32Array(0);
  /** Who a relayed message was sent for, when any message had one. */
  private origins: Array<TrafficOrigin | undefined> | undefined;
  /** The entry objects made by entries(), by slot. */
  private made: Array<TrafficEntry | undefined> = [];
  /** Index of the oldest entry, and how many there are. Entry i (oldest first) has seq `seq - count + 1 + i`. */
  private start = 0;
  private count = 0;
  /** The slot the next entry goes into: `(start + count) % capacity`, kept rather than computed. */
  private next = 0;
  private bytes = 0;
  /** Entries whose size is not counted yet, and the timer that counts them when no message comes. */
  private unsized = 0;
  /**
   * The time (Date.now()) from which the next message counts them; 0 before the first count,
   * which the second message makes: counting is then known to V8 before it optimises the message
   * path (a first count 250 ms into a busy connection made V8 drop that optimised code, about
   * 20 ms CPU in 5,000 sequential calls).
   */
  private accountDue = 0;
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
    // The newest entries, whose seqs run up to this.seq, as the slots' seqs require.
    const kept = value > 0 ? this.entries().slice(-value) : [];
    this.capacityValue = value;
    this.reset();
    for (const entry of kept) {
      if (entry.kind === 'event') this.store(EVENT, entry.at, entry.text, undefined);
      else this.store(entry.direction === 'send' ? SENT : RECEIVED, entry.at, entry.message, entry.origin);
    }
    this.recordedEmitter.fire();
  }

  /** `origin`: the gateway client a relayed message was sent for (absent: the host's own). */
  recordMessage(direction: TrafficDirection, message: unknown, origin?: TrafficOrigin): void {
    if (this.capacityValue === 0) return;
    this.seq++;
    this.store(direction === 'send' ? SENT : RECEIVED, Date.now(), message, origin);
    if (this.recordedEmitter.hasListeners) this.recordedEmitter.fire();
  }

  recordEvent(text: string): void {
    if (this.capacityValue === 0) return;
    this.seq++;
    this.store(EVENT, Date.now(), text, undefined);
    if (this.recordedEmitter.hasListeners) this.recordedEmitter.fire();
  }

  /** The recorded entries, oldest first. */
  entries(): TrafficEntry[] {
    this.account();
    const out: TrafficEntry[] = [];
    const firstSeq = this.seq - this.count + 1;
    for (let i = 0; i < this.count; i++) {
      const index = (this.start + i) % this.capacityValue;
      out.push((this.made[index] ??= this.makeEntry(index, firstSeq + i)));
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
    this.values = [];
    this.kinds = new Uint8Array(0);
    this.times = new Float64Array(0);
    this.sizes = new Int32Array(0);
    this.origins = undefined;
    this.made = [];
    this.start = 0;
    this.count = 0;
    this.next = 0;
    this.bytes = 0;
    this.unsized = 0;
  }

  private makeEntry(index: number, seq: number): TrafficEntry {
    const at = this.times[index];
    const kind = this.kinds[index];
    if (kind === EVENT) return { seq, at, kind: 'event', text: this.values[index] as string };
    const direction: TrafficDirection = kind === SENT ? 'send' : 'receive';
    const origin = this.origins?.[index];
    const message = this.values[index];
    return origin ? { seq, at, kind: 'message', direction, message, origin } : { seq, at, kind: 'message', direction, message };
  }

  /**
   * One slot, and nothing else on the usual message path: sizes are counted (and the byte budget
   * kept) in one batch by the first message 250 ms after the oldest entry not counted yet (the
   * entries overwritten before then are never counted; the first count comes sooner, see
   * accountDue), by a timer when no message comes, or at once when someone reads the entries.
   */
  private store(kind: number, at: number, value: unknown, origin: TrafficOrigin | undefined): void {
    // Performance: one function with no call on its usual path (a run of a few thousand messages
    // is over before V8 has optimised much; each call of unoptimised code costs).
    const capacity = this.capacityValue;
    const index = this.next;
    if (this.count === capacity) {
      // Full: the slot is the oldest entry's, which goes.
      const size = this.sizes[index];
      if (size < 0) this.unsized--;
      else this.bytes -= size;
      this.start = index + 1 === capacity ? 0 : index + 1;
    } else {
      // Slots are first used in order (0, 1, 2, ...): only the next unused one can be past the end.
      if (index === this.kinds.length) this.grow();
      this.count++;
    }
    this.values[index] = value;
    this.kinds[index] = kind;
    this.times[index] = at;
    this.sizes[index] = -1;
    this.made[index] = undefined;
    if (origin !== undefined) (this.origins ??= [])[index] = origin;
    else if (this.origins !== undefined) this.origins[index] = undefined;
    this.next = index + 1 === capacity ? 0 : index + 1;
    if (this.unsized++ === 0) this.beginUnsized(at);
    else if (at >= this.accountDue) this.account();
  }

  /** The first entry not counted since the last count: the next count is due 250 ms after it. */
  private beginUnsized(at: number): void {
    this.accountDue = this.accountDue === 0 ? at : at + ACCOUNT_AFTER_MS;
    if (this.accountTimer === undefined) this.startAccountTimer();
  }

  private startAccountTimer(): void {
    this.accountTimer = setTimeout(() => {
      this.accountTimer = undefined;
      this.account();
    }, ACCOUNT_IDLE_AFTER_MS);
    this.accountTimer.unref?.();
  }

  private grow(): void {
    const length = Math.min(this.capacityValue, Math.max(FIRST_SLOTS, this.kinds.length * 2));
    this.kinds = grown(this.kinds, length);
    this.times = grown(this.times, length);
    this.sizes = grown(this.sizes, length);
  }

  /** Counts the sizes not counted yet, then drops the oldest entries while over the budget. */
  private account(): void {
    if (this.unsized === 0) return;
    for (let i = 0; i < this.count; i++) {
      const index = (this.start + i) % this.capacityValue;
      if (this.sizes[index] >= 0) continue;
      const value = this.values[index];
      // An entry larger than the cap is over the budget anyway.
      const size = Math.min(this.kinds[index] === EVENT ? (value as string).length : approximateBytes(value), MAX_ENTRY_SIZE);
      this.sizes[index] = size;
      this.bytes += size;
    }
    this.unsized = 0;
    // The newest entry stays even when it alone is over the budget.
    while (this.bytes > this.maxBytes && this.count > 1) this.dropOldest();
  }

  private dropOldest(): void {
    const index = this.start;
    const size = this.sizes[index];
    if (size < 0) this.unsized--;
    else this.bytes -= size;
    this.values[index] = undefined;
    this.made[index] = undefined;
    if (this.origins !== undefined) this.origins[index] = undefined;
    this.start = (index + 1) % this.capacityValue;
    // `next` stays: the oldest goes from the front.
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

/** A typed array of `length` slots, of the same kind, holding `array`'s values first. */
function grown<T extends Uint8Array | Float64Array | Int32Array>(array: T, length: number): T {
  const copy = new (array.constructor as new (length: number) => T)(length);
  copy.set(array);
  return copy;
}
