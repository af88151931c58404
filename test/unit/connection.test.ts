import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { JsonRpcConnection, PROTOCOL_WARNINGS_PER_SECOND } from '../../src/protocol/connection';
import {
  ConnectionClosedError,
  ErrorCode,
  InvalidResultError,
  RemoteError,
  RequestCancelledError,
  RequestTimeoutError,
} from '../../src/protocol/errors';
import { classifyMessage } from '../../src/protocol/jsonrpc';
import type { Logger } from '../../src/util/logger';
import { MemoryTransport } from '../helpers/memory-transport';
import { spawn } from 'node:child_process';
import * as path from 'node:path';

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (m: string) => lines.push(`${level}: ${m}`);
  return { lines, trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

function setup(options: { defaultTimeoutMs?: number; maxTotalTimeoutMs?: number } = {}) {
  const transport = new MemoryTransport();
  const logger = recordingLogger();
  const connection = new JsonRpcConnection(transport, { label: "server 'test'", logger, ...options });
  return { transport, logger, connection };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('classifyMessage', () => {
  test('sorts the four kinds', () => {
    assert.equal(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'x' }).kind, 'request');
    assert.equal(classifyMessage({ jsonrpc: '2.0', method: 'x' }).kind, 'notification');
    assert.equal(classifyMessage({ jsonrpc: '2.0', id: 'a', result: {} }).kind, 'result');
    assert.equal(classifyMessage({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'bad' } }).kind, 'error');
  });
  test('rejects what is not JSON-RPC 2.0', () => {
    for (const bad of [
      42,
      'text',
      null,
      { hello: 1 },
      { jsonrpc: '1.0', id: 1, method: 'x' },
      { jsonrpc: '2.0', id: 1.5, method: 'x' },
      { jsonrpc: '2.0', id: 1, method: 'x', params: [1, 2] },
      { jsonrpc: '2.0', id: 1, result: 'not an object' },
      { jsonrpc: '2.0', id: 1, error: { code: 'x', message: 'm' } },
    ]) {
      assert.equal(classifyMessage(bad).kind, 'invalid', JSON.stringify(bad));
    }
  });
});

describe('JsonRpcConnection', () => {
  test('links responses to requests by id, out of order', async () => {
    const { transport, connection } = setup();
    const a = connection.request('a');
    const b = connection.request('b', { x: 1 });
    await transport.waitForSent(2);
    const [ra, rb] = transport.sent;
    assert.equal(ra.method, 'a');
    assert.deepEqual(rb.params, { x: 1 });
    assert.notEqual(ra.id, rb.id);
    transport.receive({ jsonrpc: '2.0', id: rb.id, result: { which: 'b' } });
    transport.receive({ jsonrpc: '2.0', id: ra.id, result: { which: 'a' } });
    assert.deepEqual(await a, { which: 'a' });
    assert.deepEqual(await b, { which: 'b' });
    assert.equal(connection.pendingCount, 0);
  });

  test('a response to an unknown or settled id is logged and ignored', async () => {
    const { transport, connection, logger } = setup();
    const p = connection.request('a');
    await transport.waitForSent(1);
    const id = transport.sent[0].id;
    transport.receive({ jsonrpc: '2.0', id, result: { n: 1 } });
    transport.receive({ jsonrpc: '2.0', id, result: { n: 2 } });
    transport.receive({ jsonrpc: '2.0', id: 999, result: {} });
    assert.deepEqual(await p, { n: 1 });
    const warnings = logger.lines.filter((l) => l.includes('unknown or already settled'));
    assert.equal(warnings.length, 2);
    assert.ok(warnings[0].includes("server 'test'"));
  });

  test('error responses reject with a typed RemoteError', async () => {
    const { transport, connection } = setup();
    const p = connection.request('resources/read', { uri: 'x:/nope' });
    await transport.waitForSent(1);
    transport.receive({ jsonrpc: '2.0', id: transport.sent[0].id, error: { code: -32002, message: 'Resource not found', data: { uri: 'x:/nope' } } });
    await assert.rejects(p, (err: unknown) => {
      assert.ok(err instanceof RemoteError);
      assert.equal(err.code, ErrorCode.ResourceNotFound);
      assert.equal(err.method, 'resources/read');
      assert.deepEqual(err.data, { uri: 'x:/nope' });
      return true;
    });
  });

  test('results are validated with the given schema', async () => {
    const { transport, connection } = setup();
    const p = connection.request('tools/list', undefined, z.object({ tools: z.array(z.object({ name: z.string() })) }));
    await transport.waitForSent(1);
    transport.receive({ jsonrpc: '2.0', id: transport.sent[0].id, result: { tools: [{ name: 7 }] } });
    await assert.rejects(p, (err: unknown) => err instanceof InvalidResultError && /tools\.0\.name/.test(err.message));
  });

  test('invalid messages are dropped, logged with the server name, and the connection lives on', async () => {
    const { transport, connection, logger } = setup();
    const p = connection.request('a');
    await transport.waitForSent(1);
    transport.receive({ hello: 1 });
    transport.receive('garbage');
    transport.receive({ jsonrpc: '2.0', id: 5, result: 'x' });
    transport.receive({ jsonrpc: '2.0', id: transport.sent[0].id, result: { ok: true } });
    assert.deepEqual(await p, { ok: true });
    const dropped = logger.lines.filter((l) => l.includes('not valid JSON-RPC'));
    assert.equal(dropped.length, 3);
    assert.ok(dropped.every((l) => l.includes("server 'test'")));
  });

  test('a flood of dropped messages: ten warnings a second, the rest counted in one (said when the connection closes)', () => {
    const { transport, logger } = setup();
    for (let i = 0; i < 15; i++) transport.receive({ hello: i });
    for (let i = 0; i < 10; i++) transport.receive({ jsonrpc: '2.0', id: 1000 + i, result: {} });
    transport.receive({ jsonrpc: '2.0', id: 'x'.repeat(10_000), error: { code: 1, message: 'y'.repeat(10_000) } });
    const warned = () => logger.lines.filter((l) => l.startsWith('warn: '));
    assert.equal(warned().length, PROTOCOL_WARNINGS_PER_SECOND, 'ten within the second');
    assert.ok(warned().every((l) => l.includes('not valid JSON-RPC')));
    transport.simulateClose();
    assert.match(warned().at(-1)!, /^warn: \[server 'test'\] 16 more warnings of messages dropped or ignored \(not JSON-RPC, or answers to no request\) not written \(at most 10 a second\)$/);
  });

  test('a response to an unknown id is logged bounded: a huge id and error message are cut', () => {
    const { transport, logger } = setup();
    transport.receive({ jsonrpc: '2.0', id: 'x'.repeat(10_000), error: { code: 1, message: 'y'.repeat(10_000) } });
    const line = logger.lines.find((l) => l.includes('error response for unknown or already settled request id'));
    assert.ok(line && line.length < 600, `bounded: ${line?.length}`);
  });

  test('a batch is taken apart and each member handled', async () => {
    const { transport, connection } = setup();
    const a = connection.request('a');
    const b = connection.request('b');
    const notified: unknown[] = [];
    connection.onNotification('notifications/message', (p) => notified.push(p));
    await transport.waitForSent(2);
    transport.receive([
      { jsonrpc: '2.0', id: transport.sent[0].id, result: { a: 1 } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } },
      { jsonrpc: '2.0', id: 77, method: 'ping' },
      { bogus: true },
      { jsonrpc: '2.0', id: transport.sent[1].id, result: { b: 2 } },
    ]);
    assert.deepEqual(await a, { a: 1 });
    assert.deepEqual(await b, { b: 2 });
    assert.deepEqual(notified, [{ level: 'info', data: 'hi' }]);
    await transport.waitForSent(3);
    assert.deepEqual(transport.sent[2], { jsonrpc: '2.0', id: 77, result: {} });
  });

  test('a request times out with a typed error and the server is told to cancel', async () => {
    const { transport, connection } = setup({ defaultTimeoutMs: 50 });
    const started = Date.now();
    const p = connection.request('tools/call', { name: 'slow' });
    await assert.rejects(p, (err: unknown) => err instanceof RequestTimeoutError && err.code === ErrorCode.RequestTimeout);
    assert.ok(Date.now() - started >= 45);
    await transport.waitForSent(2);
    const cancel = transport.sent[1];
    assert.equal(cancel.method, 'notifications/cancelled');
    assert.equal(cancel.params.requestId, transport.sent[0].id);
    assert.match(cancel.params.reason, /timed out/);
    assert.equal(connection.pendingCount, 0);
  });

  test('the per-call timeout overrides the default', async () => {
    const { connection } = setup({ defaultTimeoutMs: 10_000 });
    const started = Date.now();
    await assert.rejects(connection.request('x', undefined, undefined, { timeoutMs: 30 }), RequestTimeoutError);
    assert.ok(Date.now() - started < 5000);
  });

  test('initialize is never cancelled, even on timeout', async () => {
    const { transport, connection } = setup();
    await assert.rejects(connection.request('initialize', {}, undefined, { timeoutMs: 30 }), RequestTimeoutError);
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(transport.sent.length, 1);
    assert.equal(transport.sent[0].method, 'initialize');
  });

  test('AbortSignal cancels: notifications/cancelled is sent and the promise rejects', async () => {
    const { transport, connection } = setup();
    const controller = new AbortController();
    const p = connection.request('tools/call', { name: 'slow' }, undefined, { signal: controller.signal });
    await transport.waitForSent(1);
    controller.abort('user pressed Cancel');
    await assert.rejects(p, (err: unknown) => err instanceof RequestCancelledError && /user pressed Cancel/.test(err.message));
    await transport.waitForSent(2);
    assert.deepEqual(transport.sent[1].params, { requestId: transport.sent[0].id, reason: 'user pressed Cancel' });
    // A late answer is ignored, not delivered.
    transport.receive({ jsonrpc: '2.0', id: transport.sent[0].id, result: {} });
  });

  test('an already aborted signal rejects without sending', async () => {
    const { transport, connection } = setup();
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(connection.request('x', undefined, undefined, { signal: controller.signal }), RequestCancelledError);
    assert.equal(transport.sent.length, 0);
  });

  test('progress is routed to the caller by token, and resets the timeout when asked', async () => {
    const { transport, connection } = setup();
    const updates: unknown[] = [];
    const p = connection.request('tools/call', { name: 'slow', _meta: { keep: 1 } }, undefined, {
      timeoutMs: 80,
      resetTimeoutOnProgress: true,
      onProgress: (u) => updates.push(u),
    });
    await transport.waitForSent(1);
    const sent = transport.sent[0];
    assert.equal(sent.params._meta.progressToken, sent.id);
    assert.equal(sent.params._meta.keep, 1);
    for (let i = 1; i <= 4; i++) {
      await new Promise((r) => setTimeout(r, 50)); // 4 x 50 ms > 80 ms: only progress keeps it alive
      transport.receive({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: sent.id, progress: i, total: 4, message: `step ${i}` } });
    }
    transport.receive({ jsonrpc: '2.0', id: sent.id, result: { done: true } });
    assert.deepEqual(await p, { done: true });
    assert.equal(updates.length, 4);
    assert.deepEqual(updates[3], { progress: 4, total: 4, message: 'step 4' });
  });

  test('progress cannot extend a request past the maximum total time', async () => {
    const { transport, connection } = setup();
    const p = connection.request('tools/call', {}, undefined, {
      timeoutMs: 60,
      maxTotalTimeoutMs: 150,
      resetTimeoutOnProgress: true,
      onProgress: () => {},
    });
    await transport.waitForSent(1);
    const id = transport.sent[0].id;
    const timer = setInterval(
      () => transport.receive({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: id, progress: 1 } }),
      20,
    );
    const started = Date.now();
    try {
      await assert.rejects(p, (err: unknown) => err instanceof RequestTimeoutError && /maximum total time/.test(err.message));
    } finally {
      clearInterval(timer);
    }
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 100 && elapsed < 1000, `elapsed ${elapsed}`);
  });

  test('without resetTimeoutOnProgress, progress does not extend the timeout', async () => {
    const { transport, connection } = setup();
    const seen: number[] = [];
    const p = connection.request('x', {}, undefined, { timeoutMs: 60, onProgress: (u) => seen.push(u.progress) });
    await transport.waitForSent(1);
    const id = transport.sent[0].id;
    const timer = setInterval(() => transport.receive({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: id, progress: 1 } }), 15);
    try {
      await assert.rejects(p, RequestTimeoutError);
    } finally {
      clearInterval(timer);
    }
    assert.ok(seen.length >= 1);
  });

  test('closing rejects every pending request at once with the reason', async () => {
    const { transport, connection } = setup();
    const pending = Array.from({ length: 100 }, (_, i) => connection.request('tools/call', { i }));
    await transport.waitForSent(100);
    const started = Date.now();
    transport.simulateClose({ reason: 'exited with code 1', exitCode: 1, stderrTail: ['boom: out of cheese'] });
    const results = await Promise.allSettled(pending);
    assert.ok(Date.now() - started < 500);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      const err = (r as PromiseRejectedResult).reason;
      assert.ok(err instanceof ConnectionClosedError);
      assert.match(err.message, /exited with code 1/);
      assert.match(err.message, /out of cheese/);
    }
    assert.equal(connection.pendingCount, 0);
    await assert.rejects(connection.request('later'), ConnectionClosedError);
    await assert.rejects(connection.notify('later'), ConnectionClosedError);
  });

  test("the server's requests: ping answered, unknown method -32601, handler results and errors", async () => {
    const { transport, connection } = setup();
    connection.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///w' }] }));
    connection.setRequestHandler('sampling/createMessage', () => {
      throw new Error('no model');
    });
    transport.receive({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
    transport.receive({ jsonrpc: '2.0', id: 'u1', method: 'no/such/method' });
    transport.receive({ jsonrpc: '2.0', id: 'r1', method: 'roots/list' });
    transport.receive({ jsonrpc: '2.0', id: 's1', method: 'sampling/createMessage', params: {} });
    await transport.waitForSent(4);
    const byId = new Map(transport.sent.map((m) => [m.id, m]));
    assert.deepEqual(byId.get('p1'), { jsonrpc: '2.0', id: 'p1', result: {} });
    assert.equal(byId.get('u1').error.code, ErrorCode.MethodNotFound);
    assert.deepEqual(byId.get('r1').result, { roots: [{ uri: 'file:///w' }] });
    assert.equal(byId.get('s1').error.code, ErrorCode.InternalError);
    assert.match(byId.get('s1').error.message, /no model/);
  });

  test('a request the server cancels is not answered, and its handler sees the abort', async () => {
    const { transport, connection } = setup();
    let aborted = false;
    connection.setRequestHandler('elicitation/create', (_p, ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
          resolve({ action: 'cancel' });
        });
      }),
    );
    transport.receive({ jsonrpc: '2.0', id: 9, method: 'elicitation/create', params: {} });
    await tick();
    transport.receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9, reason: 'gave up' } });
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(aborted);
    assert.equal(transport.sent.length, 0);
  });

  test('notifications reach every subscriber of their method, and disposal unsubscribes', async () => {
    const { transport, connection } = setup();
    const a: unknown[] = [];
    const b: unknown[] = [];
    const subA = connection.onNotification('notifications/tools/list_changed', (p) => a.push(p));
    connection.onNotification('notifications/tools/list_changed', (p) => b.push(p));
    transport.receive({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    subA.dispose();
    transport.receive({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    assert.equal(a.length, 1);
    assert.equal(b.length, 2);
  });
});

/** A transport whose send() the test writes, for the cases MemoryTransport does not model. */
class ScriptedTransport extends MemoryTransport {
  constructor(private readonly sendImpl: (message: any, transport: ScriptedTransport) => Promise<void>) {
    super();
  }

  override send(message: unknown): Promise<void> {
    this.sent.push(message);
    return this.sendImpl(message, this);
  }
}

/** Runs a script in a fresh Node process; resolves with its output and how long it took to exit. */
function runScript(source: string, nodeArgs: string[] = []): Promise<{ out: string; ms: number; code: number | null }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, '-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ out, ms: Date.now() - started, code }));
  });
}

describe('JsonRpcConnection with transports that answer, close or hold on in send()', () => {
  test('an answer or a close within send() leaves no timer that keeps the process alive', async () => {
    const connectionModule = JSON.stringify(path.resolve(__dirname, '../../src/protocol/connection.js'));
    const helperModule = JSON.stringify(path.resolve(__dirname, '../helpers/memory-transport.js'));
    for (const [name, reaction] of [
      ['an answer', "t.receive({ jsonrpc: '2.0', id: m.id, result: {} }); return Promise.resolve();"],
      ['a close', "t.simulateClose({ reason: 'gone' }); return Promise.reject(new Error('closed'));"],
    ] as const) {
      const script = `
        const { JsonRpcConnection } = require(${connectionModule});
        const { MemoryTransport } = require(${helperModule});
        const t = new MemoryTransport();
        t.send = (m) => { ${reaction} };
        const c = new JsonRpcConnection(t, { label: 'x' });
        c.request('a', {}, undefined, { timeoutMs: 20000 }).then(() => console.log('settled'), () => console.log('settled'));
      `;
      const run = await runScript(script);
      assert.equal(run.out.trim(), 'settled', name);
      // With a stray timer the process would live for the 20 s timeout.
      assert.ok(run.ms < 10_000, `after ${name} within send(), the process took ${run.ms} ms to exit`);
    }
  });

  test('a request made while another is being written fails with that write', async () => {
    let failWrite!: (err: Error) => void;
    let write: Promise<void> | undefined;
    const transport = new ScriptedTransport(() => (write ??= new Promise((_, reject) => (failWrite = reject))));
    let inner: Promise<unknown> | undefined;
    const connection: JsonRpcConnection = new JsonRpcConnection(transport, {
      label: "server 'test'",
      logger: recordingLogger(),
      onTrace: (direction, message: any) => {
        if (direction === 'send' && message.method === 'outer' && !inner) inner = connection.request('inner', {}, undefined, { timeoutMs: 5000 });
      },
    });
    const outer = connection.request('outer', {}, undefined, { timeoutMs: 5000 });
    failWrite(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await assert.rejects(outer, (err: Error) => err instanceof ConnectionClosedError && /Could not send outer/.test(err.message));
    await assert.rejects(inner!, (err: Error) => err instanceof ConnectionClosedError && /Could not send inner/.test(err.message));
    assert.equal(connection.pendingCount, 0);
    connection.dispose();
  });

  test('a request never times out before its time', async () => {
    const transport = new ScriptedTransport(() => Promise.resolve());
    const connection = new JsonRpcConnection(transport, { label: "server 'test'", logger: recordingLogger() });
    for (let i = 0; i < 20; i++) {
      const sentAt = performance.now();
      await assert.rejects(connection.request('a', {}, undefined, { timeoutMs: 3 }), RequestTimeoutError);
      const elapsed = performance.now() - sentAt;
      assert.ok(elapsed >= 3, `timed out after ${elapsed.toFixed(3)} ms, before its 3 ms`);
    }
    connection.dispose();
  });
});
