/**
 * Redirects followed by hand (#18): fetch's own following would send the configured headers
 * (an X-Api-Key) and a POST's body to wherever a server points. Each hop is checked by the
 * caller's rule before anything is sent there; a hop's body is cancelled unread.
 */
import { drain } from './httpBody';

/** Hops followed before giving up. */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export interface RedirectInit {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly signal?: AbortSignal;
}

/** Thrown by a hop rule, or when the hops run out; `target` is an origin, never a full URL (its query may hold a secret). */
export class RedirectRefusedError extends Error {
  constructor(
    message: string,
    readonly target: string,
  ) {
    super(message);
    this.name = 'RedirectRefusedError';
  }
}

/** Same origin only, and never from https to http (a different origin anyway: the scheme is part of it). */
export function sameOriginHop(from: URL, to: URL): void {
  // A URL with user info is refused by fetch as by our node:http fetch: say so here, as a redirect.
  if (to.username !== '' || to.password !== '') {
    throw new RedirectRefusedError('redirected to a URL with credentials in it; not followed', to.origin);
  }
  if (to.origin === from.origin) return;
  const downgrade = from.protocol === 'https:' && to.protocol === 'http:';
  throw new RedirectRefusedError(
    `redirected to ${downgrade ? 'plain http at ' : 'another origin, '}${to.origin}; not followed (headers and the request go only to the configured server)`,
    to.origin,
  );
}

/**
 * One request, following redirects with `redirect: 'manual'`: each target is checked by `checkHop`
 * (which throws to refuse) before it is asked. 303, and 301/302 after a POST, continue as a GET
 * without a body (as fetch does); 307/308 repeat the request. A 3xx without Location is returned.
 * Not an async function: an answer that is no redirect (nearly all) costs one `then`, not an
 * async frame per layer (#21); a throw of `fetchFn` rejects the promise as before.
 */
export function fetchFollowing(
  fetchFn: typeof globalThis.fetch,
  url: URL,
  init: RedirectInit,
  checkHop: (from: URL, to: URL) => void,
): Promise<Response> {
  return fetchFollowingThen(fetchFn, url, init, checkHop, sameAnswer, rethrow);
}

/**
 * fetchFollowing with the caller's next step: `answered` gets the last answer, `failed` any
 * failure of the request or its hops (not what `answered` throws), as `.then(answered, failed)`
 * over fetchFollowing would, but in the one `then` an answer that is no redirect costs (#21: each
 * layer's `then` was a promise and a microtask per request).
 */
export function fetchFollowingThen<T>(
  fetchFn: typeof globalThis.fetch,
  url: URL,
  init: RedirectInit,
  checkHop: (from: URL, to: URL) => void,
  answered: (res: Response) => T | PromiseLike<T>,
  failed: (err: unknown) => never,
): Promise<T> {
  let first: Promise<Response>;
  try {
    // The URL itself, not its href: node:http's fetch (nodeHttp.ts) then parses nothing again.
    first = fetchFn(url, { method: init.method, headers: init.headers, body: init.body, signal: init.signal, redirect: 'manual' });
  } catch (err) {
    return Promise.reject(err).then(undefined, failed);
  }
  return first.then((res) => (redirectLocation(res) === null ? answered(res) : followRedirects(fetchFn, url, init, checkHop, res).then(answered, failed)), failed);
}

/** The answer as it is: the `answered` step of a caller that wants the Response itself. */
export function sameAnswer(res: Response): Response {
  return res;
}

function rethrow(err: unknown): never {
  throw err;
}

function redirectLocation(res: Response): string | null {
  return REDIRECT_STATUSES.has(res.status) ? res.headers.get('location') : null;
}

/** The hops after the first answer `res`, a redirect. */
async function followRedirects(
  fetchFn: typeof globalThis.fetch,
  url: URL,
  init: RedirectInit,
  checkHop: (from: URL, to: URL) => void,
  firstAnswer: Response,
): Promise<Response> {
  let current = url;
  let { method, body } = init;
  let headers = init.headers;
  let res = firstAnswer;
  for (let hop = 0; ; hop++) {
    if (hop > 0) res = await fetchFn(current, { method, headers, body, signal: init.signal, redirect: 'manual' });
    const location = redirectLocation(res);
    if (location === null) return res;
    await drain(res);
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new RedirectRefusedError(`answered HTTP ${res.status} with a Location that is not a URL`, current.origin);
    }
    checkHop(current, next);
    if (hop >= MAX_REDIRECTS) throw new RedirectRefusedError(`redirected more than ${MAX_REDIRECTS} times; stopped at ${next.origin}`, next.origin);
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      if (method !== 'HEAD') method = 'GET';
      body = undefined;
      headers = withoutContentHeaders(headers);
    }
    current = next;
  }
}

function withoutContentHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!name.toLowerCase().startsWith('content-')) out[name] = value;
  return out;
}
