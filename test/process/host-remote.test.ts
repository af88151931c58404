import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import { ServerConnection, serverId, type ConnectionEnvironment, type ServerState } from '../../src/host/serverConnection';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';
import { freePort, startEverythingHttp, type HttpServerProcess } from '../helpers/http';
import { testEnvironment } from '../helpers/host';
import { OAuthProvider } from '../../src/auth/oauthProvider';
import { MemorySecretStore } from '../../src/auth/stores';
import { scriptedBrowser, startAuthorizationServer, startResourceServer } from '../helpers/oauth-servers';

const source: ConfigSource = { file: '/tmp/remote-tests/.vscode/mcp.json', kind: 'workspace', workspaceFolder: '/tmp/remote-tests' };

function connection(def: ServerDefinition, overrides: Partial<ConnectionEnvironment> = {}) {
  const logs: string[] = [];
  const states: ServerState['kind'][] = [];
  const c = new ServerConnection(def, serverId(def), def.name, def.source, testEnvironment(logs, { traceEnabled: () => true, ...overrides }));
  c.onDidChangeState((s) => states.push(s.kind));
  return { c, states, logs };
}

/**
 * A minimal MCP server over Streamable HTTP (JSON answers only) that records the headers of
 * every request: enough to see what the host sends, and nothing more.
 */
async function recordingServer(): Promise<{ url: string; requests: http.IncomingHttpHeaders[]; close(): Promise<void> }> {
  const requests: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.headers);
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const message = JSON.parse(body) as { id?: number; method: string };
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const result =
        message.method === 'initialize'
          ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'recording', version: '1.0.0' } }
          : message.method === 'tools/list'
            ? { tools: [{ name: 'noop', inputSchema: { type: 'object' } }] }
            : {};
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'session-1' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('ServerConnection with remote servers (real HTTP)', () => {
  let server: HttpServerProcess;
  let everything: { url: string };

  before(async () => {
    server = await startEverythingHttp('streamableHttp');
    everything = { url: `${server.base}/mcp` };
  });

  after(async () => {
    await server?.stop();
  });

  test('a Streamable HTTP server reaches running with its lists, and stops', async () => {
    const { c, states, logs } = connection({ type: 'http', name: 'remote', url: everything.url, headers: {}, source });
    await c.start();
    assert.equal(c.state.kind, 'running', logs.join('\n'));
    if (c.state.kind === 'running') {
      assert.equal(c.state.url, everything.url);
      assert.equal(c.state.pid, undefined);
      assert.match(c.state.serverInfo.name, /everything/i);
    }
    assert.ok(c.lists.tools.some((t) => t.name === 'echo'), 'tools listed');
    assert.ok(c.lists.resources.length > 0, 'resources listed');
    assert.ok(c.lists.prompts.length > 0, 'prompts listed');
    const result = await c.client!.callTool('echo', { message: 'over http' });
    assert.match(JSON.stringify(result.content), /over http/);
    await c.stop();
    assert.equal(c.state.kind, 'stopped');
    assert.deepEqual(states, ['starting', 'running', 'stopping', 'stopped']);
    assert.ok(logs.some((l) => l.includes(`Connecting to: HTTP ${everything.url}`)), 'the log says where it connects');
  });

  test('a server that cannot be reached is an error with the address and the reason, retried with backoff', async () => {
    const port = await freePort();
    let scheduled = 0;
    const { c, logs } = connection(
      { type: 'http', name: 'down', url: `http://127.0.0.1:${port}/mcp`, headers: {}, source },
      { schedule: () => ((scheduled++), { dispose() {} }) },
    );
    await c.start();
    assert.equal(c.state.kind, 'error', logs.join('\n'));
    if (c.state.kind === 'error') {
      assert.match(c.state.message, /down/);
      assert.match(c.state.message, new RegExp(`127\\.0\\.0\\.1:${port}|ECONNREFUSED`));
      assert.ok(c.state.retryAt !== undefined, 'a lost server is retried like a crashed process');
    }
    assert.equal(scheduled, 1);
    await c.stop();
    assert.equal(c.state.kind, 'stopped');
  });

  test('configured headers are sent with their variables resolved, and their values never logged', async () => {
    const server = await recordingServer();
    try {
      const secret = 'sk-live-0123456789abcdef';
      const { c, logs } = connection(
        {
          type: 'http',
          name: 'headers',
          url: server.url,
          headers: { Authorization: 'Bearer ${input:token}', 'X-Team': '${env:MCP_TEST_TEAM}' },
          source,
        },
        {
          inputs: () => [{ id: 'token', type: 'promptString', password: true }],
          inputResolver: { resolve: async () => secret },
          processEnv: { ...process.env, MCP_TEST_TEAM: 'blue' },
        },
      );
      await c.start();
      assert.equal(c.state.kind, 'running', logs.join('\n'));
      assert.ok(server.requests.length >= 2);
      for (const headers of server.requests.filter((h) => h['content-type'])) {
        assert.equal(headers.authorization, `Bearer ${secret}`);
        assert.equal(headers['x-team'], 'blue');
      }
      const later = server.requests.at(-1)!;
      assert.equal(later['mcp-session-id'], 'session-1', 'the session id is sent after initialize');
      assert.equal(later['mcp-protocol-version'], '2025-11-25', 'the negotiated version is sent after initialize');
      await c.stop();
      const all = logs.join('\n');
      assert.ok(all.length > 0);
      assert.ok(!all.includes(secret), 'the token is not in the log');
    } finally {
      await server.close();
    }
  });
});

/** The state's kind, read afresh (assertions narrow `c.state` for the compiler, not for time). */
function kindOf(c: ServerConnection): ServerState['kind'] {
  return c.state.kind;
}

describe('ServerConnection with a server behind OAuth (real authorization server)', () => {
  test('needs-sign-in until Sign In; then running with a token; Sign Out forgets it', async () => {
    const as = await startAuthorizationServer();
    const rs = await startResourceServer({ issuer: as.issuer, prm: 'header' });
    const store = new MemorySecretStore();
    const browser = scriptedBrowser();
    const authLogs: string[] = [];
    try {
      const { c, states, logs } = connection(
        { type: 'http', name: 'protected', url: rs.url, headers: {}, source },
        {
          authorization: (server) =>
            new OAuthProvider({ serverName: server.name, resource: server.url, store, interaction: browser, log: (l) => authLogs.push(l) }),
        },
      );
      await c.start();
      assert.equal(kindOf(c), 'needs-sign-in', logs.join('\n'));
      assert.equal(browser.visits.length, 0, 'starting by itself never opens a browser');
      assert.match(c.state.kind === 'needs-sign-in' ? c.state.message : '', /protected.*sign in/);

      await c.signIn();
      assert.equal(kindOf(c), 'running', logs.join('\n'));
      assert.equal(browser.confirmations, 1, 'the person was asked once');
      assert.ok(browser.visits.length > 0, 'the browser was opened');
      assert.ok(c.lists.tools.length > 0, 'tools listed with the token');

      // A restart reuses the stored token: no second sign-in.
      await c.restart();
      assert.equal(kindOf(c), 'running');
      assert.equal(browser.confirmations, 1);

      await c.signOut();
      assert.equal(kindOf(c), 'stopped');
      await c.start();
      assert.equal(kindOf(c), 'needs-sign-in', 'after Sign Out the token is gone');
      await c.stop();
      assert.equal(kindOf(c), 'stopped');
      assert.ok(states.includes('needs-sign-in') && states.includes('running'));

      const everything = [...logs, ...authLogs].join('\n');
      for (const request of as.tokenRequests) {
        for (const key of ['code', 'code_verifier', 'refresh_token', 'client_secret']) {
          const value = request[key];
          if (typeof value === 'string') assert.ok(!everything.includes(value), `no ${key} in the logs`);
        }
      }
      assert.ok(as.tokenRequests.some((r) => typeof r.code_verifier === 'string'), 'the secrets checked were really sent');
      for (const header of rs.authorizations) {
        if (header) assert.ok(!everything.includes(header.replace(/^Bearer /, '')), 'no access token in the logs');
      }
    } finally {
      await rs.stop();
      await as.stop();
    }
  });
});
