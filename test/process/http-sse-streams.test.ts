// The SSE streams of the Streamable HTTP transport against servers that send valid but unusual
// streams, or hostile values: CR-only line endings, event ids that cannot go back in a header,
// a `retry:` past what a timer holds, and POST answer streams the server never ends. Real
// loopback node:http servers, each scripted per test; the client is McpClient over the transport.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { McpClient } from '../../src/protocol/client';
import { RemoteError } from '../../src/protocol/errors';
import { createHttpTransport, STREAM_LOST_ERROR_CODE, type HttpTransportOptions } from '../../src/transport/http';
import type { TransportCloseInfo, TransportWarning } from '../../src/transport/transport';
import { httpEraCache } from '../../src/protocol/eraCache';
import { getStreamMemory, legacySseEndpoints } from '../../src/transport/endpointMemory';
import { onPostedJson } from '../helpers/http';
import { waitFor } from '../helpers/servers';

afterEach(() => {
  httpEraCache.clear();
  getStreamMemory.clear();
  legacySseEndpoints.clear();
});

interface Call {
  readonly id: number;
  readonly text: string;
  readonly req: http.IncomingMessage;
  readonly res: http.ServerResponse;
}

interface Script {
  /** Answers tools/call (default: one JSON answer echoing `text`). */
  call?(call: Call): void;
  /** Answers initialize (default: JSON) with `result`. */
  initialize?(call: Call, result: unknown): void;
  /** Answers a GET (default 405). `n`: how many GETs came before, this one included. */
  get?(req: http.IncomingMessage, res: http.ServerResponse, n: number): void;
  /** Answers a POST of a notification or a response (default: notifications 202, responses 400). */
  owedNothing?(res: http.ServerResponse): void;
}

interface Served {
  readonly url: string;
  readonly port: number;
  /** Last-Event-ID of each GET, as the bytes that arrived (decoded as UTF-8), or null. */
  readonly lastEventIds: (string | null)[];
  gets(): number;
  /** Connections the server accepted. */
  connections(): number;
  close(): Promise<void>;
}

/** A legacy-era Streamable HTTP server: initialize and tools/call over POST, notifications 202, the rest scripted. */
async function serve(script: Script): Promise<Served> {
  const lastEventIds: (string | null)[] = [];
  let gets = 0;
  let connections = 0;
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      gets++;
      const raw = req.headers['last-event-id'];
      // node:http decodes header bytes as latin1: back to the bytes, then UTF-8.
      lastEventIds.push(typeof raw === 'string' ? Buffer.from(raw, 'latin1').toString('utf8') : null);
      if (script.get) script.get(req, res, gets);
      else res.writeHead(405).end();
      return;
    }
    onPostedJson<{ id?: number; method: string; params?: { protocolVersion?: string; arguments?: { text?: string } } }>(req, res, (message) => {
      const json = (result: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      };
      if (script.owedNothing && (message.id === undefined || message.method === undefined)) script.owedNothing(res);
      else if (message.id === undefined) res.writeHead(202).end();
      else if (message.method === 'initialize') {
        const result = { protocolVersion: message.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'sse-streams', version: '1.0.0' } };
        if (script.initialize) script.initialize({ id: message.id, text: '', req, res }, result);
        else json(result);
      } else if (message.method === 'tools/call') {
        const call = { id: message.id, text: message.params?.arguments?.text ?? '', req, res };
        if (script.call) script.call(call);
        else json(echoResult(call.text));
      } else res.writeHead(400).end('not here');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    lastEventIds,
    gets: () => gets,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function echoResult(text: string) {
  return { content: [{ type: 'text', text }] };
}

function answer(id: number, text: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result: echoResult(text) });
}

function note(text: string): string {
  return JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: text } });
}

/** The sockets of this process connected to `port`. */
function socketsTo(port: number): Socket[] {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter((h): h is Socket => h instanceof Socket && h.remotePort === port && !h.destroyed);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const LABEL = "server 'sse'";

/** A legacy-era client of `url` that records warnings, log lines, closes and the server's log notifications. */
function client(url: string, transport: Partial<HttpTransportOptions> = {}) {
  const warnings: TransportWarning[] = [];
  const logs: string[] = [];
  const closes: TransportCloseInfo[] = [];
  const notes: string[] = [];
  const t = createHttpTransport('http', { url, label: LABEL, ...transport });
  t.onWarning((w) => warnings.push(w));
  t.onLog((line) => logs.push(line));
  t.onClose((info) => closes.push(info));
  const c = new McpClient(t, { label: LABEL, clientInfo: { name: 'sse-streams-test', version: '0' }, protocolEra: 'legacy', requestTimeoutMs: 10_000 });
  c.onLogMessage((params) => notes.push(String(params.data)));
  return {
    c,
    t,
    warnings,
    logs,
    closes,
    notes,
    async call(text: string): Promise<string> {
      const result = await c.callTool('echo', { text });
      return (result.content[0] as { text: string }).text;
    },
    async stop(): Promise<void> {
      await c.close();
      c.dispose();
    },
  };
}

describe('SSE with CR-only line endings (valid SSE)', () => {
  test('an answer whose stream ends right after its CR-terminated event arrives', async () => {
    const s = await serve({
      call: ({ id, text, res }) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // One chunk ending in the CR that ends the event: nothing follows it but the end of the body.
        res.end(`id: 1\rdata: ${note(`before ${text}`)}\r\rid: 2\rdata: ${answer(id, `cr: ${text}`)}\r\r`);
      },
    });
    const k = client(s.url);
    try {
      await k.c.connect();
      assert.equal(await k.call('a'), 'cr: a');
      assert.equal(await k.call('b'), 'cr: b');
      await waitFor(() => k.notes.length === 2, 2000, 'the notifications before the answers');
      assert.deepEqual(k.notes, ['before a', 'before b']);
    } finally {
      await k.stop();
      await s.close();
    }
  });

  test('an event not followed by a blank line is still dropped at the end of the body (the SSE standard)', async () => {
    const s = await serve({
      call: ({ id, res }) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${answer(id, 'unterminated')}\r`);
      },
    });
    const k = client(s.url);
    try {
      await k.c.connect();
      await assert.rejects(k.call('x'), (err: unknown) => err instanceof RemoteError && err.code === STREAM_LOST_ERROR_CODE && /sent no event id/.test(err.message));
    } finally {
      await k.stop();
      await s.close();
    }
  });

  test('an event on the GET stream that ends in CR is delivered without waiting for the next chunk', async () => {
    let stream: http.ServerResponse | undefined;
    const s = await serve({
      get: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${note('pushed')}\r\r`);
        stream = res; // kept open, nothing more written
      },
    });
    const k = client(s.url);
    try {
      await k.c.connect();
      await waitFor(() => k.notes.length === 1, 2000, 'the notification on the GET stream');
      assert.deepEqual(k.notes, ['pushed']);
    } finally {
      stream?.destroy();
      await k.stop();
      await s.close();
    }
  });
});

describe('event ids that cannot be sent back as Last-Event-ID', () => {
  /** tools/call: notifications with `ids`, then the stream is cut before the answer; a GET with an id resumes it. */
  function dropThenResume(...ids: string[]): Script {
    let pending: { id: number; text: string } | undefined;
    return {
      call: ({ id: requestId, text, res }) => {
        pending = { id: requestId, text };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const id of ids) res.write(`id: ${id}\ndata: ${note(`working on ${text}`)}\n\n`);
        setTimeout(() => res.socket?.destroy(), 30);
      },
      get: (req, res) => {
        if (req.headers['last-event-id'] === undefined || pending === undefined) {
          res.writeHead(405).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`id: done\ndata: ${answer(pending.id, `resumed: ${pending.text}`)}\n\n`);
      },
    };
  }

  const reconnect = { initialDelayMs: 10, maxDelayMs: 50, maxAttempts: 3 };

  for (const [name, id] of [
    ['a control character', 'a\x01b'],
    ['DEL', 'evt\x7f1'],
    ['more than 1,024 characters', 'x'.repeat(1025)],
  ] as const) {
    test(`an id with ${name}: the request fails naming the stream, once warned, and the transport stays up`, async () => {
      // Two such ids, after one that could be sent: the stream has no id to resume from (not the older one).
      const s = await serve(dropThenResume('fine-1', id, `${id}2`));
      const k = client(s.url, { reconnect });
      try {
        await k.c.connect();
        await assert.rejects(k.call('x'), (err: unknown) => {
          assert.ok(err instanceof RemoteError && err.code === STREAM_LOST_ERROR_CODE, String(err));
          assert.match(err.message, /server 'sse'.*event stream carrying the answer was lost.*sent no event id/);
          return true;
        });
        const idWarnings = k.warnings.filter((w) => /event id/.test(w.message));
        assert.equal(idWarnings.length, 1, JSON.stringify(k.warnings));
        assert.match(idWarnings[0].message, /cannot be sent back/);
        assert.ok(!/[\x00-\x1f\x7f]/.test(idWarnings[0].excerpt ?? ''), 'the excerpt is escaped');
        // No GET with the id was tried (it could not have been sent), and the server is not lost.
        assert.deepEqual(s.lastEventIds.filter((sent) => sent !== null), []);
        assert.deepEqual(k.closes, []);
        assert.ok(!k.logs.some((line) => /cannot reach/.test(line)), k.logs.join('\n'));
      } finally {
        await k.stop();
        await s.close();
      }
    });
  }

  test('an id with a control character on the GET stream: it reconnects without one, and the server is not declared lost', async () => {
    let open: http.ServerResponse | undefined;
    const s = await serve({
      get: (_req, res, n) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (n === 1) {
          res.end(`id: a\x01b\ndata: ${note('first')}\n\n`);
          return;
        }
        res.write(`data: ${note(`get ${n}`)}\n\n`);
        open = res;
      },
    });
    const k = client(s.url, { reconnect });
    try {
      await k.c.connect();
      await waitFor(() => k.notes.length === 2, 3000, `the second GET's event (${k.logs.join('; ')})`);
      assert.deepEqual(k.notes, ['first', 'get 2']);
      assert.deepEqual(s.lastEventIds, [null, null]);
      assert.equal(k.warnings.filter((w) => /event id/.test(w.message)).length, 1);
      assert.deepEqual(k.closes, []);
    } finally {
      open?.destroy();
      await k.stop();
      await s.close();
    }
  });

  test('a non-ASCII id is sent back as the UTF-8 bytes the server sent, and the answer resumes', async () => {
    const id = 'évt-事件-1';
    const s = await serve(dropThenResume(id));
    const k = client(s.url, { reconnect });
    try {
      await k.c.connect();
      assert.equal(await k.call('x'), 'resumed: x');
      assert.deepEqual(s.lastEventIds.filter((sent) => sent !== null), [id]);
      assert.deepEqual(k.warnings, []);
    } finally {
      await k.stop();
      await s.close();
    }
  });
});

describe("the server's retry: is bounded", () => {
  /** A GET stream that sends `retry: value` and an event, then ends; counts the GETs and the process's TimeoutOverflowWarnings over `ms`. */
  async function getsOver(value: string, ms: number, transport: Partial<HttpTransportOptions>) {
    const overflows: string[] = [];
    const onWarning = (w: Error) => {
      if (w.name === 'TimeoutOverflowWarning') overflows.push(w.message);
    };
    process.on('warning', onWarning);
    const s = await serve({
      get: (_req, res, n) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // An event each time: the attempts start over, so only the delay bounds the loop.
        res.end(`retry: ${value}\nid: g${n}\ndata: ${note(`get ${n}`)}\n\n`);
      },
    });
    const k = client(s.url, transport);
    try {
      await k.c.connect();
      const start = s.gets();
      await sleep(ms);
      return { gets: s.gets() - start, overflows };
    } finally {
      await k.stop();
      await s.close();
      // A warning is emitted on the next tick.
      await sleep(10);
      process.off('warning', onWarning);
    }
  }

  test('retry: 99999999999 (past what a timer holds) waits the longest reconnect delay, not 1 ms', async () => {
    const { gets, overflows } = await getsOver('99999999999', 1500, { reconnect: { maxDelayMs: 600 } });
    assert.equal(overflows.length, 0, 'TimeoutOverflowWarnings');
    assert.ok(gets <= 4, `${gets} GETs in 1.5 s`);
  });

  test('retry: 0 cannot make the client spin', async () => {
    const { gets } = await getsOver('0', 1000, {});
    // 100 ms at least between attempts: at most about 10 in a second (more when the loop spins).
    assert.ok(gets <= 12, `${gets} GETs in 1 s`);
  });
});

describe('POST answer streams the server keeps open after the answer', () => {
  test('200 calls leave no socket open, and messages before the answer arrive', async () => {
    const held: http.ServerResponse[] = [];
    let closed = 0;
    const s = await serve({
      call: ({ id, text, res }) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // The notification and the answer in one chunk; the stream is never ended.
        res.write(`id: ${id}-1\ndata: ${note(`before ${text}`)}\n\nid: ${id}-2\ndata: ${answer(id, text)}\n\n`);
        res.on('close', () => closed++);
        held.push(res);
      },
    });
    const k = client(s.url);
    try {
      await k.c.connect();
      for (let i = 0; i < 200; i++) assert.equal(await k.call(`c${i}`), `c${i}`);
      await waitFor(() => k.notes.length === 200, 2000, 'the notifications');
      assert.equal(k.notes[199], 'before c199');
      // The client's sockets to the server: those of the answer streams are closed.
      await waitFor(() => socketsTo(s.port).length <= 2, 2000, `sockets closed (${socketsTo(s.port).length} open)`);
      await waitFor(() => closed === 200, 2000, `the server saw the streams closed (${closed} of 200)`);
      assert.ok(held.every((res) => !res.writableEnded), 'the server never ended a stream');
      assert.deepEqual(k.warnings, []);
    } finally {
      for (const res of held) res.destroy();
      await k.stop();
      await s.close();
    }
  });

  test('an initialize answered on a stream kept open releases its socket too', async () => {
    const held: http.ServerResponse[] = [];
    let closed = 0;
    const s = await serve({
      initialize: ({ id, res }, result) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`id: i1\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
        res.on('close', () => closed++);
        held.push(res);
      },
    });
    const k = client(s.url);
    try {
      await k.c.connect();
      assert.equal(await k.call('after'), 'after');
      await waitFor(() => closed === 1, 2000, 'the initialize stream closed');
      assert.ok(!held[0].writableEnded, 'the server never ended it');
    } finally {
      for (const res of held) res.destroy();
      await k.stop();
      await s.close();
    }
  });
});

describe('a POST that owes nothing (notifications, our answers) answered with an event stream', () => {
  const notification = { jsonrpc: '2.0', method: 'notifications/roots/list_changed' };
  const response = (i: number) => ({ jsonrpc: '2.0', id: `server-ping-${i}`, result: {} });

  test('a stream that never sends a byte is let go after the grace: no socket of it stays open', { timeout: 20_000 }, async () => {
    const held: http.ServerResponse[] = [];
    let open = 0;
    const s = await serve({
      owedNothing: (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        open++;
        res.on('close', () => open--);
        held.push(res);
      },
    });
    const k = client(s.url, { acceptTimeoutMs: 5000 });
    try {
      await k.c.connect();
      // As many notifications as answers to requests of the server's (a ping on the GET stream).
      await Promise.all(Array.from({ length: 40 }, (_, i) => k.t.send(i % 2 ? notification : response(i))));
      // notifications/initialized of the handshake was answered so too.
      assert.equal(held.length, 41);
      await waitFor(() => open === 0, 4000, `the streams closed after the grace (${open} of 41 open)`);
      await waitFor(() => socketsTo(s.port).length <= 1, 2000, `sockets closed (${socketsTo(s.port).length} open)`);
      assert.ok(held.every((res) => !res.writableEnded), 'the server never ended a stream');
      // The session goes on.
      assert.equal(await k.call('after'), 'after');
      assert.deepEqual(k.closes, []);
      assert.deepEqual(k.warnings, []);
    } finally {
      for (const res of held) res.destroy();
      await k.stop();
      await s.close();
    }
  });

  test('a stream the server ends promptly leaves its connection to be used again', { timeout: 20_000 }, async () => {
    let ended = 0;
    let n = 0;
    const s = await serve({
      owedNothing: (res) => {
        res.on('finish', () => ended++);
        // Every other one ends with its headers; the others a little later, with a comment first.
        if (n++ % 2 === 0) res.writeHead(200, { 'content-type': 'text/event-stream' }).end();
        else {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(': nothing to say\n\n');
          setTimeout(() => res.end(), 20);
        }
      },
    });
    const k = client(s.url);
    try {
      await k.c.connect();
      await waitFor(() => ended === 1, 2000, 'the answer to notifications/initialized');
      await sleep(5);
      const before = s.connections();
      for (let i = 0; i < 20; i++) {
        await k.t.send(i % 2 ? notification : response(i));
        await waitFor(() => ended === i + 2, 2000, `the stream of message ${i} ended`);
        // Its socket is back in the pool before the next message goes.
        await sleep(5);
      }
      assert.equal(s.connections() - before, 0, `${s.connections() - before} new connections for 20 messages`);
      assert.equal(await k.call('after'), 'after');
      assert.deepEqual(k.closes, []);
    } finally {
      await k.stop();
      await s.close();
    }
  });
});

describe('answer streams that arrive whole (read in one step, #21)', () => {
  /** The transport's record of POSTs under way (white box: a request left in it would never leave). */
  function postsUnderWay(k: ReturnType<typeof client>): number {
    return (k.t as unknown as { inner: { inFlight: Map<unknown, unknown> } }).inner.inFlight.size;
  }

  test('100 answers, each a whole stream with a notification before the answer: every message arrives, and no POST stays recorded as under way', async () => {
    const s = await serve({
      call: ({ id, text, res }) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`event: message\ndata: ${note(`before ${text}`)}\n\nevent: message\ndata: ${answer(id, text)}\n\n`);
      },
    });
    const k = client(s.url);
    try {
      await k.c.connect();
      const texts = await Promise.all(Array.from({ length: 100 }, (_, i) => k.call(`w${i}`)));
      assert.deepEqual(texts, Array.from({ length: 100 }, (_, i) => `w${i}`));
      await waitFor(() => k.notes.length === 100, 2000, 'the notifications');
      assert.equal(postsUnderWay(k), 0);
      assert.deepEqual(k.warnings, []);
    } finally {
      await k.stop();
      await s.close();
    }
  });

  test('an unended last line over the size limit: ignored on a stream that owes nothing, refused on one that owes the answer', async () => {
    const unended = `data: ${'x'.repeat(6000)}`;
    const s = await serve({
      owedNothing: (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(unended),
      call: ({ id, text, res }) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(text === 'cut' ? `data: ${answer(id, text)}\n\n${unended}` : unended);
      },
    });
    // The event size limit: the message limit and 4 KiB of room (resumableStreams.ts parserLimit).
    const k = client(s.url, { maxMessageBytes: 1000 });
    try {
      await k.c.connect();
      await k.t.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
      assert.deepEqual(k.warnings, [], 'what a stream that owes nothing leaves unended is not read');
      // The answer first, then the unended line: the answer is delivered, and nothing is warned (as before the one-step read).
      assert.equal(await k.call('cut'), 'cut');
      assert.deepEqual(k.warnings, []);
      await assert.rejects(k.call('owed'), (err: Error) => /stream/.test(err.message));
      assert.match((k.warnings as TransportWarning[]).map((w) => w.message).join('\n'), /an SSE event is larger than the limit of 5096 bytes.*; the stream was dropped/);
      assert.equal(postsUnderWay(k), 0);
    } finally {
      await k.stop();
      await s.close();
    }
  });
});
