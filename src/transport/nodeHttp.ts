/**
 * A fetch-compatible function over node:http/node:https with keep-alive agents: the transports'
 * default (and OAuth's). undici's WHATWG fetch costs most of a small request (bench: ours vs the
 * `socket` floor), and so does building its classes: the answer is a NodeResponse (status,
 * raw-header lookups, a web stream only if `body` is asked for), and our own readers take the
 * IncomingMessage itself (nodeBodyOf: httpBody.ts, readEventStream in httpShared.ts).
 *
 * Agents: Node's global keep-alive agents for direct connections, or what `useHttpAgents`
 * installed (the CLI's agents for HTTP(S)_PROXY / NO_PROXY). In VS Code none is installed: the
 * editor patches node:http/https for extensions (`http.proxySupport`) and applies its own
 * proxy settings to these requests.
 *
 * What differs from fetch: only string and URLSearchParams bodies; the answer is not a real
 * `Response` (no clone(), no formData(); read-only headers); redirects are never followed (an unset `redirect`
 * means 'manual'; 'follow' is refused); no content decoding (no accept-encoding is sent).
 */
import * as http from 'node:http';
import * as https from 'node:https';

export type FetchFunction = typeof globalThis.fetch;

/** The agent for one request's URL: a proxy's, or undefined for Node's global (keep-alive) agents. */
export type AgentChooser = (url: URL) => http.Agent | undefined;

/** The options of the CLI's proxy agents: keep-alive, as Node's global agents (see directAgent). */
export const KEEP_ALIVE_AGENT_OPTIONS = { keepAlive: true, timeout: 4_000 } as const;

/**
 * Direct connections use Node's global agents: keep-alive since Node 19 (an idle connection is
 * closed after 5 s, or before the server's `Keep-Alive: timeout=N`), shared per protocol. Passing
 * no agent of our own is also what lets VS Code proxy these requests in every `http.proxySupport`
 * mode: with "on" it replaces only requests that name no agent.
 */
export function directAgent(): undefined {
  return undefined;
}

let chosenAgents: AgentChooser = directAgent;
let defaultFetch: FetchFunction | undefined;

/** Installs the agents every later default request uses (the CLI: its proxy agents). */
export function useHttpAgents(chooser: AgentChooser): void {
  chosenAgents = chooser;
}

/** The transports' default fetch: node:http with the installed agents. */
export function nodeHttpFetch(): FetchFunction {
  return (defaultFetch ??= createNodeFetch((url) => chosenAgents(url)));
}

/** The fetches createNodeFetch made (requestAbortFor gives them a light signal). */
const nodeFetches = new WeakSet<FetchFunction>();

/** A fetch-compatible function sending through node:http/https with `chooseAgent`'s agents. */
export function createNodeFetch(chooseAgent: AgentChooser = directAgent): FetchFunction {
  const fetchFn: FetchFunction = (input, init) => send(input, init ?? {}, chooseAgent);
  nodeFetches.add(fetchFn);
  return fetchFn;
}

/** What aborts one request (and the stream that answers it): an AbortController, or a LightAbort. */
export interface RequestAbort {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

/**
 * A per-request abort for `fetchFn`: for our node:http fetch a LightAbort, for any other fetch
 * (a caller's own, undici's) a real AbortController.
 */
export function requestAbortFor(fetchFn: FetchFunction): RequestAbort {
  return nodeFetches.has(fetchFn) ? new LightAbort() : new AbortController();
}

/**
 * An abort signal without EventTarget, for our node:http fetch only (send() reads `aborted` and
 * `reason` and adds one 'abort' listener per request): making an AbortSignal and adding and
 * removing its listener cost about a fifth of a small request's CPU (measured: 4,000 POSTs,
 * 256 in flight). Not an AbortSignal: never hand it to another fetch or to AbortSignal.any.
 */
export class LightAbort implements RequestAbort {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> = [];

  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }

  addEventListener(type: string, listener: () => void): void {
    if (type === 'abort' && !this.aborted) this.listeners.push(listener);
  }

  removeEventListener(type: string, listener: () => void): void {
    if (type !== 'abort') return;
    const index = this.listeners.indexOf(listener);
    if (index >= 0) this.listeners.splice(index, 1);
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

/** Statuses whose Response may have no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

function send(input: string | URL | Request, init: RequestInit, chooseAgent: AgentChooser): Promise<Response> {
  let url: URL;
  let options: http.RequestOptions;
  let body: string | undefined;
  try {
    url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : unsupported('a Request as input');
    if (url.protocol !== 'http:' && url.protocol !== 'https:') unsupported(`the protocol ${url.protocol}`);
    // fetch refuses user info in the URL too; node:http would turn it into a Basic header.
    if (url.username !== '' || url.password !== '') throw new TypeError('a URL with credentials cannot be requested');
    if (init.redirect === 'follow') unsupported("redirect: 'follow' (follow redirects with redirect: 'manual')");
    body = bodyText(init);
    const headers = headerRecord(init.headers);
    if (body !== undefined) {
      // request.end(body) makes node:http send the Content-Length of a non-empty body itself
      // (cheaper than a header of ours, which it validates); an empty one would go chunked.
      if (body === '') headers['content-length'] = '0';
      // What fetch sends with a URLSearchParams body (OAuth's token requests) unless told otherwise.
      if (init.body instanceof URLSearchParams && headers['content-type'] === undefined) headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
    }
    options = { method: init.method ?? 'GET', headers, agent: chooseAgent(url) };
  } catch (err) {
    return Promise.reject(err);
  }
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const redirectIsError = init.redirect === 'error';
  return new Promise<Response>((resolve, reject) => {
    let response: NodeResponse | undefined;
    const finish = () => signal?.removeEventListener('abort', onAbort);
    const onAbort = () => {
      const reason = abortReason(signal!);
      finish();
      if (response === undefined) reject(reason);
      else response.fail(reason);
      request.destroy();
    };
    const request = (url.protocol === 'https:' ? https : http).request(url, options, (res) => {
      const status = res.statusCode ?? 0;
      if (redirectIsError && status >= 300 && status < 400) {
        finish();
        res.destroy();
        reject(new TypeError('fetch failed', { cause: new Error(`redirected (HTTP ${status}) with redirect: 'error'`) }));
        return;
      }
      if (status < 200 || status > 599) {
        // What the Response constructor refuses (fetch fails the same way).
        finish();
        res.destroy();
        reject(new TypeError('fetch failed', { cause: new RangeError(`the server answered with the status ${status}`) }));
        return;
      }
      const hasBody = !NULL_BODY_STATUSES.has(status) && options.method !== 'HEAD';
      if (!hasBody) {
        res.once('end', finish);
        res.once('close', finish);
        res.resume();
      }
      response = new NodeResponse(res, url, hasBody ? res : null, finish);
      resolve(response as unknown as Response);
    });
    request.on('error', (err) => {
      if (response !== undefined) return; // The body's reader reports it.
      finish();
      const proxy = proxyOf(options.agent);
      const cause = proxy && failedReachingProxy(err) ? throughProxy(err, proxy) : err;
      reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause }));
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    request.end(body);
  });
}

/** A string body as it is, URLSearchParams as its text; anything else is refused. */
function bodyText(init: RequestInit): string | undefined {
  const body = init.body;
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  return unsupported('a body other than a string or URLSearchParams');
}

/** The proxy a proxy agent (agent-base's HttpProxyAgent, HttpsProxyAgent) connects through. */
function proxyOf(agent: http.RequestOptions['agent']): URL | undefined {
  const proxy = (agent as { proxy?: unknown } | undefined)?.proxy;
  return proxy instanceof URL ? proxy : undefined;
}

/** Failures of the connection to the proxy itself (not, say, the server's certificate at the end of the tunnel). */
const PROXY_CONNECT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

function failedReachingProxy(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return code === undefined || (typeof code === 'string' && PROXY_CONNECT_CODES.has(code));
}

/**
 * A connection failure through a proxy, naming the proxy (host and port only: never its
 * credentials) where describeNetworkCause (httpShared.ts) shows the address.
 */
function throughProxy(err: Error, proxy: URL): Error {
  const code = (err as { code?: unknown }).code;
  const port = Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80);
  return Object.assign(new Error(`through the proxy ${proxy.hostname}:${port}: ${err.message}`, { cause: err }), {
    code: typeof code === 'string' ? code : 'EPROXY',
    address: `the proxy ${proxy.hostname}`,
    port,
  });
}

function unsupported(what: string): never {
  throw new TypeError(`node:http fetch: ${what} is not supported`);
}

/** The headers as a record with lower-case names (a copy: the content length is added to it). */
function headerRecord(init: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (init === undefined) return out;
  // A plain record (what the transports pass): copied without the entries array Object.entries
  // makes, and without touching the global Headers (its first use loads undici).
  if (Object.getPrototypeOf(init) === Object.prototype) {
    const record = init as Record<string, string>;
    for (const name in record) if (Object.hasOwn(record, name)) out[name.toLowerCase()] = record[name]!;
    return out;
  }
  for (const [name, value] of new Headers(init)) out[name] = value;
  return out;
}

/** What fetch rejects with on abort: the signal's reason, or an AbortError. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
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
}

/**
 * The answer to a node:http request: what the transports read of a WHATWG Response, without
 * building one (new Response, new Headers, a web stream per body and a promise per chunk cost
 * most of a small request). `body` builds the web stream only when asked; text()/json()/
 * arrayBuffer() go through it. Our own readers take the IncomingMessage (nodeBodyOf).
 */
class NodeResponse {
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
    this.statusText = res.statusMessage ?? '';
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
    return { read: (onChunk, waitMs) => this.readDirect(onChunk, waitMs), cancel: () => this.cancelDirect() };
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
    this.finish();
    this.message!.destroy();
  }

  private readDirect(onChunk: NodeChunkReader, waitMs: number | undefined): Promise<NodeBodyEnd> {
    const res = this.message!;
    if (this.aborted) {
      this.cancelDirect();
      return Promise.reject(this.abortedBy);
    }
    // Broken before anyone listened (its error was not emitted: nobody listened).
    if (res.destroyed && !res.complete) {
      this.finish();
      return Promise.reject(terminated(res.errored ?? connectionClosedEarly()));
    }
    return new Promise<NodeBodyEnd>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        this.failReader = undefined;
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
      // The listeners stay after the read is settled (then they do nothing): an error emitted
      // later must find one.
      // One socket read callback can hand over many chunks at once (libuv reads up to 32 times
      // 64 KiB while data is there), and an SSE reader does real work per event: after a slice
      // of time the body is paused until the event loop has run its timers and other I/O (the
      // socket stops reading meanwhile: node:http's backpressure).
      let sliceStart = performance.now();
      const resumeSlice = () => {
        sliceStart = performance.now();
        if (!settled) res.resume();
      };
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        let more: boolean;
        try {
          more = onChunk(chunk);
        } catch (err) {
          fail(err);
          return;
        }
        if (!more) stop('stopped');
        else if (performance.now() - sliceStart >= BODY_SLICE_MS) {
          res.pause();
          setImmediate(resumeSlice);
        }
      });
      // `on`, not `once` (no wrapper per listener): `settled` makes repeats harmless.
      res.on('end', () => {
        if (settle()) resolve('ended');
      });
      res.on('error', (err) => fail(terminated(err)));
      res.on('close', () => {
        if (!res.complete) fail(terminated(connectionClosedEarly()));
      });
      if (waitMs !== undefined) timer = setTimeout(() => stop('late'), waitMs);
    });
  }
}

/** A response of nodeHttpFetch whose body is not taken yet: read it with the NodeBody (once). */
export function nodeBodyOf(res: Response): NodeBody | undefined {
  return res instanceof NodeResponse ? res.takeNodeBody() : undefined;
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
