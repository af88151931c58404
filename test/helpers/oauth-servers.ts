// A real authorization server (oidc-provider, from npm) and a small protected MCP resource
// server, both on 127.0.0.1, for the OAuth process tests. The "person" at the AS consents to
// whatever is asked; the "browser" is fetch following redirects with a cookie jar.

import * as http from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { allowInsecureRequests, validateJwtAccessToken, type AuthorizationServer } from 'oauth4webapi';
import type { AuthorizationInteraction } from '../../src/auth/types';

// oidc-provider ships no types and is ESM; Node 20.19+ loads it with require().
// eslint-disable-next-line @typescript-eslint/no-require-imports
const oidc = require('oidc-provider') as { default: any; errors: any };

export const RESOURCE_SCOPES = ['mcp:read', 'mcp:write', 'mcp:admin'];

/** A shared in-memory store oidc-provider writes through, so a test can purge a client. */
class MapAdapter {
  static readonly data = new Map<string, { payload: any; expiresAt?: number }>();
  constructor(private readonly name: string) {}
  private key(id: string) {
    return `${this.name}:${id}`;
  }
  async upsert(id: string, payload: any, expiresIn?: number) {
    MapAdapter.data.set(this.key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined });
  }
  async find(id: string) {
    const e = MapAdapter.data.get(this.key(id));
    if (!e || (e.expiresAt && e.expiresAt < Date.now())) return undefined;
    return e.payload;
  }
  async findByUid(uid: string) {
    for (const [k, e] of MapAdapter.data) if (k.startsWith(`${this.name}:`) && e.payload.uid === uid) return e.payload;
    return undefined;
  }
  async findByUserCode(code: string) {
    for (const [k, e] of MapAdapter.data) if (k.startsWith(`${this.name}:`) && e.payload.userCode === code) return e.payload;
    return undefined;
  }
  async consume(id: string) {
    const e = MapAdapter.data.get(this.key(id));
    if (e) e.payload.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string) {
    MapAdapter.data.delete(this.key(id));
  }
  async revokeByGrantId(grantId: string) {
    for (const [k, e] of MapAdapter.data) if (e.payload.grantId === grantId) MapAdapter.data.delete(k);
  }
}

/** Deletes every stored item of one oidc-provider model (e.g. 'RefreshToken'): a purge at the AS. */
export function purgeModel(model: string): void {
  for (const key of [...MapAdapter.data.keys()]) if (key.startsWith(`${model}:`)) MapAdapter.data.delete(key);
}

export interface TestAuthorizationServer {
  readonly issuer: string;
  /** Every authorization request's query, in order. */
  readonly authorizationRequests: URLSearchParams[];
  /** Parameters of every token request (grant_type, code_verifier, resource, …), in order. */
  readonly tokenRequests: Array<Record<string, unknown>>;
  /** Client ids created by dynamic registration, in order. */
  readonly registrations: string[];
  /** The application_type of each registered client, in order (OIDC's default is "web"). */
  readonly applicationTypes: string[];
  /** Token endpoint errors (error codes), in order. */
  readonly tokenErrors: string[];
  /** Access token lifetime in seconds for tokens issued from now on. */
  accessTokenTtl: number;
  purgeClient(clientId: string): void;
  stop(): Promise<void>;
}

export const STATIC_CLIENT = { clientId: 'static-client', clientSecret: 'static-secret-3b1f0c' };

export async function startAuthorizationServer(options: { accessTokenTtl?: number } = {}): Promise<TestAuthorizationServer> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'RS256' };

  const state: TestAuthorizationServer = {
    issuer,
    authorizationRequests: [],
    tokenRequests: [],
    registrations: [],
    applicationTypes: [],
    tokenErrors: [],
    accessTokenTtl: options.accessTokenTtl ?? 600,
    purgeClient(clientId) {
      MapAdapter.data.delete(`Client:${clientId}`);
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const Provider = oidc.default;
  const provider = new Provider(issuer, {
    adapter: MapAdapter,
    clients: [
      {
        client_id: STATIC_CLIENT.clientId,
        client_secret: STATIC_CLIENT.clientSecret,
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf?.[0],
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (!/^http:\/\/127\.0\.0\.1:\d+(\/|$)/.test(indicator)) throw new oidc.errors.InvalidTarget();
          return {
            scope: RESOURCE_SCOPES.join(' '),
            audience: indicator,
            accessTokenTTL: state.accessTokenTtl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-cookie-key-1'] },
    jwks: { keys: [jwk] },
    pkce: { required: () => true },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(g: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: () => state.accessTokenTtl, RefreshToken: 3600, AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600 },
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
  });
  provider.on('registration_create.success', (_ctx: unknown, client: { clientId: string; applicationType: string }) => {
    state.registrations.push(client.clientId);
    state.applicationTypes.push(client.applicationType);
  });
  provider.on('grant.error', (_ctx: unknown, err: { error?: string }) => state.tokenErrors.push(err.error ?? 'error'));
  provider.use(async (ctx: any, next: () => Promise<void>) => {
    if (ctx.path === '/auth' && ctx.method === 'GET') state.authorizationRequests.push(new URLSearchParams(ctx.querystring));
    await next();
    if (ctx.oidc?.route === 'token' && ctx.oidc.params) state.tokenRequests.push({ ...ctx.oidc.params });
  });
  const callback = provider.callback();

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const m = /^\/interaction\/([^/?]+)/.exec(req.url ?? '');
    if (!m) {
      callback(req, res);
      return;
    }
    // The "person": logs in as alice and consents to everything asked.
    (async () => {
      const details = await provider.interactionDetails(req, res);
      let result: unknown;
      if (details.prompt.name === 'login') {
        result = { login: { accountId: 'alice' } };
      } else {
        const grant = details.grantId
          ? await provider.Grant.find(details.grantId)
          : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
        const d = details.prompt.details;
        if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
        if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
        for (const [indicator, scopes] of Object.entries(d.missingResourceScopes ?? {})) grant.addResourceScope(indicator, (scopes as string[]).join(' '));
        result = { consent: { grantId: await grant.save() } };
      }
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
    })().catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
  return state;
}

export type PrmMode = 'header' | 'path' | 'root';

export interface TestResourceServer {
  /** The MCP endpoint. */
  readonly url: string;
  readonly origin: string;
  /** Paths of GETs for metadata, in order. */
  readonly metadataRequests: string[];
  /** Authorization headers seen on POST /mcp (for presence checks). */
  readonly authorizations: Array<string | undefined>;
  /** Scopes needed per JSON-RPC method; anything else needs `baseScope`. */
  requiredScopes: Record<string, string[]>;
  /** From now on, names `issuer` in its metadata and accepts only the tokens it issues. */
  moveTo(issuer: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A protected MCP endpoint at /mcp: 401 + WWW-Authenticate unless a JWT access token issued
 * by `issuer` for this resource (aud) with the needed scopes is presented; 403
 * insufficient_scope when the scopes are short. Answers JSON-RPC requests with `{ok: true}`.
 */
export async function startResourceServer(options: {
  issuer: string;
  prm: PrmMode;
  baseScope?: string;
  /** Include scope= in the 401 challenge (default true). */
  scopeInChallenge?: boolean;
  scopesSupported?: string[];
}): Promise<TestResourceServer> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${origin}/mcp`;
  const resource = options.prm === 'root' ? origin : url;
  const baseScope = options.baseScope ?? 'mcp:read';
  const metadataUrl =
    options.prm === 'header' ? `${origin}/meta/prm.json` : options.prm === 'path' ? `${origin}/.well-known/oauth-protected-resource/mcp` : `${origin}/.well-known/oauth-protected-resource`;
  const metadataOf = async (issuer: string) => (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as AuthorizationServer;
  let issuer = options.issuer;
  let asMeta = await metadataOf(issuer);

  const state: TestResourceServer = {
    url,
    origin,
    metadataRequests: [],
    authorizations: [],
    requiredScopes: {},
    async moveTo(next) {
      asMeta = await metadataOf(next);
      issuer = next;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const challenge = (error: string | undefined, scopes: string[]) => {
    const params: string[] = [];
    if (error) params.push(`error="${error}"`);
    if (options.prm === 'header') params.push(`resource_metadata="${metadataUrl}"`);
    if ((error || options.scopeInChallenge !== false) && scopes.length) params.push(`scope="${scopes.join(' ')}"`);
    return params.length ? `Bearer ${params.join(', ')}` : 'Bearer';
  };

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    void (async () => {
      const path = new URL(req.url ?? '/', origin).pathname;
      if (req.method === 'GET' && path === '/mcp') {
        res.writeHead(405).end(); // no server-initiated stream
        return;
      }
      if (req.method === 'GET') {
        state.metadataRequests.push(path);
        if (path === new URL(metadataUrl).pathname) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ resource, authorization_servers: [issuer], scopes_supported: options.scopesSupported ?? [baseScope] }));
        } else {
          res.writeHead(404).end();
        }
        return;
      }
      if (req.method !== 'POST' || path !== '/mcp') {
        res.writeHead(404).end();
        return;
      }
      let body = '';
      for await (const chunk of req) body += chunk;
      const message = JSON.parse(body) as { id?: number; method: string };
      const authorization = req.headers.authorization;
      state.authorizations.push(authorization);
      const needed = state.requiredScopes[message.method] ?? [baseScope];
      let scopes: string[];
      try {
        const claims = await validateJwtAccessToken(
          asMeta,
          new Request(url, { method: 'POST', headers: authorization ? { authorization } : {} }),
          resource,
          { [allowInsecureRequests]: true },
        );
        scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
      } catch {
        res.writeHead(401, { 'www-authenticate': challenge(undefined, needed), 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'invalid_token' }));
        return;
      }
      if (!needed.every((s) => scopes.includes(s))) {
        res.writeHead(403, { 'www-authenticate': challenge('insufficient_scope', needed) });
        res.end();
        return;
      }
      if (message.id === undefined) {
        res.writeHead(202).end(); // a notification
        return;
      }
      // Just enough MCP for a real client to connect and list tools.
      const result =
        message.method === 'initialize'
          ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'protected-test-server', version: '1.0.0' } }
          : message.method === 'tools/list'
            ? { tools: [{ name: 'whoami', inputSchema: { type: 'object' } }] }
            : { ok: true, scopes };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  return state;
}

/**
 * The scripted browser: follows the authorization URL with fetch (redirect: manual), keeping
 * cookies, until it reaches the loopback callback or a page that does not redirect.
 */
export function scriptedBrowser(options: { confirm?: boolean; onAsk?: (scopes: readonly string[]) => void } = {}): AuthorizationInteraction & {
  readonly visits: string[];
  readonly confirmations: number;
  readonly finalStatus: number[];
} {
  const visits: string[] = [];
  const finalStatus: number[] = [];
  let confirmations = 0;
  const jar = new Map<string, Map<string, string>>();
  return {
    visits,
    finalStatus,
    get confirmations() {
      return confirmations;
    },
    async confirmSignIn(request) {
      confirmations++;
      options.onAsk?.(request.scopes);
      return options.confirm ?? true;
    },
    async openBrowser(start: URL) {
      let url = start;
      for (let hop = 0; hop < 20; hop++) {
        visits.push(url.href);
        const cookies = jar.get(url.origin) ?? new Map<string, string>();
        const res = await fetch(url, {
          redirect: 'manual',
          headers: cookies.size ? { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {},
          signal: AbortSignal.timeout(10_000),
        });
        for (const line of res.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const eq = pair.indexOf('=');
          const name = pair.slice(0, eq).trim();
          const value = pair.slice(eq + 1).trim();
          if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') cookies.delete(name);
          else cookies.set(name, value);
        }
        jar.set(url.origin, cookies);
        const location = res.headers.get('location');
        await res.body?.cancel();
        if (res.status >= 300 && res.status < 400 && location) {
          url = new URL(location, url);
          continue;
        }
        finalStatus.push(res.status);
        return;
      }
      throw new Error('too many redirects');
    },
  };
}

/** What an HTTP transport does: header → request → on 401/403 ask the provider → retry (bounded). */
export async function authedPost(
  provider: { authorizationHeader(u: URL): Promise<string | undefined>; handleChallenge(c: { status: number; wwwAuthenticate: string | null }, u: URL): Promise<'retry' | 'fail'> },
  url: string,
  method: string,
  maxAttempts = 4,
): Promise<{ status: number; body: any; attempts: number }> {
  const target = new URL(url);
  for (let attempt = 1; ; attempt++) {
    const header = await provider.authorizationHeader(target);
    const res = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(header ? { authorization: header } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: attempt, method }),
      signal: AbortSignal.timeout(10_000),
    });
    if ((res.status !== 401 && res.status !== 403) || attempt >= maxAttempts) {
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, attempts: attempt };
    }
    await res.body?.cancel();
    const verdict = await provider.handleChallenge({ status: res.status, wwwAuthenticate: res.headers.get('www-authenticate') }, target);
    if (verdict === 'fail') return { status: res.status, body: undefined, attempts: attempt };
  }
}
