// Round trips of a new Streamable HTTP session (#21): counted by a small local server. With the
// era known (protocolEra 'legacy'), ours sends what the floor client sends (initialize,
// notifications/initialized, DELETE) plus the optional GET stream, which never delays
// connect(): the server here holds it unanswered. In 'auto' the era probe costs one POST more
// against a legacy server, and a modern server is ready after that one POST. The host remembers
// a remote server that answered as legacy: its next session (a restart) sends no probe; if the
// server has become modern meanwhile, initialize is refused and the probe follows, same start.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpClient } from '../../src/protocol/client';
import type { ProtocolEraSetting } from '../../src/protocol/era';
import { createHttpTransport } from '../../src/transport/http';
import { ServerConnection, serverId } from '../../src/host/serverConnection';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';
import { testEnvironment } from '../helpers/host';

const SESSION = 'round-trip-session';

/** A session server (legacy era: initialize; modern: server/discover) that logs `METHOD jsonrpc-method` per request; the GET stream is held open, never answered. */
async function countingServer(initialEra: 'legacy' | 'modern') {
  const state = { era: initialEra };
  const requests: string[] = [];
  const heldGets: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const era = state.era;
      if (req.method !== 'POST') {
        requests.push(req.method ?? '?');
        if (req.method === 'GET' && era === 'legacy') heldGets.push(res);
        else res.writeHead(req.method === 'GET' ? 405 : 200).end();
        return;
      }
      const message = JSON.parse(body) as { id?: number; method: string };
      requests.push(`POST ${message.method}`);
      const reply = (result: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(200, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      };
      if (message.id === undefined) res.writeHead(202).end();
      else if (message.method === 'server/discover' && era === 'modern') {
        reply({ resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: 'counted', version: '1.0.0' } });
      } else if (message.method === 'initialize' && era === 'legacy') {
        reply({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'counted', version: '1.0.0' } }, { 'mcp-session-id': SESSION });
      } else if (message.method === 'tools/list') {
        reply(era === 'modern' ? { resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: [] } : { tools: [] });
      } else if (era === 'legacy' && req.headers['mcp-session-id'] === undefined) {
        // What legacy servers answer a request outside a session (the era probe among them).
        res.writeHead(400).end('no session');
      } else {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    requests,
    heldGets,
    /** The era it answers in from now on (a server upgraded in place). */
    become: (era: 'legacy' | 'modern') => (state.era = era),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of heldGets) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One session (open, tools/list, close); the requests the server saw at each step. */
async function oneSession(url: string, requests: string[], protocolEra?: ProtocolEraSetting) {
  const transport = createHttpTransport('http', { url, label: 'counted' });
  const client = new McpClient(transport, {
    label: 'counted',
    clientInfo: { name: 'round-trips', version: '0.0.0' },
    requestTimeoutMs: 10_000,
    ...(protocolEra ? { protocolEra } : {}),
  });
  try {
    await client.connect();
    const atReady = [...requests];
    await client.listAllTools();
    const era = client.era;
    await client.close();
    return { atReady, all: [...requests], era };
  } finally {
    client.dispose();
  }
}

const posts = (requests: string[]) => requests.filter((r) => r.startsWith('POST'));

describe('round trips of a new HTTP session', () => {
  test("protocolEra 'legacy': initialize and initialized before ready, as the floor; the held GET delays nothing", async () => {
    const server = await countingServer('legacy');
    try {
      const { atReady, all } = await oneSession(server.url, server.requests, 'legacy');
      assert.deepEqual(posts(atReady), ['POST initialize', 'POST notifications/initialized']);
      assert.deepEqual(posts(all), ['POST initialize', 'POST notifications/initialized', 'POST tools/list']);
      assert.equal(all.filter((r) => r === 'DELETE').length, 1);
      assert.ok(all.filter((r) => r === 'GET').length <= 1, `at most one GET stream: ${all.join(', ')}`);
      // tools/list and the close went through while the server held the GET unanswered.
      assert.equal(server.heldGets.filter((res) => res.headersSent).length, 0);
    } finally {
      await server.close();
    }
  });

  test("'auto' against a legacy server: the era probe is one POST more, and no other", async () => {
    const server = await countingServer('legacy');
    try {
      const { atReady, all } = await oneSession(server.url, server.requests);
      assert.deepEqual(posts(atReady), ['POST server/discover', 'POST initialize', 'POST notifications/initialized']);
      assert.deepEqual(posts(all), ['POST server/discover', 'POST initialize', 'POST notifications/initialized', 'POST tools/list']);
      assert.ok(all.filter((r) => r === 'GET').length <= 1);
    } finally {
      await server.close();
    }
  });

  test("'auto' against a modern server: ready after server/discover alone", async () => {
    const server = await countingServer('modern');
    try {
      const { atReady, all } = await oneSession(server.url, server.requests);
      assert.deepEqual(posts(atReady), ['POST server/discover']);
      assert.deepEqual(posts(all), ['POST server/discover', 'POST tools/list']);
      assert.equal(all.filter((r) => r === 'GET').length, 0, 'no GET stream in the modern era');
    } finally {
      await server.close();
    }
  });
});

describe('the host remembers a remote server that answered the era probe as legacy', () => {
  const source: ConfigSource = { file: '/tmp/round-trips/.vscode/mcp.json', kind: 'workspace', workspaceFolder: '/tmp/round-trips' };

  test('a restart sends no server/discover; a server become modern meanwhile is probed in the same start', async () => {
    const server = await countingServer('legacy');
    const logs: string[] = [];
    const def: ServerDefinition = { type: 'http', name: 'counted', url: server.url, headers: {}, source };
    const c = new ServerConnection(def, serverId(def), def.name, def.source, testEnvironment(logs));
    try {
      await c.start();
      assert.equal(c.state.kind, 'running', logs.join('\n'));
      assert.deepEqual(posts(server.requests).slice(0, 3), ['POST server/discover', 'POST initialize', 'POST notifications/initialized']);

      server.requests.length = 0;
      await c.restart();
      assert.equal(c.state.kind, 'running', logs.join('\n'));
      assert.deepEqual(posts(server.requests).slice(0, 2), ['POST initialize', 'POST notifications/initialized'], 'no probe on the restart');
      assert.ok(!server.requests.includes('POST server/discover'));

      server.become('modern');
      server.requests.length = 0;
      await c.restart();
      assert.equal(c.state.kind, 'running', logs.join('\n'));
      if (c.state.kind === 'running') assert.equal(c.state.era, 'modern');
      assert.deepEqual(posts(server.requests).slice(0, 2), ['POST initialize', 'POST server/discover']);
      assert.equal(c.learnedProtocolEra, undefined, 'nothing for the doctor to suggest');
    } finally {
      await c.stop();
      await server.close();
    }
  });
});
