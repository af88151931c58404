// Browse Servers… and Check for Updates in a real VS Code, against the fixture registry
// (test/fixtures/registry/registry.mjs, a real HTTP server in its own process): the server is
// found, Add asks for its secret, the entry lands in mcp.json with ${input:}, the server runs with
// the secret in its environment, and the secret is kept in SecretStorage only (not asked again).
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import { REPO_ROOT, activateExtension, waitFor, waitForState } from './helpers';
import { ScriptedPerson, testHooks } from './usagePrompter';

const REGISTRY_SCRIPT = path.join(REPO_ROOT, 'test', 'fixtures', 'registry', 'registry.mjs');
const GOOD_SERVER = path.join(REPO_ROOT, 'test', 'fixtures', 'good-server.mjs');

function startRegistry(): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [REGISTRY_SCRIPT], { stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) resolve({ child, base: match[1] });
    });
    child.once('exit', (code) => reject(new Error(`fixture registry exited (${code}): ${out}`)));
  });
}

describe('MCP registry: Browse Servers… and Check for Updates', function () {
  this.timeout(120_000);
  let api: McpHostApi;
  let registry: { child: ChildProcess; base: string };
  let mcpJsonPath: string;
  let originalMcpJson: string;

  before(async () => {
    api = await activateExtension();
    registry = await startRegistry();
    mcpJsonPath = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'mcp.json');
    originalMcpJson = fs.readFileSync(mcpJsonPath, 'utf8');
    await vscode.workspace.getConfiguration('mcpHost').update('registries', [registry.base], vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    fs.writeFileSync(mcpJsonPath, originalMcpJson);
    await vscode.workspace.getConfiguration('mcpHost').update('registries', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('mcpHost.forgetInputs');
    await api.controller.reload();
    registry.child.kill('SIGTERM');
  });

  it('Browse finds a server; Add asks for its secret; the entry has ${input:}; the server runs; the secret is in SecretStorage only', async () => {
    const secret = 'ek-live-7f3a9c1e5b2d';
    const person = new ScriptedPerson()
      .once('browse.server', /Everything \(with a key\)/)
      .once('browse.target', /workspace/)
      .once('input:everything-with-key.EVERYTHING_API_KEY', secret);
    const hooks = await testHooks();
    hooks.setPrompter(person);
    try {
      const name = await vscode.commands.executeCommand<string>('mcpHost.browseServers', { query: 'everything' });
      assert.equal(name, 'everything-with-key');
      // The list showed what each server needs, and the malformed/deprecated ones are not in this query.
      const listed = person.questions('browse.server')[0];
      const row = listed.method === 'pick' ? listed.items.find((i) => /with a key/.test(i.label)) : undefined;
      assert.match(row?.detail ?? '', /needs EVERYTHING_API_KEY \(secret\)/);
      assert.match(row?.description ?? '', /^2026\.8\.31/);
      const asked = person.questions('input:everything-with-key.EVERYTHING_API_KEY');
      assert.equal(asked.length, 1);
      assert.equal(asked[0].method === 'input' && asked[0].options.password, true, 'typed as a password');

      const written = fs.readFileSync(mcpJsonPath, 'utf8');
      assert.match(written, /\/\/ Fixture workspace/, 'comments kept');
      assert.ok(!written.includes(secret), 'the secret is not in mcp.json');
      const entry = (JSON.parse(written.replace(/^\s*\/\/.*$/gm, '')) as { servers: Record<string, unknown>; inputs: unknown[] }).servers['everything-with-key'];
      assert.deepEqual(entry, {
        type: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-everything@2026.8.31'],
        env: { EVERYTHING_API_KEY: '${input:everything-with-key.EVERYTHING_API_KEY}' },
        gallery: `${registry.base}/v0.1/servers/io.github.mcp-host%2Feverything-with-key`,
        version: '2026.8.31',
      });

      const s = await waitForState(api, 'everything-with-key', 'running', 90_000);
      const result = await s.callTool('get-env', {});
      assert.ok(JSON.stringify(result.content).includes(secret), 'the server got the secret in its environment');
      assert.equal(person.questions('input:everything-with-key.EVERYTHING_API_KEY').length, 1, 'not asked again at start: it was read from SecretStorage');
      const tooltip = api.tree.getTreeItem({ kind: 'server', server: s }).tooltip as vscode.MarkdownString;
      assert.match(tooltip.value, /Registry: `io\.github\.mcp-host\/everything-with-key@2026\.8\.31`/);
      assert.ok(!tooltip.value.includes(secret));
      assert.ok(!api.controller.recentLog(s.id).join('\n').includes(secret), 'the secret is not in the log');
      // Browsing again: the list says it is configured (dismissed without adding).
      person.once('browse.server', undefined);
      assert.equal(await vscode.commands.executeCommand('mcpHost.browseServers', { query: 'everything-with-key' }), undefined);
      const again = person.questions('browse.server')[1];
      const configuredRow = again.method === 'pick' ? again.items.find((i) => /with a key/.test(i.label)) : undefined;
      assert.match(configuredRow?.description ?? '', /configured as everything-with-key@2026\.8\.31/);
      assert.match(configuredRow?.label ?? '', /^\$\(check\) /);
      assert.deepEqual(person.problems, []);
    } finally {
      hooks.setPrompter(undefined);
    }
  });

  it('Check for Updates finds a newer version and moves the pin in mcp.json', async () => {
    const text = fs.readFileSync(mcpJsonPath, 'utf8').replace(
      /"servers": \{/,
      `"servers": {\n    "old-everything": {"command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(GOOD_SERVER)}, "@modelcontextprotocol/server-everything@2025.9.25"], "gallery": "${registry.base}/v0.1/servers/io.modelcontextprotocol%2Feverything", "version": "2025.9.25"},`,
    );
    fs.writeFileSync(mcpJsonPath, text);
    await api.controller.reload();
    await waitFor(() => api.controller.registry.findByName('old-everything'), 'old-everything configured');
    const person = new ScriptedPerson().once('updates.pick', 'keep');
    const hooks = await testHooks();
    hooks.setPrompter(person);
    try {
      const updated = await vscode.commands.executeCommand<string[]>('mcpHost.checkForUpdates');
      assert.deepEqual(updated, ['old-everything']);
      const offered = person.questions('updates.pick')[0];
      assert.match(offered.method === 'pickMany' ? (offered.items[0].description ?? '') : '', /2025\.9\.25 → 2026\.8\.31/);
      const after = fs.readFileSync(mcpJsonPath, 'utf8');
      assert.match(after, /server-everything@2026\.8\.31"/);
      assert.match(after, /"version": "2026\.8\.31"/);
      assert.doesNotMatch(after, /2025\.9\.25/);
      assert.match(after, /\/\/ Fixture workspace/, 'comments kept');
      assert.deepEqual(person.problems, []);
    } finally {
      hooks.setPrompter(undefined);
    }
  });

  it('Add leaves an mcp.json with a syntax error alone before any question, and stores and writes nothing when the file changes while the secret is typed', async () => {
    const hooks = await testHooks();
    // SecretStorage as the extension holds it: the test reads it, it does not go through the API.
    const secrets = (api.controller as unknown as { context: vscode.ExtensionContext }).context.secrets;
    const key = api.controller.inputKey(mcpJsonPath, 'everything-with-key.EVERYTHING_API_KEY');
    const addsEverything = () => new ScriptedPerson().once('browse.server', /Everything \(with a key\)/).once('browse.target', /workspace/);
    try {
      const broken = originalMcpJson.replace(/"servers": \{/, '"servers": {,');
      fs.writeFileSync(mcpJsonPath, broken);
      const first = addsEverything();
      hooks.setPrompter(first);
      assert.equal(await vscode.commands.executeCommand('mcpHost.browseServers', { query: 'everything' }), undefined);
      assert.equal(first.questions('input:everything-with-key.EVERYTHING_API_KEY').length, 0, 'no secret asked');
      assert.equal(fs.readFileSync(mcpJsonPath, 'utf8'), broken, 'the broken file is left as it was');

      fs.writeFileSync(mcpJsonPath, originalMcpJson);
      const edited = originalMcpJson.replace(/\/\/ Fixture workspace/, '// Fixture workspace (edited while Add asked)');
      const secret = 'ek-meanwhile-51c0d2';
      const second = addsEverything().once('input:everything-with-key.EVERYTHING_API_KEY', () => {
        fs.writeFileSync(mcpJsonPath, edited);
        return secret;
      });
      hooks.setPrompter(second);
      assert.equal(await vscode.commands.executeCommand('mcpHost.browseServers', { query: 'everything' }), undefined);
      assert.equal(second.questions('input:everything-with-key.EVERYTHING_API_KEY').length, 1, 'the secret was asked');
      assert.equal(fs.readFileSync(mcpJsonPath, 'utf8'), edited, 'the edit is kept: no entry written over it');
      assert.notEqual(await secrets.get(key), secret, 'the secret was not stored');
    } finally {
      hooks.setPrompter(undefined);
      fs.writeFileSync(mcpJsonPath, originalMcpJson);
      await api.controller.reload();
    }
  });
  it('Add shows what an entry asks docker for beyond its image before anything is stored or written: declined, nothing; accepted, the entry', async () => {
    const hooks = await testHooks();
    const addsDatabaseManager = () =>
      new ScriptedPerson()
        .once('browse.server', /database-manager/)
        .once('browse.target', /workspace/)
        .once('browse.value:var:db_type', 'postgres')
        .once('browse.value:env:DB_USERNAME', 'ada')
        .once('browse.value:arg:--host', 'db.internal')
        .once('browse.value:arg:database_name', 'orders');
    try {
      const declined = addsDatabaseManager().once('browse.launcher', undefined);
      hooks.setPrompter(declined);
      assert.equal(await vscode.commands.executeCommand('mcpHost.browseServers', { query: 'database' }), undefined);
      const shown = declined.questions('browse.launcher');
      assert.equal(shown.length, 1);
      assert.match(shown[0].method === 'message' ? shown[0].text : '', /io\.github\.example\/database-manager asks docker for more than running its package: --network host\./);
      assert.equal(declined.questions('input:database-manager.DB_PASSWORD').length, 0, 'no secret asked once declined');
      assert.equal(fs.readFileSync(mcpJsonPath, 'utf8'), originalMcpJson, 'nothing written');
      assert.deepEqual(declined.problems, []);

      const accepted = addsDatabaseManager().once('browse.launcher', 'Add Anyway').once('input:database-manager.DB_PASSWORD', 'pw-5e1f');
      hooks.setPrompter(accepted);
      assert.equal(await vscode.commands.executeCommand('mcpHost.browseServers', { query: 'database' }), 'database-manager');
      const entry = (JSON.parse(fs.readFileSync(mcpJsonPath, 'utf8').replace(/^\s*\/\/.*$/gm, '')) as { servers: Record<string, { args: string[] }> }).servers['database-manager'];
      assert.deepEqual(entry.args.slice(0, 5), ['run', '-i', '--rm', '--network', 'host']);
      assert.deepEqual(accepted.problems, []);
    } finally {
      hooks.setPrompter(undefined);
      fs.writeFileSync(mcpJsonPath, originalMcpJson);
      await vscode.commands.executeCommand('mcpHost.forgetInputs');
      await api.controller.reload();
    }
  });
});
