import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ServerConnection, type ConnectionEnvironment, type ServerState } from '../../src/host/serverConnection';
import { ServerRegistry, type ServerEntry } from '../../src/host/registry';
import { parseConfigText, type ConfigSource, type ServerDefinition } from '../../src/host/config';
import { serverId } from '../../src/host/serverConnection';
import { fixture } from '../helpers/paths';
import { isAlive, recordingLogger, waitFor } from '../helpers/servers';

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-ws-'));
const source: ConfigSource = { file: path.join(workspace, '.vscode', 'mcp.json'), kind: 'workspace', workspaceFolder: workspace };

function stdio(name: string, script: string, extra: Partial<Extract<ServerDefinition, { type: 'stdio' }>> = {}): ServerDefinition {
  return { type: 'stdio', name, command: process.execPath, args: [fixture(script)], env: {}, source, ...extra };
}

function environment(logs: string[], overrides: Partial<ConnectionEnvironment> = {}): ConnectionEnvironment {
  return {
    clientInfo: { name: 'mcp-host-tests', version: '0' },
    logger: recordingLogger(logs),
    traceEnabled: () => true,
    requestTimeoutMs: () => 10_000,
    serverLogLevel: () => 'debug',
    inputs: () => [],
    handlers: {},
    processEnv: process.env,
    shutdown: { closeStdinGraceMs: 300, sigtermGraceMs: 300 },
    ...overrides,
  };
}

function connection(def: ServerDefinition, logs: string[] = [], overrides: Partial<ConnectionEnvironment> = {}) {
  const states: ServerState['kind'][] = [];
  const c = new ServerConnection(def, serverId(def), def.name, def.source, environment(logs, overrides));
  c.onDidChangeState((s) => states.push(s.kind));
  return { c, states, logs };
}

describe('ServerConnection (host floor, real processes)', () => {
  test('start is idempotent, reaches running, loads lists; stop is idempotent', async () => {
    const { c, states } = connection(stdio('good', 'good-server.mjs'));
    await Promise.all([c.start(), c.start()]);
    assert.equal(c.state.kind, 'running');
    assert.ok(c.lists.tools.some((t) => t.name === 'echo'));
    assert.ok(c.lists.resources.length > 0 && c.lists.resourceTemplates.length > 0 && c.lists.prompts.length > 0);
    const pid = c.state.kind === 'running' ? c.state.pid! : 0;
    await c.start(); // already running: nothing happens
    await Promise.all([c.stop(), c.stop()]);
    await c.stop();
    assert.equal(c.state.kind, 'stopped');
    assert.ok(!isAlive(pid));
    assert.deepEqual(states, ['starting', 'running', 'stopping', 'stopped']);
  });

  test('a second stop while stopping forces the kill', async () => {
    const { c } = connection(stdio('stubborn', 'ignore-sigterm.mjs'), [], { shutdown: { closeStdinGraceMs: 5000, sigtermGraceMs: 5000 } });
    await c.start();
    const pid = c.state.kind === 'running' ? c.state.pid! : 0;
    const started = Date.now();
    const first = c.stop();
    await new Promise((r) => setTimeout(r, 100));
    await c.stop(); // forces
    await first;
    assert.ok(Date.now() - started < 3000, `forced stop took ${Date.now() - started} ms`);
    assert.ok(!isAlive(pid));
  });

  test('a clean stop is not a crash: no restart is scheduled', async () => {
    const { c, states } = connection(stdio('good', 'good-server.mjs'));
    await c.start();
    await c.stop();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(c.state.kind, 'stopped');
    assert.ok(!states.includes('error'));
  });

  test('a server that exits with code 0 by itself is stopped, not restarted', async () => {
    const { c, logs } = connection(stdio('done', 'exit-cleanly.mjs'));
    await c.start();
    await waitFor(() => c.state.kind !== 'running', 5000, 'the server to exit');
    assert.equal(c.state.kind, 'stopped');
    assert.match(c.state.kind === 'stopped' ? (c.state.reason ?? '') : '', /exited by itself/);
    assert.ok(logs.some((l) => /not restarting/.test(l)));
  });

  test('a crash-looping server backs off, the breaker trips, and Restart recovers', async () => {
    const counter = path.join(workspace, 'crashes.txt');
    fs.writeFileSync(counter, '');
    const { c, logs } = connection(stdio('crashy', 'crash-after-start.mjs', { env: { CRASH_DELAY_MS: '100', CRASH_COUNTER_FILE: counter } }), [], {
      restartPolicy: { initialDelayMs: 100, maxDelayMs: 400, maxCrashes: 3, windowMs: 60_000 },
    });
    const retryDelays: number[] = [];
    c.onDidChangeState((s) => {
      if (s.kind === 'error' && s.retryAt) retryDelays.push(s.retryAt - Date.now());
    });
    await c.start();
    await waitFor(() => c.state.kind === 'error' && !!c.state.crashLoop, 15_000, 'the breaker to trip');
    const starts = fs.readFileSync(counter, 'utf8').trim().split('\n').length;
    assert.equal(starts, 3, 'started three times, then stopped retrying');
    assert.equal(retryDelays.length, 2);
    assert.ok(retryDelays[1] > retryDelays[0] + 50, `backoff grows: ${retryDelays.map((d) => d.toFixed(0)).join(', ')}`);
    const message = c.state.kind === 'error' ? c.state.message : '';
    assert.match(message, /exited with code 1/);
    assert.match(message, /simulated crash/);
    assert.match(message, /crashed 3 times/);
    assert.match(message, /Restart/);
    assert.ok(logs.some((l) => /Restarting in 0\.1 s/.test(l)));
    // A manual restart resets the breaker: it starts again.
    const kind = () => c.state.kind as string; // read fresh (no narrowing)
    await c.restart();
    assert.equal(kind(), 'running');
    await c.stop();
    assert.equal(kind(), 'stopped');
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(kind(), 'stopped', 'stop cancels any pending restart');
  });

  test('start failures are explained', async () => {
    const cases: Array<[ServerDefinition, RegExp]> = [
      [{ ...stdio('missing', 'good-server.mjs'), command: 'mcp-host-no-such-binary', args: [] } as ServerDefinition, /command not found: mcp-host-no-such-binary \(searched PATH: .+\).*nvm, volta/],
      [stdio('early', 'exit-immediately.mjs'), /exited before answering initialize: exited with code 3.*missing config/],
      [stdio('old', 'bad-version.mjs'), /1999-01-01.*2025-11-25/],
    ];
    const notExecutable = path.join(workspace, 'not-executable.sh');
    fs.writeFileSync(notExecutable, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    cases.push([{ ...stdio('perm', 'good-server.mjs'), command: notExecutable, args: [] } as ServerDefinition, /permission denied/]);
    for (const [def, pattern] of cases) {
      const { c } = connection(def);
      await c.start();
      assert.equal(c.state.kind, 'error', def.name);
      assert.match(c.state.kind === 'error' ? c.state.message : '', pattern);
      c.dispose();
    }
    const { c: slow } = connection(stdio('slow', 'never-initialize.mjs'), [], { requestTimeoutMs: () => 300 });
    await slow.start();
    assert.match(slow.state.kind === 'error' ? slow.state.message : '', /did not answer initialize within 300 ms/);
  });

  test('inputs are resolved once, reach the server, and never appear in the log (protocol trace included)', async () => {
    const secret = 'tok-9f8e7d6c5b4a';
    const logs: string[] = [];
    const def = parseConfigText(
      JSON.stringify({
        servers: {
          env: { command: process.execPath, args: [fixture('echo-env.mjs'), '--token=${input:apiToken}'], env: { API_TOKEN: '${input:apiToken}', PLAIN: '${workspaceFolderBasename}' } },
        },
        inputs: [{ id: 'apiToken', type: 'promptString', password: true, description: 'API token' }],
      }),
      source,
    );
    let asked = 0;
    const c = new ServerConnection(def.servers[0], 'x', 'env', source, {
      ...environment(logs),
      inputs: () => def.inputs,
      inputResolver: {
        resolve: async () => {
          asked++;
          return secret;
        },
      },
    });
    await c.start();
    assert.equal(c.state.kind, 'running');
    const result = await c.client!.callTool('env', { names: ['API_TOKEN', 'PLAIN'] });
    const data = JSON.parse((result.content[0] as { text: string }).text);
    assert.equal(data.env.API_TOKEN, secret);
    assert.equal(data.env.PLAIN, path.basename(workspace));
    assert.ok(data.argv.includes(`--token=${secret}`));
    assert.equal(asked, 1);
    assert.ok(logs.some((l) => l.includes('→') || l.includes('←')), 'the protocol trace is on');
    assert.ok(logs.some((l) => l.includes('--token=***')), 'the command line is logged, redacted');
    const leaks = logs.filter((l) => l.includes(secret));
    assert.deepEqual(leaks, []);
    await c.stop();
  });

  test('an internal failure during start ends in error, never stuck in "starting"', async () => {
    const throwing = { ...recordingLogger([]), info: () => { throw new Error('log channel closed'); } };
    const { c } = connection(stdio('good', 'good-server.mjs'), [], { logger: throwing });
    await c.start();
    assert.equal(c.state.kind, 'error');
    assert.match(c.state.kind === 'error' ? c.state.message : '', /internal error: log channel closed/);
  });

  test('envFile and cwd are applied', async () => {
    fs.writeFileSync(path.join(workspace, 'server.env'), '# comment\nFROM_FILE=yes\nQUOTED="a b"\n');
    const sub = fs.mkdtempSync(path.join(workspace, 'cwd-'));
    const { c } = connection(stdio('env', 'echo-env.mjs', { envFile: '${workspaceFolder}/server.env', cwd: path.basename(sub) }));
    await c.start();
    const data = JSON.parse(((await c.client!.callTool('env', { names: ['FROM_FILE', 'QUOTED'] })).content[0] as { text: string }).text);
    assert.deepEqual(data.env, { FROM_FILE: 'yes', QUOTED: 'a b' });
    assert.equal(fs.realpathSync(data.cwd), fs.realpathSync(sub));
    await c.stop();
    const { c: bad } = connection(stdio('bad', 'echo-env.mjs', { envFile: 'missing.env' }));
    await bad.start();
    assert.match(bad.state.kind === 'error' ? bad.state.message : '', /envFile .*missing\.env cannot be read \(ENOENT\)/);
  });
});

describe('ServerRegistry.reconcile (hot reload)', () => {
  function entries(defs: ServerDefinition[]): ServerEntry[] {
    return defs.map((d) => ({ id: serverId(d), name: d.name, source: d.source, definition: d }));
  }

  test('adds, removes, restarts changed servers, and keeps unchanged ones running (same pid)', async () => {
    const logs: string[] = [];
    const registry = new ServerRegistry(() => environment(logs));
    try {
      await registry.reconcile(entries([stdio('a', 'good-server.mjs'), stdio('b', 'good-server.mjs'), stdio('c', 'good-server.mjs')]), { autoStart: true });
      const pidOf = (name: string) => {
        const s = registry.findByName(name)!.state;
        return s.kind === 'running' ? s.pid : undefined;
      };
      const [a1, b1, c1] = [pidOf('a'), pidOf('b'), pidOf('c')];
      assert.ok(a1 && b1 && c1);
      const result = await registry.reconcile(
        entries([stdio('a', 'good-server.mjs'), stdio('b', 'good-server.mjs', { env: { CHANGED: '1' } }), stdio('d', 'good-server.mjs')]),
        { autoStart: true },
      );
      assert.deepEqual(result.added.map((id) => id.split('#')[1]), ['d']);
      assert.deepEqual(result.removed.map((id) => id.split('#')[1]), ['c']);
      assert.deepEqual(result.changed.map((id) => id.split('#')[1]), ['b']);
      assert.deepEqual(result.unchanged.map((id) => id.split('#')[1]), ['a']);
      assert.equal(pidOf('a'), a1, 'unchanged server keeps its process');
      assert.ok(pidOf('b') && pidOf('b') !== b1, 'changed server restarted');
      assert.equal(registry.findByName('c'), undefined);
      await waitFor(() => !isAlive(c1!), 3000, 'removed server to exit');
      assert.ok(!isAlive(b1!), 'the old process of the changed server is gone');
      assert.equal(registry.findByName('d')!.state.kind, 'running');
    } finally {
      await registry.shutdown();
      registry.dispose();
    }
  });

  test('a broken entry is shown in error and the others still start', async () => {
    const registry = new ServerRegistry(() => environment([]));
    try {
      const parsed = parseConfigText(
        JSON.stringify({ servers: { ok: { command: process.execPath, args: [fixture('good-server.mjs')] }, broken: { type: 'stdio', args: ['x'] } } }),
        source,
      );
      const list: ServerEntry[] = entries(parsed.servers);
      for (const p of parsed.problems) list.push({ id: `${source.file}#${p.server}`, name: p.server!, source, problem: p.message });
      await registry.reconcile(list, { autoStart: true });
      assert.equal(registry.findByName('ok')!.state.kind, 'running');
      const broken = registry.findByName('broken')!;
      assert.equal(broken.state.kind, 'error');
      assert.match(broken.state.kind === 'error' ? broken.state.message : '', /no "command"/);
    } finally {
      await registry.shutdown();
      registry.dispose();
    }
  });
});
