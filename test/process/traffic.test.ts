// The traffic recorded by a real server's connection, and the CLI's --trace file.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ServerConnection, serverId } from '../../src/host/serverConnection';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';
import { buildTimeline } from '../../src/host/traffic';
import { buildTrafficModel, exportLines } from '../../src/vscode/traffic/trafficRows';
import { testEnvironment } from '../helpers/host';
import { REPO_ROOT, fixture } from '../helpers/paths';
import { EVERYTHING } from '../helpers/servers';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-traffic-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const source: ConfigSource = { file: path.join(dir, 'mcp.json'), kind: 'workspace', workspaceFolder: dir };
const SECRET = 'traffic-secret-9Tq4Zr';

function definition(name: string, script: string, env: Record<string, string> = {}): ServerDefinition {
  return { type: 'stdio', name, command: process.execPath, args: [script], env, source };
}

function connection(def: ServerDefinition, capacity: number): ServerConnection {
  return new ServerConnection(def, serverId(def), def.name, source, testEnvironment([], { trafficCapacity: () => capacity }));
}

describe('traffic of a running server', () => {
  test('every message of a tool call is recorded both ways, paired, between the lifecycle events', async () => {
    const server = connection(definition('good', fixture('good-server.mjs')), 1000);
    try {
      await server.start();
      assert.equal(server.state.kind, 'running');
      const answer = await server.callTool('echo', { text: 'hello traffic' });
      assert.equal(answer.isError ?? false, false);
      await server.stop();
      const rows = buildTimeline(server.traffic.entries());
      const call = rows.find((r) => r.method === 'tools/call');
      assert.ok(call, `no tools/call row in ${rows.map((r) => r.method ?? r.text).join(', ')}`);
      assert.equal(call.kind, 'request');
      assert.equal(call.status, 'ok');
      assert.ok(call.response?.kind === 'message' && call.response.direction === 'receive');
      assert.match(JSON.stringify(call.response.message), /hello traffic/);
      assert.ok((call.latencyMs ?? -1) >= 0);
      // The handshake is there too, and the list fetches that followed it.
      assert.ok(rows.some((r) => (r.method === 'initialize' || r.method === 'server/discover') && r.status === 'ok'));
      assert.ok(rows.some((r) => r.method === 'tools/list' && r.status === 'ok'));
      const events = rows.filter((r) => r.kind === 'event').map((r) => r.text ?? '');
      assert.equal(events[0], 'starting');
      assert.ok(events.some((e) => e.startsWith('running: good-server')), events.join(' | '));
      assert.equal(events.at(-1), 'stopped');
    } finally {
      server.dispose();
    }
  });

  test('with the setting at 0 nothing is recorded; raising it records from then on', async () => {
    const server = connection(definition('off', fixture('good-server.mjs')), 0);
    try {
      await server.start();
      await server.callTool('echo', { text: 'unseen' });
      assert.deepEqual(server.traffic.entries(), []);
      server.traffic.setCapacity(50);
      await server.callTool('echo', { text: 'seen' });
      const methods = buildTimeline(server.traffic.entries()).map((r) => r.method);
      assert.deepEqual(methods, ['tools/call']);
    } finally {
      server.dispose();
    }
  });

  test('what a server echoes of its secrets is redacted in the view and the export', async () => {
    const def = definition('leaky', fixture('leak-secrets.mjs'), { SERVICE_API_KEY: SECRET, LEAK_ENV: 'SERVICE_API_KEY' });
    const server = connection(def, 1000);
    try {
      await server.start();
      await server.callTool('echo', { note: `key is ${SECRET}` });
      const model = buildTrafficModel([server], {});
      assert.ok(model.rows.some((r) => r.method === 'tools/call' && r.status === 'ok'));
      const lines = exportLines(model.index.values());
      assert.ok(lines.length >= 4);
      for (const line of lines) {
        JSON.parse(line);
        assert.ok(!line.includes(SECRET), `a secret in the export: ${line}`);
      }
      assert.ok(lines.some((l) => l.includes('key is ***')), 'the redacted argument is still there');
      assert.equal(buildTrafficModel([server], { text: SECRET }).rows.length, 0);
    } finally {
      server.dispose();
    }
  });
});

describe('mcp-host --trace FILE', () => {
  test('writes every message of the run as JSON Lines, the export format', () => {
    const file = path.join(dir, 'everything.jsonl');
    const r = spawnSync(process.execPath, [CLI, 'call', 'echo', '--args', '{"message":"traced"}', '--trace', file, '--', process.execPath, ...EVERYTHING], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { time: string; server: string; direction?: string; event?: string; message?: { id?: number; method?: string; result?: unknown } });
    assert.ok(lines[0].event?.startsWith('starting'), JSON.stringify(lines[0]));
    assert.equal(lines.at(-1)?.event, 'closed');
    const call = lines.find((l) => l.direction === 'send' && l.message?.method === 'tools/call');
    assert.ok(call, 'the tools/call request');
    const answer = lines.find((l) => l.direction === 'receive' && l.message?.id === call.message?.id && l.message?.result !== undefined);
    assert.match(JSON.stringify(answer), /traced/);
    assert.ok(lines.every((l) => l.server === lines[0].server && l.server.length > 0));
    assert.equal(fs.statSync(file).mode & 0o077, 0, 'the trace file is the owner\'s only');
  });

  test('a secret of the configuration never reaches the trace', () => {
    const config = path.join(dir, 'mcp.json');
    fs.writeFileSync(config, JSON.stringify({ servers: { leaky: { command: process.execPath, args: [fixture('leak-secrets.mjs')], env: { SERVICE_API_KEY: SECRET, LEAK_ENV: 'SERVICE_API_KEY' } } } }));
    const file = path.join(dir, 'leaky.jsonl');
    const r = spawnSync(process.execPath, [CLI, 'call', 'echo', '--args', JSON.stringify({ note: SECRET }), '--trace', file, '--config', config, '--server', 'leaky'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /tools\/call/);
    assert.ok(!text.includes(SECRET));
  });

  test('a trace file that cannot be written is a usage error naming it', () => {
    const file = path.join(dir, 'no-such-dir', 'x.jsonl');
    const r = spawnSync(process.execPath, [CLI, 'list', '--trace', file, '--', process.execPath, ...EVERYTHING], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /cannot write the trace file .*no-such-dir.*ENOENT/);
  });
});
