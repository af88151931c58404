// The host floor and the CLI over the era probe and the modern era's caching and MRTR, with real
// processes: a legacy server that exits on server/discover is started again as legacy (once, and
// remembered for its configuration); stale lists (ttlMs) are fetched again when needed; the CLI
// answers roots itself and declines forms and sampling with a message that says so.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ServerConnection, serverId } from '../../src/host/serverConnection';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';
import { testEnvironment } from '../helpers/host';
import { FIXTURES_DIR, REPO_ROOT, fixture } from '../helpers/paths';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const node = process.execPath;
const source: ConfigSource = { file: path.join(FIXTURES_DIR, 'mcp.json'), kind: 'workspace', workspaceFolder: FIXTURES_DIR };

function definition(script: string, env: Record<string, string> = {}): ServerDefinition {
  return { type: 'stdio', name: script.replace(/\.mjs$/, ''), command: node, args: [fixture(script)], env, source };
}

function connection(def: ServerDefinition, logs: string[], trace = false): ServerConnection {
  return new ServerConnection(def, serverId(def), def.name, def.source, testEnvironment(logs, { traceEnabled: () => trace }));
}

function cli(args: string[]) {
  const r = spawnSync(node, [CLI, ...args], { encoding: 'utf8', cwd: REPO_ROOT, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const count = (logs: string[], pattern: RegExp) => logs.filter((l) => pattern.test(l)).length;
/** Requests of `method` sent, as the trace log shows them. */
const sentCount = (logs: string[], method: string) => logs.filter((l) => l.startsWith('trace: →') && l.includes(`"method":"${method}"`) && l.includes('"id"')).length;

describe('the era probe through ServerConnection', () => {
  test('a legacy server that exits on server/discover runs as legacy after one restart; remembered until the config changes', async () => {
    const logs: string[] = [];
    const def = definition('legacy-closing.mjs');
    const c = connection(def, logs, true);
    try {
      await c.start();
      assert.equal(c.state.kind, 'running', 'message' in c.state ? c.state.message : c.state.kind);
      if (c.state.kind !== 'running') return;
      assert.equal(c.state.era, 'legacy');
      assert.equal(c.state.protocolVersion, '2025-11-25');
      assert.deepEqual(c.lists.tools.map((t) => t.name), ['echo']);
      assert.deepEqual((await c.callTool('echo', { text: 'ok' })).content, [{ type: 'text', text: 'ok' }]);
      assert.equal(count(logs, /closed when probed with server\/discover.*starting it again with protocolEra 'legacy' \(remembered/), 1, logs.join('\n'));
      assert.equal(sentCount(logs, 'server/discover'), 1);
      assert.equal(sentCount(logs, 'initialize'), 1);

      // Started again: no probe this time, and the log says why.
      await c.stop();
      await c.start();
      assert.equal(c.state.kind, 'running');
      assert.equal(sentCount(logs, 'server/discover'), 1, 'no second probe');
      assert.equal(count(logs, /protocolEra 'legacy': this server closed when probed with server\/discover before/), 1);

      // A changed configuration is probed again.
      await c.stop();
      c.updateDefinition(definition('legacy-closing.mjs', { CHANGED: '1' }));
      await c.start();
      assert.equal(c.state.kind, 'running');
      assert.equal(sentCount(logs, 'server/discover'), 2, 'the new configuration is probed');
    } finally {
      await c.stop();
      c.dispose();
    }
  });

  test('a server that dies at any start: one legacy retry, then the usual error', async () => {
    const logs: string[] = [];
    const def = definition('exit-immediately.mjs');
    const c = new ServerConnection(def, serverId(def), def.name, def.source, testEnvironment(logs, { restartPolicy: { maxCrashes: 0 } }));
    try {
      await c.start();
      assert.equal(c.state.kind, 'error');
      if (c.state.kind !== 'error') return;
      assert.match(c.state.message, /exited before answering initialize/);
      assert.equal(count(logs, /starting it again with protocolEra 'legacy'/), 1, 'one retry, not more');
    } finally {
      await c.stop();
      c.dispose();
    }
  });
});

describe('list caching (ttlMs) through ServerConnection', () => {
  test('freshLists() fetches again only the lists whose ttlMs has passed', async () => {
    const logs: string[] = [];
    const c = connection(definition('modern-only.mjs', { MODERN_LIST_TTL_MS: '400' }), logs, true);
    try {
      await c.start();
      assert.equal(c.state.kind, 'running');
      assert.equal(c.state.kind === 'running' && c.state.era, 'modern');
      assert.equal(sentCount(logs, 'tools/list'), 1);
      // Fresh: served from the cache.
      await c.freshLists();
      assert.equal(sentCount(logs, 'tools/list'), 1, 'a fresh list is not fetched again');
      await new Promise((r) => setTimeout(r, 450));
      await c.freshLists(['tools']);
      assert.equal(sentCount(logs, 'tools/list'), 2, 'a stale list is fetched again when needed');
      assert.equal(sentCount(logs, 'prompts/list'), 1, 'only the lists asked for');
      await c.freshLists();
      assert.equal(sentCount(logs, 'prompts/list'), 2);
      assert.equal(sentCount(logs, 'resources/list'), 2);
      assert.equal(sentCount(logs, 'resources/templates/list'), 2);
      assert.equal(sentCount(logs, 'tools/list'), 2, 'the tools list fetched a moment ago is fresh');
      assert.ok(c.lists.tools.some((t) => t.name === 'ask-name'));
      // Not polled: nothing is fetched while nobody needs the lists.
      await new Promise((r) => setTimeout(r, 450));
      assert.equal(sentCount(logs, 'tools/list'), 2);
    } finally {
      await c.stop();
      c.dispose();
    }
  });

  test('lists without caching hints (a legacy server) stay cached until a change signal', async () => {
    const logs: string[] = [];
    const c = connection(definition('good-server.mjs'), logs, true);
    try {
      await c.start();
      assert.equal(c.state.kind, 'running');
      await c.freshLists();
      assert.equal(sentCount(logs, 'tools/list'), 1);
    } finally {
      await c.stop();
      c.dispose();
    }
  });
});

describe('the CLI: era probe and MRTR', () => {
  test('a legacy server that exits on server/discover: one retry as legacy, then the call works', () => {
    const r = cli(['call', 'echo', '--args', '{"text":"hello"}', '--', node, fixture('legacy-closing.mjs')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /hello/);
    assert.equal(r.stderr, '', 'nothing on stderr without --verbose');
    const verbose = cli(['call', 'echo', '--verbose', '--args', '{"text":"hello"}', '--', node, fixture('legacy-closing.mjs')]);
    assert.equal(verbose.code, 0, verbose.stderr);
    assert.match(verbose.stderr, /closed when probed with server\/discover .*starting it again with --era legacy/);
    // A server that dies at any start: one retry, and the failure is still one line.
    const dead = cli(['list', '--', node, fixture('exit-immediately.mjs')]);
    assert.equal(dead.code, 3);
    assert.equal(dead.stderr.trim().split('\n').length, 1, dead.stderr);
    const list = cli(['list', '--json', '--', node, fixture('legacy-closing.mjs')]);
    assert.equal(list.code, 0, list.stderr);
    assert.equal(JSON.parse(list.stdout).era, 'legacy');
  });

  test('roots are answered by the CLI itself (MRTR roots/list)', () => {
    const r = cli(['call', 'roots', '--', node, fixture('modern-only.mjs')]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `roots: ${pathToFileURL(REPO_ROOT).href}`);
  });

  test('a tool that needs a form (MRTR input_required) is declined with a message that says why and what to do', () => {
    const r = cli(['call', 'ask-name', '--', node, fixture('modern-only.mjs')]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /needs input from you \(a form\) to complete tools\/call: it asks "Your name\?" \[elicitation\/create\]/);
    assert.match(r.stderr, /declines forms and sampling on the command line; use MCP Host in VS Code/);
    const prompt = cli(['prompt', 'greet', '--', node, fixture('modern-only.mjs')]);
    assert.equal(prompt.code, 1, prompt.stderr);
    assert.match(prompt.stderr, /to complete prompts\/get: it asks "Which style\?"/);
  });

  test('a tool that requires the elicitation capability (-32021) is explained, exit 1', () => {
    const r = cli(['call', 'needs-elicitation', '--', node, fixture('modern-only.mjs')]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /cannot do tools\/call without asking you for input \(elicitation\)/);
    assert.match(r.stderr, /the CLI declines forms and sampling/);
  });
});
