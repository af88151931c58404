import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { OAuthProvider, type OAuthProviderOptions } from '../../src/auth/oauthProvider';
import { FileSecretStore, MemorySecretStore } from '../../src/auth/stores';
import { AuthorizationRequiredError } from '../../src/auth/types';
import { McpClient } from '../../src/protocol/client';
import { createHttpTransport } from '../../src/transport/http';
import { recordingLogger } from '../helpers/servers';
import {
  STATIC_CLIENT,
  authedPost,
  purgeModel,
  scriptedBrowser,
  startAuthorizationServer,
  startResourceServer,
  type PrmMode,
  type TestAuthorizationServer,
  type TestResourceServer,
} from '../helpers/oauth-servers';

// Everything any provider logged, and every store used: checked for secrets at the end.
const allLogs: string[] = [];
const allStores: MemorySecretStore[] = [];
const allBrowsers: Array<ReturnType<typeof scriptedBrowser>> = [];
const allServers: TestAuthorizationServer[] = [];
const errorMessages: string[] = [];

interface Setup {
  as: TestAuthorizationServer;
  rs: TestResourceServer;
  provider: OAuthProvider;
  store: MemorySecretStore;
  browser: ReturnType<typeof scriptedBrowser>;
  logs: string[];
  stop(): Promise<void>;
}

async function setup(
  options: { prm?: PrmMode; accessTokenTtl?: number; scopeInChallenge?: boolean; provider?: Partial<OAuthProviderOptions>; confirm?: boolean; interactive?: boolean } = {},
): Promise<Setup> {
  const as = await startAuthorizationServer({ accessTokenTtl: options.accessTokenTtl });
  allServers.push(as);
  const rs = await startResourceServer({ issuer: as.issuer, prm: options.prm ?? 'header', scopeInChallenge: options.scopeInChallenge });
  const store = new MemorySecretStore();
  allStores.push(store);
  const browser = scriptedBrowser({ confirm: options.confirm });
  allBrowsers.push(browser);
  const logs: string[] = [];
  const provider = new OAuthProvider({
    serverName: 'remote',
    resource: rs.url,
    store,
    interaction: browser,
    clientName: 'MCP Host tests',
    callbackTimeoutMs: 15_000,
    log: (line) => {
      logs.push(line);
      allLogs.push(line);
    },
    ...options.provider,
  });
  provider.setInteractive(options.interactive ?? true);
  return {
    as,
    rs,
    provider,
    store,
    browser,
    logs,
    async stop() {
      await provider.dispose();
      await rs.stop();
      await as.stop();
    },
  };
}

/** A second authorization server (for a server that moves to it) and a client of the resource server. */
async function secondAuthorizationServerAndClient(s: { rs: { url: string }; provider: OAuthProvider }) {
  const as2 = await startAuthorizationServer();
  allServers.push(as2);
  const transport = createHttpTransport('http', { url: s.rs.url, label: "server 'remote'", auth: s.provider });
  const client = new McpClient(transport, { label: "server 'remote'", clientInfo: { name: 'mcp-host-tests', version: '0.0.0' }, requestTimeoutMs: 15_000 });
  return { as2, transport, client };
}

/** Ends a test's client and its transport, whatever state they are in. */
async function closeClient(client: { close(): Promise<unknown>; dispose(): void }, transport: { close(): Promise<unknown> }): Promise<void> {
  await client.close().catch(() => undefined);
  client.dispose();
  await transport.close().catch(() => undefined);
}

async function rejectsWith<T extends Error>(p: Promise<unknown>, type: new (...a: any[]) => T): Promise<T> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof type, `expected ${type.name}, got ${String(err)}`);
    errorMessages.push((err as Error).message);
    return err as T;
  }
  assert.fail(`expected a ${type.name}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('OAuth against a real authorization server (oidc-provider)', () => {
  after(async () => {
    // No token, refresh token, code, verifier or client secret in any log line or error.
    const secrets = new Set<string>([STATIC_CLIENT.clientSecret]);
    for (const store of allStores) {
      for (const key of store.keys()) {
        const v = await store.get(key);
        if (!v) continue;
        const o = JSON.parse(v);
        for (const f of ['accessToken', 'refreshToken', 'clientSecret']) if (typeof o[f] === 'string') secrets.add(o[f]);
      }
    }
    for (const b of allBrowsers) for (const v of b.visits) {
      const code = new URL(v).searchParams.get('code');
      if (code) secrets.add(code);
    }
    for (const as of allServers) for (const t of as.tokenRequests) {
      for (const f of ['code', 'code_verifier', 'refresh_token', 'client_secret']) if (typeof t[f] === 'string') secrets.add(t[f] as string);
    }
    assert.ok(secrets.size > 10, `collected ${secrets.size} secrets to look for`);
    assert.ok(allLogs.length > 20);
    for (const secret of secrets) {
      for (const line of [...allLogs, ...errorMessages]) assert.ok(!line.includes(secret), `a secret leaked into: ${line}`);
    }
  });

  test('header resource_metadata → AS metadata → DCR → code + PKCE S256 + state + resource → token bound to the resource', async () => {
    const s = await setup({ prm: 'header' });
    try {
      const res = await authedPost(s.provider, s.rs.url, 'demo/whoami');
      assert.equal(res.status, 200, JSON.stringify(res));
      assert.equal(res.body.result.scopes.includes('mcp:read'), true);
      // Discovery: the header's URL first, nothing else needed on the resource server.
      assert.deepEqual(s.rs.metadataRequests, ['/meta/prm.json']);
      assert.equal(s.as.registrations.length, 1);
      // A loopback redirect: registered as a native application (client-registration.mdx).
      assert.deepEqual(s.as.applicationTypes, ['native']);
      const auth = s.as.authorizationRequests[0];
      assert.equal(auth.get('code_challenge_method'), 'S256');
      assert.match(auth.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
      assert.ok((auth.get('state') ?? '').length >= 20);
      assert.equal(auth.get('resource'), s.rs.url);
      assert.equal(auth.get('client_id'), s.as.registrations[0]);
      assert.match(auth.get('redirect_uri') ?? '', /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      assert.deepEqual(auth.get('scope')?.split(' ').sort(), ['mcp:read', 'offline_access']);
      const tokenRequest = s.as.tokenRequests.find((t) => t.grant_type === 'authorization_code');
      assert.ok(tokenRequest, 'a code exchange happened');
      assert.match(String(tokenRequest.code_verifier), /^[A-Za-z0-9_-]{43,128}$/);
      assert.equal(tokenRequest.resource, s.rs.url);
      assert.equal(await s.provider.hasToken(), true);
      // The browser ended on our loopback page.
      assert.deepEqual(s.browser.finalStatus, [200]);
      assert.ok(s.browser.visits.at(-1)?.startsWith('http://127.0.0.1:'));
      // The next request goes straight through with the stored token.
      const again = await authedPost(s.provider, s.rs.url, 'tools/list');
      assert.equal(again.attempts, 1);
    } finally {
      await s.stop();
    }
  });

  test('through the real Streamable HTTP transport: connect signs in, then tools are listed', async () => {
    const s = await setup({ prm: 'path' });
    const clientLogs: string[] = [];
    const transport = createHttpTransport('http', { url: s.rs.url, label: "server 'remote'", auth: s.provider });
    transport.onLog((l) => (clientLogs.push(l), allLogs.push(l)));
    const client = new McpClient(transport, {
      label: "server 'remote'",
      clientInfo: { name: 'mcp-host-tests', version: '0.0.0' },
      logger: recordingLogger(clientLogs),
      requestTimeoutMs: 15_000,
    });
    try {
      const init = await client.connect();
      assert.equal(init.serverInfo.name, 'protected-test-server');
      const listed = await client.listTools();
      assert.deepEqual(listed.tools.map((t) => t.name), ['whoami']);
      assert.equal(s.as.authorizationRequests.length, 1);
      assert.ok(s.rs.authorizations.filter((a) => a).length >= 2, 'later requests carried the token');
      allLogs.push(...clientLogs);
    } finally {
      await closeClient(client, transport);
      await s.stop();
    }
  });

  test('the server moves to another authorization server: its metadata is read again, a client registered there, no old credential sent', async () => {
    const s = await setup({ prm: 'path' });
    const { as2, transport, client } = await secondAuthorizationServerAndClient(s);
    try {
      await client.connect();
      assert.equal((await client.listTools()).tools.length, 1);
      const firstClient = s.as.registrations[0];
      // At once (the token is seconds old): the server now trusts only as2.
      await s.rs.moveTo(as2.issuer);
      assert.equal((await client.listTools()).tools.length, 1);
      assert.equal(as2.registrations.length, 1, 'registered with the new authorization server');
      assert.deepEqual(as2.applicationTypes, ['native']);
      assert.notEqual(as2.registrations[0], firstClient);
      assert.ok(as2.authorizationRequests.every((q) => q.get('client_id') !== firstClient), 'the old client id never went to the new server');
      assert.ok(as2.tokenRequests.every((t) => t.client_id !== firstClient));
      assert.equal(s.as.registrations.length, 1);
      assert.ok(s.logs.some((l) => l.includes(`now names the authorization server ${as2.issuer}`)), s.logs.join('\n'));
    } finally {
      await closeClient(client, transport);
      await s.stop();
      await as2.stop();
    }
  });

  test('well-known fallback: path-suffixed PRM first, then root', async () => {
    const p = await setup({ prm: 'path' });
    try {
      assert.equal((await authedPost(p.provider, p.rs.url, 'tools/list')).status, 200);
      assert.deepEqual(p.rs.metadataRequests, ['/.well-known/oauth-protected-resource/mcp']);
    } finally {
      await p.stop();
    }
    const r = await setup({ prm: 'root' });
    try {
      assert.equal((await authedPost(r.provider, r.rs.url, 'tools/list')).status, 200);
      assert.deepEqual(r.rs.metadataRequests, ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']);
      // The PRM names the origin as resource; the token is for that resource.
      assert.equal(r.as.authorizationRequests[0].get('resource'), r.rs.origin);
    } finally {
      await r.stop();
    }
  });

  test('no scope in the challenge: the PRM scopes_supported are asked for', async () => {
    const s = await setup({ prm: 'path', scopeInChallenge: false });
    try {
      assert.equal((await authedPost(s.provider, s.rs.url, 'tools/list')).status, 200);
      assert.ok(s.as.authorizationRequests[0].get('scope')?.split(' ').includes('mcp:read'));
    } finally {
      await s.stop();
    }
  });

  test('a configured static client is used before registration (client_secret_basic at the AS)', async () => {
    const s = await setup({ provider: { staticClient: { clientId: STATIC_CLIENT.clientId, clientSecret: STATIC_CLIENT.clientSecret } } });
    try {
      assert.equal((await authedPost(s.provider, s.rs.url, 'tools/list')).status, 200);
      assert.equal(s.as.registrations.length, 0);
      assert.equal(s.as.authorizationRequests[0].get('client_id'), STATIC_CLIENT.clientId);
      // The secret went in the Basic header, not the body.
      const exchange = s.as.tokenRequests.find((t) => t.grant_type === 'authorization_code');
      assert.equal(exchange?.client_secret, undefined);
      assert.equal(s.store.keys().some((k) => k.includes('/client/')), false, 'a static client is not stored');
    } finally {
      await s.stop();
    }
  });

  test('a configured static client stays with its authorization server: when the server names another, its secret is not sent there', async () => {
    const s = await setup({ prm: 'path', provider: { staticClient: { clientId: STATIC_CLIENT.clientId, clientSecret: STATIC_CLIENT.clientSecret } } });
    const { as2, transport, client } = await secondAuthorizationServerAndClient(s);
    try {
      await client.connect();
      assert.equal((await client.listTools()).tools.length, 1);
      assert.ok(s.logs.some((l) => l.includes(`bound to the authorization server ${s.as.issuer}`)), s.logs.join('\n'));
      const confirmationsBefore = s.browser.confirmations;
      await s.rs.moveTo(as2.issuer);
      const err = await rejectsWith(client.listTools(), Error);
      assert.match(err.message, new RegExp(`configured OAuth client ${STATIC_CLIENT.clientId} belongs to ${s.as.issuer.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.equal(as2.authorizationRequests.length, 0, 'the client id never went to the other authorization server');
      assert.equal(as2.tokenRequests.length, 0, 'nor the secret');
      assert.equal(s.browser.confirmations, confirmationsBefore, 'no sign-in was offered for the other authorization server');
      // Signing out forgets the binding: the next sign-in binds the client again (to the server now named).
      await s.provider.signOut();
      assert.equal(s.store.keys().some((k) => k.includes('/static-client/')), false);
    } finally {
      await closeClient(client, transport);
      await s.stop();
      await as2.stop();
    }
  });

  test('2025-03-26 fallback (no resource metadata): the sign-in prompt names the server origin, not the issuer its document claims', async () => {
    const claimed = 'https://login.trusted-company.example.com/';
    let port = 0;
    const legacy = http.createServer((req, res) => {
      const origin = `http://127.0.0.1:${port}`;
      if (req.url === '/.well-known/oauth-authorization-server') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issuer: claimed, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, code_challenge_methods_supported: ['S256'], response_types_supported: ['code'] }));
      } else if (req.url?.startsWith('/.well-known/')) res.writeHead(404).end();
      else res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    });
    await new Promise<void>((resolve) => legacy.listen(0, '127.0.0.1', resolve));
    port = (legacy.address() as { port: number }).port;
    const url = `http://127.0.0.1:${port}/mcp`;
    const asked: string[] = [];
    const interaction = {
      confirmSignIn: async (request: { authorizationServer: string }) => {
        asked.push(request.authorizationServer);
        return false;
      },
      openBrowser: async () => assert.fail('no browser after a declined prompt'),
    };
    const logs: string[] = [];
    const provider = new OAuthProvider({ serverName: 'legacy', resource: url, store: new MemorySecretStore(), interaction, interactive: true, log: (l) => (logs.push(l), allLogs.push(l)) });
    try {
      await rejectsWith(authedPost(provider, url, 'tools/list'), AuthorizationRequiredError);
      assert.deepEqual(asked, [`http://127.0.0.1:${port}/`]);
      for (const line of logs) assert.ok(!line.includes('trusted-company'), `the claimed issuer was named: ${line}`);
    } finally {
      await new Promise<void>((resolve) => legacy.close(() => resolve()));
    }
  });

  test('short-lived tokens are refreshed before expiry, once for many concurrent requests', async () => {
    const s = await setup({ accessTokenTtl: 2 });
    try {
      assert.equal((await authedPost(s.provider, s.rs.url, 'tools/list')).status, 200);
      await sleep(1100); // past half the token's life: refresh now
      const results = await Promise.all(Array.from({ length: 6 }, () => authedPost(s.provider, s.rs.url, 'tools/list')));
      for (const r of results) assert.equal(r.status, 200);
      const refreshes = s.as.tokenRequests.filter((t) => t.grant_type === 'refresh_token');
      assert.equal(refreshes.length, 1, 'one refresh shared by all');
      assert.equal(refreshes[0].resource, s.rs.url);
      assert.equal(s.as.authorizationRequests.length, 1, 'no new browser sign-in');
      assert.ok(s.logs.some((l) => /access token refreshed/.test(l)));
    } finally {
      await s.stop();
    }
  });

  test('a refused refresh falls back to sign-in; non-interactive it asks for a sign-in instead', async () => {
    const s = await setup({ accessTokenTtl: 1 });
    try {
      assert.equal((await authedPost(s.provider, s.rs.url, 'tools/list')).status, 200);
      const refreshToken = s.as.tokenRequests.length; // just a marker
      assert.ok(refreshToken >= 1);
      // The AS forgets every refresh token (a revocation or a purge).
      purgeModel('RefreshToken');
      await sleep(1100);
      const res = await authedPost(s.provider, s.rs.url, 'tools/list');
      assert.equal(res.status, 200);
      assert.equal(s.as.authorizationRequests.length, 2, 'signed in again through the browser');
      assert.equal(s.as.registrations.length, 1, 'same client: invalid_grant on refresh only drops the tokens');
      assert.ok(s.as.tokenErrors.includes('invalid_grant'));

      purgeModel('RefreshToken');
      s.provider.setInteractive(false);
      await sleep(1100);
      const err = await rejectsWith(authedPost(s.provider, s.rs.url, 'tools/list'), AuthorizationRequiredError);
      assert.match(err.message, /'remote'/);
      assert.ok(err.scopes.includes('mcp:read'));
      assert.equal(err.resource, s.rs.url);
      assert.equal(s.as.authorizationRequests.length, 2, 'no browser opened');
    } finally {
      await s.stop();
    }
  });

  test('403 insufficient_scope: signs in again for the union of scopes, once', async () => {
    const s = await setup();
    try {
      s.rs.requiredScopes['tools/call'] = ['mcp:read', 'mcp:write'];
      assert.equal((await authedPost(s.provider, s.rs.url, 'tools/list')).status, 200);
      const call = await authedPost(s.provider, s.rs.url, 'tools/call');
      assert.equal(call.status, 200);
      const second = s.as.authorizationRequests[1];
      assert.ok(second, 'a step-up authorization request');
      const scopes = second.get('scope')?.split(' ') ?? [];
      assert.ok(scopes.includes('mcp:read') && scopes.includes('mcp:write'), scopes.join(' '));

      // A scope the AS never grants: one step-up, then the 403 stands (no loop).
      s.rs.requiredScopes['admin/thing'] = ['mcp:read', 'mcp:nonexistent'];
      const before = s.as.authorizationRequests.length;
      const stuck = await authedPost(s.provider, s.rs.url, 'admin/thing', 10);
      assert.equal(stuck.status, 403);
      assert.equal(s.as.authorizationRequests.length, before + 1);
      assert.ok(stuck.attempts <= 3);
    } finally {
      await s.stop();
    }
  });

  test('a purged dynamic client is registered again (invalid_client), and again after the redirect port changes', async () => {
    const s = await setup({ accessTokenTtl: 1 });
    const blockers: http.Server[] = [];
    try {
      assert.equal((await authedPost(s.provider, s.rs.url, 'tools/list')).status, 200);
      const first = s.as.registrations[0];
      s.as.purgeClient(first);
      await sleep(1100);
      const res = await authedPost(s.provider, s.rs.url, 'tools/list');
      assert.equal(res.status, 200);
      assert.ok(s.as.tokenErrors.includes('invalid_client'), s.as.tokenErrors.join());
      assert.equal(s.as.registrations.length, 2);
      assert.notEqual(s.as.registrations[1], first);
      assert.equal(s.as.authorizationRequests.at(-1)?.get('client_id'), s.as.registrations[1]);

      // Same client again when the port is free…
      const port = Number(new URL(s.as.authorizationRequests.at(-1)!.get('redirect_uri')!).port);
      await s.provider.signOut();
      assert.equal(await s.provider.hasToken(), false);
      assert.equal((await authedPost(s.provider, s.rs.url, 'tools/list')).status, 200);
      assert.equal(s.as.registrations.length, 2, 'the remembered port was free: same registration');
      assert.equal(new URL(s.as.authorizationRequests.at(-1)!.get('redirect_uri')!).port, String(port));

      // …and a new one when something else holds the port.
      await s.provider.signOut();
      const blocker = http.createServer((_q, r) => r.end());
      blockers.push(blocker);
      await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
      assert.equal((await authedPost(s.provider, s.rs.url, 'tools/list')).status, 200);
      assert.equal(s.as.registrations.length, 3);
      assert.notEqual(new URL(s.as.authorizationRequests.at(-1)!.get('redirect_uri')!).port, String(port));
    } finally {
      for (const b of blockers) await new Promise<void>((resolve) => b.close(() => resolve()));
      await s.stop();
    }
  });

  test('a token is sent only to the origin it was issued for', async () => {
    const s = await setup();
    const other = await startResourceServer({ issuer: s.as.issuer, prm: 'header' });
    try {
      assert.equal((await authedPost(s.provider, s.rs.url, 'tools/list')).status, 200);
      // Same origin, another path (a legacy SSE POST endpoint): fine.
      assert.match((await s.provider.authorizationHeader(new URL('/messages?sessionId=1', s.rs.origin))) ?? '', /^Bearer /);
      // Another origin (another port on the same host): never.
      assert.equal(await s.provider.authorizationHeader(new URL(other.url)), undefined);
      const res = await authedPost(s.provider, other.url, 'tools/list');
      assert.equal(res.status, 401);
      assert.deepEqual(other.authorizations, [undefined]);
      assert.equal(s.as.authorizationRequests.length, 1, 'no sign-in for a foreign origin');
    } finally {
      await other.stop();
      await s.stop();
    }
  });

  test('non-interactive: AuthorizationRequiredError naming the server and scopes; a declined prompt too', async () => {
    const s = await setup({ interactive: false });
    try {
      const err = await rejectsWith(authedPost(s.provider, s.rs.url, 'tools/list'), AuthorizationRequiredError);
      assert.match(err.message, /Server 'remote' needs you to sign in/);
      assert.deepEqual([...err.scopes].sort(), ['mcp:read', 'offline_access']);
      assert.equal(s.browser.confirmations, 0);
      assert.equal(s.as.authorizationRequests.length, 0);
    } finally {
      await s.stop();
    }
    const d = await setup({ confirm: false });
    try {
      const err = await rejectsWith(authedPost(d.provider, d.rs.url, 'tools/list'), AuthorizationRequiredError);
      assert.match(err.message, /cancelled/);
      assert.equal(d.browser.confirmations, 1);
      assert.equal(d.as.authorizationRequests.length, 0);
    } finally {
      await d.stop();
    }
  });

  test('tokens survive a restart through the store; a damaged stored value is ignored with a log line', async () => {
    const s = await setup();
    try {
      assert.equal((await authedPost(s.provider, s.rs.url, 'tools/list')).status, 200);
      const logs: string[] = [];
      const reborn = new OAuthProvider({ serverName: 'remote', resource: s.rs.url, store: s.store, log: (l) => (logs.push(l), allLogs.push(l)) });
      const res = await authedPost(reborn, s.rs.url, 'tools/list');
      assert.equal(res.status, 200);
      assert.equal(res.attempts, 1);

      const bindingKey = s.store.keys().find((k) => k.includes('/binding/'))!;
      await s.store.store(bindingKey, '{not json');
      const damaged = new OAuthProvider({ serverName: 'remote', resource: s.rs.url, store: s.store, log: (l) => (logs.push(l), allLogs.push(l)) });
      assert.equal(await damaged.hasToken(), false);
      assert.ok(logs.some((l) => /damaged/.test(l)));
    } finally {
      await s.stop();
    }
  });

  test('an AS without S256 in code_challenge_methods_supported is refused before any browser opens', async () => {
    const fakeAs = http.createServer((req, res) => {
      const issuer = `http://127.0.0.1:${(fakeAs.address() as { port: number }).port}`;
      if (req.url === '/.well-known/oauth-authorization-server') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, response_types_supported: ['code'] }));
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => fakeAs.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(fakeAs.address() as { port: number }).port}`;
    const rsServer = http.createServer((req, res) => {
      if (req.url === '/.well-known/oauth-protected-resource/mcp') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ resource: `http://127.0.0.1:${(rsServer.address() as { port: number }).port}/mcp`, authorization_servers: [issuer] }));
      } else res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    });
    await new Promise<void>((resolve) => rsServer.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(rsServer.address() as { port: number }).port}/mcp`;
    const browser = scriptedBrowser();
    const provider = new OAuthProvider({ serverName: 'nopkce', resource: url, store: new MemorySecretStore(), interaction: browser, interactive: true, log: (l) => allLogs.push(l) });
    try {
      const err = await rejectsWith(authedPost(provider, url, 'tools/list'), Error);
      assert.match(err.message, /S256/);
      assert.match(err.message, /'nopkce'/);
      assert.equal(browser.confirmations, 0);
      assert.equal(browser.visits.length, 0);
    } finally {
      await new Promise<void>((resolve) => rsServer.close(() => resolve()));
      await new Promise<void>((resolve) => fakeAs.close(() => resolve()));
    }
  });

  test('a PRM naming another resource is refused (no authorization request)', async () => {
    const as = await startAuthorizationServer();
    allServers.push(as);
    const rsServer = http.createServer((req, res) => {
      if (req.url === '/.well-known/oauth-protected-resource/mcp') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ resource: 'https://evil.example.com/mcp', authorization_servers: [as.issuer] }));
      } else res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    });
    await new Promise<void>((resolve) => rsServer.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(rsServer.address() as { port: number }).port}/mcp`;
    const browser = scriptedBrowser();
    const provider = new OAuthProvider({ serverName: 'mismatch', resource: url, store: new MemorySecretStore(), interaction: browser, interactive: true, log: (l) => allLogs.push(l) });
    try {
      const err = await rejectsWith(authedPost(provider, url, 'tools/list'), Error);
      assert.match(err.message, /evil\.example\.com/);
      assert.equal(as.authorizationRequests.length, 0);
      assert.equal(browser.visits.length, 0);
    } finally {
      await new Promise<void>((resolve) => rsServer.close(() => resolve()));
      await as.stop();
    }
  });
});

describe('FileSecretStore', () => {
  test('owner-only file and directory, atomic replacement, concurrent writes all kept', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-secrets-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'nested', 'tokens.json');
    const store = new FileSecretStore(file);
    assert.equal(await store.get('a'), undefined);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.store(`k${i}`, `v${i}`)));
    for (let i = 0; i < 20; i++) assert.equal(await store.get(`k${i}`), `v${i}`);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    await store.delete('k3');
    assert.equal(await store.get('k3'), undefined);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['tokens.json'], 'no temporary files left');
    // A damaged file reads as empty and is replaced by the next write.
    fs.writeFileSync(file, '{oops', { mode: 0o600 });
    assert.equal(await new FileSecretStore(file).get('k1'), undefined);
    await store.store('x', 'y');
    assert.equal(await new FileSecretStore(file).get('x'), 'y');
  });
});

