// Round trips of a new Streamable HTTP session (#21): counted by a small local server. With the
// era known (protocolEra 'legacy'), ours sends what the floor client sends (initialize,
// notifications/initialized, DELETE) plus the optional GET stream, which never delays
// connect(): the server here holds it unanswered. In 'auto' the era probe costs one POST more
// against a legacy server, once per endpoint and process: the era is remembered
// (protocol/eraCache.ts), concurrent first sessions share one probe, and a wrong memory heals
// (a server upgraded or downgraded in place). A GET answered 405 is not asked again by later
// sessions (transport/endpointMemory.ts); a server that offers the stream gets one per session.
import { test, describe, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpClient } from '../../src/protocol/client';
import type { ProtocolEraSetting } from '../../src/protocol/era';
import { httpEraCache, PERSISTED_ERA_TTL_MS, type EraStore } from '../../src/protocol/eraCache';
import { endpointKeyOf, getStreamMemory, legacySseEndpoints } from '../../src/transport/endpointMemory';
import { LegacySseTransport, createHttpTransport } from '../../src/transport/http';
import { ServerConnection, serverId } from '../../src/host/serverConnection';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';
import { testEnvironment } from '../helpers/host';
import { runCli } from '../helpers/cli';
import { startHttpFixture } from '../helpers/http';
import { REPO_ROOT } from '../helpers/paths';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const SESSION = 'round-trip-session';

/** What the server does with a legacy session's GET: holds it unanswered, opens an event stream (held open), or answers 405. */
type GetAnswer = 'held' | 'stream' | '405';

/**
 * A session server (legacy era: initialize; modern: server/discover; 'failing': 503 to every
 * POST) that logs `METHOD jsonrpc-method` per request. Modern servers answer GET with 405.
 */
async function countingServer(initialEra: 'legacy' | 'modern' | 'failing', get: GetAnswer = 'held') {
  /** `generation` names the live sessions: a session id of an older one is answered 404 (the server restarted). */
  const state = { era: initialEra, generation: 1 };
  const requests: string[] = [];
  const heldGets: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const era = state.era;
      if (req.method !== 'POST') {
        requests.push(req.method ?? '?');
        if (req.method !== 'GET') res.writeHead(200).end();
        else if (era !== 'legacy' || get === '405') res.writeHead(405, { allow: 'POST, DELETE' }).end();
        else {
          heldGets.push(res);
          if (get === 'stream') {
            res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
            res.flushHeaders();
          }
        }
        return;
      }
      const message = JSON.parse(body) as { id?: number; method: string };
      requests.push(`POST ${message.method}`);
      if (era === 'failing') {
        res.writeHead(503).end('down for maintenance');
        return;
      }
      const sessionId = req.headers['mcp-session-id'];
      if (era === 'legacy' && sessionId !== undefined && sessionId !== `${SESSION}-${state.generation}`) {
        res.writeHead(404).end('no such session');
        return;
      }
      const reply = (result: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(200, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      };
      if (message.id === undefined) res.writeHead(202).end();
      else if (message.method === 'server/discover' && era === 'modern') {
        reply({ resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: 'counted', version: '1.0.0' } });
      } else if (message.method === 'initialize' && era === 'legacy') {
        reply({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'counted', version: '1.0.0' } }, { 'mcp-session-id': `${SESSION}-${state.generation}` });
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
    become: (era: 'legacy' | 'modern' | 'failing') => (state.era = era),
    /** Forgets every session, as a restarted server does. */
    restart: () => state.generation++,
    count: (what: string) => requests.filter((r) => r === what).length,
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

/** A connected client (not closed). */
async function openSession(url: string): Promise<McpClient> {
  const transport = createHttpTransport('http', { url, label: 'counted' });
  const client = new McpClient(transport, { label: 'counted', clientInfo: { name: 'round-trips', version: '0.0.0' }, requestTimeoutMs: 10_000 });
  try {
    await client.connect();
  } catch (err) {
    client.dispose();
    throw err;
  }
  return client;
}

async function closeAll(clients: McpClient[]): Promise<void> {
  for (const client of clients) {
    await client.close();
    client.dispose();
  }
}

/** Waits for a request the client sends in the background (the GET stream); fails after 10 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeEach(() => {
  // Every test has a server of its own (its own port); this makes each start from nothing anyway.
  httpEraCache.persistIn(undefined);
  httpEraCache.clear();
  getStreamMemory.clear();
  legacySseEndpoints.clear();
});

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

  test("'auto' against a legacy server never met: the era probe is one POST more, and no other", async () => {
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

describe('what the process remembers of an endpoint', () => {
  test('concurrent first sessions share one probe and one GET (answered 405); later sessions send neither', async () => {
    const server = await countingServer('legacy', '405');
    try {
      const clients = await Promise.all(Array.from({ length: 8 }, () => openSession(server.url)));
      assert.equal(server.count('POST server/discover'), 1, server.requests.join(', '));
      assert.equal(server.count('POST initialize'), 8);
      assert.deepEqual(clients.map((c) => c.era), Array(8).fill('legacy'));
      await until(() => server.count('GET') >= 1, 'the first session asks for the GET stream');
      for (const client of clients) await client.listAllTools();
      await closeAll(clients);
      assert.equal(server.count('GET'), 1, `one GET for eight sessions: ${server.requests.join(', ')}`);

      server.requests.length = 0;
      const { atReady, all, era } = await oneSession(server.url, server.requests);
      assert.equal(era, 'legacy');
      assert.deepEqual(posts(atReady), ['POST initialize', 'POST notifications/initialized'], 'no probe: the era is known');
      assert.deepEqual(all, ['POST initialize', 'POST notifications/initialized', 'POST tools/list', 'DELETE'], 'no GET after the 405');
    } finally {
      await server.close();
    }
  });

  test('a server that offers the GET stream gets one in every session, concurrent ones included', async () => {
    const server = await countingServer('legacy', 'stream');
    try {
      const clients = await Promise.all(Array.from({ length: 4 }, () => openSession(server.url)));
      await until(() => server.count('GET') === 4, 'four GET streams');
      const later = await openSession(server.url);
      await until(() => server.count('GET') === 5, 'a fifth GET stream, for the later session');
      await closeAll([...clients, later]);
      assert.equal(server.count('POST server/discover'), 1);
    } finally {
      await server.close();
    }
  });

  test('a session renewal (the server restarted) asks for the GET stream again, even after a 405', async () => {
    const server = await countingServer('legacy', '405');
    try {
      const client = await openSession(server.url);
      await until(() => server.count('GET') === 1, 'the first GET');
      server.restart();
      await client.listAllTools();
      assert.equal(server.count('POST initialize'), 2, `a new session: ${server.requests.join(', ')}`);
      await until(() => server.count('GET') === 2, 'the GET asked again in the new session');
      const later = await openSession(server.url);
      await closeAll([client, later]);
      assert.equal(server.count('GET'), 2, 'answered 405 again: believed again');
    } finally {
      await server.close();
    }
  });

  test('a legacy endpoint upgraded to modern in place: initialize refused, then the probe, then modern is remembered', async () => {
    const server = await countingServer('legacy');
    try {
      assert.equal((await oneSession(server.url, server.requests)).era, 'legacy');
      server.become('modern');
      server.requests.length = 0;
      const healed = await oneSession(server.url, server.requests);
      assert.equal(healed.era, 'modern');
      assert.deepEqual(posts(healed.all), ['POST initialize', 'POST server/discover', 'POST tools/list']);

      server.requests.length = 0;
      const next = await oneSession(server.url, server.requests);
      assert.equal(next.era, 'modern');
      assert.deepEqual(next.all, ['POST server/discover', 'POST tools/list'], 'server/discover alone: the modern handshake');
    } finally {
      await server.close();
    }
  });

  test('a modern endpoint downgraded to legacy: the probe falls back as on first contact, and legacy is remembered', async () => {
    const server = await countingServer('modern');
    try {
      assert.equal((await oneSession(server.url, server.requests)).era, 'modern');
      server.become('legacy');
      server.requests.length = 0;
      const healed = await oneSession(server.url, server.requests);
      assert.equal(healed.era, 'legacy');
      assert.deepEqual(posts(healed.all), ['POST server/discover', 'POST initialize', 'POST notifications/initialized', 'POST tools/list']);

      server.requests.length = 0;
      const next = await oneSession(server.url, server.requests);
      assert.deepEqual(posts(next.all), ['POST initialize', 'POST notifications/initialized', 'POST tools/list']);
    } finally {
      await server.close();
    }
  });

  test('a probe that failed (HTTP 503) remembers nothing: the next session probes again', async () => {
    const server = await countingServer('failing');
    try {
      await assert.rejects(oneSession(server.url, server.requests));
      assert.deepEqual(posts(server.requests), ['POST server/discover']);
      assert.equal(httpEraCache.eraOf(endpointKeyOf(server.url)), undefined);
      server.become('legacy');
      server.requests.length = 0;
      const { all, era } = await oneSession(server.url, server.requests);
      assert.equal(era, 'legacy');
      assert.deepEqual(posts(all), ['POST server/discover', 'POST initialize', 'POST notifications/initialized', 'POST tools/list']);
    } finally {
      await server.close();
    }
  });
});

/** A store as the extension's globalState is one: what is written is what the next process reads. */
function memoryStore(): EraStore & { held: unknown; writes: number } {
  const store = {
    held: undefined as unknown,
    writes: 0,
    read: () => store.held,
    write: (eras: Record<string, unknown>) => {
      store.held = JSON.parse(JSON.stringify(eras));
      store.writes++;
    },
  };
  return store;
}

/** The eras a store or an era file holds, in its order. */
/**
 * The era file holds digests and times, nothing a URL could hide in: every key a 32-character
 * base64url digest (`sse:` before an HTTP+SSE endpoint's), every value a time and maybe an era.
 */
function assertHoldsNoUrl(saved: string): void {
  assert.ok(!saved.includes('sk-secret') && !saved.includes('127.0.0.1'), saved);
  for (const [key, value] of Object.entries(JSON.parse(saved) as Record<string, Record<string, unknown>>)) {
    assert.match(key, /^(sse:)?[A-Za-z0-9_-]{32}$/, saved);
    assert.equal(typeof value.learnedAt, 'number', saved);
    for (const field of Object.keys(value)) assert.ok(field === 'learnedAt' || field === 'era', saved);
    if ('era' in value) assert.ok(value.era === 'legacy' || value.era === 'modern', saved);
  }
}

function erasIn(held: unknown): string[] {
  return Object.values(held as Record<string, { era: string }>).map((entry) => entry.era);
}

/** What a later process (a restart of VS Code) starts with: nothing in memory, the store read again. */
function restartWith(store: EraStore): void {
  httpEraCache.persistIn(undefined);
  httpEraCache.clear();
  httpEraCache.persistIn(store);
}

describe('eras kept across restarts (versioning.mdx: clients MAY persist them)', () => {
  test('a later process sends no probe to an endpoint an earlier one found legacy; the store holds digests, not URLs', async () => {
    const server = await countingServer('legacy');
    const store = memoryStore();
    try {
      httpEraCache.persistIn(store);
      const first = await oneSession(`${server.url}?key=sk-secret-in-query`, server.requests);
      assert.deepEqual(posts(first.all), ['POST server/discover', 'POST initialize', 'POST notifications/initialized', 'POST tools/list']);
      const saved = JSON.stringify(store.held);
      assert.deepEqual(erasIn(store.held), ['legacy']);
      for (const part of ['127.0.0.1', 'localhost', new URL(server.url).port, 'sk-secret', 'http']) assert.ok(!saved.includes(part), `the store names no part of the URL (${part}): ${saved}`);

      restartWith(store);
      server.requests.length = 0;
      const later = await oneSession(`${server.url}?key=sk-secret-in-query`, server.requests);
      assert.equal(later.era, 'legacy');
      assert.deepEqual(posts(later.all), ['POST initialize', 'POST notifications/initialized', 'POST tools/list']);
    } finally {
      await server.close();
    }
  });

  test('a persisted era proved wrong (the server became modern) is replaced in the store; malformed store content is ignored', async () => {
    const server = await countingServer('legacy');
    const store = memoryStore();
    try {
      httpEraCache.persistIn(store);
      await oneSession(server.url, server.requests);
      const now = Date.now();
      store.held = {
        ...(store.held as object),
        ['x'.repeat(500)]: { era: 'legacy', learnedAt: now },
        other: { era: 'ancient', learnedAt: now },
        flat: 'legacy',
      };
      restartWith(store);
      server.become('modern');
      server.requests.length = 0;
      const later = await oneSession(server.url, server.requests);
      assert.equal(later.era, 'modern');
      assert.equal(posts(server.requests)[0], 'POST initialize', 'the remembered legacy era was tried first');
      assert.deepEqual(erasIn(store.held), ['modern'], 'the store now says modern (and dropped what it could not read)');

      restartWith(memoryStore());
      server.requests.length = 0;
      await oneSession(server.url, server.requests);
      assert.equal(posts(server.requests)[0], 'POST server/discover', 'an empty store teaches nothing');
    } finally {
      await server.close();
    }
  });
});

describe('the CLI keeps eras across runs (MCP_HOST_ERA_FILE)', () => {
  /** Runs the CLI with the era file given; the requests the server saw. */
  async function cliRun(server: { requests: string[] }, args: string[], eraFile: string): Promise<string[]> {
    server.requests.length = 0;
    const run = await runCli(args, { env: { ...process.env, MCP_HOST_ERA_FILE: eraFile } });
    assert.equal(run.code, 0, run.stderr);
    return posts(server.requests);
  }

  test('a second run sends no probe to a legacy endpoint the first found; the file holds digests, not URLs; off and a malformed file teach nothing', async () => {
    const server = await countingServer('legacy');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-eras-'));
    const eraFile = path.join(dir, 'cache', 'endpoint-eras.json');
    const list = ['list', '--url', `${server.url}?key=sk-secret-in-query`];
    try {
      assert.equal((await cliRun(server, list, eraFile))[0], 'POST server/discover');
      const saved = fs.readFileSync(eraFile, 'utf8');
      assert.deepEqual(erasIn(JSON.parse(saved)), ['legacy']);
      assertHoldsNoUrl(saved);
      assert.deepEqual(fs.readdirSync(path.dirname(eraFile)), ['endpoint-eras.json'], 'no temporary file left');
      if (process.platform !== 'win32') assert.equal(fs.statSync(eraFile).mode & 0o777, 0o600);

      assert.equal((await cliRun(server, list, eraFile))[0], 'POST initialize', 'the second run knows the era: no probe');
      assert.equal(fs.readFileSync(eraFile, 'utf8'), saved, 'a run that used the era did not renew it (only a probe does: the entry ends a day after it)');
      assert.equal((await cliRun(server, list, 'OFF'))[0], 'POST server/discover', "'off' (any case) reads no file");
      assert.ok(!fs.existsSync(path.join(REPO_ROOT, 'OFF')));

      fs.writeFileSync(eraFile, '{"not json');
      assert.equal((await cliRun(server, list, eraFile))[0], 'POST server/discover', 'a malformed file is ignored');
      assert.deepEqual(erasIn(JSON.parse(fs.readFileSync(eraFile, 'utf8'))), ['legacy'], 'and replaced');
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a remembered legacy endpoint that became modern heals in the file; the doctor probes afresh; a day-old entry is probed again', async () => {
    const server = await countingServer('legacy');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-eras-'));
    const eraFile = path.join(dir, 'endpoint-eras.json');
    const list = ['list', '--url', server.url];
    try {
      await cliRun(server, list, eraFile);
      assert.deepEqual(erasIn(JSON.parse(fs.readFileSync(eraFile, 'utf8'))), ['legacy']);

      const doctor = await cliRun(server, ['doctor', '--url', server.url], eraFile);
      // After its authentication check (an initialize POST outside a session, remoteChecks.ts), the
      // doctor's handshake probes: it diagnoses the server as it is now, not as a run remembered it.
      assert.deepEqual(doctor.slice(1, 3), ['POST server/discover', 'POST initialize'], doctor.join(', '));

      const held = JSON.parse(fs.readFileSync(eraFile, 'utf8')) as Record<string, { era: string; learnedAt: number }>;
      const [digest] = Object.keys(held);
      fs.writeFileSync(eraFile, JSON.stringify({ [digest!]: { era: 'legacy', learnedAt: Date.now() - PERSISTED_ERA_TTL_MS - 1000 } }));
      assert.equal((await cliRun(server, list, eraFile))[0], 'POST server/discover', 'an entry over a day old is not trusted');
      const renewed = JSON.parse(fs.readFileSync(eraFile, 'utf8')) as Record<string, { era: string; learnedAt: number }>;
      assert.ok(renewed[digest!]!.learnedAt > Date.now() - 60_000, 'the probe wrote it anew');

      server.become('modern');
      assert.deepEqual(await cliRun(server, list, eraFile), ['POST initialize', 'POST server/discover', 'POST tools/list'], 'refused like a modern server: probed in the same run');
      assert.deepEqual(erasIn(JSON.parse(fs.readFileSync(eraFile, 'utf8'))), ['modern']);
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the CLI keeps the endpoints that speak only HTTP+SSE across runs (in the era file)', () => {
  test('a second run opens the event stream at once: no POST to the SSE URL; the file holds a digest, no part of the URL; off reads nothing', async () => {
    const server = await startHttpFixture('legacy-only.mjs', {});
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-sse-'));
    const eraFile = path.join(dir, 'endpoint-eras.json');
    const list = ['list', '--url', `${server.base}/sse?key=sk-secret-in-query`];
    const run = async (file: string): Promise<{ postsToSse: number; gets: number }> => {
      const before = (await server.stats()) as { postsToSse: number; gets: number };
      const result = await runCli(list, { env: { ...process.env, MCP_HOST_ERA_FILE: file } });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /echo/);
      const after = (await server.stats()) as { postsToSse: number; gets: number };
      return { postsToSse: after.postsToSse - before.postsToSse, gets: after.gets - before.gets };
    };
    try {
      assert.deepEqual(await run(eraFile), { postsToSse: 2, gets: 1 }, 'first run: the era probe and initialize answered 405, then the stream');
      const saved = fs.readFileSync(eraFile, 'utf8');
      assert.equal(Object.keys(JSON.parse(saved) as object).filter((k) => k.startsWith('sse:')).length, 1, saved);
      assertHoldsNoUrl(saved);
      if (process.platform !== 'win32') assert.equal(fs.statSync(eraFile).mode & 0o777, 0o600);

      assert.deepEqual(await run(eraFile), { postsToSse: 0, gets: 1 }, 'second run: the stream at once');
      assert.equal(fs.readFileSync(eraFile, 'utf8'), saved, 'a run that used the entry did not renew it (it ends an hour after it was learned)');
      assert.deepEqual(await run('off'), { postsToSse: 2, gets: 1 }, "'off': nothing read");
    } finally {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the CLI forgets an HTTP+SSE URL that moved to Streamable HTTP (in the era file)', () => {
  /** A front on one port that passes every request to the server `to()` names: one URL, two servers in turn. */
  async function front(to: () => number): Promise<{ url: (pathAndQuery: string) => string; close(): Promise<void> }> {
    const server = http.createServer((req, res) => {
      const upstream = http.request({ host: '127.0.0.1', port: to(), path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    return {
      url: (pathAndQuery) => `http://127.0.0.1:${port}${pathAndQuery}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  test('the remembered stream refused (GET 405): Streamable HTTP in the same run, the entry gone from the file, the next run POSTs first', async () => {
    const legacy = await startHttpFixture('legacy-only.mjs', {});
    const streamable = await countingServer('legacy', '405');
    let target = legacy.port;
    const door = await front(() => target);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-sse-'));
    const eraFile = path.join(dir, 'endpoint-eras.json');
    const list = ['list', '--url', door.url('/sse?key=sk-secret-in-query')];
    const env = { ...process.env, MCP_HOST_ERA_FILE: eraFile };
    const sseEntries = () => Object.keys(JSON.parse(fs.readFileSync(eraFile, 'utf8')) as object).filter((k) => k.startsWith('sse:'));
    try {
      const first = await runCli(list, { env });
      assert.equal(first.code, 0, first.stderr);
      assert.equal(sseEntries().length, 1, 'learned: HTTP+SSE');

      target = Number(new URL(streamable.url).port);
      const moved = await runCli(list, { env });
      assert.equal(moved.code, 0, moved.stderr);
      assert.equal(streamable.requests[0], 'GET', `the remembered stream first: ${streamable.requests.join(', ')}`);
      assert.ok(streamable.requests.includes('POST initialize'), streamable.requests.join(', '));
      assert.deepEqual(sseEntries(), [], 'forgotten in the file');
      assertHoldsNoUrl(fs.readFileSync(eraFile, 'utf8'));

      streamable.requests.length = 0;
      const after = await runCli(list, { env });
      assert.equal(after.code, 0, after.stderr);
      assert.ok(streamable.requests[0]?.startsWith('POST'), `a POST first: ${streamable.requests.join(', ')}`);
    } finally {
      await door.close();
      await streamable.close();
      await legacy.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an endpoint whose GET for the event stream is never answered: the start fails at its deadline, remembered (5 s) or configured as sse (30 s)', { timeout: 60_000 }, async () => {
    // Takes the connection, reads the request, never answers.
    const sockets = new Set<import('node:net').Socket>();
    const silent = http.createServer(() => undefined);
    silent.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/sse`;
    try {
      legacySseEndpoints.remember(endpointKeyOf(url));
      const remembered = createHttpTransport('http', { url, label: "server 'silent'" });
      const started = Date.now();
      await assert.rejects(remembered.start(), (err: Error) => {
        assert.match(err.message, /did not answer the GET for its event stream within 5000 ms/);
        return true;
      });
      const took = Date.now() - started;
      assert.ok(took >= 4_900 && took < 9_000, `failed at the remembered deadline (${took} ms)`);
      await remembered.close();
      assert.equal(legacySseEndpoints.has(endpointKeyOf(url)), true, 'a server that does not answer teaches nothing: the memory stays');
      await until(() => [...sockets].every((s) => s.destroyed), 'the GET connection closed');

      const configured = new LegacySseTransport({ url, label: "server 'silent'" }, 300);
      await assert.rejects(configured.start(), /did not answer the GET for its event stream within 300 ms/);
      assert.equal(configured.isClosed, true);
    } finally {
      legacySseEndpoints.clear();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('what the era cache does not learn from', () => {
  test('a remembered legacy endpoint whose initialize fails otherwise (HTTP 503) is forgotten: the next contact probes', async () => {
    const server = await countingServer('legacy');
    try {
      await oneSession(server.url, server.requests);
      assert.equal(httpEraCache.eraOf(endpointKeyOf(server.url)), 'legacy');
      server.become('failing');
      server.requests.length = 0;
      await assert.rejects(oneSession(server.url, server.requests));
      assert.deepEqual(posts(server.requests), ['POST initialize']);
      assert.equal(httpEraCache.eraOf(endpointKeyOf(server.url)), undefined);
    } finally {
      await server.close();
    }
  });
});

describe('a host restart of a remote server that answered the era probe as legacy', () => {
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
