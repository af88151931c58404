import * as dns from 'node:dns';
import { isCredentialHeader } from '../redact';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { parseBearerChallenge } from '../../auth/challenge';
import type { DoctorCheck } from './types';
import { bodyDetail, readTextPrefix } from '../../transport/httpBody';
import { RedirectRefusedError, fetchFollowing, sameOriginHop } from '../../transport/redirects';
import { displayUrl } from '../../util/displayUrl';

/** Resolves within `ms` with `fallback` when `work` has not settled by then. */
function within<T>(work: Promise<T>, ms: number, fallback: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback()), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** The "host name resolves" line (dns.lookup, as the HTTP client does). */
export async function checkDns(url: URL, file: string, timeoutMs: number): Promise<DoctorCheck> {
  const title = 'Host name resolves';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) return { id: 'dns', title, status: 'skip', detail: `${host} is an IP address.` };
  const answer = await within(
    dns.promises.lookup(host, { all: true }).then(
      (addresses) => ({ addresses }),
      (err: NodeJS.ErrnoException) => ({ error: err.code ?? err.message }),
    ),
    timeoutMs,
    () => ({ error: `no answer within ${timeoutMs} ms` }),
  );
  if ('error' in answer) {
    return {
      id: 'dns',
      title,
      status: 'fail',
      detail: `${host} does not resolve (${answer.error}).`,
      fix: `Check the host name in "url" in ${file}, and your network, VPN or proxy.`,
    };
  }
  return { id: 'dns', title, status: 'pass', detail: `${host} is ${answer.addresses.map((a) => a.address).join(', ')}.` };
}

/** Certificates that expire sooner than this are worth a warning. */
const EXPIRY_WARNING_DAYS = 14;

/** The "TLS handshake" line of an https URL: the certificate is trusted, and for how long. */
export async function checkTls(url: URL, file: string, timeoutMs: number, now = Date.now()): Promise<DoctorCheck> {
  const title = 'TLS certificate';
  if (url.protocol !== 'https:') return { id: 'tls', title, status: 'skip', detail: 'The URL is http://, without TLS.' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 443);
  const result = await new Promise<{ authorized: boolean; error?: string; validTo?: string; subject?: string; issuer?: string } | { failed: string }>((resolve) => {
    // rejectUnauthorized: false so a refused certificate can still be described; trust is judged from `authorized`.
    const socket = tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, rejectUnauthorized: false, timeout: timeoutMs });
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      resolve({
        authorized: socket.authorized,
        error: socket.authorizationError ? String(socket.authorizationError) : undefined,
        validTo: cert?.valid_to,
        subject: firstValue(cert?.subject?.CN),
        issuer: firstValue(cert?.issuer?.O ?? cert?.issuer?.CN),
      });
      socket.end();
    });
    socket.once('timeout', () => {
      resolve({ failed: `no TLS handshake within ${timeoutMs} ms` });
      socket.destroy();
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve({ failed: err.code ?? err.message }));
  });
  if ('failed' in result) {
    return { id: 'tls', title, status: 'fail', detail: `The TLS handshake with ${host}:${port} failed (${result.failed}).`, fix: `Check that ${host}:${port} serves https, and the URL in ${file}.` };
  }
  const expires = result.validTo ? new Date(result.validTo) : undefined;
  const daysLeft = expires ? Math.floor((expires.getTime() - now) / 86_400_000) : undefined;
  const about = `${result.subject ? `Certificate for ${result.subject}` : 'Certificate'}${result.issuer ? ` from ${result.issuer}` : ''}${expires ? `, valid until ${expires.toISOString().slice(0, 10)}` : ''}.`;
  if (!result.authorized) {
    const expired = result.error === 'CERT_HAS_EXPIRED';
    return {
      id: 'tls',
      title,
      status: 'fail',
      detail: `${about} It is not trusted: ${result.error ?? 'unknown reason'}.`,
      fix: expired
        ? 'The server must renew its certificate.'
        : 'If the server uses a private certificate authority, give its certificate to Node: set NODE_EXTRA_CA_CERTS=/path/to/ca.pem in the environment MCP Host starts with.',
    };
  }
  if (daysLeft !== undefined && daysLeft < EXPIRY_WARNING_DAYS) {
    return { id: 'tls', title, status: 'warn', detail: `${about} It expires in ${daysLeft} day${daysLeft === 1 ? '' : 's'}.`, fix: 'The server must renew its certificate soon.' };
  }
  return { id: 'tls', title, status: 'pass', detail: `${about} Trusted.` };
}

/** A certificate field may repeat; the first value is enough to name it. */
function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export interface AuthProbeInput {
  readonly url: URL;
  /** The address as shown (the config's url as written, util/displayUrl.ts); default displayUrl(url). */
  readonly shownUrl?: string;
  readonly type: 'http' | 'sse';
  /** The configured headers, resolved (sent, never shown). */
  readonly headers: Readonly<Record<string, string>>;
  readonly file: string;
  readonly timeoutMs: number;
  /** Whether a token is held for the server; undefined when this host keeps none. */
  readonly tokenHeld: () => Promise<boolean | undefined>;
  readonly signInHint: string;
  readonly clientInfo: { name: string; version: string };
  readonly fetch?: typeof globalThis.fetch;
}

/**
 * The "authentication" line: an unauthenticated request (an initialize POST; a GET of the event
 * stream for HTTP+SSE) tells whether the server wants OAuth (401 with a Bearer challenge and its
 * resource metadata), other credentials, or none; and whether a token is held for it.
 * `reachable` is false when the server could not be reached at all.
 */
export async function checkAuthentication(input: AuthProbeInput): Promise<{ check: DoctorCheck; reachable: boolean; needsSignIn: boolean }> {
  const title = 'Authentication';
  const fetchFn = input.fetch ?? globalThis.fetch;
  const signal = AbortSignal.timeout(input.timeoutMs);
  let response: Response;
  /** "http" falls back to HTTP+SSE as a start does: the event stream answered the probe. */
  let refusedPost: number | undefined;
  const openEventStream = () => fetchFollowing(fetchFn, input.url, { method: 'GET', headers: { ...input.headers, accept: 'text/event-stream' }, signal }, sameOriginHop);
  try {
    // Redirects by hand, same origin only: the configured headers go nowhere else.
    response =
      input.type === 'sse'
        ? await openEventStream()
        : await fetchFollowing(
            fetchFn,
            input.url,
            {
              method: 'POST',
              headers: { ...input.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
              body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: input.clientInfo } }),
              signal,
            },
            sameOriginHop,
          );
    if (input.type === 'http' && LEGACY_SSE_FALLBACK_STATUSES.has(response.status)) {
      // A legacy HTTP+SSE server refuses the POST where a start falls back to its event stream: so does the probe.
      const stream = await openEventStream().catch(() => undefined);
      if (stream && (isEventStream(stream) || stream.status === 401 || stream.status === 403)) {
        await response.body?.cancel().catch(() => undefined);
        refusedPost = response.status;
        response = stream;
      } else {
        await stream?.body?.cancel().catch(() => undefined);
      }
    }
  } catch (err) {
    if (err instanceof RedirectRefusedError) {
      return {
        check: { id: 'auth', title, status: 'fail', detail: `The server ${err.message}.`, fix: `Put the address it should be reached at in "url" in ${input.file}.` },
        reachable: true,
        needsSignIn: false,
      };
    }
    const cause = (err as { cause?: NodeJS.ErrnoException }).cause;
    const reason = signal.aborted ? `no answer within ${input.timeoutMs} ms` : (cause?.code ?? cause?.message ?? (err as Error).message);
    return {
      check: { id: 'auth', title, status: 'fail', detail: `${input.url.host} could not be reached (${reason}).`, fix: `Check that the server is running, and the host and port in "url" in ${input.file}.` },
      reachable: false,
      needsSignIn: false,
    };
  }
  const status = response.status;
  const challenge = response.headers.get('www-authenticate');
  // The probe sends the configured headers, as a start would: the texts say whether credentials went with it.
  const sentCredentials = Object.keys(input.headers).some(isCredentialHeader);
  // The server's own reason (the first part of an error body; the rest is cancelled unread).
  const reason = status >= 400 ? bodyDetail(await readTextPrefix(response)) : '';
  const because = reason ? `: "${reason}"` : '';
  await response.body?.cancel().catch(() => undefined);
  await endSession(fetchFn, input, response.headers.get('mcp-session-id'));
  if (status === 401 || status === 403) {
    const bearer = challenge && /^\s*bearer\b/i.test(challenge) ? parseBearerChallenge(challenge) : undefined;
    if (!bearer && status === 403 && reason) {
      // A reason of its own ("only allowed at localhost"): no credentials advice would fit it better.
      return {
        check: {
          id: 'auth',
          title,
          status: 'fail',
          detail: `The server answered 403 Forbidden${because}.`,
          fix: `Do what the server's reason asks${sentCredentials ? `, or check the credentials in "headers" in ${input.file}` : ''}.`,
        },
        reachable: true,
        needsSignIn: false,
      };
    }
    if (!bearer && sentCredentials) {
      return {
        check: {
          id: 'auth',
          title,
          status: 'fail',
          detail: `The server answered ${status} ${status === 401 ? 'Unauthorized' : 'Forbidden'}${because} to the credentials in "headers": they are wrong, expired or not enough.`,
          fix: `Check the credentials in "headers" in ${input.file} (a stored \${input:…} value is changed with MCP Host: Change a Stored Input Value…).`,
        },
        reachable: true,
        needsSignIn: false,
      };
    }
    if (!bearer) {
      return {
        check: {
          id: 'auth',
          title,
          status: 'fail',
          detail: `The server answered ${status} ${status === 401 ? 'Unauthorized' : 'Forbidden'}${because} without an OAuth challenge: it wants credentials that signing in cannot give.`,
          fix: `Send the credentials it expects in "headers" in ${input.file}, e.g. "Authorization": "Bearer \${input:token}" with a password input.`,
        },
        reachable: true,
        needsSignIn: false,
      };
    }
    const held = await input.tokenHeld().catch(() => undefined);
    const about = `The server wants OAuth sign-in (${status}${bearer.resourceMetadata ? `; resource metadata at ${displayUrl(bearer.resourceMetadata)}` : ''}${bearer.scopes?.length ? `; scopes ${bearer.scopes.join(' ')}` : ''}).`;
    if (held === true) return { check: { id: 'auth', title, status: 'pass', detail: `${about} A token is held for it.` }, reachable: true, needsSignIn: false };
    return {
      check: { id: 'auth', title, status: 'fail', detail: `${about} ${held === false ? 'No token is held for it.' : 'Tokens are not kept here.'}`, fix: input.signInHint },
      reachable: true,
      needsSignIn: true,
    };
  }
  if (status === 404) {
    return {
      check: {
        id: 'auth',
        title,
        status: 'fail',
        detail: `Nothing answers at ${input.shownUrl ?? displayUrl(input.url)} (404 Not Found).`,
        fix: `Check the path of "url" in ${input.file}: MCP endpoints are usually /mcp (Streamable HTTP) or /sse (HTTP+SSE).`,
      },
      reachable: true,
      needsSignIn: false,
    };
  }
  if (status >= 500) {
    return { check: { id: 'auth', title, status: 'warn', detail: `The server answered ${status} to an initialize request${because}.`, fix: 'The server has an internal error; see its own logs.' }, reachable: true, needsSignIn: false };
  }
  const how = refusedPost !== undefined ? ` to a GET of its HTTP+SSE event stream, after ${refusedPost} to a Streamable HTTP POST` : '';
  const detail = sentCredentials ? `The server accepted the credentials in "headers" (it answered ${status}${how}).` : `No authentication asked (the server answered ${status} without credentials${how}).`;
  return { check: { id: 'auth', title, status: 'pass', detail }, reachable: true, needsSignIn: false };
}

/** What a legacy HTTP+SSE server answers a POST to its event stream's URL (the transport falls back on these). */
const LEGACY_SSE_FALLBACK_STATUSES = new Set([400, 404, 405]);

function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}

/** Ends a session the probe opened (Streamable HTTP), so the server does not keep it. */
async function endSession(fetchFn: typeof globalThis.fetch, input: AuthProbeInput, sessionId: string | null): Promise<void> {
  if (!sessionId) return;
  try {
    const r = await fetchFn(input.url, { method: 'DELETE', headers: { ...input.headers, 'mcp-session-id': sessionId }, redirect: 'manual', signal: AbortSignal.timeout(input.timeoutMs) });
    await r.body?.cancel();
  } catch {
    // A server that keeps the session until it expires is no failure of the check.
  }
}
