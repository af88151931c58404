import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import type { TreeNode } from '../../src/vscode/serverTree';
import * as path from 'node:path';
import { ServerConnection, serverId } from '../../src/host/serverConnection';
import type { ServerDefinition } from '../../src/host/config';
import { testEnvironment } from '../helpers/host';
import { FIXTURES_DIR } from '../helpers/paths';
import { activateExtension, server, waitFor, waitForState } from './helpers';

// The Servers tree as VS Code draws it: tool rows name the tool, and a server that starts running
// opens by itself (VS Code asks for its children without anyone clicking it).

function labelOf(item: vscode.TreeItem): string {
  return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
}

describe('the Servers tree', function () {
  let api: McpHostApi;

  before(async function () {
    this.timeout(60_000);
    api = await activateExtension();
    await waitForState(api, 'everything', 'running', 40_000);
    await waitForState(api, 'good', 'running');
  });

  it("a tool row shows the tool's name (what settings, the CLI and the model use) and its title", async () => {
    const everything = server(api, 'everything');
    await waitFor(() => everything.lists.tools.some((t) => t.name === 'echo'), 'the tools of everything');
    const echo: TreeNode = { kind: 'tool', server: everything, tool: everything.lists.tools.find((t) => t.name === 'echo')! };
    const item = api.tree.getTreeItem(echo);
    assert.equal(labelOf(item), 'echo');
    assert.match(String(item.description), /^Echo Tool — Echoes back/);
    // A tool without a title: its name, then its description; nothing repeated.
    const good = server(api, 'good');
    const plain = good.lists.tools.find((t) => !t.title && !t.annotations?.title)!;
    assert.ok(plain, 'the good server has a tool without a title');
    const plainItem = api.tree.getTreeItem({ kind: 'tool', server: good, tool: plain });
    assert.equal(labelOf(plainItem), plain.name);
    assert.ok(!String(plainItem.description ?? '').startsWith(plain.name), String(plainItem.description));
  });

  it('a server that starts running opens expanded in the view', async function () {
    this.timeout(60_000);
    await vscode.commands.executeCommand('mcpHost.servers.focus');
    const good = server(api, 'good');
    // VS Code asks for a server's children when it draws the server expanded: record those asks.
    const asked: TreeNode[] = [];
    const original = api.tree.getChildren.bind(api.tree);
    api.tree.getChildren = (node?: TreeNode) => {
      if (node) asked.push(node);
      return original(node);
    };
    try {
      for (let round = 1; round <= 2; round++) {
        await good.stop(`tree test ${round}`);
        await waitForState(api, 'good', 'stopped');
        // Let the coalesced repaint of the stopped state reach the view.
        await new Promise((r) => setTimeout(r, 500));
        asked.length = 0;
        await good.start();
        await waitForState(api, 'good', 'running');
        await waitFor(() => asked.some((n) => n.kind === 'server' && n.server === good), `round ${round}: VS Code to open the running server 'good' (it asked for the children of ${asked.map((n) => n.kind).join(', ') || 'nothing'})`, 10_000);
      }
    } finally {
      api.tree.getChildren = original;
    }
  });

  it('a server that refuses one list is a running server with that list as a node saying why (#23)', async function () {
    this.timeout(30_000);
    const def: ServerDefinition = {
      type: 'stdio',
      name: 'templates-refused',
      command: process.execPath,
      args: [path.join(FIXTURES_DIR, 'quirks', 'templates-refused.mjs')],
      env: {},
      source: { file: path.join(FIXTURES_DIR, 'mcp.json'), kind: 'workspace', workspaceFolder: FIXTURES_DIR },
    };
    const refusing = new ServerConnection(def, serverId(def), def.name, def.source, testEnvironment());
    try {
      await refusing.start();
      assert.equal(refusing.state.kind, 'running');
      const categories = api.tree.getChildren({ kind: 'server', server: refusing });
      assert.deepEqual(
        categories.map((n) => (n.kind === 'category' ? n.category : n.kind)),
        ['tools', 'resources', 'resourceTemplates', 'prompts'],
      );
      const templates = categories.find((n) => n.kind === 'category' && n.category === 'resourceTemplates')!;
      assert.equal(api.tree.getTreeItem(templates).description, 'not listed');
      const [reason] = api.tree.getChildren(templates);
      assert.equal(reason.kind, 'message');
      assert.match(reason.kind === 'message' ? reason.message : '', /^Could not load: .*(-32601|Method not found)/);
      const tools = categories.find((n) => n.kind === 'category' && n.category === 'tools')!;
      assert.deepEqual(api.tree.getChildren(tools).map((n) => (n.kind === 'tool' ? n.tool.name : n.kind)), ['query']);
    } finally {
      await refusing.stop();
      refusing.dispose();
    }
  });
});
