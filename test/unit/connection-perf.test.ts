import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { JsonRpcConnection } from '../../src/protocol/connection';
import { ConnectionClosedError, RequestTimeoutError } from '../../src/protocol/errors';
import { Emitter } from '../../src/util/event';
import { classifyMessage, isResultResponse } from '../../src/protocol/jsonrpc';
import type { SendOptions, Transport, TransportCloseInfo, TransportWarning } from '../../src/transport/transport';

/**
 * The connection's performance paths keep its behaviour: one timeout timer shared by all
 * requests, and one failure handler per write promise a transport shares between messages.
 */

/** A transport whose send() returns one promise per tick for all messages, like StdioTransport. */
class BatchingTransport implements Transport {
  readonly sent: any[] = [];
  readonly onMessageEmitter = new Emitter<unknown>();
  readonly onMessage = this.onMessageEmitter.event;
  readonly onClose = new Emitter<TransportCloseInfo>().event;
  readonly onWarning = new Emitter<TransportWarning>().event;
  readonly onLog = new Emitter<string>().event;
  readonly isClosed = false;
  private batch: { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } | undefined;
  failNext: Error | undefined;
  batches = 0;

  async start(): Promise<void> {}
  async close(): Promise<void> {}

  send(message: unknown): Promise<void> {
    this.sent.push(message);
    if (!this.batch) {
      let resolve!: () => void;
      let reject!: (e: Error) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const batch = (this.batch = { promise, resolve, reject });
      this.batches++;
      process.nextTick(() => {
        this.batch = undefined;
        const failure = this.failNext;
        this.failNext = undefined;
        if (failure) batch.reject(failure);
        else batch.resolve();
      });
    }
    return this.batch.promise;
  }
}

const tick = () => new Promise((r) => setImmediate(r));

describe('JsonRpcConnection performance paths', () => {
  test('a failed shared write fails every request it carried, and only those', async () => {
    const transport = new BatchingTransport();
    const connection = new JsonRpcConnection(transport, { label: "server 'b'" });
    transport.failNext = new Error('EPIPE');
    const first = Promise.allSettled([connection.request('a'), connection.request('b'), connection.request('c')]);
    await tick();
    const later = connection.request('d');
    await tick();
    assert.equal(transport.batches, 2);
    for (const r of await first) {
      assert.equal(r.status, 'rejected');
      const err = (r as PromiseRejectedResult).reason;
      assert.ok(err instanceof ConnectionClosedError && /Could not send [abc] to server 'b': EPIPE/.test(err.message), String(err));
    }
    transport.onMessageEmitter.fire({ jsonrpc: '2.0', id: transport.sent[3].id, result: { ok: true } });
    assert.deepEqual(await later, { ok: true });
    assert.equal(connection.pendingCount, 0);
  });

  test('one shared timer: each request still times out after its own timeout', async () => {
    const transport = new BatchingTransport();
    const connection = new JsonRpcConnection(transport, { label: "server 't'" });
    const started = Date.now();
    const slow = connection.request('slow', {}, undefined, { timeoutMs: 200 });
    const fast = connection.request('fast', {}, undefined, { timeoutMs: 40 });
    const answered = connection.request('answered', {}, undefined, { timeoutMs: 60 });
    await tick();
    transport.onMessageEmitter.fire({ jsonrpc: '2.0', id: transport.sent[2].id, result: {} });
    await answered;
    await assert.rejects(fast, RequestTimeoutError);
    const fastAt = Date.now() - started;
    await assert.rejects(slow, RequestTimeoutError);
    const slowAt = Date.now() - started;
    assert.ok(fastAt >= 35 && fastAt < 190, `fast timed out after ${fastAt} ms`);
    assert.ok(slowAt >= 195, `slow timed out after ${slowAt} ms`);
    // Both timeouts told the server to stop.
    const cancelled = transport.sent.filter((m) => m.method === 'notifications/cancelled').map((m) => m.params.requestId);
    assert.deepEqual(cancelled.sort(), [transport.sent[0].id, transport.sent[1].id].sort());
  });

  test('the timer keeps the process alive only while something is pending (a CLI can exit)', async () => {
    const transport = new BatchingTransport();
    const connection = new JsonRpcConnection(transport, { label: "server 'x'" });
    const timer = () => (connection as any).timeoutTimer as NodeJS.Timeout | undefined;
    const p = connection.request('x', {}, undefined, { timeoutMs: 60_000 });
    await tick();
    assert.equal(timer()?.hasRef(), true);
    transport.onMessageEmitter.fire({ jsonrpc: '2.0', id: transport.sent[0].id, result: {} });
    await p;
    assert.equal(timer()?.hasRef() ?? false, false);
    const q = connection.request('y', {}, undefined, { timeoutMs: 60_000 });
    await tick();
    assert.equal(timer()?.hasRef(), true);
    connection.dispose();
    await assert.rejects(q);
    assert.equal(timer(), undefined);
  });

  test('a request is sent alone when it and the one before it were each the only one under way (a sequential caller)', async () => {
    const transport = new BatchingTransport();
    const alone: string[] = [];
    const send = transport.send.bind(transport);
    transport.send = (message: unknown, options?: SendOptions) => {
      alone.push(`${(message as { method: string }).method}:${options?.alone === true}`);
      return send(message);
    };
    const connection = new JsonRpcConnection(transport, { label: "server 's'" });
    const answer = (...requests: Array<Promise<unknown>>) => {
      for (const m of transport.sent.slice(-requests.length)) transport.onMessageEmitter.fire({ jsonrpc: '2.0', id: m.id, result: {} });
      return Promise.all(requests);
    };
    await connection.notify('notifications/initialized');
    for (const method of ['a', 'b', 'c']) await answer(connection.request(method));
    // A notification between two lone requests: the next is not sent alone.
    await connection.notify('notifications/progress');
    for (const method of ['d', 'e']) await answer(connection.request(method));
    // Two at once (the first still follows a lone request), answered in one go; then the next
    // two, whose first finds nothing else under way, but follows a request that was not alone:
    // the window of a concurrent caller whose answers came together stays one write.
    await answer(connection.request('x'), connection.request('y'));
    await answer(connection.request('x2'), connection.request('y2'));
    assert.deepEqual(alone, [
      'notifications/initialized:false', 'a:false', 'b:true', 'c:true',
      'notifications/progress:false', 'd:false', 'e:true',
      'x:true', 'y:false', 'x2:false', 'y2:false',
    ]);
  });

  test('a request given a write promise that has already failed fails with it, not at its timeout', async () => {
    // Against the contract (a settled promise is not returned again), but a request must not hang on it.
    const failed = Promise.reject(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    failed.catch(() => {});
    const transport = new BatchingTransport();
    transport.send = (message: unknown) => {
      transport.sent.push(message);
      return failed;
    };
    const connection = new JsonRpcConnection(transport, { label: "server 'f'" });
    await assert.rejects(connection.request('a', {}, undefined, { timeoutMs: 5000 }), /EPIPE/);
    const started = Date.now();
    await assert.rejects(connection.request('b', {}, undefined, { timeoutMs: 5000 }), /EPIPE/);
    assert.ok(Date.now() - started < 1000, `failed after ${Date.now() - started} ms`);
    connection.dispose();
  });

  test('an exception while sending fails that request, as before', async () => {
    const transport = new BatchingTransport();
    const connection = new JsonRpcConnection(transport, {
      label: "server 'e'",
      onTrace: () => {
        throw new Error('trace failed');
      },
    });
    await assert.rejects(connection.request('x'), /trace failed/);
    assert.equal(connection.pendingCount, 0);
  });

  test('isResultResponse (the fast path for answers) agrees with classifyMessage', () => {
    const values: unknown[] = [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 'a', result: { x: 1 }, extra: true },
      { jsonrpc: '2.0', id: 1.5, result: {} },
      { jsonrpc: '1.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 1, result: [] },
      { jsonrpc: '2.0', id: 1, result: null },
      { jsonrpc: '2.0', result: {} },
      { jsonrpc: '2.0', id: 1, method: 'x', result: {} },
      { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' } },
      JSON.parse('{"jsonrpc":"2.0","id":1,"result":{},"__proto__":{}}'),
      [{ jsonrpc: '2.0', id: 1, result: {} }],
      null,
      'x',
    ];
    for (const value of values) {
      const classified = classifyMessage(value);
      const expected = classified.kind === 'result' && classified.message === value;
      assert.equal(isResultResponse(value), expected, JSON.stringify(value));
    }
  });
});
