import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { serverId, type ConnectionEnvironment } from '../../src/host/serverConnection';
import { DEACTIVATE_BUDGET_MS, ServerRegistry, type ServerEntry } from '../../src/host/registry';
import { DEFAULT_CLOSE_STDIN_GRACE_MS, DEFAULT_SIGTERM_GRACE_MS } from '../../src/transport/stdio';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';
import { fixture } from '../helpers/paths';
import { isAlive, waitFor } from '../helpers/servers';
import { testEnvironment } from '../helpers/host';

// The deactivate path: ServerRegistry.shutdown() with the transport's default graces (what the
// extension uses), against servers that ignore stdin EOF and log the signals they get.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-shutdown-'));
const source: ConfigSource = { file: path.join(dir, 'mcp.json'), kind: 'user' };

function stdio(name: string, script: string, env: Record<string, string> = {}): ServerDefinition {
  return { type: 'stdio', name, command: process.execPath, args: [fixture(script)], env, source };
}

function entry(def: ServerDefinition): ServerEntry {
  return { id: serverId(def), name: def.name, source, definition: def };
}

function registry(logs: string[], overrides: Partial<ConnectionEnvironment> = {}): ServerRegistry {
  return new ServerRegistry(() => testEnvironment(logs, { shutdown: undefined, ...overrides }));
}

/** The events a sigterm-logger wrote, with their times. */
function events(file: string): Array<{ event: string; at: number }> {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [event, at] = l.split(' ');
      return { event, at: Number(at) };
    });
}

function pidOf(reg: ServerRegistry, name: string): number {
  const state = reg.findByName(name)!.state;
  assert.equal(state.kind, 'running', `${name} is running`);
  return state.kind === 'running' ? state.pid! : 0;
}

describe('shutdown (deactivate path) within VS Code budget', { timeout: 30_000 }, () => {
  test('the default graces end with SIGKILL well inside the budget', () => {
    // stdin grace + SIGTERM grace, then a margin for the kill and the pipes to close.
    assert.ok(DEFAULT_CLOSE_STDIN_GRACE_MS + DEFAULT_SIGTERM_GRACE_MS <= DEACTIVATE_BUDGET_MS - 2000);
  });

  test('a server that ignores stdin EOF gets SIGTERM after the stdin grace, and shutdown ends in time', async () => {
    const log = path.join(dir, 'sigterm.log');
    const reg = registry([]);
    try {
      await reg.reconcile([entry(stdio('stays', 'sigterm-logger.mjs', { SIGNAL_LOG_FILE: log }))], { autoStart: true });
      const pid = pidOf(reg, 'stays');
      const started = Date.now();
      await reg.shutdown();
      const took = Date.now() - started;
      assert.ok(took < DEACTIVATE_BUDGET_MS, `shutdown took ${took} ms`);
      const seen = events(log);
      assert.deepEqual(
        seen.map((e) => e.event),
        ['stdin-closed', 'SIGTERM'],
        'stdin is closed first, then SIGTERM is sent',
      );
      const grace = seen[1].at - seen[0].at;
      assert.ok(grace >= DEFAULT_CLOSE_STDIN_GRACE_MS - 100 && grace < DEFAULT_CLOSE_STDIN_GRACE_MS + 1000, `SIGTERM came ${grace} ms after stdin closed`);
      await waitFor(() => !isAlive(pid), 2000, 'the server to be gone');
      assert.equal(reg.findByName('stays')!.state.kind, 'stopped');
    } finally {
      reg.dispose();
    }
  });

  test('a server that ignores SIGTERM too is killed (SIGKILL of its group) inside the budget', async () => {
    const log = path.join(dir, 'sigkill.log');
    const reg = registry([]);
    try {
      await reg.reconcile([entry(stdio('stubborn', 'sigterm-logger.mjs', { SIGNAL_LOG_FILE: log, IGNORE_SIGTERM: '1' }))], { autoStart: true });
      const pid = pidOf(reg, 'stubborn');
      const started = Date.now();
      await reg.shutdown();
      const took = Date.now() - started;
      assert.ok(took < DEACTIVATE_BUDGET_MS, `shutdown took ${took} ms`);
      assert.ok(took >= DEFAULT_CLOSE_STDIN_GRACE_MS + DEFAULT_SIGTERM_GRACE_MS - 200, `SIGKILL waited for both graces (${took} ms)`);
      assert.deepEqual(
        events(log).map((e) => e.event),
        ['stdin-closed', 'SIGTERM'],
      );
      assert.ok(!isAlive(pid), 'gone once shutdown resolved');
    } finally {
      reg.dispose();
    }
  });

  test('graces longer than the budget are cut short: shutdown forces the kill and still ends in time', async () => {
    const log = path.join(dir, 'long-graces.log');
    const reg = registry([], { shutdown: { closeStdinGraceMs: 20_000, sigtermGraceMs: 20_000 } });
    try {
      await reg.reconcile([entry(stdio('slow', 'sigterm-logger.mjs', { SIGNAL_LOG_FILE: log, IGNORE_SIGTERM: '1' }))], { autoStart: true });
      const pid = pidOf(reg, 'slow');
      const started = Date.now();
      await reg.shutdown();
      const took = Date.now() - started;
      assert.ok(took < DEACTIVATE_BUDGET_MS, `shutdown took ${took} ms`);
      assert.ok(!isAlive(pid), 'killed by the forced stop');
    } finally {
      reg.dispose();
    }
  });

  test('several servers, well-behaved and not, all stop together within the budget', async () => {
    const logA = path.join(dir, 'many-a.log');
    const logB = path.join(dir, 'many-b.log');
    const reg = registry([]);
    try {
      await reg.reconcile(
        [
          entry(stdio('good', 'good-server.mjs')),
          entry(stdio('stays', 'sigterm-logger.mjs', { SIGNAL_LOG_FILE: logA })),
          entry(stdio('stubborn', 'sigterm-logger.mjs', { SIGNAL_LOG_FILE: logB, IGNORE_SIGTERM: '1' })),
        ],
        { autoStart: true },
      );
      const pids = ['good', 'stays', 'stubborn'].map((n) => pidOf(reg, n));
      const started = Date.now();
      await reg.shutdown();
      const took = Date.now() - started;
      assert.ok(took < DEACTIVATE_BUDGET_MS, `shutdown took ${took} ms`);
      for (const pid of pids) await waitFor(() => !isAlive(pid), 1000, `process ${pid} to be gone`);
      assert.ok(events(logA).some((e) => e.event === 'SIGTERM'));
      assert.ok(events(logB).some((e) => e.event === 'SIGTERM'));
      assert.deepEqual(
        reg.servers.map((s) => s.state.kind),
        ['stopped', 'stopped', 'stopped'],
      );
    } finally {
      reg.dispose();
    }
  });
});
