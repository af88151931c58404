import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { ConnectionClosedError, McpError, RemoteError, RequestTimeoutError } from '../../src/protocol/errors';
import { AuthorizationRequiredError, type AuthChallenge, type HttpAuthProvider } from '../../src/auth/types';
import { STREAM_LOST_ERROR_CODE } from '../../src/transport/http';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpEraCache } from '../../src/protocol/eraCache';
import { endpointKeyOf, getStreamMemory, legacySseEndpoints } from '../../src/transport/endpointMemory';
import { freePort, makeHttpClient, onPostedJson, settledWithin, startHttpFixture, type HttpServerProcess, type HttpStarted } from '../helpers/http';
import { waitFor } from '../helpers/servers';

/** Runs `body` with a fixture server and a client over Streamable HTTP; stops both after. */
async function withServer(
  fixture: string,
  env: Record<string, string>,
  options: Parameters<typeof makeHttpClient>[2] & { kind?: 'http' | 'sse'; path?: string; connect?: boolean },
  body: (s: HttpStarted, server: HttpServerProcess) => Promise<void>,
): Promise<void> {
  const server = await startHttpFixture(fixture, env);
  const s = makeHttpClient(options.kind ?? 'http', `${server.base}${options.path ?? '/mcp'}`, { label: fixture.replace('.mjs', ''), ...options });
  try {
    if (options.connect !== false) await s.client.connect();
    await body(s, server);
  } finally {
    await s.stop();
    await server.stop();
  }
}

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

// What one test taught this process about an endpoint (its era, its GET stream, a fallback to
// HTTP+SSE) must not reach a later test whose server got the same port.
afterEach(() => {
  httpEraCache.clear();
  getStreamMemory.clear();
  legacySseEndpoints.clear();
});

describe('Streamable HTTP transport against fault fixtures', () => {
  test('baseline: session and version headers, GET stream for server messages, DELETE on close', async () => {
    const roots: string[] = [];
    await withServer(
      'good.mjs',
      {},
      { handlers: { listRoots: () => (roots.push('asked'), [{ uri: 'file:///tmp/project', name: 'project' }]) } },
      async (s, server) => {
        assert.equal(s.client.protocolVersion, '2025-11-25');
        assert.ok(s.transportLogs.some((l) => /using the Streamable HTTP transport/.test(l)), s.transportLogs.join('\n'));
        const result = await s.client.callTool('echo', { text: 'héllo ✓' });
        assert.equal(text(result), 'héllo ✓');
        // The GET stream opens after the handshake; a server notification and a server request arrive on it.
        const logged: string[] = [];
        s.client.onLogMessage((m) => logged.push(String(m.data)));
        for (let i = 0; i < 100 && (await server.stats()).gets < 1; i++) await new Promise((r) => setTimeout(r, 20));
        assert.equal(text(await s.client.callTool('push', { text: 'over the GET stream' })), 'pushed');
        await waitFor(() => logged.includes('over the GET stream'), 3000, 'notification over GET');
        const asked = await s.client.callTool('ask-roots');
        assert.match(text(asked), /file:\/\/\/tmp\/project/);
        assert.deepEqual(roots, ['asked']);
        const stats = await server.stats();
        // The era probe (server/discover) carries the modern version; initialize none; every later POST the negotiated one.
        assert.equal(stats.methods[0], 'server/discover');
        assert.equal(stats.protocolVersionHeaders[0], '2026-07-28');
        assert.equal(stats.protocolVersionHeaders[1], null);
        assert.ok(stats.protocolVersionHeaders.slice(2).every((v: string | null) => v === '2025-11-25'), JSON.stringify(stats.protocolVersionHeaders));
        assert.equal(stats.sessionsCreated, 1);
        await s.transport.close();
        assert.equal((await server.stats()).deletes, 1);
        assert.deepEqual(
          s.closes.map((c) => c.expected),
          [true],
        );
      },
    );
  });

  test('an expired session (404) is renewed once, transparently, and the request re-sent', async () => {
    await withServer('session-expiry.mjs', { EXPIRE_AFTER: '2' }, {}, async (s, server) => {
      for (let i = 0; i < 5; i++) assert.equal(text(await s.client.callTool('echo', { text: `call ${i}` })), `call ${i}`);
      const stats = await server.stats();
      assert.equal(stats.sessionsCreated, 2);
      assert.ok(s.transportLogs.some((l) => /session expired/.test(l)), s.transportLogs.join('\n'));
      assert.ok(s.transportLogs.some((l) => /started a new session/.test(l)));
      // The replayed initialize's answer was consumed by the transport, never seen by the client.
      assert.equal(s.trace.filter((t) => t.direction === 'receive' && t.message.result?.protocolVersion).length, 1);
      assert.equal(s.closes.length, 0);
    });
  });

  test('many requests in flight when the session expires start only one new session', async () => {
    await withServer('session-expiry.mjs', { EXPIRE_AFTER: '1' }, {}, async (s, server) => {
      await s.client.ping();
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => s.client.callTool('echo', { text: `n${i}` })));
      assert.deepEqual(
        results.map(text),
        Array.from({ length: 30 }, (_, i) => `n${i}`),
      );
      assert.equal((await server.stats()).sessionsCreated, 2);
    });
  });

  test('a 404 right after a new session was started is an error', async () => {
    await withServer('session-expiry.mjs', { EXPIRE_AFTER: '1', RENEWED_EXPIRE_AFTER: '0' }, {}, async (s, server) => {
      await s.client.ping();
      await assert.rejects(s.client.callTool('echo', { text: 'x' }), (err: unknown) => {
        assert.ok(err instanceof ConnectionClosedError, String(err));
        assert.match(err.message, /HTTP 404/);
        assert.match(err.message, /new session expired at once/);
        return true;
      });
      assert.equal((await server.stats()).sessionsCreated, 2);
    });
  });

  test('an SSE answer dropped mid-way is resumed with GET + Last-Event-ID after the retry delay', async () => {
    await withServer('sse-drop-resume.mjs', { RETRY_MS: '300' }, {}, async (s, server) => {
      const logged: string[] = [];
      s.client.onLogMessage((m) => logged.push(String(m.data)));
      const result = await s.client.callTool('echo', { text: 'abc' });
      assert.equal(text(result), 'resumed: abc');
      assert.deepEqual(logged, ['working on abc', 'almost done with abc']);
      const stats = await server.stats();
      assert.equal(stats.drops, 1);
      assert.equal(stats.resumes.length, 1);
      assert.equal(stats.resumes[0].lastEventId, 's1-1');
      assert.ok(stats.resumes[0].delayMs >= 250, `waited ${stats.resumes[0].delayMs} ms (retry: 300)`);
    });
  });

  test('a stream that cannot be resumed fails its request at once with a JSON-RPC error', async () => {
    await withServer(
      'sse-drop-resume.mjs',
      { RETRY_MS: '30', DROP_FOREVER: '1' },
      { transport: { reconnect: { maxAttempts: 3 } } },
      async (s, server) => {
        const started = Date.now();
        await assert.rejects(s.client.callTool('echo', { text: 'x' }), (err: unknown) => {
          assert.ok(err instanceof RemoteError, String(err));
          assert.equal(err.code, STREAM_LOST_ERROR_CODE);
          assert.match(err.message, /event stream carrying the answer was lost/);
          assert.match(err.message, /3 attempts to reconnect failed/);
          return true;
        });
        assert.ok(Date.now() - started < 5000, 'long before the 15 s request timeout');
        assert.equal((await server.stats()).resumes.length, 3);
        // The server is still there: the transport stays open.
        await s.client.ping();
        assert.equal(s.closes.length, 0);
      },
    );
  });

  test('a dropped stream without event ids fails its request at once', async () => {
    await withServer('sse-drop-resume.mjs', { NO_EVENT_IDS: '1' }, {}, async (s) => {
      await assert.rejects(s.client.callTool('echo', { text: 'x' }), (err: unknown) => {
        assert.ok(err instanceof RemoteError, String(err));
        assert.match(err.message, /no event id to resume from/);
        return true;
      });
    });
  });

  test('JSON for one answer and SSE for the next, sequential and concurrent; GET 405 is logged once', async () => {
    await withServer('json-then-sse.mjs', {}, {}, async (s) => {
      for (let i = 0; i < 6; i++) assert.equal(text(await s.client.callTool('echo', { text: `seq ${i}` })), `seq ${i}`);
      const many = await Promise.all(Array.from({ length: 20 }, (_, i) => s.client.callTool('echo', { text: `par ${i}` })));
      assert.deepEqual(
        many.map(text),
        Array.from({ length: 20 }, (_, i) => `par ${i}`),
      );
      await waitFor(() => s.transportLogs.some((l) => /GET answered 405/.test(l)), 2000, 'the 405 log line');
      assert.equal(s.transportLogs.filter((l) => /GET answered 405/.test(l)).length, 1);
    });
  });

  test('405 on GET and on DELETE: works without a GET stream and closes cleanly', async () => {
    await withServer('get-405.mjs', {}, {}, async (s, server) => {
      assert.equal(text(await s.client.callTool('echo', { text: 'fine' })), 'fine');
      await waitFor(() => s.transportLogs.some((l) => /GET answered 405/.test(l)), 2000);
      await s.transport.close();
      assert.equal((await server.stats()).deletes, 1);
      assert.deepEqual(
        s.closes.map((c) => c.expected),
        [true],
      );
      assert.ok(!s.transportLogs.some((l) => /DELETE/.test(l)), 'a 405 to DELETE is not reported');
    });
  });

  test('invalid JSON in an SSE event is a warning; the stream goes on', async () => {
    await withServer('invalid-json-sse.mjs', {}, {}, async (s) => {
      const logged: string[] = [];
      s.client.onLogMessage((m) => logged.push(String(m.data)));
      assert.equal(text(await s.client.callTool('echo', { text: 'still works' })), 'still works');
      const warning = s.warnings.find((w) => /not valid JSON/.test(w.message));
      assert.ok(warning, JSON.stringify(s.warnings));
      assert.match(warning.excerpt ?? '', /oops/);
      assert.ok(logged.includes('after the bad event'));
    });
  });

  test('a server that never answers: the request times out, cancellation is sent, close does not hang', async () => {
    await withServer('never-answers.mjs', {}, { requestTimeoutMs: 400 }, async (s, server) => {
      await assert.rejects(s.client.callTool('echo', { text: 'x' }), RequestTimeoutError);
      await waitFor(() => s.trace.some((t) => t.message.method === 'notifications/cancelled'), 2000);
      for (let i = 0; i < 100 && !(await server.stats()).methods.includes('notifications/cancelled'); i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok((await server.stats()).methods.includes('notifications/cancelled'));
      const started = Date.now();
      await s.transport.close();
      assert.ok(Date.now() - started < 3000, `close took ${Date.now() - started} ms`);
    });
  });

  test('a server that never answers initialize: the handshake times out', async () => {
    await withServer('never-answers.mjs', { NEVER_INITIALIZE: '1' }, { requestTimeoutMs: 400, connect: false }, async (s) => {
      await assert.rejects(s.client.connect(), (err: unknown) => err instanceof RequestTimeoutError && /initialize/.test(err.message));
    });
  });

  test('401 with no metadata and no sign-in configured says the server needs authorization', async () => {
    await withServer('unauthorized.mjs', {}, { connect: false }, async (s, server) => {
      await assert.rejects(s.client.connect(), (err: unknown) => {
        assert.ok(err instanceof Error);
        assert.match(err.message, /requires authorization \(HTTP 401\)/);
        assert.match(err.message, /no sign-in is configured/);
        assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${server.port}/mcp`));
        return true;
      });
      assert.equal((await server.stats()).requests, 1);
    });
  });

  test('an endless 401 stops after 3 challenges; the token never appears in the error', async () => {
    const challenges: AuthChallenge[] = [];
    const auth: HttpAuthProvider = {
      authorizationHeader: async () => 'Bearer s3cret-token',
      handleChallenge: async (challenge) => {
        challenges.push(challenge);
        return 'retry';
      },
    };
    await withServer('unauthorized.mjs', { ENDLESS: '1' }, { connect: false, transport: { auth } }, async (s, server) => {
      await assert.rejects(s.client.connect(), (err: unknown) => {
        assert.ok(err instanceof Error);
        assert.match(err.message, /still answers HTTP 401 after signing in 3 times/);
        assert.doesNotMatch(err.message, /s3cret/);
        return true;
      });
      const stats = await server.stats();
      assert.equal(stats.requests, 4);
      assert.equal(stats.withAuthorization, 4);
      assert.equal(challenges.length, 3);
      assert.match(challenges[0].wwwAuthenticate ?? '', /invalid_token/);
      assert.ok(!s.logs.concat(s.transportLogs).some((l) => l.includes('s3cret')));
    });
  });

  test('a sign-in that may not start now travels up as AuthorizationRequiredError', async () => {
    const auth: HttpAuthProvider = {
      authorizationHeader: async () => undefined,
      handleChallenge: async () => {
        throw new AuthorizationRequiredError('sign in to use it', 'http://127.0.0.1/mcp');
      },
    };
    await withServer('unauthorized.mjs', {}, { connect: false, transport: { auth } }, async (s) => {
      // The transport rejects with the auth error itself (the connection wraps it for the request).
      await s.transport.start();
      await assert.rejects(s.transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }), AuthorizationRequiredError);
    });
  });

  test('an answer over maxMessageBytes is refused with a warning (JSON and SSE)', async () => {
    await withServer('json-then-sse.mjs', {}, { transport: { maxMessageBytes: 2000 } }, async (s) => {
      // The handshake used JSON (initialize); the next answers alternate SSE, JSON, SSE...
      const big = 'x'.repeat(10_000);
      const first = s.client.callTool('echo', { text: big });
      await assert.rejects(first, (err: unknown) => err instanceof RemoteError && /larger than the limit/.test(err.message));
      await assert.rejects(s.client.callTool('echo', { text: big }), (err: unknown) => err instanceof ConnectionClosedError && /larger than the limit of 2000 bytes/.test(err.message));
      assert.ok(s.warnings.filter((w) => /larger than the limit/.test(w.message)).length >= 2, JSON.stringify(s.warnings));
      assert.equal(text(await s.client.callTool('echo', { text: 'small' })), 'small');
    });
  });

  test('nothing listening: the error names the address and errno', async () => {
    const port = await freePort();
    const s = makeHttpClient('http', `http://127.0.0.1:${port}/mcp`);
    try {
      await assert.rejects(s.client.connect(), (err: unknown) => {
        assert.ok(err instanceof Error);
        assert.match(err.message, new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}/mcp \\(POST\\): ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
        return true;
      });
      assert.ok(s.transport.isClosed);
      assert.equal(s.closes.length, 1);
    } finally {
      await s.stop();
    }
  });

  test('a server that goes away: requests fail at once with the reason, then onClose(expected: false)', async () => {
    await withServer('good.mjs', {}, { transport: { reconnect: { initialDelayMs: 50, maxAttempts: 2 } } }, async (s, server) => {
      for (let i = 0; i < 100 && (await server.stats()).gets < 1; i++) await new Promise((r) => setTimeout(r, 20));
      await server.stop();
      const started = Date.now();
      await assert.rejects(s.client.callTool('echo', { text: 'x' }), (err: unknown) => err instanceof Error && /ECONNREFUSED|closed/.test(err.message));
      assert.ok(Date.now() - started < 2000);
      await waitFor(() => s.closes.length === 1, 5000, 'onClose');
      assert.equal(s.closes[0].expected, false);
      assert.match(s.closes[0].reason, /ECONNREFUSED|cannot reach/);
    });
  });
});

describe('a session renewal has a deadline', () => {
  test('a server that never answers the replayed initialize: requests fail within acceptTimeoutMs, the transport is lost, later requests fail at once', async () => {
    const s0 = await expiringSessionServer('hang');
    const s = makeHttpClient('http', s0.url, { label: 'renewal', transport: { acceptTimeoutMs: 300 }, requestTimeoutMs: 10_000 });
    try {
      await s.client.connect();
      assert.equal(text(await s.client.callTool('echo', { text: 'before' })), 'before');
      s0.expire();
      const started = Date.now();
      // The request that meets the 404, and one sent while the renewal waits.
      const first = s.client.callTool('echo', { text: 'a' });
      await new Promise((r) => setTimeout(r, 50));
      const second = s.client.callTool('echo', { text: 'b' });
      for (const call of [first, second]) {
        const settled = await settledWithin(call, 5000);
        assert.ok(settled !== 'pending', 'a request waited on the renewal past its deadline');
        assert.ok('error' in settled);
        assert.match(String(settled.error), /did not answer the new session's initialize within 300 ms/);
      }
      assert.ok(Date.now() - started < 3000, `failed after ${Date.now() - started} ms`);
      assert.equal(s0.renewals(), 1);
      await waitFor(() => s.closes.length === 1, 3000, 'onClose');
      assert.equal(s.closes[0].expected, false);
      assert.match(s.closes[0].reason, /a new one could not be started: the server did not answer the new session's initialize within 300 ms/);
      const later = await settledWithin(s.client.callTool('echo', { text: 'c' }), 1000);
      assert.ok(later !== 'pending' && 'error' in later, 'a later request waited');
      assert.ok(later.error instanceof McpError, String(later.error));
    } finally {
      await s.stop();
      await s0.close();
    }
  });

  test('a renewal answered on an event stream within the deadline works, and the deadline does not fire later', async () => {
    const s0 = await expiringSessionServer('sse');
    const s = makeHttpClient('http', s0.url, { label: 'renewal', transport: { acceptTimeoutMs: 300 } });
    try {
      await s.client.connect();
      s0.expire();
      assert.equal(text(await s.client.callTool('echo', { text: 'renewed' })), 'renewed');
      assert.equal(s0.renewals(), 1);
      // Past the deadline: the session and the transport are still fine.
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(text(await s.client.callTool('echo', { text: 'later' })), 'later');
      assert.deepEqual(s.closes, []);
      assert.ok(s.transportLogs.some((l) => /started a new session/.test(l)), s.transportLogs.join('\n'));
    } finally {
      await s.stop();
      await s0.close();
    }
  });

  test("a new session's other protocol version is quoted as a short excerpt in the reason, however long", async () => {
    const s0 = await expiringSessionServer('version');
    const s = makeHttpClient('http', s0.url, { label: 'renewal' });
    try {
      await s.client.connect();
      s0.expire();
      await assert.rejects(s.client.callTool('echo', { text: 'x' }), (err: unknown) => err instanceof McpError && /negotiated protocol version/.test(err.message));
      await waitFor(() => s.closes.length === 1, 3000, 'onClose');
      const reason = s.closes[0].reason;
      assert.ok(reason.length < 400, `a reason of ${reason.length} characters`);
      assert.ok(!/[\x00-\x1f]/.test(reason), JSON.stringify(reason.slice(0, 200)));
      assert.match(reason, /negotiated protocol version "2025-06-18\\n\[error\] forged\\u001b\[2Kvvv/);
    } finally {
      await s.stop();
      await s0.close();
    }
  });
});

/**
 * A Streamable HTTP server (legacy era) whose session s1 expires on expire() (404 for its id).
 * The replayed initialize of the renewal is then: never answered ('hang'); answered on an event
 * stream kept open ('sse'); or answered with another protocol version, a megabyte long with a
 * line end and an escape character in it ('version').
 */
async function expiringSessionServer(renewal: 'hang' | 'sse' | 'version') {
  const held: http.ServerResponse[] = [];
  let sessions = 0;
  let expired = false;
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(405).end();
      return;
    }
    onPostedJson<{ id?: number | string; method: string; params?: { protocolVersion?: string; arguments?: { text?: string } } }>(req, res, (message) => {
      const session = req.headers['mcp-session-id'];
      const reply = (result: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(200, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      };
      if (message.method === 'initialize') {
        const id = `s${++sessions}`;
        const result = { protocolVersion: message.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'expiring', version: '1.0.0' } };
        if (sessions === 1) reply(result, { 'mcp-session-id': id });
        else if (renewal === 'hang') held.push(res);
        else if (renewal === 'version') reply({ ...result, protocolVersion: `2025-06-18\n[error] forged\x1b[2K${'v'.repeat(1_000_000)}` }, { 'mcp-session-id': id });
        else {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': id });
          res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`);
          held.push(res);
        }
        return;
      }
      if (expired && session === 's1') res.writeHead(404).end();
      else if (message.id === undefined) res.writeHead(202).end();
      else if (message.method === 'tools/call') reply({ content: [{ type: 'text', text: message.params?.arguments?.text ?? '' }] });
      else res.writeHead(400).end('not here');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    expire: () => (expired = true),
    /** Initialize requests after the first. */
    renewals: () => Math.max(0, sessions - 1),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('legacy HTTP+SSE transport and the fallback', () => {
  test("type 'http' against a legacy-only server falls back to HTTP+SSE and works", async () => {
    await withServer('legacy-only.mjs', {}, { path: '/sse' }, async (s, server) => {
      assert.ok(s.transportLogs.some((l) => /POST initialize answered HTTP 405/.test(l)), s.transportLogs.join('\n'));
      assert.ok(s.transportLogs.some((l) => /using the legacy HTTP\+SSE transport/.test(l)));
      const tools = await s.client.listAllTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['echo'],
      );
      assert.equal(text(await s.client.callTool('echo', { text: 'old' })), 'legacy: old');
      const stats = await server.stats();
      // Two POSTs answered 405: the era probe (server/discover), then initialize.
      assert.equal(stats.postsToSse, 2);
      assert.equal(stats.gets, 1);
    });
  });

  test("type 'http': a later session of an endpoint that fell back to HTTP+SSE opens the stream at once (no failing POST, no probe)", async () => {
    const server = await startHttpFixture('legacy-only.mjs', {});
    const url = `${server.base}/sse`;
    try {
      const first = makeHttpClient('http', url, { label: 'legacy-first' });
      await first.client.connect();
      await first.stop();
      const before = await server.stats();
      assert.equal(before.postsToSse, 2, 'the first session: the probe and initialize answered 405');

      // Without the era the first session taught: the transport itself says HTTP+SSE, so no probe either.
      httpEraCache.clear();
      const second = makeHttpClient('http', url, { label: 'legacy-second' });
      try {
        await second.client.connect();
        assert.equal(text(await second.client.callTool('echo', { text: 'again' })), 'legacy: again');
        const after = await server.stats();
        assert.equal(after.postsToSse, before.postsToSse, 'no POST to the SSE URL');
        assert.deepEqual(after.methods.slice(before.methods.length, before.methods.length + 2), ['initialize', 'notifications/initialized']);
        assert.ok(second.transportLogs.some((l) => /legacy HTTP\+SSE transport, as before/.test(l)), second.transportLogs.join('\n'));
      } finally {
        await second.stop();
      }
    } finally {
      await server.stop();
    }
  });

  test('an endpoint remembered as HTTP+SSE that now speaks Streamable HTTP is forgotten, and the session works over Streamable HTTP', async () => {
    const server = await startHttpFixture('good.mjs', {});
    const url = `${server.base}/mcp`;
    legacySseEndpoints.remember(endpointKeyOf(url));
    const s = makeHttpClient('http', url, { label: 'moved-on' });
    try {
      await s.client.connect();
      assert.equal(text(await s.client.callTool('echo', { text: 'new' })), 'new');
      assert.ok(s.transportLogs.some((l) => /not offered any more .*HTTP 400.*trying Streamable HTTP/.test(l)), s.transportLogs.join('\n'));
      assert.equal(legacySseEndpoints.has(endpointKeyOf(url)), false);
    } finally {
      await s.stop();
      await server.stop();
    }
  });

  test('a remembered HTTP+SSE endpoint now on Streamable HTTP that holds a session-less GET open without a word: Streamable HTTP after 5 s, not 30', async () => {
    const server = await silentGetStreamableServer();
    legacySseEndpoints.remember(endpointKeyOf(server.url));
    const s = makeHttpClient('http', server.url, { label: 'silent-get' });
    try {
      const started = Date.now();
      await s.client.connect();
      const ms = Date.now() - started;
      assert.ok(ms < 15_000, `connected after ${ms} ms`);
      assert.ok(s.transportLogs.some((l) => /not offered any more .*within 5000 ms/.test(l)), s.transportLogs.join('\n'));
      assert.equal(text(await s.client.callTool('echo', { text: 'streamable' })), 'streamable');
    } finally {
      await s.stop();
      await server.close();
    }
  });

  test('a remembered HTTP+SSE endpoint that cannot be reached (the network, not the answer) is still remembered', async () => {
    const url = `http://127.0.0.1:${await freePort()}/sse`;
    legacySseEndpoints.remember(endpointKeyOf(url));
    const s = makeHttpClient('http', url, { label: 'down' });
    try {
      await assert.rejects(s.client.connect());
      assert.equal(legacySseEndpoints.has(endpointKeyOf(url)), true);
    } finally {
      await s.stop();
    }
  });

  test("type 'sse' goes straight to legacy: no POST to the SSE URL, and no era probe (HTTP+SSE is a legacy-era transport)", async () => {
    await withServer('legacy-only.mjs', {}, { path: '/sse', kind: 'sse' }, async (s, server) => {
      assert.equal(text(await s.client.callTool('echo', { text: 'direct' })), 'legacy: direct');
      const stats = await server.stats();
      assert.equal(stats.postsToSse, 0);
      assert.deepEqual(stats.methods.slice(0, 2), ['initialize', 'notifications/initialized'], stats.methods.join(', '));
      assert.equal(s.client.era, 'legacy');
    });
  });

  test('an endpoint on another origin is refused', async () => {
    await withServer('legacy-only.mjs', { ENDPOINT: 'http://127.0.0.2:9/steal' }, { path: '/sse', kind: 'sse', connect: false }, async (s, server) => {
      await assert.rejects(s.client.connect(), /another origin/);
      assert.equal((await server.stats()).posts, 0);
    });
  });

  test('an endpoint longer than 8 KiB is refused (every message would carry and parse it)', async () => {
    await withServer('legacy-only.mjs', { ENDPOINT: `/messages?pad=${'a'.repeat(9_000)}` }, { path: '/sse', kind: 'sse', connect: false }, async (s, server) => {
      await assert.rejects(s.client.connect(), /"endpoint" event holds 9\d{3} characters, more than the 8192/);
      assert.equal((await server.stats()).posts, 0);
    });
  });

  test('neither transport: the error says both were tried', async () => {
    await withServer('legacy-only.mjs', {}, { path: '/nothing-here', connect: false }, async (s) => {
      await assert.rejects(s.client.connect(), (err: unknown) => {
        assert.ok(err instanceof Error);
        assert.match(err.message, /neither a Streamable HTTP endpoint \(POST initialize answered HTTP 404\) nor a legacy SSE endpoint/);
        return true;
      });
    });
  });

  test('a legacy stream that is lost closes the transport (expected: false)', async () => {
    await withServer('legacy-only.mjs', { DROP_AFTER: '2' }, { path: '/sse', kind: 'sse' }, async (s) => {
      // initialize was message 1; this answer is message 2, then the stream drops.
      await s.client.ping();
      await waitFor(() => s.closes.length === 1, 3000, 'onClose');
      assert.equal(s.closes[0].expected, false);
      await assert.rejects(s.client.ping(), (err: unknown) => err instanceof McpError && /connection closed/.test(err.message));
    });
  });
});

/**
 * A Streamable HTTP server (legacy era) that answers a GET without a session with an event stream
 * it never writes to, as stateless servers with a GET stream do: what a URL that spoke HTTP+SSE
 * before may have become.
 */
async function silentGetStreamableServer() {
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      held.push(res);
      return;
    }
    onPostedJson<{ id?: number; method: string; params?: { arguments?: { text?: string } } }>(req, res, (message) => {
      const reply = (result: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      };
      if (message.id === undefined) res.writeHead(202).end();
      else if (message.method === 'initialize') reply({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'silent-get', version: '1.0.0' } });
      else if (message.method === 'tools/call') reply({ content: [{ type: 'text', text: message.params?.arguments?.text ?? '' }] });
      else res.writeHead(400).end('not here');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
