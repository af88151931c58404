/**
 * A fetch-compatible function over node:http/node:https with keep-alive agents: the transports'
 * default (and OAuth's). undici's WHATWG fetch costs most of a small request (bench: ours vs the
 * `socket` floor), and so does building its classes: the answer is a NodeResponse (status,
 * raw-header lookups, a web stream only if `body` is asked for), and our own readers take the
 * IncomingMessage itself (nodeResponse.ts nodeBodyOf: httpBody.ts, readEventStream in sseStream.ts).
 *
 * Agents: Node's global keep-alive agents for direct connections, or what `useHttpAgents`
 * installed (the CLI's agents for HTTP(S)_PROXY / NO_PROXY). In VS Code none is installed: the
 * editor patches node:http/https for extensions (`http.proxySupport`) and applies its own
 * proxy settings to these requests.
 *
 * What differs from fetch: only string and URLSearchParams bodies; the answer is not a real
 * `Response` (no clone(), no formData(); read-only headers); redirects are never followed (an unset `redirect`
 * means 'manual'; 'follow' is refused); no content decoding (no accept-encoding is sent); a request
 * that went out on a kept-alive connection the server had just closed is sent once more (see staleSocket).
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { NodeResponse, unsupported } from './nodeResponse';

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
  let target: RequestTarget;
  let options: http.RequestOptions;
  let body: string | undefined;
  try {
    url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : unsupported('a Request as input');
    target = requestTarget(url);
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
    // What node:http's urlToHttpOptions would make of the URL, without its per-request work.
    options = { protocol: target.protocol, hostname: target.hostname, port: target.port, path: target.path, method: init.method ?? 'GET', headers, agent: chooseAgent(url) };
  } catch (err) {
    return Promise.reject(err);
  }
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const redirectIsError = init.redirect === 'error';
  return new Promise<Response>((resolve, reject) => {
    let response: NodeResponse | undefined;
    /** finish() ran: settled, or the answer's body is done; the request's later events change nothing. */
    let finished = false;
    let retried = false;
    let request: http.ClientRequest;
    const finish = () => {
      finished = true;
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      const reason = abortReason(signal!);
      finish();
      if (response === undefined) reject(reason);
      else response.fail(reason);
      request.destroy();
    };
    const onResponse = (res: http.IncomingMessage) => {
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
    };
    // Functions, not arrows: `this` tells a request sent again from the one it replaced.
    const onError = function (this: http.ClientRequest, err: Error) {
      // After an answer, the body's reader reports the error.
      if (this !== request || response !== undefined || finished) return;
      if (!retried && !signal?.aborted && staleSocket(this, err)) {
        // The server closed this kept-alive connection as the request went out (it sent no
        // Keep-Alive hint, or closes sooner): it never read the request, which goes once more, on
        // a new connection (closeFreeSocketsBeside). Once: the failure looks the same when the
        // server read the request and then dropped the connection, and a tool must not run a
        // third time for it.
        retried = true;
        try {
          closeFreeSocketsBeside(this);
          request = sendRequest(target, options, body, onResponse, onError, onClose);
          return;
        } catch (sendingAgain) {
          // It went out once already with these options; still, the promise must settle.
          finish();
          reject(new TypeError('fetch failed', { cause: sendingAgain }));
          return;
        }
      }
      finish();
      const proxy = proxyOf(options.agent);
      const cause = proxy && failedReachingProxy(err) ? throughProxy(err, proxy) : err;
      reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause }));
    };
    // Closed with neither an answer nor an error (node:http destroys the socket of a 101 no
    // 'upgrade' listener takes, and says nothing): without this the promise never settles.
    const onClose = function (this: http.ClientRequest) {
      if (this !== request || response !== undefined || finished) return;
      finish();
      reject(new TypeError('fetch failed', { cause: closedUnanswered(this) }));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      request = sendRequest(target, options, body, onResponse, onError, onClose);
    } catch (err) {
      // A header or method node:http refuses (a configured header with a control character):
      // its own error, which names the header, and no abort listener left behind.
      finish();
      reject(err);
    }
  });
}

/** One request of send()'s: sent again, with the same listeners, when a kept-alive socket was stale. */
function sendRequest(
  target: RequestTarget,
  options: http.RequestOptions,
  body: string | undefined,
  onResponse: (res: http.IncomingMessage) => void,
  onError: (this: http.ClientRequest, err: Error) => void,
  onClose: (this: http.ClientRequest) => void,
): http.ClientRequest {
  const request = target.client.request(options, onResponse);
  request.on('error', onError);
  request.on('close', onClose);
  request.on('information', noteInformed);
  request.end(body);
  return request;
}

/**
 * Requests the server answered with an informational head (any 1xx but 101: 100 Continue, 103
 * Early Hints): it has them, so a failure after that is not a stale socket's, and such a request
 * never goes again (a tool would run twice). node:http keeps no trace of it (it sets `res` back to
 * null), hence the 'information' listener.
 */
const informedRequests = new WeakSet<http.ClientRequest>();

function noteInformed(this: http.ClientRequest): void {
  informedRequests.add(this);
}

/**
 * Before a request goes again after a stale kept-alive socket: the other free sockets of the
 * agent's pool for that origin are as old as the dead one, and likely as dead (a server that closed
 * all its idle connections at once). They are closed, so that the request goes on a new connection
 * rather than on the next dead one. The pool is found through the agent's busy list, which holds the
 * dead socket until its 'close' (node:http's pool, which proxy agents use too); `request.agent` is
 * the agent node:http used (in VS Code, the one its proxy support chose).
 */
function closeFreeSocketsBeside(request: http.ClientRequest): void {
  const agent = (request as { agent?: unknown }).agent;
  const dead = request.socket;
  if (!(agent instanceof http.Agent) || dead === null) return;
  for (const [name, sockets] of Object.entries(agent.sockets)) {
    if (!sockets?.includes(dead)) continue;
    for (const free of agent.freeSockets[name] ?? []) free.destroy();
    return;
  }
}

/** What a server that closed a kept-alive connection as a request went out on it makes node:http report. */
const STALE_SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * Whether a request failed because the kept-alive socket it went out on was already closed by the
 * server (Node's documented retry case for `request.reusedSocket`), before the head of an answer.
 * Not after an informational head (informedRequests). node:http keeps no trace of a head cut
 * short: a server failing after a partial head is sent the request again, as with Node's own pattern.
 */
function staleSocket(request: http.ClientRequest, err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return (
    request.reusedSocket &&
    typeof code === 'string' &&
    STALE_SOCKET_CODES.has(code) &&
    (request as { res?: unknown }).res == null &&
    !informedRequests.has(request)
  );
}

/** Why a request closed without an answer or an error. */
function closedUnanswered(request: http.ClientRequest): Error {
  const res = (request as { res?: http.IncomingMessage | null }).res;
  if (res?.statusCode === 101) return new Error('the server switched protocols (HTTP 101) though the request asked for no upgrade');
  return Object.assign(new Error('the connection closed before an answer'), { code: 'ECONNRESET' });
}

/** Where a request goes: the parts of its URL node:http reads, and the module that sends it. */
interface RequestTarget {
  readonly href: string;
  readonly protocol: string;
  readonly hostname: string;
  readonly port: number | undefined;
  readonly path: string;
  readonly client: typeof http | typeof https;
}

/**
 * The target of each URL object a transport requests again and again (its configured URL),
 * kept while its href is the same: node:http's own conversion (urlToHttpOptions) reads every
 * part of the URL into a new dictionary-mode object per request (#21).
 */
const targets = new WeakMap<URL, RequestTarget>();

function requestTarget(url: URL): RequestTarget {
  const known = targets.get(url);
  if (known !== undefined && known.href === url.href) return known;
  const protocol = url.protocol;
  if (protocol !== 'http:' && protocol !== 'https:') unsupported(`the protocol ${protocol}`);
  // fetch refuses user info in the URL too; node:http would turn it into a Basic header.
  if (url.username !== '' || url.password !== '') throw new TypeError('a URL with credentials cannot be requested');
  const hostname = url.hostname;
  const target: RequestTarget = {
    href: url.href,
    protocol,
    // An IPv6 address without its brackets, as urlToHttpOptions gives it.
    hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    client: protocol === 'https:' ? https : http,
  };
  targets.set(url, target);
  return target;
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
