/**
 * What the HTTP transports share: their options, their error, the fetch-with-authorization
 * helper, SSE body reading (eventsource-parser) and log-safe descriptions of URLs and failures.
 * Kept apart from http.ts (the factory) so that the transports and the factory do not import
 * each other.
 */
import { setMaxListeners } from 'node:events';
import type { AuthChallenge, HttpAuthProvider } from '../auth/types';
import { DEFAULT_MAX_MESSAGE_BYTES } from './framing';
import { errorMessage } from '../util/errorMessage';
import { BodyTooLargeError, bodyDetail, drain, excerptText, readTextPrefix } from './httpBody';
import { RedirectRefusedError, fetchFollowingThen, sameAnswer, sameOriginHop } from './redirects';

export { bodyDetail, drain, excerptText };

export { HttpTransportError };
import { HttpTransportError } from './httpError';
import { nodeHttpFetch } from './nodeHttp';

export interface HttpReconnectOptions {
  /** First wait before reconnecting a dropped SSE stream, when the server sent no `retry:`. Default 1000. */
  initialDelayMs?: number;
  /** Longest wait between attempts (the wait doubles each time). Default 30000. */
  maxDelayMs?: number;
  /** Attempts before giving up on a stream. Default 5. */
  maxAttempts?: number;
}

export interface HttpTransportOptions {
  /** The MCP endpoint (Streamable HTTP) or the SSE URL (legacy). */
  url: string;
  /** Sent with every request (e.g. an API key). Never logged. */
  headers?: Readonly<Record<string, string>>;
  /** Names the server in errors and log lines, e.g. `server 'everything'`. */
  label: string;
  /** Adds Authorization and handles 401/403 challenges. */
  auth?: HttpAuthProvider;
  /** Defaults to node:http with keep-alive agents (nodeHttp.ts; an editor's proxy support applies to it). */
  fetch?: typeof globalThis.fetch;
  /** Longest accepted incoming message (default 64 MiB). */
  maxMessageBytes?: number;
  reconnect?: HttpReconnectOptions;
  /** The address as errors and logs show it (the config's url as written); default displayUrl(url). */
  shownUrl?: string;
  /** How long a POST that carries no request may wait to be taken (default ACCEPT_TIMEOUT_MS). */
  acceptTimeoutMs?: number;
}

export const DEFAULT_RECONNECT_INITIAL_DELAY_MS = 1000;
export const DEFAULT_RECONNECT_MAX_DELAY_MS = 30_000;
export const DEFAULT_RECONNECT_MAX_ATTEMPTS = 5;
/** How often one request may be re-sent after a 401/403 challenge was handled. */
export const MAX_AUTH_RETRIES = 3;
/** How long close() waits for the server to acknowledge the session DELETE. */
export const DELETE_TIMEOUT_MS = 2000;
/**
 * How long a POST that carries no request (a notification, our answer to the server) may wait
 * for the server to take it: a spec-following server answers 202 at once.
 */
export const ACCEPT_TIMEOUT_MS = 30_000;


/** Origin, path and query names only (util/displayUrl.ts): the query may hold a key and the user info a password. */
export { displayUrl } from '../util/displayUrl';
import { displayUrl } from '../util/displayUrl';

/** Parses and checks the configured URL; throws a TypeError a person can act on. */
export function parseHttpUrl(raw: string, label: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(`${label}: invalid server URL (expected http:// or https://...)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`${label}: the server URL must start with http:// or https:// (got ${url.protocol})`);
  }
  return url;
}

/** Fetch options the transports resolve once. */
export interface ResolvedHttpOptions {
  readonly url: URL;
  readonly href: string;
  readonly shownUrl: string;
  readonly label: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly auth: HttpAuthProvider | undefined;
  readonly fetch: typeof globalThis.fetch;
  readonly maxMessageBytes: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxAttempts: number;
  readonly acceptTimeoutMs: number;
}

export function resolveHttpOptions(options: HttpTransportOptions): ResolvedHttpOptions {
  const url = parseHttpUrl(options.url, options.label);
  const headers: Record<string, string> = {};
  // Lower-case names, so ours (accept, content-type, mcp-*) replace rather than duplicate theirs.
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  return {
    url,
    href: url.href,
    shownUrl: options.shownUrl ?? displayUrl(url),
    label: options.label,
    headers,
    auth: options.auth,
    fetch: options.fetch ?? nodeHttpFetch(),
    maxMessageBytes: positive(options.maxMessageBytes, DEFAULT_MAX_MESSAGE_BYTES),
    initialDelayMs: positive(options.reconnect?.initialDelayMs, DEFAULT_RECONNECT_INITIAL_DELAY_MS),
    maxDelayMs: positive(options.reconnect?.maxDelayMs, DEFAULT_RECONNECT_MAX_DELAY_MS),
    maxAttempts: positive(options.reconnect?.maxAttempts, DEFAULT_RECONNECT_MAX_ATTEMPTS),
    acceptTimeoutMs: positive(options.acceptTimeoutMs, ACCEPT_TIMEOUT_MS),
  };
}

function positive(value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`expected a non-negative number, got ${value}`);
  return value;
}

/** An AbortController whose signal may carry any number of fetches without a leak warning. */
export function manyListenerController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/**
 * One HTTP request with the configured headers and authorization. On 401/403 the auth provider
 * is asked (`handleChallenge`) and the request re-sent, at most MAX_AUTH_RETRIES times. Network
 * failures become HttpTransportErrors naming the address and errno; a redirect to another origin
 * fails naming that origin. Responses with other error statuses are returned for the caller to judge.
 */
export function fetchWithAuth(
  o: ResolvedHttpOptions,
  method: string,
  target: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
  handleChallenges = true,
): Promise<Response> {
  // Without an auth provider: the 401 check in the request's own `then`, not an async frame nor a `then` of its own (#21).
  if (o.auth === undefined) return fetchOnceThen(o, method, target, headers, body, signal, (res) => (res.status === 401 ? unauthorized(o, headers, res) : res));
  return fetchWithProvider(o, o.auth, method, target, headers, body, signal, handleChallenges);
}

/** A 401 where no auth provider is configured: the error, with the server's reason. */
async function unauthorized(o: ResolvedHttpOptions, headers: Record<string, string>, res: Response): Promise<never> {
  const detail = await excerptOf(res);
  if (headers.authorization !== undefined) throw credentialsRefused(o, detail);
  throw new HttpTransportError(
    `${o.shownUrl} requires authorization (HTTP 401) and no sign-in is configured for it.${says(detail)} ` +
      'Add the needed credentials (an "Authorization" header or an OAuth client) to the server configuration.',
    { code: 'HTTP_401', status: 401, url: o.shownUrl, label: o.label },
  );
}

async function fetchWithProvider(
  o: ResolvedHttpOptions,
  auth: HttpAuthProvider,
  method: string,
  target: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
  handleChallenges: boolean,
): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const authorization = await auth.authorizationHeader(o.url);
    const sent = authorization === undefined ? headers : { ...headers, authorization };
    const res = await fetchOnce(o, method, target, sent, body, signal);
    if ((res.status !== 401 && res.status !== 403) || !handleChallenges) return res;
    const challenge: AuthChallenge = { status: res.status, wwwAuthenticate: res.headers.get('www-authenticate'), authorization };
    const detail = await excerptOf(res);
    if (attempt >= MAX_AUTH_RETRIES) {
      throw new HttpTransportError(
        `${o.shownUrl} still answers HTTP ${res.status} after signing in ${MAX_AUTH_RETRIES} times;${says(detail)} ` +
          'the account may lack access to this server. Sign out and in again, or check the server configuration.',
        { code: `HTTP_${res.status}`, status: res.status, url: o.shownUrl, label: o.label },
      );
    }
    // A configured Authorization header was refused: sign-in is offered only to a server that asks for OAuth.
    if (res.status === 401 && authorization === undefined && headers.authorization !== undefined && !(await offersOAuth(auth, challenge, o.url))) {
      throw credentialsRefused(o, detail);
    }
    // May reject with AuthorizationRequiredError: that travels up unchanged.
    const decision = await auth.handleChallenge(challenge, o.url);
    if (signal.aborted) throw closedError(o);
    if (decision !== 'retry') {
      throw new HttpTransportError(
        res.status === 401
          ? `${o.shownUrl} requires authorization (HTTP 401) and no valid sign-in could be obtained.${says(detail)} Sign in again.`
          : `${o.shownUrl} refused access (HTTP 403 Forbidden${detail ? `: ${detail}` : ''})${detail ? '' : '. The account may lack a needed permission or scope'}.`,
        { code: `HTTP_${res.status}`, status: res.status, url: o.shownUrl, label: o.label },
      );
    }
  }
}

/** The server's reason from the first part of an error body (or ''); the rest is cancelled unread. */
async function excerptOf(res: Response): Promise<string> {
  return bodyDetail(await readTextPrefix(res));
}

function says(detail: string): string {
  return detail ? ` The server says: "${detail}".` : '';
}

function credentialsRefused(o: ResolvedHttpOptions, detail: string): HttpTransportError {
  return new HttpTransportError(
    `${o.shownUrl} refused the credentials given (HTTP 401${detail ? `: ${detail}` : ''}). Check the "Authorization" header (--header, or "headers" in the configuration).`,
    { code: 'HTTP_401', status: 401, url: o.shownUrl, label: o.label },
  );
}

/** Whether a 401 advertises OAuth: a Bearer challenge naming resource metadata, or metadata the provider can find. */
async function offersOAuth(auth: HttpAuthProvider, challenge: AuthChallenge, resource: URL): Promise<boolean> {
  if (challenge.wwwAuthenticate !== null && /\bresource_metadata\s*=/i.test(challenge.wwwAuthenticate)) return true;
  if (auth.advertisesOAuth === undefined) return true;
  return auth.advertisesOAuth(resource);
}

/** One request; redirects followed only within the configured server's origin. */
function fetchOnce(
  o: ResolvedHttpOptions,
  method: string,
  target: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
): Promise<Response> {
  return fetchOnceThen(o, method, target, headers, body, signal, sameAnswer);
}

/** fetchOnce, then `answered` on its answer (in the same `then`; what `answered` throws is not a fetch failure). */
function fetchOnceThen<T>(
  o: ResolvedHttpOptions,
  method: string,
  target: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
  answered: (res: Response) => T | PromiseLike<T>,
): Promise<T> {
  const failed = (err: unknown): never => {
    throw fetchFailure(o, method, signal, err);
  };
  let url: URL;
  try {
    // The configured URL is parsed once (resolveHttpOptions), not per request.
    url = target === o.href ? o.url : new URL(target);
  } catch (err) {
    return Promise.reject(err).then(undefined, failed);
  }
  return fetchFollowingThen(o.fetch, url, { method, headers, body, signal }, sameOriginHop, answered, failed);
}

/** What a failed request (no answer to return) rejects with. */
function fetchFailure(o: ResolvedHttpOptions, method: string, signal: AbortSignal, err: unknown): HttpTransportError {
  if (err instanceof RedirectRefusedError) {
    return new HttpTransportError(`${method} ${o.shownUrl} ${err.message}`, { code: 'EREDIRECT', url: o.shownUrl, label: o.label });
  }
  if (signal.aborted) return closedError(o, err);
  return notHttpAnswer(o, method, err) ?? unsendable(o, method, err) ?? networkError(o, method, err);
}

/**
 * The server answered, but not in HTTP that Node's parser accepts (llhttp's HPE_* codes: headers
 * over 16 KB, a malformed status line or chunk): the server is there, so this is no network failure.
 */
function notHttpAnswer(o: ResolvedHttpOptions, method: string, err: unknown): HttpTransportError | undefined {
  const code = describeNetworkCause(err).code;
  if (code === undefined || !code.startsWith('HPE_')) return undefined;
  const why = code === 'HPE_HEADER_OVERFLOW' ? 'its headers are larger than 16 KB' : 'it is malformed';
  return new HttpTransportError(`${method} ${o.shownUrl}: the server's answer is not valid HTTP (${why}; ${code})`, {
    code: 'EPROTO',
    url: o.shownUrl,
    label: o.label,
    cause: err,
  });
}

/**
 * A request that could not be made at all (a header value Node refuses, a URL with credentials):
 * a TypeError of its own rather than fetch's "fetch failed" around a network cause. Nothing
 * reached the server, and trying again sends the same request: no network failure either.
 */
function unsendable(o: ResolvedHttpOptions, method: string, err: unknown): HttpTransportError | undefined {
  if (!(err instanceof TypeError) || err.message === 'fetch failed') return undefined;
  return new HttpTransportError(`cannot send ${method} to ${o.shownUrl}: ${excerptText(err.message, 200)}`, {
    code: 'EREQUEST',
    url: o.shownUrl,
    label: o.label,
    cause: err,
  });
}

/** Failures without a status where the server did answer, or where nothing could be sent. */
const NOT_NETWORK_CODES: ReadonlySet<string> = new Set(['ECLOSED', 'EPROTO', 'EREDIRECT', 'EMSGSIZE', 'EREQUEST', 'ETIMEDOUT_ACCEPT']);

/** True for a failure where no HTTP answer arrived at all (refused, reset, DNS, TLS, ...). */
export function isNetworkError(err: unknown): boolean {
  return err instanceof HttpTransportError && err.status === undefined && !NOT_NETWORK_CODES.has(err.code);
}

export function closedError(o: { label: string; shownUrl: string }, cause?: unknown): HttpTransportError {
  return new HttpTransportError(`the connection to ${o.shownUrl} was closed`, {
    code: 'ECLOSED',
    url: o.shownUrl,
    label: o.label,
    cause,
  });
}

/** undici's `fetch failed` hides the reason in `cause` (sometimes an AggregateError). */
export function networkError(o: { label: string; shownUrl: string }, method: string, err: unknown): HttpTransportError {
  const detail = describeNetworkCause(err);
  return new HttpTransportError(`cannot reach ${o.shownUrl} (${method}): ${detail.text}`, {
    code: detail.code ?? 'ENETWORK',
    url: o.shownUrl,
    label: o.label,
    cause: err,
  });
}

function describeNetworkCause(err: unknown): { text: string; code?: string } {
  let cause: unknown = err;
  // fetch failed -> cause (Error with code) or AggregateError(errors)
  for (let depth = 0; depth < 4 && cause instanceof Error; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'ERR_INVALID_ARG_TYPE') {
      const address = (cause as { address?: unknown }).address;
      const port = (cause as { port?: unknown }).port;
      const where = typeof address === 'string' ? ` ${address}${typeof port === 'number' ? `:${port}` : ''}` : '';
      const hint = NETWORK_HINTS[code];
      return { text: `${code}${where}${hint ? ` (${hint})` : ''}`, code };
    }
    if (cause instanceof AggregateError && cause.errors.length > 0) cause = cause.errors[0];
    else if (cause.cause !== undefined) cause = cause.cause;
    else break;
  }
  return { text: errorMessage(cause) };
}

const NETWORK_HINTS: Record<string, string> = {
  ECONNREFUSED: 'nothing is listening there; is the server running?',
  ENOTFOUND: 'the host name does not resolve',
  ECONNRESET: 'the server closed the connection',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the server closed the connection',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
};

/** An error for an HTTP error status, with a short excerpt of the body (its first ERROR_EXCERPT_BYTES; the rest is cancelled). */
export async function statusError(o: ResolvedHttpOptions, method: string, res: Response, what: string, hint?: string): Promise<HttpTransportError> {
  return statusErrorOf(o, method, res, await readTextPrefix(res), what, hint);
}

/** statusError for a body already read. */
export function statusErrorOf(o: ResolvedHttpOptions, method: string, res: Response, text: string, what: string, hint?: string): HttpTransportError {
  const detail = bodyDetail(text);
  const status = res.status;
  // The reason phrase is the server's text too: up to Node's 16 KB header limit.
  const statusText = res.statusText ? ` ${excerptText(res.statusText, 60)}` : '';
  const advice = hint ?? STATUS_HINTS[status] ?? (status >= 500 ? 'the server failed; see its logs' : undefined);
  return new HttpTransportError(
    `${method} ${o.shownUrl} (${what}) answered HTTP ${status}${statusText}${detail ? `: ${detail}` : ''}${advice ? ` — ${advice}` : ''}`,
    { code: `HTTP_${status}`, status, url: o.shownUrl, label: o.label },
  );
}

/**
 * `posted`, a POST that only waits for the server to take it: given up with `giveUp()` once
 * acceptTimeoutMs has passed, and then failing with an error that says so (`what`: the message).
 */
export function takenWithin(o: ResolvedHttpOptions, posted: Promise<void>, giveUp: () => void, what: string): Promise<void> {
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    giveUp();
  }, o.acceptTimeoutMs);
  timer.unref();
  return posted.then(
    () => clearTimeout(timer),
    (err: unknown) => {
      clearTimeout(timer);
      if (!late) throw err;
      throw new HttpTransportError(`the server did not take ${what} within ${o.acceptTimeoutMs} ms (POST ${o.shownUrl}); it was given up`, {
        code: 'ETIMEDOUT_ACCEPT',
        url: o.shownUrl,
        label: o.label,
      });
    },
  );
}

/** A body over its limit, as the transport reports it. */
export function tooLargeError(o: ResolvedHttpOptions, err: BodyTooLargeError): HttpTransportError {
  return new HttpTransportError(err.message, { code: 'EMSGSIZE', url: o.shownUrl, label: o.label, cause: err });
}

const STATUS_HINTS: Record<number, string> = {
  403: 'access refused',
  404: 'check the URL',
  405: 'the URL does not accept this method; check the URL and the transport type (http or sse)',
  406: 'the server does not accept the content types this client uses',
  415: 'the server does not accept JSON bodies here',
};

/** Whether the content type is an SSE stream. */
export function isEventStream(contentType: string | null): boolean {
  return contentType !== null && contentType.toLowerCase().startsWith('text/event-stream');
}

/** undici reports a dropped body as `terminated`; its cause says why. */
export function streamFailureText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause;
  return cause instanceof Error && cause.message !== err.message ? `${err.message}: ${cause.message}` : err.message;
}
