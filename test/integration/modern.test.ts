// The 2026-07-28 era inside a real VS Code: a server written with the Python SDK 2.x (run with the
// venv's python, set up in mcpHost.servers) and our modern-only fixture (no initialize at all).
// The tree shows them running with their lists and a tooltip naming the era; Run Tool works, and
// a tool that needs input (MRTR input_required) is answered through the scripted person's form;
// Read Resource and Get Prompt work; a list change reaches the tree; a stale list (ttlMs) is
// fetched again when a picker opens. The venv is made by `node scripts/python-env.mjs` (npm test
// runs it before this layer).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import type { CallToolResult } from '../../src/protocol/schemas';
import type { TreeNode } from '../../src/vscode/serverTree';
import { REPO_ROOT, activateExtension, server, waitFor, waitForState } from './helpers';
import { ScriptedPerson, testHooks } from './usagePrompter';
import type { UsageTestHooks } from '../../src/vscode/services';

const VENV = path.join(REPO_ROOT, '.venv-mcp');
const PYTHON = path.join(VENV, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
const SDK_SERVER = path.join(REPO_ROOT, 'test', 'fixtures', 'python', 'sdk_server.py');
const MODERN_ONLY = path.join(REPO_ROOT, 'test', 'fixtures', 'modern-only.mjs');

function labelOf(item: vscode.TreeItem): string {
  return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
}

function textOf(result: CallToolResult | undefined): string {
  return (result?.content ?? []).map((b) => (b.type === 'text' ? (b as { text: string }).text : '')).join('');
}

function tooltipOf(item: vscode.TreeItem): string {
  return typeof item.tooltip === 'string' ? item.tooltip : (item.tooltip?.value ?? '');
}

describe('The 2026-07-28 era in a real VS Code (Python SDK server, modern-only fixture)', function () {
  this.timeout(60_000);
  let api: McpHostApi;
  let hooks: UsageTestHooks;
  let person: ScriptedPerson;
  const config = () => vscode.workspace.getConfiguration('mcpHost');
  const runTool = (request: { server: string; tool: string; arguments?: Record<string, unknown> }) =>
    Promise.resolve(vscode.commands.executeCommand<CallToolResult | undefined>('mcpHost.runTool', request));

  before(async function () {
    this.timeout(90_000);
    if (!fs.existsSync(PYTHON) || !fs.existsSync(path.join(VENV, 'mcp-host-pins.json'))) {
      throw new Error(
        `The Python venv of the test servers is missing (${PYTHON}). Make it with \`node scripts/python-env.mjs\` ` +
          '(npm test runs it before this layer), then run this test again.',
      );
    }
    api = await activateExtension();
    hooks = await testHooks();
    await config().update(
      'servers',
      {
        'python-sdk': { type: 'stdio', command: PYTHON, args: [SDK_SERVER], env: { NO_COLOR: '1', PYTHONUNBUFFERED: '1' } },
        // Short-lived lists, so a picker can be seen to fetch a stale one again.
        'modern-only': { type: 'stdio', command: process.execPath, args: [MODERN_ONLY], env: { MODERN_LIST_TTL_MS: '300' } },
      },
      vscode.ConfigurationTarget.Global,
    );
    for (const name of ['python-sdk', 'modern-only']) {
      await waitFor(() => api.controller.registry.findByName(name), `the ${name} server to be configured`);
      const s = server(api, name);
      if (s.state.kind !== 'running') await s.start();
      await waitForState(api, name, 'running', 40_000);
      await waitFor(() => server(api, name).lists.tools.length > 0, `${name} tools`);
    }
  });

  beforeEach(() => {
    person = new ScriptedPerson();
    hooks.setPrompter(person);
  });

  afterEach(async () => {
    hooks.setPrompter(undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.deepEqual(person.problems, [], 'the scripted person had no surprises');
  });

  after(async () => {
    await config().update('servers', undefined, vscode.ConfigurationTarget.Global);
  });

  it('the tree shows the Python SDK server running with its tools, resources and prompts; the tooltip names the modern era and 2026-07-28', () => {
    const sdk = server(api, 'python-sdk');
    assert.ok(sdk.state.kind === 'running' && sdk.state.era === 'modern', `running in the modern era (${sdk.state.kind})`);
    const root = api.tree.getChildren().find((n) => n.kind === 'server' && n.server === sdk)!;
    const item = api.tree.getTreeItem(root);
    assert.equal(labelOf(item), 'python-sdk');
    assert.match(String(item.description), /^running/);
    assert.equal(item.contextValue, 'mcpHost.server.running');
    const tooltip = tooltipOf(item);
    assert.match(tooltip, /Protocol: 2026-07-28 \(modern era: server\/discover\)/);
    assert.match(tooltip, /Server: sdk-fixture 1\.0\.0/);

    const categories = api.tree.getChildren(root);
    const names = (category: string) =>
      api.tree.getChildren(categories.find((c) => c.kind === 'category' && c.category === category)!).map((n) => labelOf(api.tree.getTreeItem(n)));
    assert.deepEqual(names('tools').sort(), ['add', 'add_tool', 'greet', 'profile']);
    assert.deepEqual(names('resources'), ['readme']);
    assert.deepEqual(names('resourceTemplates'), ['item']);
    assert.deepEqual(names('prompts'), ['summarize']);

    // The modern-only fixture (no initialize at all) too.
    const modern = server(api, 'modern-only');
    const modernItem = api.tree.getTreeItem(api.tree.getChildren().find((n) => n.kind === 'server' && n.server === modern)!);
    assert.match(tooltipOf(modernItem), /Protocol: 2026-07-28 \(modern era: server\/discover\)/);
  });

  it('Run Tool runs a tool of the modern server', async () => {
    assert.equal(textOf(await runTool({ server: 'python-sdk', tool: 'add', arguments: { a: 2, b: 40 } })), '42');
  });

  it('a tool that needs input twice (MRTR input_required) is answered through the elicitation form', async () => {
    const answerForm = (field: string, value: string, question: RegExp) => {
      person.once('elicitation.start', (q) => {
        assert.ok(q.method === 'pick');
        assert.match(q.options.title ?? '', /"python-sdk"/, 'the server is named');
        assert.match(q.options.placeHolder ?? '', question);
        return /Answer/;
      });
      person.once(`elicitation.field:${field}`, value);
      person.once('elicitation.review', /Send/);
    };
    answerForm('name', 'Ada', /What is your name\?/);
    answerForm('colour', 'green', /Ada, what is your favourite colour\?/);
    assert.equal(textOf(await runTool({ server: 'python-sdk', tool: 'profile' })), 'Ada likes green');
    assert.equal(person.questions('elicitation.start').length, 2, 'two rounds, two forms');
  });

  it('Read Resource and Get Prompt work against the modern server', async () => {
    const resource = (await vscode.commands.executeCommand<vscode.Uri | undefined>('mcpHost.readResource', { server: 'python-sdk', uri: 'fixture://readme' }))!;
    assert.ok(resource, 'a resource document');
    const text = (await vscode.workspace.openTextDocument(resource)).getText();
    assert.equal(text, 'This is the SDK fixture.');
    const item = (await vscode.commands.executeCommand<vscode.Uri | undefined>('mcpHost.readResource', { server: 'python-sdk', uriTemplate: 'fixture://items/{item_id}', values: { item_id: '7' } }))!;
    assert.equal((await vscode.workspace.openTextDocument(item)).getText(), 'item 7');

    const prompt = (await vscode.commands.executeCommand<vscode.Uri | undefined>('mcpHost.getPrompt', { server: 'python-sdk', prompt: 'summarize', arguments: { topic: 'the eras' } }))!;
    assert.ok(prompt, 'a prompt document');
    assert.match((await vscode.workspace.openTextDocument(prompt)).getText(), /^## 1 · User\n\nPlease summarize the eras\.$/m);
  });

  it('Get Prompt with input (MRTR) on the modern-only fixture asks through the form', async () => {
    person.once('elicitation.start', /Answer/);
    person.once('elicitation.field:name', 'friendly');
    person.once('elicitation.review', /Send/);
    const prompt = (await vscode.commands.executeCommand<vscode.Uri | undefined>('mcpHost.getPrompt', { server: 'modern-only', prompt: 'greet' }))!;
    assert.match((await vscode.workspace.openTextDocument(prompt)).getText(), /Greet in a friendly style/);
  });

  it('a list change (on the subscriptions/listen stream) reaches the tree', async () => {
    const sdk = server(api, 'python-sdk');
    let repainted = 0;
    const listener = api.tree.onDidChangeTreeData(() => repainted++);
    try {
      assert.match(textOf(await runTool({ server: 'python-sdk', tool: 'add_tool', arguments: { name: 'echo_in_tree' } })), /added echo_in_tree/);
      await waitFor(() => sdk.lists.tools.some((t) => t.name === 'echo_in_tree'), 'the new tool in the lists', 15_000);
      await waitFor(() => repainted > 0, 'the tree to repaint');
      const root = api.tree.getChildren().find((n) => n.kind === 'server' && n.server === sdk)!;
      const tools = api.tree.getChildren(api.tree.getChildren(root).find((c) => c.kind === 'category' && c.category === 'tools')!);
      assert.ok(tools.some((n) => n.kind === 'tool' && n.tool.name === 'echo_in_tree'));
      assert.equal(textOf(await runTool({ server: 'python-sdk', tool: 'echo_in_tree', arguments: { text: 'from the tree' } })), 'from the tree');
    } finally {
      listener.dispose();
    }
  });

  it('a stale list (its ttlMs passed) is fetched again when a picker opens or the tree expands the server', async () => {
    const modern = server(api, 'modern-only');
    const log = () => api.controller.recentLog(modern.id).join('\n');
    const refetches = () => (log().match(/The tools list is stale/g) ?? []).length;
    await new Promise((r) => setTimeout(r, 400));
    const before = refetches();
    person.once('prompt.pick', (q) => {
      assert.equal(q.method, 'pick');
      return undefined; // dismissed: only the fetch matters here
    });
    // Get Prompt's picker: the prompts list of every running server is checked first.
    await vscode.commands.executeCommand('mcpHost.getPrompt');
    assert.match(log(), /The prompts list is stale/);
    // Expanding the server in the tree.
    const node: TreeNode = { kind: 'server', server: modern };
    await new Promise((r) => setTimeout(r, 400));
    await api.tree.expanded(node);
    assert.equal(refetches(), before + 1, 'the stale tools list was fetched again once');
    await api.tree.expanded(node);
    assert.equal(refetches(), before + 1, 'fresh again: served from the cache');
  });
});
