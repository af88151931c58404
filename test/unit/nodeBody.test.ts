// #21: bodies read straight from node:http's IncomingMessage (nodeHttp.ts nodeBodyOf), and the
// same readers over a caller's own fetch (undici's WHATWG bodies): both paths count, cut, time
// out and fail alike. A real loopback node:http server; the first tests run once per fetch.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { getEventListeners } from 'node:events';
import * as net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { LightAbort, createNodeFetch, requestAbortFor } from '../../src/transport/nodeHttp';
import { WHOLE_READ_BYTES, arrivedBodyOf, nodeBodyOf } from '../../src/transport/nodeResponse';
import { BodyTooLargeError, EXCERPT_WAIT_MS, boundedResponse, drain, readBodyLimited, readTextLimited, readTextPrefix } from '../../src/transport/httpBody';
import { SseLimitError, readEventStream } from '../../src/transport/sseStream';
import type { EventSourceMessage } from 'eventsource-parser';
import { settledWithin } from '../helpers/http';

const socketClosings = new WeakMap<Socket, Promise<void>>();

/**
 * Resolves when the socket closes (never rejects: a reset is expected here). One listener per
 * socket: the server asks for each request of a kept-alive connection, and at each wait for a drain.
 */
function closed(socket: Socket): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  let closing = socketClosings.get(socket);
  if (closing === undefined) {
    closing = new Promise((resolve) => socket.once('close', () => resolve()));
    socketClosings.set(socket, closing);
  }
  return closing;
}

const BYTE_CHUNKED_TEXT = `{"text":"${'é-x'.repeat(25_000)}"}`;

/** Lets the client read what was written so far as its own chunk. */
const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('HTTP bodies read as they arrive (node:http and WHATWG fetch)', () => {
  let server: http.Server;
  let base: string;
  /** Sockets closed by the client (or the server), by request path. */
  const closedByPath = new Map<string, Promise<unknown>>();
  const agent = new http.Agent({ keepAlive: true });

  before(async () => {
    server = http.createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      closedByPath.set(path, closed(req.socket));
      req.socket.on('error', () => undefined); // a reset by the client is what several tests do
      void serve(path, req.socket, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function serve(path: string, socket: Socket, res: http.ServerResponse): Promise<void> {
    switch (path) {
      case '/endless': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(16 * 1024, 97);
        while (!res.destroyed && !socket.destroyed) {
          if (!res.write(chunk)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed(socket)]);
        }
        return;
      }
      case '/declared':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000000' });
        res.write('{"a":');
        return; // and waits
      case '/cut':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"a":');
        await pause();
        socket.destroy();
        return;
      case '/slow':
        // The start now, the rest never (the test aborts, or the excerpt's wait runs out).
        res.writeHead(403, { 'content-type': 'text/plain' });
        res.write('Access is only allowed at localhost:1234');
        return;
      case '/split-json': {
        // "é" (c3 a9) and "€" (e2 82 ac) split between chunks.
        res.writeHead(200, { 'content-type': 'application/json' });
        const bytes = Buffer.from('{"text":"é€"}');
        const at = bytes.indexOf(0xc3) + 1;
        res.write(bytes.subarray(0, at));
        await pause();
        res.write(bytes.subarray(at, at + 3));
        await pause();
        res.end(bytes.subarray(at + 3));
        return;
      }
      case '/split-sse': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const text = Buffer.from('id: 1\ndata: {"a":"é"}\n\nid: 2\nda' + 'ta: {"b":"€"}\n\n: comment\n\nevent: other\ndata: x\n\ndata: tail');
        // Cut inside "é", inside the field name "data", and inside "€".
        const cuts = [text.indexOf(0xc3) + 1, text.indexOf('da' + 'ta: {"b"') + 2, text.indexOf(0xe2) + 2, text.length];
        let from = 0;
        for (const cut of cuts) {
          res.write(text.subarray(from, cut));
          from = cut;
          await pause();
        }
        res.end();
        return;
      }
      case '/sparse': {
        // Four chunks 30 ms apart: an event stream that is mostly idle.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < 4; i++) {
          res.write(`data: ${i}\n\n`);
          await new Promise((resolve) => setTimeout(resolve, 30));
        }
        res.end();
        return;
      }
      case '/bom-sse':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(Buffer.from('\ufeffdata: {"a":1}\n\n'));
        return;
      case '/bom-json':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(Buffer.from('\ufeff{"a":1}'));
        return;
      case '/sse-big-event': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: ');
        const chunk = Buffer.alloc(16 * 1024, 97);
        while (!res.destroyed && !socket.destroyed) {
          if (!res.write(chunk)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed(socket)]);
        }
        return;
      }
      case '/two-chunks':
      case '/two-large-chunks': {
        // Two chunks in one write: both reach the client's parser at once. The large ones are
        // together over WHOLE_READ_BYTES: read chunk by chunk even though the whole body is there.
        const filler = path === '/two-large-chunks' ? ' '.repeat(WHOLE_READ_BYTES) : '';
        res.writeHead(200, { 'content-type': 'application/json' });
        socket.cork();
        res.write(`{"a":${filler}`);
        res.end('1}');
        socket.uncork();
        return;
      }
      case '/byte-chunks': {
        // A chunked body whose every chunk is one byte (the server decides): 100,000 of them.
        res.writeHead(200, { 'content-type': 'application/json' });
        const text = Buffer.from(BYTE_CHUNKED_TEXT);
        socket.cork();
        for (let i = 0; i < text.length; i++) res.write(text.subarray(i, i + 1));
        res.end();
        socket.uncork();
        return;
      }
      default:
        res.writeHead(404);
        res.end('no such path');
    }
  }

  const clients: Array<[string, typeof fetch]> = [
    ['node:http', createNodeFetch(() => agent)],
    ['WHATWG fetch', (input, init) => fetch(input, init)],
  ];

  for (const [name, fetchFn] of clients) {
    describe(name, () => {
      test('a body of one-byte chunks is read whole (held in ByteChunks, not a Buffer per byte)', async () => {
        assert.equal(await readTextLimited(await fetchFn(`${base}/byte-chunks`), 1_000_000, 'the answer'), BYTE_CHUNKED_TEXT);
        assert.equal(Buffer.from(await readBodyLimited(await fetchFn(`${base}/byte-chunks`), 1_000_000, 'the answer')).toString(), BYTE_CHUNKED_TEXT);
      });

      test('an endless body fails at the limit with the bytes seen, and the connection is closed', async () => {
        const res = await fetchFn(`${base}/endless`);
        await assert.rejects(readBodyLimited(res, 100_000, 'the answer'), (err: unknown) => {
          assert.ok(err instanceof BodyTooLargeError, String(err));
          assert.equal(err.declared, false);
          assert.ok(err.seenBytes > 100_000 && err.seenBytes < 100_000 + 1024 * 1024, String(err.seenBytes));
          return true;
        });
        await closedByPath.get('/endless');
      });

      test('a Content-Length over the limit fails before reading, and the connection is closed', async () => {
        const res = await fetchFn(`${base}/declared`);
        await assert.rejects(readBodyLimited(res, 1000, 'the answer'), /its Content-Length says 5000000/);
        await closedByPath.get('/declared');
      });

      test("a body cut short fails as fetch's does: TypeError 'terminated' with the cause", async () => {
        const res = await fetchFn(`${base}/cut`);
        await assert.rejects(readTextLimited(res, 1000, 'the answer'), (err: Error) => {
          assert.ok(err instanceof TypeError, String(err));
          assert.equal(err.message, 'terminated');
          assert.ok(err.cause instanceof Error);
          return true;
        });
      });

      test('an abort while the body arrives rejects the read with the AbortError, and the connection is closed', async () => {
        const controller = new AbortController();
        const res = await fetchFn(`${base}/slow`, { signal: controller.signal });
        const reading = readTextLimited(res, 1000, 'the answer');
        await pause();
        controller.abort();
        await assert.rejects(reading, (err: Error) => err.name === 'AbortError');
        await closedByPath.get('/slow');
      });

      test('an error body that never ends: the excerpt is what arrived within its wait, then the body is cancelled', async () => {
        const res = await fetchFn(`${base}/slow`);
        const started = Date.now();
        assert.equal(await readTextPrefix(res), 'Access is only allowed at localhost:1234');
        // Not a timing assertion: the wait is what ended the read (the body never ends).
        assert.ok(Date.now() - started >= EXCERPT_WAIT_MS - 50);
        await closedByPath.get('/slow');
      });

      test('characters split between chunks are decoded whole (JSON and SSE)', async () => {
        assert.equal(await readTextLimited(await fetchFn(`${base}/split-json`), 1000, 'x'), '{"text":"é€"}');
        const events: EventSourceMessage[] = [];
        await readEventStream(await fetchFn(`${base}/split-sse`), { onEvent: (e) => events.push(e), onRetry: () => undefined }, 1000);
        assert.deepEqual(
          events.map((e) => [e.id, e.event, e.data]),
          [
            ['1', undefined, '{"a":"é"}'],
            ['2', undefined, '{"b":"€"}'],
            [undefined, 'other', 'x'],
          ],
        );
      });

      test('a leading byte order mark is dropped, as TextDecoder does (JSON and SSE)', async () => {
        assert.equal(await readTextLimited(await fetchFn(`${base}/bom-json`), 1000, 'x'), '{"a":1}');
        const events: EventSourceMessage[] = [];
        await readEventStream(await fetchFn(`${base}/bom-sse`), { onEvent: (e) => events.push(e), onRetry: () => undefined }, 1000);
        assert.deepEqual(events.map((e) => e.data), ['{"a":1}']);
      });

      test('an SSE event over the limit fails the stream with SseLimitError, and the connection is closed', async () => {
        const res = await fetchFn(`${base}/sse-big-event`);
        await assert.rejects(readEventStream(res, { onEvent: () => undefined, onRetry: () => undefined }, 100_000), SseLimitError);
        await closedByPath.get('/sse-big-event');
      });

      test('an error thrown by the SSE sink stops the read with that error', async () => {
        const res = await fetchFn(`${base}/split-sse`);
        const stop = new Error('stop here');
        await assert.rejects(
          readEventStream(res, { onEvent: () => { throw stop; }, onRetry: () => undefined }, 1000),
          (err) => err === stop,
        );
      });

      test('a drained small body leaves the connection for the next request', async () => {
        const res = await fetchFn(`${base}/missing`);
        assert.equal(res.status, 404);
        await drain(res);
        assert.equal(await readTextLimited(await fetchFn(`${base}/split-json`), 1000, 'x'), '{"text":"é€"}');
      });
    });
  }

  describe('the node:http response itself', () => {
    const nodeFetch = createNodeFetch(() => agent);

    test('a LightAbort aborts our fetch like an AbortSignal: mid-body, and before the request; other fetches get an AbortController', async () => {
      const light = requestAbortFor(nodeFetch);
      assert.ok(light instanceof LightAbort);
      assert.ok(requestAbortFor((input, init) => fetch(input, init)) instanceof AbortController);
      const res = await nodeFetch(`${base}/slow`, { signal: light.signal });
      const reading = readTextLimited(res, 1000, 'x');
      await pause();
      light.abort();
      await assert.rejects(reading, (err: Error) => err.name === 'AbortError');
      await closedByPath.get('/slow');
      await assert.rejects(nodeFetch(`${base}/split-json`, { signal: light.signal }), (err: Error) => err.name === 'AbortError');
    });

    test('headers: read without case, repeated ones joined, iterable; read-only', async () => {
      const local = http.createServer((_req, res) => {
        res.setHeader('X-Twice', ['a', 'b']);
        res.setHeader('Content-Type', 'application/json');
        res.end('{"ok":true}');
      });
      await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
      try {
        const res = await nodeFetch(`http://127.0.0.1:${(local.address() as AddressInfo).port}/`);
        assert.equal(res.headers.get('x-twice'), 'a, b');
        assert.equal(res.headers.get('CONTENT-TYPE'), 'application/json');
        assert.equal(res.headers.has('x-none'), false);
        assert.equal(res.headers.get('x-none'), null);
        assert.deepEqual([...res.headers].find(([n]) => n === 'x-twice'), ['x-twice', 'a, b']);
        assert.equal(new Headers(res.headers).get('x-twice'), 'a, b');
        assert.throws(() => res.headers.set('x-twice', 'c'), TypeError);
        assert.equal(res.ok, true);
        assert.equal(res.bodyUsed, false);
        assert.deepEqual(await res.json(), { ok: true });
        assert.equal(res.bodyUsed, true);
        await assert.rejects(res.text(), TypeError);
      } finally {
        local.closeAllConnections();
        await new Promise((resolve) => local.close(resolve));
      }
    });

    test("cancel() while a read is paused with the body's end parsed but unread: the read ends (stopped), it does not wait forever", async () => {
      const res = await nodeFetch(`${base}/two-large-chunks`);
      // What the reader's time slice does (nodeResponse.ts readDirect): pause the message.
      const message = (res as unknown as { message: http.IncomingMessage }).message;
      const body = nodeBodyOf(res)!;
      let cancelled = false;
      const reading = body.read(() => {
        message.pause();
        setImmediate(() => {
          assert.equal(message.complete, true, 'node:http has parsed the whole body');
          cancelled = true;
          body.cancel();
        });
        return true;
      });
      assert.deepEqual(await settledWithin(reading, 2_000), { value: 'stopped' });
      assert.equal(cancelled, true);
    });

    test('a small body that has arrived whole is read in one piece, at once, and its connection serves the next request', async () => {
      const res = await nodeFetch(`${base}/two-chunks`);
      const message = (res as unknown as { message: http.IncomingMessage }).message;
      assert.equal(message.complete, true, 'node:http parsed both chunks with the headers');
      const chunks: string[] = [];
      let settledAt: 'sync' | 'later' | undefined;
      const reading = nodeBodyOf(res)!
        .read((chunk) => {
          chunks.push(chunk.toString());
          return true;
        })
        .then((end) => {
          settledAt ??= 'later';
          return end;
        });
      // The chunk was handed over within read() itself: no 'data' event, no tick.
      assert.deepEqual(chunks, ['{"a":1}']);
      settledAt = 'sync';
      assert.equal(await reading, 'ended');
      assert.equal(settledAt, 'sync');
      // node:http still sees the body's end and gives the socket back: the next request reuses it.
      const socket = message.socket;
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(message.readableEnded, true);
      const next = await nodeFetch(`${base}/two-chunks`);
      assert.equal((next as unknown as { message: http.IncomingMessage }).message.socket, socket, 'the kept-alive connection was reused');
      assert.equal(await readTextLimited(next, 1000, 'x'), '{"a":1}');
      // A reader that stops (over its limit) stops it too: the body is destroyed, the read says so.
      const stopped = await nodeFetch(`${base}/two-chunks`);
      assert.equal(await nodeBodyOf(stopped)!.read(() => false), 'stopped');
      assert.equal((stopped as unknown as { message: http.IncomingMessage }).message.destroyed, true);
      // One that throws: the read rejects with what it threw.
      const thrown = await nodeFetch(`${base}/two-chunks`);
      const boom = new Error('boom');
      await assert.rejects(nodeBodyOf(thrown)!.read(() => { throw boom; }), (err) => err === boom);
    });

    test('arrivedBodyOf: a small body that has arrived whole is taken in one piece; one over WHOLE_READ_BYTES or still arriving is left to the reader', async () => {
      const controller = new AbortController();
      const res = await nodeFetch(`${base}/two-chunks`, { signal: controller.signal });
      const message = (res as unknown as { message: http.IncomingMessage }).message;
      assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
      assert.equal(arrivedBodyOf(res)?.toString(), '{"a":1}');
      assert.equal(res.bodyUsed, true);
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'the request is over: its abort listener is gone at once');
      assert.equal(nodeBodyOf(res), undefined, 'taken once');
      // node:http sees the body's end and gives the socket back: the next request reuses it.
      const socket = message.socket;
      await new Promise((resolve) => setImmediate(resolve));
      const next = await nodeFetch(`${base}/two-chunks`);
      assert.equal((next as unknown as { message: http.IncomingMessage }).message.socket, socket, 'the kept-alive connection was reused');
      await drain(next);
      const large = await nodeFetch(`${base}/two-large-chunks`);
      assert.equal(arrivedBodyOf(large), undefined);
      assert.equal((await readTextLimited(large, 2 * WHOLE_READ_BYTES, 'x')).length, WHOLE_READ_BYTES + 7);
      const endless = await nodeFetch(`${base}/endless`);
      assert.equal(arrivedBodyOf(endless), undefined);
      assert.equal(endless.bodyUsed, false);
      await assert.rejects(readBodyLimited(endless, 100_000, 'the endless body'), BodyTooLargeError);
    });

    test('a read after the body was cancelled whole, or after it was read to its end, settles at once', async () => {
      const res = await nodeFetch(`${base}/bom-json`);
      const message = (res as unknown as { message: http.IncomingMessage }).message;
      const body = nodeBodyOf(res)!;
      for (let waited = 0; !message.complete && waited < 2_000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(message.complete, true, 'the whole body arrived');
      body.cancel();
      assert.deepEqual(await settledWithin(body.read(() => true), 2_000), { value: 'stopped' });
      const read = await nodeFetch(`${base}/bom-json`);
      const readBody = nodeBodyOf(read)!;
      assert.equal(await readBody.read(() => true), 'ended');
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(await settledWithin(readBody.read(() => true), 2_000), { value: 'ended' });
    });

    test('a stream that owes nothing from the start still hands over what its first chunk carries, and ends', async () => {
      const events: EventSourceMessage[] = [];
      const res = await nodeFetch(`${base}/bom-sse`);
      await readEventStream(res, { onEvent: (e) => events.push(e), onRetry: () => undefined }, 1000, () => true);
      assert.deepEqual(events.map((e) => e.data), ['{"a":1}']);
    });

    test('time slices: a chunk after an idle body starts a new slice (no pause per sparse event); a long run of work pauses', async () => {
      /** Reads `path` with `workMs` of busy work per chunk; counts the reader's pauses of the message. */
      const pausesWhileReading = async (path: string, workMs: number) => {
        const res = await nodeFetch(`${base}${path}`);
        const message = (res as unknown as { message: http.IncomingMessage }).message;
        let pauses = 0;
        const pauseMessage = message.pause.bind(message);
        message.pause = () => {
          pauses++;
          return pauseMessage();
        };
        let chunks = 0;
        const end = await nodeBodyOf(res)!.read(() => {
          chunks++;
          for (const until = performance.now() + workMs; performance.now() < until; );
          return true;
        });
        return { end, chunks, pauses };
      };
      const sparse = await pausesWhileReading('/sparse', 0);
      assert.equal(sparse.end, 'ended');
      // (Under load two writes may come as one chunk; the count of pauses holds either way.)
      assert.equal(sparse.pauses, 0, `no chunk of a sparse stream paused the body (${sparse.chunks} chunks)`);
      // 9 ms of work per chunk, each 30 ms apart: every chunk is a new slice that ran past 8 ms.
      const busy = await pausesWhileReading('/sparse', 9);
      assert.equal(busy.end, 'ended');
      assert.ok(busy.pauses >= 1, `work past a slice's length paused the body (${busy.pauses})`);
    });

    test('a reason phrase with a control character is dropped (the answer stays readable); a proper one is kept', async () => {
      const heads = ['HTTP/1.1 200 O\x01K', 'HTTP/1.1 200 Fine\x7f', 'HTTP/1.1 201 Created \xe9t\xe9'];
      const local = net.createServer((socket) => {
        socket.on('error', () => undefined);
        socket.once('data', () => socket.end(Buffer.from(`${heads.shift()!}\r\nContent-Length: 2\r\n\r\nok`, 'latin1')));
      });
      await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(local.address() as AddressInfo).port}/`;
      try {
        for (const expected of ['', '', 'Created \xe9t\xe9']) {
          const res = await nodeFetch(url);
          assert.equal(res.statusText, expected);
          assert.equal(await (await boundedResponse(res, 100, 'the answer')).text(), 'ok');
        }
      } finally {
        await new Promise((resolve) => local.close(resolve));
      }
    });

    test('the body is taken once: by a direct reader, or by the web stream', async () => {
      const direct = await nodeFetch(`${base}/split-json`);
      const taken = nodeBodyOf(direct);
      assert.ok(taken !== undefined);
      assert.equal(nodeBodyOf(direct), undefined);
      await assert.rejects(direct.text(), TypeError);
      taken.cancel();
      const streamed = await nodeFetch(`${base}/split-json`);
      assert.ok(streamed.body !== null);
      assert.equal(nodeBodyOf(streamed), undefined);
      assert.equal(await readTextLimited(streamed, 1000, 'x'), '{"text":"é€"}');
    });
  });
});
