/**
 * The answer of nodeHttp.ts's fetch: a NodeResponse (status, read-only headers looked up in the raw
 * header list, a web stream only if `body` is asked for) and the direct body reader our own readers
 * use (nodeBodyOf: httpBody.ts, readEventStream in sseStream.ts). Apart from nodeHttp.ts, which
 * sends the request, so that each file keeps one job.
 */
import type * as http from 'node:http';

/** What this fetch does not do, refused as fetch refuses: a TypeError. */
export function unsupported(what: string): never {
  throw new TypeError(`node:http fetch: ${what} is not supported`);
}

/** undici reports a body cut short as TypeError('terminated') with the reason as cause. */
function terminated(cause: unknown): TypeError {
  return new TypeError('terminated', { cause });
}

function connectionClosedEarly(): Error {
  return Object.assign(new Error('the connection closed before the body ended'), { code: 'ECONNRESET' });
}

/**
 * The headers of a node:http answer, read-only, as a WHATWG Headers reads them (names without
 * case, repeated headers joined with ", "), straight from the raw header list: get/has build
 * nothing. Iteration builds a real Headers once (sorted, combined), for the rare reader that needs it.
 */
class NodeHeaders {
  private whole: Headers | undefined;

  constructor(private readonly raw: readonly string[]) {}

  get(name: string): string | null {
    const wanted = name.toLowerCase();
    const raw = this.raw;
    let found: string | null = null;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const key = raw[i]!;
      if (key.length !== wanted.length || key.toLowerCase() !== wanted) continue;
      found = found === null ? raw[i + 1]! : `${found}, ${raw[i + 1]!}`;
    }
    return found;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  getSetCookie(): string[] {
    return this.headers().getSetCookie();
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    const headers = this.headers();
    headers.forEach((value, name) => callback.call(thisArg, value, name, headers));
  }

  entries(): IterableIterator<[string, string]> {
    return this.headers().entries();
  }

  keys(): IterableIterator<string> {
    return this.headers().keys();
  }

  values(): IterableIterator<string> {
    return this.headers().values();
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.headers().entries();
  }

  append(): never {
    return immutable();
  }

  set(): never {
    return immutable();
  }

  delete(): never {
    return immutable();
  }

  private headers(): Headers {
    if (this.whole === undefined) {
      const headers = new Headers();
      for (let i = 0; i + 1 < this.raw.length; i += 2) headers.append(this.raw[i]!, this.raw[i + 1]!);
      this.whole = headers;
    }
    return this.whole;
  }
}

function immutable(): never {
  throw new TypeError('immutable: the headers of a response cannot be changed');
}

/** Longest a body reader keeps the event loop before letting timers and I/O run (httpBody.ts's EventLoopSlicer too). */
export const BODY_SLICE_MS = 8;

/** How a direct read of a node body ended: the body ended, the reader stopped it, or its wait ran out (then the body is destroyed). */
export type NodeBodyEnd = 'ended' | 'stopped' | 'late';

/**
 * Takes each chunk as it arrives; returns false to stop (the rest of the body is then destroyed
 * unread). May throw: the body is destroyed and the read rejects with what was thrown.
 */
export type NodeChunkReader = (chunk: Buffer) => boolean;

/** A node:http body our own readers (httpBody.ts, readEventStream) read without the WHATWG stream. */
export interface NodeBody {
  /**
   * Reads the body chunk by chunk, straight from node:http's IncomingMessage. Resolves with how
   * it ended; rejects as fetch's body would: the abort reason on abort, TypeError('terminated')
   * with the cause when the connection breaks before the body ends. With `waitMs`, a body still
   * going by then is destroyed and the read resolves 'late'.
   */
  read(onChunk: NodeChunkReader, waitMs?: number): Promise<NodeBodyEnd>;
  /** Destroys the body unread. */
  cancel(): void;
  /** node:http has parsed the body's end: its 'end' follows once what is buffered is read. */
  wholeBodyArrived(): boolean;
}

/**
 * The answer to a node:http request: what the transports read of a WHATWG Response, without
 * building one (new Response, new Headers, a web stream per body and a promise per chunk cost
 * most of a small request). `body` builds the web stream only when asked; text()/json()/
 * arrayBuffer() go through it. Our own readers take the IncomingMessage (nodeBodyOf).
 */
export class NodeResponse {
  readonly type = 'basic';
  readonly redirected = false;
  readonly status: number;
  readonly statusText: string;
  readonly headers: NodeHeaders;
  /** Taken by a direct reader or a web stream (or cancelled). */
  private used = false;
  private stream: ReadableStream<Uint8Array> | undefined;
  /** Errors what reads the body now (the web stream or the direct reader): an abort. */
  private failReader: ((reason: unknown) => void) | undefined;
  /** Ends the direct reader's read as 'stopped' (cancel() while it reads). */
  private stopReader: ((end: NodeBodyEnd) => void) | undefined;
  /** An abort that came before anyone read the body. */
  private abortedBy: unknown;
  private aborted = false;

  constructor(
    res: http.IncomingMessage,
    private readonly requestUrl: URL,
    /** The body, or null for a status or method without one. */
    private readonly message: http.IncomingMessage | null,
    /** Runs once, when the body is over either way (it removes the abort listener). */
    private readonly finish: () => void,
  ) {
    this.status = res.statusCode ?? 0;
    this.statusText = reasonPhrase(res.statusMessage);
    this.headers = new NodeHeaders(res.rawHeaders);
  }

  get url(): string {
    return this.requestUrl.href;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.message === null) return null;
    if (this.stream === undefined) {
      if (this.used) {
        // Read or cancelled directly: an empty, closed stream (a later cancel() is harmless).
        this.stream = new ReadableStream<Uint8Array>({ start: (c) => c.close() });
      } else {
        this.used = true;
        const made = bodyStream(this.message, this.finish);
        this.stream = made.stream;
        this.failReader = made.fail;
        if (this.aborted) made.fail(this.abortedBy);
      }
    }
    return this.stream;
  }

  text(): Promise<string> {
    return this.whole((res) => res.text());
  }

  json(): Promise<unknown> {
    return this.whole((res) => res.json());
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.whole((res) => res.arrayBuffer());
  }

  blob(): Promise<Blob> {
    return this.whole((res) => res.blob());
  }

  clone(): never {
    return unsupported('clone() of a response');
  }

  /** The body for a direct reader, once; undefined when there is none or it is taken. */
  takeNodeBody(): NodeBody | undefined {
    if (this.message === null || this.used) return undefined;
    this.used = true;
    const message = this.message;
    return { read: (onChunk, waitMs) => this.readDirect(onChunk, waitMs), cancel: () => this.cancelDirect(), wholeBodyArrived: () => message.complete };
  }

  /** The request was aborted: whatever reads the body fails with `reason`. */
  fail(reason: unknown): void {
    if (this.failReader !== undefined) {
      this.failReader(reason);
      return;
    }
    this.aborted = true;
    this.abortedBy = reason;
  }

  /** The whole body read by undici's Response over the web stream (fetch's own behaviour, errors included). */
  private async whole<T>(read: (res: Response) => Promise<T>): Promise<T> {
    if (this.stream === undefined && this.used) throw new TypeError('Body is unusable: Body has already been read');
    return read(new Response(this.body, { status: this.status, statusText: this.statusText, headers: this.headers as unknown as Headers }));
  }

  private cancelDirect(): void {
    // A read under way ends now: destroyed after node:http has parsed the whole body but before
    // 'end' (a paused slice), the body would emit neither 'end' nor an error.
    if (this.stopReader !== undefined) {
      this.stopReader('stopped');
      return;
    }
    this.finish();
    this.message!.destroy();
  }

  private readDirect(onChunk: NodeChunkReader, waitMs: number | undefined): Promise<NodeBodyEnd> {
    const res = this.message!;
    if (this.aborted) {
      this.cancelDirect();
      return Promise.reject(this.abortedBy);
    }
    if (res.destroyed) {
      this.finish();
      // Broken before anyone listened (its error was not emitted: nobody listened).
      if (!res.complete) return Promise.reject(terminated(res.errored ?? connectionClosedEarly()));
      // Whole, but read already or cancelled: no 'end' or 'close' is still to come.
      return Promise.resolve(res.readableEnded ? 'ended' : 'stopped');
    }
    if (isArrived(res)) return this.readArrived(res, onChunk);
    return new Promise<NodeBodyEnd>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        this.failReader = undefined;
        this.stopReader = undefined;
        if (timer !== undefined) clearTimeout(timer);
        this.finish();
        return true;
      };
      const stop = (end: NodeBodyEnd) => {
        if (!settle()) return;
        res.destroy();
        resolve(end);
      };
      const fail = (err: unknown) => {
        if (!settle()) return;
        res.destroy();
        reject(err);
      };
      this.failReader = fail;
      this.stopReader = stop;
      // The listeners stay after the read is settled (then they do nothing): an error emitted
      // later must find one.
      // One socket read callback can hand over many chunks at once (libuv reads up to 32 times
      // 64 KiB while data is there), and an SSE reader does real work per event: after a slice
      // of time the body is paused until the event loop has run its timers and other I/O (the
      // socket stops reading meanwhile: node:http's backpressure).
      // A chunk that comes after the body was idle for a slice's length (a sparse event stream)
      // starts a new slice: the event loop ran meanwhile, so it need not pause for it.
      let sliceStart = performance.now();
      let lastChunkAt = sliceStart;
      const resumeSlice = () => {
        sliceStart = lastChunkAt = performance.now();
        if (!settled) res.resume();
      };
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const arrivedAt = performance.now();
        if (arrivedAt - lastChunkAt >= BODY_SLICE_MS) sliceStart = arrivedAt;
        let more: boolean;
        try {
          more = onChunk(chunk);
        } catch (err) {
          fail(err);
          return;
        }
        lastChunkAt = performance.now();
        if (!more) stop('stopped');
        else if (lastChunkAt - sliceStart >= BODY_SLICE_MS) {
          res.pause();
          setImmediate(resumeSlice);
        }
      });
      // `on`, not `once` (no wrapper per listener): `settled` makes repeats harmless.
      res.on('end', () => {
        if (settle()) resolve('ended');
      });
      res.on('error', (err) => fail(terminated(err)));
      // Closed unsettled: cut short, or destroyed with its parsed end unread.
      res.on('close', () => {
        if (!settled) fail(terminated(connectionClosedEarly()));
      });
      if (waitMs !== undefined) timer = setTimeout(() => stop('late'), waitMs);
    });
  }

  /**
   * The whole body, taken now, when node:http has parsed it to its end already and it is small
   * (the usual answer: it came with its headers); undefined, the body untouched, otherwise. An
   * empty body is an empty Buffer. For the readers of an SSE answer that take a whole body in one
   * step (sseStream.ts readEventStream, resumableStreams.ts readPostAnswer); readDirect takes the
   * same path for its chunk reader (readArrived).
   */
  takeArrivedBody(): Buffer | undefined {
    const res = this.message;
    if (res === null || this.used || this.aborted || !isArrived(res)) return undefined;
    this.used = true;
    return this.readArrivedBytes(res);
  }

  /**
   * Performance (#21): no listeners, no tick to start the flow, no 'data' and 'end' of ours, per
   * answer. The 'end' node:http itself waits for (to give the socket back to its agent) follows
   * on the next tick, as read() emptied the buffer. So a request the caller sends at once, before
   * that tick, takes another kept-alive connection: at most one more per burst of requests, and
   * reused after (a review measured 2 connections for 300 sequential requests, 33 for 32 loops at
   * once).
   */
  private readArrivedBytes(res: http.IncomingMessage): Buffer {
    // Once complete, nothing emits an error on the body any more; a listener all the same, as readDirect leaves one.
    res.on('error', ignoreLateError);
    // Reading past the buffer (all of it, or nothing from an empty body) schedules the 'end'.
    const chunk = res.read() as Buffer | null;
    this.finish();
    return chunk ?? EMPTY_BODY;
  }

  /** A small body node:http has parsed to its end already, handed to `onChunk` in one piece, now (before read() returns). */
  private readArrived(res: http.IncomingMessage, onChunk: NodeChunkReader): Promise<NodeBodyEnd> {
    const chunk = this.readArrivedBytes(res);
    let more = true;
    try {
      if (chunk.length > 0) more = onChunk(chunk);
    } catch (err) {
      res.destroy();
      return Promise.reject(err);
    }
    if (!more) {
      res.destroy();
      return Promise.resolve('stopped');
    }
    return Promise.resolve('ended');
  }
}

const EMPTY_BODY = Buffer.alloc(0);

/** node:http has parsed the body to its end, nobody reads it yet, and it is small enough to take in one piece (WHOLE_READ_BYTES). */
function isArrived(res: http.IncomingMessage): boolean {
  return !res.destroyed && res.complete && res.readableFlowing === null && res.readableLength <= WHOLE_READ_BYTES;
}

/**
 * Bodies up to this size that have arrived whole are read in one piece (readArrived); larger ones
 * chunk by chunk, with the event loop let run between slices (a reader may work per chunk). Node
 * 20's IncomingMessage high-water mark (Node 22 raised it to 64 KiB): the bound of what one call
 * hands over at once, and what the tests rely on to take the chunked path with a whole body.
 */
export const WHOLE_READ_BYTES = 16 * 1024;

function ignoreLateError(): void {}

/**
 * The server's reason phrase if it is one (RFC 9112: tabs, spaces, visible ASCII and obs-text),
 * else none: node:http passes on control characters that the WHATWG Response, which some readers
 * build from this one (boundedResponse, text()), refuses with a TypeError.
 */
function reasonPhrase(text: string | undefined): string {
  return text !== undefined && /^[\t\x20-\x7e\x80-\xff]*$/.test(text) ? text : '';
}

/** A response of nodeHttpFetch whose body is not taken yet: read it with the NodeBody (once). */
export function nodeBodyOf(res: Response): NodeBody | undefined {
  return res instanceof NodeResponse ? res.takeNodeBody() : undefined;
}

/** A response of nodeHttpFetch whose small body has arrived whole and is not taken yet: that body, taken (NodeResponse.takeArrivedBody). */
export function arrivedBodyOf(res: Response): Buffer | undefined {
  return res instanceof NodeResponse ? res.takeArrivedBody() : undefined;
}

/** Whether `res` came from nodeHttpFetch / createNodeFetch. */
export function isNodeResponse(res: Response): boolean {
  return res instanceof NodeResponse;
}

/**
 * The response body as a web stream, chunk by chunk as they arrive (SSE is not buffered). The
 * socket pauses while the reader is behind; cancelling the stream destroys the response.
 * `fail` errors the stream from outside (abort). `done` runs once, when the body ends either way.
 */
function bodyStream(res: http.IncomingMessage, done: () => void): { stream: ReadableStream<Uint8Array>; fail: (err: unknown) => void } {
  let settled = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  /** A failure of the connection, held until the chunks that came before it are read. */
  let brokenBy: unknown;
  const settle = (end: () => void) => {
    if (settled) return;
    settled = true;
    done();
    end();
  };
  // An abort errors the stream at once, dropping what is queued (as fetch does).
  const fail = (err: unknown) => settle(() => controller.error(err));
  // A broken connection: what arrived before it is still delivered (controller.error would drop it).
  const broken = (err: unknown) => {
    if (settled || brokenBy !== undefined) return;
    brokenBy = err;
    if ((controller.desiredSize ?? 0) > 0) fail(err);
  };
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      // Broken before the stream was asked for (nobody listened, so no error was emitted).
      if (res.destroyed && !res.complete) {
        broken(terminated(res.errored ?? connectionClosedEarly()));
        return;
      }
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) res.pause();
      });
      res.once('end', () => settle(() => controller.close()));
      res.on('error', (err) => broken(terminated(err)));
      res.once('close', () => {
        if (!res.complete) broken(terminated(connectionClosedEarly()));
      });
    },
    pull() {
      // Called when the queue has room: every chunk before a failure has been read.
      if (brokenBy !== undefined) fail(brokenBy);
      else res.resume();
    },
    cancel() {
      settle(() => undefined);
      res.destroy();
    },
  });
  return { stream, fail };
}
