// Who may talk to the gateway: a client on this machine that knows the token, not a web page.
import type { IncomingHttpHeaders } from 'node:http';
import { timingSafeEqual, createHash } from 'node:crypto';

export interface Refusal {
  status: 401 | 403;
  message: string;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Host must name this loopback port and Origin, when sent, must be loopback (DNS rebinding: a web
 * page's request carries its own Origin and Host); the bearer token is compared in constant time.
 */
export function checkRequestHeaders(headers: IncomingHttpHeaders, port: number, token: string): Refusal | undefined {
  const host = headers.host ?? '';
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return { status: 403, message: 'Host header must be 127.0.0.1 or localhost with the gateway port' };
  const origin = headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin)) return { status: 403, message: 'requests from this Origin are not allowed' };
  const auth = headers.authorization ?? '';
  const given = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : '';
  if (!given || !sameSecret(given, token)) return { status: 401, message: 'a valid bearer token is required' };
  return undefined;
}

function isLoopbackOrigin(origin: string): boolean {
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
}

/** Equal-length digests, so neither the content nor the length leaks through timing. */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
