/**
 * Reading an HTTP body a server controls (#18): the one place bodies are read. Every read
 * counts bytes as they arrive and cancels the body at its limit, so an endless or huge body
 * costs at most the limit in memory; nothing here calls `res.text()`, `json()` or
 * `arrayBuffer()`, which read a body whole first. Kept apart from the transports so a later
 * change of HTTP client (node:http) touches this file alone.
 *
 * Two paths: a response of our node:http fetch (nodeHttp.ts) is read straight from its
 * IncomingMessage (no web stream, no promise per chunk); any other fetch's (a caller's own, as
 * tests inject) through its WHATWG body stream. Both count, cut and time out alike.
 */
import { StringDecoder } from 'node:string_decoder';
import { BODY_SLICE_MS, isNodeResponse, nodeBodyOf, type NodeBody } from './nodeResponse';
import { ByteChunks } from '../util/byteChunks';

/** Decodes whole bodies (never in stream mode, so one instance serves every read). */
const utf8 = new TextDecoder();

/** Enough of an error body to show its reason; the rest is cancelled unread. */
export const ERROR_EXCERPT_BYTES = 8 * 1024;
/** OAuth and resource metadata, token and registration answers: small documents. */
export const METADATA_MAX_BYTES = 256 * 1024;
/** What a drain reads to let the connection be reused; past it the body is cancelled. */
export const DRAIN_MAX_BYTES = 16 * 1024;
/**
 * How long an excerpt or a drain waits for a body to end: an error body that never ends (a 403
 * whose connection stays open) must not hold the request until its timeout.
 */
export const EXCERPT_WAIT_MS = 2000;

/** A body outgrew its limit. `seenBytes` is what arrived (or what Content-Length declared). */
export class BodyTooLargeError extends Error {
  constructor(
    readonly what: string,
    readonly seenBytes: number,
    readonly limitBytes: number,
    readonly declared: boolean,
  ) {
    super(
      `${what} is larger than the limit of ${limitBytes} bytes (${declared ? `its Content-Length says ${seenBytes}` : `${seenBytes} bytes arrived before it was cut off`})`,
    );
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Awaiting a stream's read() resolves at once while chunks are queued, so a reader of a fast
 * server could hold the event loop as long as the server keeps ahead: readers call this per
 * chunk, and it yields to the event loop once a slice of time is used.
 */
export class EventLoopSlicer {
  private sliceStart = performance.now();

  async yieldIfBusy(): Promise<void> {
    if (performance.now() - this.sliceStart < BODY_SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}

interface Prefix {
  readonly bytes: Uint8Array;
  /** Bytes that arrived, the cut-off part included. */
  readonly seen: number;
  /** The body ended within the limit. */
  readonly complete: boolean;
}

/**
 * Reads at most `limit` bytes, then cancels the rest of the body. With `waitMs`, a body that has
 * not ended by then is cancelled too, and what arrived is returned (not complete).
 */
async function readPrefix(res: Response, limit: number, waitMs?: number): Promise<Prefix> {
  const node = nodeBodyOf(res);
  if (node === undefined) return readStreamPrefix(res, limit, waitMs);
  // The server decides how small the chunks are: ByteChunks keeps what they cost near their bytes.
  const chunks = new ByteChunks();
  const extent = await readNodePrefix(node, limit, waitMs, (chunk) => chunks.push(chunk));
  return { bytes: chunks.join(), ...extent };
}

interface TextPrefix {
  readonly text: string;
  readonly seen: number;
  readonly complete: boolean;
}

/**
 * readPrefix decoded as UTF-8 (for excerpts and drains: small). A node:http body is decoded chunk
 * by chunk as it arrives (Utf8Decoder; TextDecoder's stream mode costs several times more).
 */
function readTextPrefixOf(res: Response, limit: number, waitMs?: number): Promise<TextPrefix> {
  const node = nodeBodyOf(res);
  if (node === undefined) {
    return readStreamPrefix(res, limit, waitMs).then((prefix) => ({ text: utf8.decode(prefix.bytes), seen: prefix.seen, complete: prefix.complete }));
  }
  // Promise chains rather than async functions: one promise per body, not three (#21).
  const decoder = new Utf8Decoder();
  let text = '';
  return readNodePrefix(node, limit, waitMs, (chunk) => {
    text += decoder.write(chunk);
  }).then((extent) => ({ text: text + decoder.end(), seen: extent.seen, complete: extent.complete }));
}

/**
 * UTF-8 decoding chunk by chunk, keeping a character split between chunks whole, and dropping a
 * leading byte order mark as TextDecoder does by default. A chunk that ends in ASCII (the usual
 * case) while nothing is pending decodes on its own (Buffer#toString); a StringDecoder is made
 * only once a chunk ends inside a character (making one allocates, and cost about 5 µs a
 * request). Several times faster than TextDecoder's stream mode on large bodies.
 */
export class Utf8Decoder {
  private decoder: StringDecoder | undefined;
  /** No text has come out yet: a byte order mark at its start is dropped. */
  private atStart = true;

  write(chunk: Buffer): string {
    let text: string;
    if (this.decoder === undefined && (chunk.length === 0 || chunk[chunk.length - 1]! < 0x80)) text = chunk.toString('utf8');
    else text = (this.decoder ??= new StringDecoder('utf8')).write(chunk);
    return this.atStart ? this.start(text) : text;
  }

  end(): string {
    const text = this.decoder?.end() ?? '';
    return this.atStart ? this.start(text) : text;
  }

  private start(text: string): string {
    if (text === '') return text;
    this.atStart = false;
    return withoutByteOrderMark(text);
  }
}

/** `text` without a leading byte order mark (U+FEFF), as TextDecoder drops it by default. */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Reads a node:http body to at most `limit` bytes, handing what fits to `keep`. The body's own
 * reader (nodeHttp.ts readDirect) pauses it after a slice of time, as EventLoopSlicer does for a
 * web stream: one socket read callback can hand over many chunks at once.
 */
function readNodePrefix(body: NodeBody, limit: number, waitMs: number | undefined, keep: (chunk: Buffer) => void): Promise<{ seen: number; complete: boolean }> {
  let seen = 0;
  const reading = body.read((chunk) => {
    const room = limit - seen;
    seen += chunk.byteLength;
    if (chunk.byteLength > room) {
      if (room > 0) keep(chunk.subarray(0, room));
      return false;
    }
    keep(chunk);
    return true;
  }, waitMs);
  return reading.then((end) => ({ seen, complete: end === 'ended' }));
}

async function readStreamPrefix(res: Response, limit: number, waitMs?: number): Promise<Prefix> {
  const body = res.body;
  if (body === null) return { bytes: new Uint8Array(0), seen: 0, complete: true };
  const reader = body.getReader();
  const chunks = new ByteChunks();
  const slicer = new EventLoopSlicer();
  let seen = 0;
  let timer: NodeJS.Timeout | undefined;
  const late =
    waitMs === undefined
      ? undefined
      : new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), waitMs);
        });
  try {
    for (;;) {
      await slicer.yieldIfBusy();
      const read = late === undefined ? await reader.read() : await Promise.race([reader.read(), late]);
      if (read === undefined) {
        reader.cancel().then(undefined, () => undefined);
        return { bytes: chunks.join(), seen, complete: false };
      }
      const { done, value } = read;
      if (done) return { bytes: chunks.join(), seen, complete: true };
      const room = limit - seen;
      seen += value.byteLength;
      const piece = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      if (value.byteLength > room) {
        if (room > 0) chunks.push(piece.subarray(0, room));
        reader.cancel().then(undefined, () => undefined);
        return { bytes: chunks.join(), seen, complete: false };
      }
      chunks.push(piece);
    }
  } catch (err) {
    reader.cancel().then(undefined, () => undefined);
    throw err;
  } finally {
    clearTimeout(timer);
    try {
      reader.releaseLock();
    } catch {
      // A read still pending after the wait: the body is cancelled anyway.
    }
  }
}

function declaredLength(res: Response): number | undefined {
  const value = res.headers.get('content-length');
  if (value === null || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

function cancelBody(res: Response): void {
  const node = nodeBodyOf(res);
  if (node !== undefined) node.cancel();
  else res.body?.cancel().then(undefined, () => undefined);
}

/** A Content-Length past the limit: the body is cancelled unread, and this is the error to fail with. */
function declaredTooLarge(res: Response, limit: number, what: string): BodyTooLargeError | undefined {
  const declared = declaredLength(res);
  if (declared === undefined || declared <= limit) return undefined;
  cancelBody(res);
  return new BodyTooLargeError(what, declared, limit, true);
}

/**
 * The whole body, at most `limit` bytes; rejects with BodyTooLargeError (naming `what`) as soon
 * as Content-Length or the bytes that arrived pass the limit, and cancels the body then.
 */
export async function readBodyLimited(res: Response, limit: number, what: string): Promise<Uint8Array> {
  const refused = declaredTooLarge(res, limit, what);
  if (refused !== undefined) throw refused;
  const prefix = await readPrefix(res, limit);
  if (!prefix.complete) throw new BodyTooLargeError(what, prefix.seen, limit, false);
  return prefix.bytes;
}

/** readBodyLimited, decoded as UTF-8. */
export function readTextLimited(res: Response, limit: number, what: string): Promise<string> {
  const refused = declaredTooLarge(res, limit, what);
  if (refused !== undefined) return Promise.reject(refused);
  const node = nodeBodyOf(res);
  if (node === undefined) {
    return readStreamPrefix(res, limit).then((prefix) => {
      if (!prefix.complete) throw new BodyTooLargeError(what, prefix.seen, limit, false);
      return utf8.decode(prefix.bytes);
    });
  }
  // A node:http body: read and judged in one `then` (readTextPrefixOf's three cost a promise
  // and a microtask each per small answer, #21). Its chunks are kept as bytes and decoded once
  // at the end: JSON.parse then reads one flat string. Decoding each chunk into a joined string
  // (Utf8Decoder) cost more CPU for JSON.parse to flatten: a tools/list of 5,000 tools
  // (720 KB, x5) took 66.7 ms and 82.6 ms CPU that way against 61.0 and 70.7 like this (#21).
  // The bytes held stay within `limit`, and what they cost near it (ByteChunks: the server decides
  // how small the chunks are).
  const chunks = new ByteChunks();
  let seen = 0;
  return node
    .read((chunk) => {
      const room = limit - seen;
      seen += chunk.byteLength;
      if (chunk.byteLength > room) return false;
      chunks.push(chunk);
      return true;
    })
    .then((end) => {
      if (end !== 'ended') throw new BodyTooLargeError(what, seen, limit, false);
      return withoutByteOrderMark(chunks.join().toString('utf8'));
    });
}

/** The first `max` bytes of a body as text (for an error's excerpt); never rejects. */
export async function readTextPrefix(res: Response, max = ERROR_EXCERPT_BYTES): Promise<string> {
  try {
    return (await readTextPrefixOf(res, max, EXCERPT_WAIT_MS)).text;
  } catch {
    // The body is only decoration.
    return '';
  }
}

/** Reads and discards a small body so the connection can be reused; a larger one is cancelled. */
export async function drain(res: Response, max = DRAIN_MAX_BYTES): Promise<void> {
  // A node:http response is asked before `body`, which would build its web stream.
  if (!isNodeResponse(res) && res.body === null) return;
  const declared = declaredLength(res);
  if (declared !== undefined && declared > max) {
    cancelBody(res);
    return;
  }
  try {
    await readPrefix(res, max, EXCERPT_WAIT_MS);
  } catch {
    // Nothing to keep.
  }
}

/** Statuses whose Response may not carry a body. */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/**
 * The same response with its body read (bounded) into memory: for readers that call `json()` or
 * `text()` themselves (oauth4webapi). Rejects with BodyTooLargeError past the limit.
 */
export async function boundedResponse(res: Response, limit: number, what: string): Promise<Response> {
  const bytes = await readBodyLimited(res, limit, what);
  const body = NULL_BODY_STATUSES.has(res.status) ? null : bytes;
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** A fetch whose responses carry bounded bodies (boundedResponse): for small documents only, never streams. */
export function boundedFetch(inner: typeof globalThis.fetch, limit: number): typeof globalThis.fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    return boundedResponse(res, limit, `the answer from ${originOf(input)}`);
  };
}

function originOf(input: string | URL | Request): string {
  try {
    return new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url).origin;
  } catch {
    return 'the server';
  }
}

/**
 * A JSON-RPC error's message (or an OAuth error's description), or the start of a text body, cut
 * short. Not redacted here (the transport layer knows no secrets): the host redacts what it shows.
 */
export function bodyDetail(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  try {
    const value = JSON.parse(trimmed) as { error?: { message?: unknown } | unknown; error_description?: unknown; message?: unknown };
    const error = value?.error as { message?: unknown } | undefined;
    if (typeof error?.message === 'string') return excerptText(error.message, EXCERPT_CHARS);
    if (typeof value?.error_description === 'string') return excerptText(value.error_description, EXCERPT_CHARS);
    if (typeof value?.message === 'string') return excerptText(value.message, EXCERPT_CHARS);
  } catch {
    // Not JSON: show the start of the text.
  }
  return excerptText(trimmed, EXCERPT_CHARS);
}

/** How much of a server's reason an error shows. */
const EXCERPT_CHARS = 300;

/** A short, single-line excerpt for logs (only its head is scanned: the text may be megabytes). */
export function excerptText(text: string, max = 160): string {
  const head = text.length > 4 * max ? text.slice(0, 4 * max) : text;
  const line = head.replace(/\s+/g, ' ').trim();
  return line.length > max || head !== text ? `${line.slice(0, max)}…` : line;
}
