import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ConnectionClosedError,
  McpError,
  RequestTimeoutError,
  MessageTooLargeError,
  UnsupportedProtocolVersionError,
  ErrorCode,
} from '../../src/protocol/errors';
import { MAX_LIST_PAGES } from '../../src/protocol/client';
import { fixture } from '../helpers/paths';
import { isAlive, makeClient, startFixture, waitFor } from '../helpers/servers';

describe('fault catalogue', () => {
  test('a server that never answers initialize: the handshake times out, the process is stopped', async () => {
    const s = makeClient([fixture('never-initialize.mjs')], { requestTimeoutMs: 400 });
    const started = Date.now();
    await assert.rejects(s.client.connect(), (err: unknown) => err instanceof RequestTimeoutError && /initialize timed out/.test(err.message));
    assert.ok(Date.now() - started < 5000);
    // initialize is never cancelled: no notifications/cancelled was sent.
    assert.ok(!s.trace.some((t) => t.message.method === 'notifications/cancelled'));
    await waitFor(() => s.transport.isClosed, 5000, 'transport closed after failed handshake');
    await s.stop();
  });

  test('a server that exits at once: the error has the exit code and its stderr', async () => {
    const s = makeClient([fixture('exit-immediately.mjs')]);
    await assert.rejects(s.client.connect(), (err: unknown) => {
      assert.ok(err instanceof ConnectionClosedError, String(err));
      assert.match(err.message, /code 3/);
      assert.match(err.message, /missing config/i);
      return true;
    });
    await s.stop();
  });

  test('a crash with 100 requests pending rejects them all promptly; none hang', async () => {
    const s = await startFixture('crash-with-pending.mjs');
    const calls = Array.from({ length: 100 }, (_, i) => s.client.callTool('wait', { i }));
    const started = Date.now();
    const results = await Promise.allSettled(calls);
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 5000, `settled in ${elapsed} ms`);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      const err = (r as PromiseRejectedResult).reason;
      assert.ok(err instanceof ConnectionClosedError);
      assert.match(err.message, /exited with code 1/);
    }
    assert.equal(s.client.connection.pendingCount, 0);
    await s.stop();
  });

  test('banners and garbage on stdout are logged and dropped; the server still works', async () => {
    const s = await startFixture('banner-garbage.mjs');
    const tools = await s.client.listAllTools();
    assert.equal(tools.length, 1);
    const result = await s.client.callTool(tools[0].name, { text: 'still here' });
    assert.match(JSON.stringify(result.content), /still here/);
    const warnings = s.logs.filter((l) => l.startsWith('warn'));
    assert.ok(warnings.some((w) => /not JSON|JSON/.test(w)), warnings.join('\n'));
    assert.ok(warnings.some((w) => /not valid JSON-RPC/.test(w)), warnings.join('\n'));
    await s.stop();
  });

  test('a server that ignores stdin EOF is stopped with SIGTERM', async () => {
    const s = await startFixture('ignore-stdin-eof.mjs');
    const pid = s.transport.pid!;
    const closed = new Promise<any>((resolve) => s.client.onClose(resolve));
    await s.stop();
    const info = await closed;
    assert.equal(info.expected, true);
    assert.equal(info.signal, 'SIGTERM');
    assert.ok(!isAlive(pid));
  });

  test('a server that ignores SIGTERM is killed', async () => {
    const s = await startFixture('ignore-sigterm.mjs');
    const pid = s.transport.pid!;
    const closed = new Promise<any>((resolve) => s.client.onClose(resolve));
    await s.stop();
    const info = await closed;
    assert.equal(info.signal, 'SIGKILL');
    assert.ok(!isAlive(pid));
  });

  test('a grandchild process does not survive stop', async () => {
    const pidFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-')), 'grandchild.pid');
    const s = await startFixture('grandchild.mjs', { transport: { env: { GRANDCHILD_PID_FILE: pidFile } } });
    await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', 5000, 'grandchild pid file');
    const grandchild = Number(fs.readFileSync(pidFile, 'utf8').trim());
    assert.ok(isAlive(grandchild), 'grandchild running before stop');
    await s.stop();
    await waitFor(() => !isAlive(grandchild), 3000, `grandchild ${grandchild} to die`);
  });

  test('a message just under the 64 MiB limit arrives whole', async () => {
    const s = await startFixture('huge-message.mjs', { requestTimeoutMs: 60_000 });
    const bytes = 63 * 1024 * 1024;
    const result = await s.client.callTool('big', { bytes });
    assert.equal((result.content[0] as any).text.length, bytes);
    await s.stop();
  });

  test('a 64 MiB message over the limit is refused with a clear error, and the connection lives on', async () => {
    const s = await startFixture('huge-message.mjs');
    // It fails at once with the size and the cap (test/process/limits.test.ts), not at its timeout.
    await assert.rejects(s.client.callTool('big', {}, { timeoutMs: 3000 }), (err: unknown) => err instanceof MessageTooLargeError && /67108864 bytes/.test(err.message));
    const warning = s.logs.find((l) => /exceeds|larger than|limit/i.test(l));
    assert.ok(warning, `a warning about the size, got:\n${s.logs.join('\n')}`);
    assert.match(warning!, /64/);
    await s.client.ping();
    await s.stop();
  });

  test('lists are followed across pages with nextCursor', async () => {
    const s = await startFixture('paging.mjs', { transport: { env: { PAGE_ITEMS: '25', PAGE_SIZE: '10' } } });
    const [tools, resources, templates, prompts] = await Promise.all([
      s.client.listAllTools(),
      s.client.listAllResources(),
      s.client.listAllResourceTemplates(),
      s.client.listAllPrompts(),
    ]);
    for (const list of [tools, resources, templates, prompts]) assert.equal(list.length, 25);
    assert.equal(new Set(tools.map((t) => t.name)).size, 25);
    assert.equal(s.trace.filter((t) => t.direction === 'send' && t.message.method === 'tools/list').length, 3);
    await s.stop();
  });

  test('a cursor loop is detected instead of paging forever', async () => {
    const s = await startFixture('paging.mjs', { transport: { env: { CURSOR_LOOP: '1' } } });
    await assert.rejects(s.client.listAllTools(), (err: unknown) => err instanceof McpError && err.code === ErrorCode.InvalidResult && /twice/.test(err.message));
    assert.ok(s.trace.filter((t) => t.message.method === 'tools/list').length < MAX_LIST_PAGES);
    await s.stop();
  });

  test('an unsupported protocol version disconnects with both versions named', async () => {
    const s = makeClient([fixture('bad-version.mjs')]);
    await assert.rejects(s.client.connect(), (err: unknown) => {
      assert.ok(err instanceof UnsupportedProtocolVersionError);
      assert.match(err.message, /1999-01-01/);
      assert.match(err.message, /2025-11-25/);
      return true;
    });
    await waitFor(() => s.transport.isClosed, 5000, 'disconnect');
    assert.ok(!s.trace.some((t) => t.message.method === 'notifications/initialized'));
    await s.stop();
  });

  test('capability-aware: no resources/* call to a server without the resources capability', async () => {
    const s = await startFixture('banner-garbage.mjs');
    assert.equal(s.client.hasCapability('resources'), false);
    await assert.rejects(s.client.listAllResources(), (err: unknown) => err instanceof McpError && /did not declare the 'resources' capability/.test(err.message));
    assert.ok(!s.trace.some((t) => typeof t.message.method === 'string' && t.message.method.startsWith('resources/')));
    await s.stop();
  });

  test('nothing but ping may be sent before the handshake completes', async () => {
    const s = makeClient([fixture('slow-start.mjs')], { transport: { env: { START_DELAY_MS: '500' } } });
    const connecting = s.client.connect();
    await assert.rejects(s.client.listAllTools(), /handshake has not completed/);
    await connecting;
    await s.stop();
  });
});

describe('good-server fixture: notifications and events', () => {
  test('list_changed, resources/updated and log messages arrive as events', async () => {
    const s = await startFixture('good-server.mjs');
    const events: string[] = [];
    s.client.onToolsListChanged(() => events.push('tools'));
    s.client.onResourceUpdated((uri) => events.push(`updated ${uri}`));
    s.client.onLogMessage((m) => events.push(`log ${m.level}`));
    await s.client.callTool('toggle');
    assert.ok((await s.client.listAllTools()).some((t) => t.name === 'extra'));
    await s.client.subscribeResource('mem://good/hello.txt');
    await s.client.callTool('touch', { uri: 'mem://good/hello.txt' });
    await s.client.setLoggingLevel('info');
    await s.client.callTool('log', { level: 'warning', data: 'careful' });
    await waitFor(() => events.length >= 3, 3000, 'events');
    assert.deepEqual(events.sort(), ['log warning', 'tools', 'updated mem://good/hello.txt']);
    await s.client.unsubscribeResource('mem://good/hello.txt');
    await s.stop();
  });

  test('stderr lines are captured as log output, never as protocol', async () => {
    const s = await startFixture('stderr-chatter.mjs');
    await s.client.ping();
    await waitFor(() => s.stderr.length > 3, 3000, 'stderr lines');
    assert.ok(!s.logs.some((l) => /not valid JSON-RPC/.test(l)));
    await s.stop();
  });

  test('env and cwd reach the server; a null env value removes the variable', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-cwd-'));
    process.env.MCP_HOST_TEST_REMOVE_ME = 'present';
    try {
      const s = await startFixture('echo-env.mjs', { transport: { cwd: dir, env: { MCP_HOST_TEST_SET: 'yes', MCP_HOST_TEST_REMOVE_ME: null } } });
      const result = await s.client.callTool('env', { names: ['MCP_HOST_TEST_SET', 'MCP_HOST_TEST_REMOVE_ME'] });
      const data = JSON.parse((result.content[0] as any).text);
      assert.equal(fs.realpathSync(data.cwd), fs.realpathSync(dir));
      assert.equal(data.env.MCP_HOST_TEST_SET, 'yes');
      assert.equal(data.env.MCP_HOST_TEST_REMOVE_ME, undefined);
      await s.stop();
    } finally {
      delete process.env.MCP_HOST_TEST_REMOVE_ME;
    }
  });
});
