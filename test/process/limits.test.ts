import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ServerConnection, serverId, type ConnectionEnvironment } from '../../src/host/serverConnection';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';
import { MessageTooLargeError } from '../../src/protocol/errors';
import { fixture } from '../helpers/paths';
import { startFixture, waitFor } from '../helpers/servers';
import { testEnvironment } from '../helpers/host';

const MiB = 1024 * 1024;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-limits-'));
const source: ConfigSource = { file: path.join(dir, 'mcp.json'), kind: 'user' };

function connection(script: string, env: Record<string, string>, overrides: Partial<ConnectionEnvironment> = {}, logs: string[] = []): ServerConnection {
  const def: ServerDefinition = { type: 'stdio', name: script.replace(/\.mjs$/, ''), command: process.execPath, args: [fixture(script)], env, source };
  return new ServerConnection(def, serverId(def), def.name, source, testEnvironment(logs, { requestTimeoutMs: () => 30_000, ...overrides }));
}

/** Rejects with what the promise rejected with, and how long that took. */
async function rejection(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await promise;
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
  assert.fail('expected a rejection');
}

/**
 * "At once": well before the 30 s request timeout these tests set. Usually under 300 ms; 5 s leaves
 * room for a machine under full load (a 64 MiB pipe transfer took over 1 s there once).
 */
const AT_ONCE_MS = 5000;

describe('message size cap: the request an oversize answer belongs to fails at once', { timeout: 60_000 }, () => {
  test('a 64 MiB answer over the default cap (id first): fails at once (well before the request timeout) with the size and the cap', async () => {
    const s = await startFixture('huge-message.mjs', { requestTimeoutMs: 30_000 });
    try {
      const { error, ms } = await rejection(s.client.callTool('big', {}));
      assert.ok(error instanceof MessageTooLargeError, String(error));
      assert.ok(ms < AT_ONCE_MS, `failed after ${ms} ms`);
      assert.equal(error.limit, 64 * MiB);
      assert.match(error.message, /tools\/call/);
      assert.match(error.message, /64 MiB \(67108864 bytes\)/);
      assert.match(error.message, /more than 64 MiB|64\.0 MiB/);
      assert.match(error.message, /discarded/);
      // The connection lives on, and the discarded bytes did not turn into messages.
      await s.client.ping();
      const small = await s.client.callTool('big', { bytes: 10 });
      assert.equal((small.content[0] as { text: string }).text, 'x'.repeat(10));
    } finally {
      await s.stop();
    }
  });

  test('an answer whose id comes last (TypeScript SDK order) fails when its line ends, not at the timeout', async () => {
    const s = await startFixture('huge-message.mjs', { requestTimeoutMs: 30_000, transport: { env: { ID_LAST: '1' }, maxMessageBytes: 1 * MiB } });
    try {
      const { error, ms } = await rejection(s.client.callTool('big', { bytes: 8 * MiB }));
      assert.ok(error instanceof MessageTooLargeError, String(error));
      assert.ok(ms < AT_ONCE_MS, `failed after ${ms} ms`);
      assert.equal(error.complete, true);
      assert.ok(error.bytes > 8 * MiB && error.bytes < 8 * MiB + 200, `whole size ${error.bytes}`);
      assert.match(error.message, /1 MiB \(1048576 bytes\)/);
      assert.ok(s.logs.some((l) => /was the answer to request/.test(l)), s.logs.join('\n'));
      await s.client.ping();
    } finally {
      await s.stop();
    }
  });

  test('host: the cap comes from the environment and the error says how to raise it', async () => {
    const logs: string[] = [];
    const c = connection('huge-message.mjs', {}, { maxMessageBytes: 2 * MiB, maxMessageBytesHint: 'raise the setting mcpHost.maxMessageSizeMB' }, logs);
    try {
      await c.start();
      assert.equal(c.state.kind, 'running');
      const { error, ms } = await rejection(c.client!.callTool('big', { bytes: 3 * MiB }));
      assert.ok(error instanceof MessageTooLargeError, String(error));
      assert.ok(ms < AT_ONCE_MS, `failed after ${ms} ms`);
      assert.match(error.message, /2 MiB \(2097152 bytes\)/);
      assert.match(error.message, /mcpHost\.maxMessageSizeMB/);
      const warning = logs.find((l) => /exceeds the limit/.test(l)) ?? '';
      assert.match(warning, /mcpHost\.maxMessageSizeMB/);
      assert.doesNotMatch(warning, /transport option/);
      // Under the cap it arrives whole.
      const ok = await c.client!.callTool('big', { bytes: MiB });
      assert.equal((ok.content[0] as { text: string }).text.length, MiB);
    } finally {
      await c.stop();
      c.dispose();
    }
  });
});

/** What the list-changed-burst fixture counted. */
async function listStats(c: ServerConnection): Promise<{ listCalls: number; maxInFlight: number }> {
  const result = await c.client!.callTool('stats', {});
  return JSON.parse((result.content[0] as { text: string }).text) as { listCalls: number; maxInFlight: number };
}

describe('list_changed bursts', { timeout: 30_000 }, () => {
  test('a burst leads to one fetch in flight and one more after it, and the list ends current', async () => {
    const c = connection('list-changed-burst.mjs', { LIST_DELAY_MS: '300' });
    try {
      await c.start();
      assert.equal(c.state.kind, 'running');
      assert.ok(c.lists.tools.some((t) => t.name === 'version-0'));
      const client = c.client!;
      await client.callTool('burst', { count: 25 });
      await waitFor(() => c.lists.tools.some((t) => t.name === 'version-1'), 5000, 'the list to show version 1');
      // Let any further (wrong) fetch show up before counting.
      await new Promise((r) => setTimeout(r, 700));
      const stats = await listStats(c);
      assert.equal(stats.maxInFlight, 1, 'never two tools/list at once');
      // The start's fetch, then at most: the burst's first fetch and one more after it.
      assert.ok(stats.listCalls >= 2 && stats.listCalls <= 3, `tools/list calls: ${stats.listCalls}`);

      // A second burst while a fetch is in flight: still one at a time, and the last one wins.
      await client.callTool('burst', { count: 10 });
      await new Promise((r) => setTimeout(r, 100));
      await client.callTool('burst', { count: 10 });
      await waitFor(() => c.lists.tools.some((t) => t.name === 'version-3'), 5000, 'the list to show version 3');
      await new Promise((r) => setTimeout(r, 700));
      const after = await listStats(c);
      assert.equal(after.maxInFlight, 1);
      assert.ok(after.listCalls - stats.listCalls <= 2, `tools/list calls for two bursts: ${after.listCalls - stats.listCalls}`);
      assert.ok(c.lists.tools.some((t) => t.name === 'version-3'), c.lists.tools.map((t) => t.name).join(', '));
    } finally {
      await c.stop();
      c.dispose();
    }
  });
});
