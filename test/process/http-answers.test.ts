// What a Streamable HTTP server does with our POSTs, bounded (#21: the node:http path keeps what
// the transport promised): a notification it never takes cannot hold a start or a socket forever;
// a request given up (timed out) gives up its POST; an answer that is not valid HTTP, a body broken
// off, a redirect to a URL with credentials and a huge reason phrase each fail their own request
// with an error that says so, and the session goes on. A real node:http server in this process
// plays the server; the CLI runs as its own process.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as path from 'node:path';
import { makeHttpClient } from '../helpers/http';
import { REPO_ROOT } from '../helpers/paths';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

type Message = { jsonrpc: '2.0'; id?: number | string; method?: string; params?: Record<string, unknown> };
/** What the test makes of one POSTed message: true when it answered (or chose never to). */
type Behaviour = (message: Message, res: http.ServerResponse, req: http.IncomingMessage) => boolean;

interface TestServer {
  readonly url: string;
  /** Connections open now, server side. */
  readonly open: Set<Socket>;
  readonly methods: string[];
  behave(behaviour: Behaviour | undefined): void;
  close(): Promise<void>;
}

function answer(message: Message): unknown {
  switch (message.method) {
    case 'initialize':
      return { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'answers', version: '1.0.0' } };
    case 'tools/call':
      return { content: [{ type: 'text', text: `echo: ${String((message.params?.arguments as { text?: unknown } | undefined)?.text)}` }] };
    default:
      return {};
  }
}

/** A Streamable HTTP server that answers in JSON, but for what `behave` takes over. */
async function startServer(): Promise<TestServer> {
  let behaviour: Behaviour | undefined;
  const open = new Set<Socket>();
  const methods: string[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST, DELETE' }).end();
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const message = JSON.parse(body) as Message;
      methods.push(message.method ?? 'answer');
      if (behaviour?.(message, res, req)) return;
      if (message.method === 'server/discover') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
      }
      if (message.id === undefined || message.method === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'session-1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: answer(message) }));
    });
  });
  server.on('connection', (socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    url,
    open,
    methods,
    behave: (b) => (behaviour = b),
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function waitUntil(condition: () => boolean, what: () => string, ms = 10_000): Promise<void> {
  for (const until = Date.now() + ms; !condition(); ) {
    if (Date.now() > until) assert.fail(`timed out waiting: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function runCli(args: string[], killAfterMs: number): Promise<{ status: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MCP_HOST_ERA_FILE: 'off' } });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.stdout.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr, ms: Date.now() - started });
    });
  });
}

describe('POSTs a server leaves unanswered or answers badly', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server.close();
  });

  test('a server that never takes notifications/initialized fails the start at the handshake timeout (it held it forever)', async () => {
    server.behave((m) => m.method === 'notifications/initialized');
    const s = makeHttpClient('http', server.url, { requestTimeoutMs: 800 });
    const started = Date.now();
    await assert.rejects(s.client.connect(), /notifications\/initialized timed out after 800 ms \(server 'http' did not take it\)/);
    assert.ok(Date.now() - started < 5_000, `failed in ${Date.now() - started} ms`);
    await s.stop();
    server.behave(undefined);
  });

  test('… and the CLI exits with that error within its --timeout instead of hanging', async () => {
    server.behave((m) => m.method === 'notifications/initialized');
    const run = await runCli(['list', '--timeout', '1000', '--url', server.url], 30_000);
    server.behave(undefined);
    assert.notEqual(run.status, null, `the CLI was killed after ${run.ms} ms: ${run.stderr}`);
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /notifications\/initialized timed out after 1000 ms/);
    assert.ok(run.ms < 15_000, `exited after ${run.ms} ms`);
  });

  test('a notification the server never takes is given up after acceptTimeoutMs, and the session goes on', async () => {
    const s = makeHttpClient('http', server.url, { transport: { acceptTimeoutMs: 300 }, handlers: { listRoots: () => Promise.resolve([]) } });
    await s.client.connect();
    server.behave((m) => m.method === 'notifications/roots/list_changed');
    const before = server.open.size;
    await assert.rejects(s.client.notifyRootsChanged(), (err: Error) => {
      assert.match(err.message, /did not take notifications\/roots\/list_changed within 300 ms/);
      return true;
    });
    server.behave(undefined);
    await waitUntil(() => server.open.size < before + 1, () => `the POST's socket is still open (${server.open.size} open, ${before} before)`);
    assert.equal((await s.client.callTool('echo', { text: 'after' })).content[0]?.type, 'text');
    assert.deepEqual(s.closes, [], 'the session was not lost');
    await s.stop();
  });

  test('requests that time out give up their POSTs: twenty of them leave no socket behind', async () => {
    const s = makeHttpClient('http', server.url, { requestTimeoutMs: 300 });
    await s.client.connect();
    const before = server.open.size;
    // Headers, then a body that never ends.
    server.behave((m, res) => {
      if (m.method !== 'tools/call') return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(' ');
      return true;
    });
    const calls = Array.from({ length: 20 }, (_, i) => s.client.callTool('echo', { text: `slow ${i}` }).then(() => 'answered', (err: Error) => err.message));
    const outcomes = await Promise.all(calls);
    for (const outcome of outcomes) assert.match(outcome, /tools\/call timed out after 300 ms/);
    server.behave(undefined);
    await waitUntil(() => server.open.size <= before + 1, () => `${server.open.size} connections still open (${before} before the calls)`);
    assert.match((await s.client.callTool('echo', { text: 'after' })).content[0]?.type ?? '', /text/);
    await s.stop();
  });

  test('an answer that is not valid HTTP (headers over 16 KB) fails its request as such; the session is not lost', async () => {
    const s = makeHttpClient('http', server.url);
    await s.client.connect();
    server.behave((m, res) => {
      if (m.method !== 'tools/call') return false;
      res.writeHead(200, { 'content-type': 'application/json', 'x-padding': 'a'.repeat(20_000) });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: answer(m) }));
      return true;
    });
    await assert.rejects(s.client.callTool('echo', { text: 'big' }), (err: Error) => {
      assert.match(err.message, /the server's answer is not valid HTTP \(its headers are larger than 16 KB; HPE_HEADER_OVERFLOW\)/);
      assert.doesNotMatch(err.message, /cannot reach/);
      return true;
    });
    server.behave(undefined);
    assert.equal((await s.client.callTool('echo', { text: 'after' })).content[0]?.type, 'text');
    assert.deepEqual(s.closes, [], 'the session was not lost');
    await s.stop();
  });

  test('a JSON body broken off fails its request saying so; the session goes on', async () => {
    const s = makeHttpClient('http', server.url);
    await s.client.connect();
    server.behave((m, res) => {
      if (m.method !== 'tools/call') return false;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"jsonrpc":"2.0"');
      setTimeout(() => res.socket?.destroy(), 20);
      return true;
    });
    await assert.rejects(s.client.callTool('echo', { text: 'cut' }), (err: Error) => {
      assert.match(err.message, /the server broke off its answer to tools\/call request \(POST http:\/\/127\.0\.0\.1:\d+\/mcp: /);
      return true;
    });
    server.behave(undefined);
    assert.equal((await s.client.callTool('echo', { text: 'after' })).content[0]?.type, 'text');
    assert.deepEqual(s.closes, [], 'the session was not lost');
    await s.stop();
  });

  test('a redirect to a URL with credentials in it is refused as a redirect, naming no credentials', async () => {
    const s = makeHttpClient('http', server.url);
    await s.client.connect();
    const port = new URL(server.url).port;
    server.behave((m, res) => {
      if (m.method !== 'tools/call') return false;
      res.writeHead(307, { location: `http://someone:pa55word@127.0.0.1:${port}/mcp` }).end();
      return true;
    });
    await assert.rejects(s.client.callTool('echo', { text: 'moved' }), (err: Error) => {
      assert.match(err.message, /redirected to a URL with credentials in it; not followed/);
      assert.doesNotMatch(err.message, /pa55word|someone/);
      return true;
    });
    server.behave(undefined);
    assert.deepEqual(s.closes, [], 'the session was not lost');
    await s.stop();
  });

  test("an error status's reason phrase is cut short in the error", async () => {
    const s = makeHttpClient('http', server.url);
    await s.client.connect();
    server.behave((m, res) => {
      if (m.method !== 'tools/call') return false;
      res.writeHead(500, `Internal ${'x'.repeat(10_000)}`, { 'content-length': '0' }).end();
      return true;
    });
    await assert.rejects(s.client.callTool('echo', { text: 'fail' }), (err: Error) => {
      assert.match(err.message, /answered HTTP 500 Internal x+…/);
      assert.ok(err.message.length < 400, `an error of ${err.message.length} characters`);
      return true;
    });
    server.behave(undefined);
    await s.stop();
  });
});

/** A legacy HTTP+SSE server: GET /sse names /messages, where each POST is taken (202) and answered on the stream, unless held. */
async function startLegacyServer(): Promise<{ url: string; open: Set<Socket>; hold: (method: string | undefined) => void; close(): Promise<void> }> {
  let held: string | undefined;
  let stream: http.ServerResponse | undefined;
  const open = new Set<Socket>();
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: endpoint\ndata: /messages?session=1\n\n');
      stream = res;
      return;
    }
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const message = JSON.parse(body) as Message;
      if (message.method !== undefined && message.method === held) return; // never taken
      res.writeHead(202).end('Accepted');
      if (message.id === undefined || message.method === undefined) return;
      const reply = message.method === 'server/discover' ? { error: { code: -32601, message: 'Method not found' } } : { result: answer(message) };
      stream?.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, ...reply })}\n\n`);
    });
  });
  server.on('connection', (socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`,
    open,
    hold: (method) => (held = method),
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('The legacy HTTP+SSE transport: a POST the server never takes', () => {
  test('is given up after acceptTimeoutMs, failing its request with that, and the session goes on', async () => {
    const legacy = await startLegacyServer();
    const s = makeHttpClient('sse', legacy.url, { transport: { acceptTimeoutMs: 300 }, requestTimeoutMs: 10_000 });
    try {
      await s.client.connect();
      const before = legacy.open.size;
      legacy.hold('tools/call');
      const started = Date.now();
      await assert.rejects(s.client.callTool('echo', { text: 'held' }), /the server did not take tools\/call request within 300 ms/);
      assert.ok(Date.now() - started < 5_000, `failed after ${Date.now() - started} ms`);
      legacy.hold(undefined);
      await waitUntil(() => legacy.open.size <= before, () => `${legacy.open.size} connections open (${before} before)`);
      assert.equal((await s.client.callTool('echo', { text: 'after' })).content[0]?.type, 'text');
      assert.deepEqual(s.closes, [], 'the session was not lost');
    } finally {
      await s.stop();
      await legacy.close();
    }
  });
});
