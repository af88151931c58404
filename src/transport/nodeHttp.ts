/**
 * A fetch-compatible function over node:http/node:https with keep-alive agents: the transports'
 * default. undici's WHATWG fetch costs most of a small request (bench: ours vs the `socket`
 * floor); this keeps the WHATWG `Response` the transports read but sends through node:http.
 *
 * Agents: Node's global keep-alive agents for direct connections, or what `useHttpAgents`
 * installed (the CLI's agents for HTTP(S)_PROXY / NO_PROXY). In VS Code none is installed: the
 * editor patches node:http/https for extensions (`http.proxySupport`) and applies its own
 * proxy settings to these requests.
 *
 * What differs from fetch: only string bodies; redirects are never followed (an unset `redirect`
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

/** A fetch-compatible function sending through node:http/https with `chooseAgent`'s agents. */
export function createNodeFetch(chooseAgent: AgentChooser = directAgent): FetchFunction {
  return (input, init) => send(input, init ?? {}, chooseAgent);
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
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') unsupported('a body other than a string');
    body = init.body ?? undefined;
    const headers = headerRecord(init.headers);
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    options = { method: init.method ?? 'GET', headers, agent: chooseAgent(url) };
  } catch (err) {
    return Promise.reject(err);
  }
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const redirectIsError = init.redirect === 'error';
  return new Promise<Response>((resolve, reject) => {
    let response: http.IncomingMessage | undefined;
    let failBody: ((err: unknown) => void) | undefined;
    const finish = () => signal?.removeEventListener('abort', onAbort);
    const onAbort = () => {
      const reason = abortReason(signal!);
      finish();
      if (response === undefined) reject(reason);
      else failBody?.(reason);
      request.destroy();
    };
    const request = (url.protocol === 'https:' ? https : http).request(url, options, (res) => {
      response = res;
      const status = res.statusCode ?? 0;
      if (redirectIsError && status >= 300 && status < 400) {
        finish();
        res.destroy();
        reject(new TypeError('fetch failed', { cause: new Error(`redirected (HTTP ${status}) with redirect: 'error'`) }));
        return;
      }
      const hasBody = !NULL_BODY_STATUSES.has(status) && options.method !== 'HEAD';
      let stream: ReadableStream<Uint8Array> | null = null;
      if (hasBody) {
        const made = bodyStream(res, finish);
        stream = made.stream;
        failBody = made.fail;
      } else {
        res.once('end', finish);
        res.once('close', finish);
        res.resume();
      }
      try {
        resolve(new Response(stream, { status, statusText: res.statusMessage ?? '', headers: headersOf(res.rawHeaders) }));
      } catch (err) {
        // A status outside 200-599 or a header value the WHATWG classes refuse.
        finish();
        res.destroy();
        reject(new TypeError('fetch failed', { cause: err }));
      }
    });
    request.on('error', (err) => {
      if (response !== undefined) return; // The body stream reports it.
      finish();
      const proxy = proxyOf(options.agent);
      const cause = proxy && failedReachingProxy(err) ? throughProxy(err, proxy) : err;
      reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause }));
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    request.end(body);
  });
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
  if (init instanceof Headers || Array.isArray(init)) {
    for (const [name, value] of new Headers(init)) out[name] = value;
    return out;
  }
  // A plain record (what the transports pass): copied without the entries array Object.entries makes.
  const record = init as Record<string, string>;
  for (const name in record) if (Object.hasOwn(record, name)) out[name.toLowerCase()] = record[name]!;
  return out;
}

function headersOf(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/** What fetch rejects with on abort: the signal's reason, or an AbortError. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
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
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) res.pause();
      });
      res.once('end', () => settle(() => controller.close()));
      // undici reports a body cut short as TypeError('terminated') with the reason as cause.
      res.once('error', (err) => broken(new TypeError('terminated', { cause: err })));
      res.once('close', () => {
        if (!res.complete) broken(new TypeError('terminated', { cause: Object.assign(new Error('the connection closed before the body ended'), { code: 'ECONNRESET' }) }));
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
