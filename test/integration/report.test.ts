// MCP Host: Server Report inside a real VS Code: the report of the workspace's `everything` server
// opens as a Markdown preview of a read-only document, with the duplicates it shares with the other
// servers running in the window.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { TreeNode } from '../../src/vscode/serverTree';
import { activateExtension, waitFor, waitForState } from './helpers';

describe('Server Report in a real VS Code', function () {
  this.timeout(60_000);

  it('is contributed to the palette and to running servers in the tree', () => {
    const pkg = vscode.extensions.getExtension('mcp-host.mcp-host')!.packageJSON as {
      contributes: { commands: Array<{ command: string; title: string }>; menus: Record<string, Array<{ command: string; when: string }>> };
    };
    assert.equal(pkg.contributes.commands.find((c) => c.command === 'mcpHost.serverReport')?.title, 'Server Report');
    const menu = pkg.contributes.menus['view/item/context'].find((m) => m.command === 'mcpHost.serverReport');
    assert.ok(menu, 'in the context menu of servers');
    const when = /viewItem =~ \/(.*)\/$/.exec(menu.when)?.[1];
    assert.ok(when, menu.when);
    const matches = (contextValue: string) => new RegExp(when).test(contextValue);
    assert.ok(matches('mcpHost.server.running') && matches('mcpHost.server.running.remote'));
    assert.ok(!matches('mcpHost.server.stopped') && !matches('mcpHost.server.error'));
  });

  it('opens the report of "everything" as a Markdown preview: counts, grade, findings, shared names', async () => {
    const api = await activateExtension();
    const everything = await waitForState(api, 'everything', 'running', 30_000);
    await waitForState(api, 'good', 'running', 30_000);
    await waitFor(() => everything.lists.tools.length > 0, 'the tools of everything');
    // From the tree, as a person does it: the server row's context menu passes its node.
    const node: TreeNode = { kind: 'server', server: everything } as TreeNode;
    assert.equal(api.tree.getTreeItem(node).contextValue, 'mcpHost.server.running');
    const uri = await vscode.commands.executeCommand<string | undefined>('mcpHost.serverReport', node);
    assert.ok(uri, 'the command answers with the document it opened');
    const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
    assert.equal(document.languageId, 'markdown');
    assert.equal(document.uri.scheme, 'mcp-host-report');
    const text = document.getText();
    assert.match(text, /^# Server report: everything$/m);
    assert.match(text, /mcp-servers\/everything/);
    assert.match(text, new RegExp(`^\\| Tools \\| ${everything.lists.tools.length} \\|$`, 'm'));
    assert.match(text, /\*\*Grade [A-F]\*\* \(score \d+ of 100\)/);
    assert.match(text, /## How this report is made/);
    // Duplicates across the servers running together, worked out here from their lists.
    const others = api.controller.registry.servers.filter((s) => s !== everything && s.state.kind === 'running');
    const shared = everything.lists.tools.map((t) => t.name).filter((name) => others.some((o) => o.lists.tools.some((t) => t.name === name)));
    assert.ok(shared.includes('echo'), `good-server and everything both have "echo" (shared: ${shared.join(', ')})`);
    // A peer with most of the names is the same server twice: one finding; others: one per shared name.
    const names = new Set(everything.lists.tools.map((t) => t.name));
    for (const other of others) {
      const common = [...names].filter((name) => other.lists.tools.some((t) => t.name === name));
      if (common.length >= 3 && common.length * 2 >= names.size) {
        assert.match(text, new RegExp(`\\*\\*Server \`${other.name}\`\\*\\*: "${other.name}", running beside this server, has ${common.length} of its ${names.size} tool names`));
      } else {
        for (const name of common) assert.match(text, new RegExp(`\\*\\*Tool \`${name}\`\\*\\*: Servers? .*"${other.name}".* also ha(s|ve) a tool named "${name}"`));
      }
    }
    // The preview is on screen, titled with the server's name.
    await waitFor(
      () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.label.includes('everything (server report)')),
      'the preview tab of the report',
    );
  });

  it('by name, a stopped server gets a message, not a report', async () => {
    const api = await activateExtension();
    const missing = api.controller.registry.findByName('missing');
    assert.ok(missing && missing.state.kind !== 'running');
    const uri = await vscode.commands.executeCommand<string | undefined>('mcpHost.serverReport', 'missing');
    assert.equal(uri, undefined);
  });
});
