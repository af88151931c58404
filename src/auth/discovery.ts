// MCP authorization discovery (authorization spec 2025-11-25, "Authorization Server Discovery"):
// Protected Resource Metadata (RFC 9728) in the spec's order, then Authorization Server
// Metadata (RFC 8414 / OpenID Connect Discovery) in the spec's order. oauth4webapi validates
// the AS document (issuer match); the URL orders are ours because they are MCP's.

import { processDiscoveryResponse, type AuthorizationServer } from 'oauth4webapi';
import { METADATA_MAX_BYTES, boundedResponse } from '../transport/httpBody';
import { RedirectRefusedError, fetchFollowing } from '../transport/redirects';
import { displayUrl } from '../util/displayUrl';

export interface ProtectedResourceInfo {
  /** Where the document was found. */
  readonly metadataUrl: string;
  /** The `resource` it names (validated against the MCP URL). */
  readonly resource: string;
  readonly authorizationServers: readonly string[];
  readonly scopesSupported?: readonly string[];
}

export type Fetch = typeof fetch;

const REQUEST_TIMEOUT_MS = 30_000;

/** The canonical form of the MCP server URL used as RFC 8707 resource (no fragment, no bare trailing slash). */
export function canonicalResource(url: URL): string {
  const u = new URL(url.href);
  u.hash = '';
  if (u.pathname === '/' && !u.search) return u.origin;
  return u.href;
}

/** http is allowed only to loopback addresses (tests, local servers); anything else must be https. */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname.toLowerCase());
}

export function assertSecureEndpoint(url: URL, what: string): void {
  if (url.protocol === 'https:' || isLoopbackHttp(url)) return;
  throw new Error(`The ${what} ${url.origin} does not use https; MCP Host only talks OAuth over https (or http on this computer).`);
}

/** RFC 9728 §3.1 well-known URLs in the MCP order: path-suffixed first, then root. */
export function protectedResourceMetadataUrls(mcpUrl: URL): URL[] {
  const path = mcpUrl.pathname.replace(/\/+$/, '');
  const urls: URL[] = [];
  if (path) urls.push(new URL(`/.well-known/oauth-protected-resource${path}`, mcpUrl.origin));
  urls.push(new URL('/.well-known/oauth-protected-resource', mcpUrl.origin));
  return urls;
}

/** RFC 8414 §3.1 + RFC 8414 §5 + OIDC Discovery, in the order the MCP spec lists. */
export function authorizationServerMetadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname.replace(/\/+$/, '');
  if (!path) {
    return [new URL('/.well-known/oauth-authorization-server', issuer.origin), new URL('/.well-known/openid-configuration', issuer.origin)];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    new URL(`/.well-known/openid-configuration${path}`, issuer.origin),
    new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
  ];
}

/** The PRM `resource` must name this server: same origin, and a path that is a prefix of the MCP URL's. */
export function resourceCovers(resource: string, mcpUrl: URL): boolean {
  let r: URL;
  try {
    r = new URL(resource);
  } catch {
    return false;
  }
  if (r.origin !== mcpUrl.origin || r.hash) return false;
  const rp = r.pathname.replace(/\/+$/, '');
  const mp = mcpUrl.pathname.replace(/\/+$/, '');
  return rp === '' || mp === rp || mp.startsWith(`${rp}/`);
}

export class ResourceMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResourceMismatchError';
  }
}

/**
 * GETs a metadata document: redirects followed by hand, each hop held to the https/loopback rule
 * (fetch's own following would skip it); the body read to METADATA_MAX_BYTES at most. A 200's
 * body is in memory when this returns; other statuses keep theirs unread (cancel it).
 */
async function getJson(fetchFn: Fetch, url: URL): Promise<Response> {
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetchFollowing(fetchFn, url, { method: 'GET', headers: { accept: 'application/json' }, signal }, (_from, to) =>
      assertSecureEndpoint(to, 'metadata redirect to'),
    );
  } catch (err) {
    if (err instanceof RedirectRefusedError) throw new Error(`The metadata at ${url.origin} ${err.message}.`);
    throw err;
  }
  if (res.status !== 200) return res;
  return boundedResponse(res, METADATA_MAX_BYTES, `the metadata at ${url.origin}${url.pathname}`);
}

/**
 * Finds the Protected Resource Metadata: the header's URL first, then the well-known URLs.
 * Undefined when there is none (a 2025-03-26 era server). Throws ResourceMismatchError when
 * a document names another resource: that is never followed.
 */
export async function discoverProtectedResource(
  mcpUrl: URL,
  headerUrl: string | undefined,
  fetchFn: Fetch,
  log: (line: string) => void,
): Promise<ProtectedResourceInfo | undefined> {
  const candidates: URL[] = [];
  if (headerUrl) {
    try {
      const u = new URL(headerUrl, mcpUrl);
      if (u.protocol === 'https:' || u.protocol === 'http:') candidates.push(u);
    } catch {
      log(`the resource_metadata URL in WWW-Authenticate is not a URL; trying the well-known locations`);
    }
  }
  for (const u of protectedResourceMetadataUrls(mcpUrl)) if (!candidates.some((c) => c.href === u.href)) candidates.push(u);

  for (const url of candidates) {
    assertSecureEndpoint(url, 'resource metadata at');
    const res = await getJson(fetchFn, url);
    if (res.status !== 200) {
      await res.body?.cancel();
      log(`no protected resource metadata at ${displayUrl(url)} (HTTP ${res.status})`);
      continue;
    }
    let doc: unknown;
    try {
      doc = await res.json();
    } catch {
      log(`protected resource metadata at ${displayUrl(url)} is not JSON; ignored`);
      continue;
    }
    const info = parseProtectedResource(doc, url, mcpUrl, log);
    if (info) return info;
  }
  return undefined;
}

function parseProtectedResource(doc: unknown, url: URL, mcpUrl: URL, log: (line: string) => void): ProtectedResourceInfo | undefined {
  if (!doc || typeof doc !== 'object') return undefined;
  const d = doc as Record<string, unknown>;
  const servers = Array.isArray(d.authorization_servers) ? d.authorization_servers.filter((s): s is string => typeof s === 'string') : [];
  if (servers.length === 0) {
    log(`protected resource metadata at ${displayUrl(url)} lists no authorization_servers; ignored`);
    return undefined;
  }
  const resource = typeof d.resource === 'string' ? d.resource : canonicalResource(mcpUrl);
  if (!resourceCovers(resource, mcpUrl)) {
    throw new ResourceMismatchError(
      `The server's resource metadata (${displayUrl(url)}) is for ${resource}, not for ${displayUrl(canonicalResource(mcpUrl))}; not signing in.`,
    );
  }
  const scopes = Array.isArray(d.scopes_supported) ? d.scopes_supported.filter((s): s is string => typeof s === 'string') : undefined;
  return { metadataUrl: url.href, resource, authorizationServers: servers, scopesSupported: scopes };
}

/**
 * Fetches and validates the AS metadata from the first well-known URL that answers 200.
 * Undefined when none does.
 */
export async function discoverAuthorizationServer(
  issuer: URL,
  fetchFn: Fetch,
  log: (line: string) => void,
  /** 2025-03-26 servers put their AS metadata at their own origin, whatever issuer it names. */
  legacyOrigin = false,
): Promise<AuthorizationServer | undefined> {
  assertSecureEndpoint(issuer, 'authorization server');
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const res = await getJson(fetchFn, url);
    if (res.status !== 200) {
      await res.body?.cancel();
      log(`no authorization server metadata at ${displayUrl(url)} (HTTP ${res.status})`);
      continue;
    }
    if (legacyOrigin) return readLegacyMetadata(res, url);
    // Checks that `issuer` in the document is exactly the one we looked up (RFC 8414 §3.3).
    return await processDiscoveryResponse(issuer, res);
  }
  return undefined;
}

async function readLegacyMetadata(res: Response, url: URL): Promise<AuthorizationServer> {
  const doc = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!doc || typeof doc !== 'object' || typeof doc.issuer !== 'string') {
    throw new Error(`the authorization server metadata at ${displayUrl(url)} is not valid`);
  }
  return doc as unknown as AuthorizationServer;
}
