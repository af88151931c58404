import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import type { DiagnoseResult } from '../../src/vscode/doctor';
import { activateExtension, server, waitFor, waitForState } from './helpers';

// MCP Host: Diagnose Server… from a failed server in the tree: one click says why and what to do.

describe('Diagnose Server (the doctor)', function () {
  let api: McpHostApi;

  before(async function () {
    this.timeout(60_000);
    api = await activateExtension();
    await waitForState(api, 'missing', 'error', 40_000);
  });

  it('the failed row offers Diagnose: a click on it runs the doctor on that server', () => {
    const missing = server(api, 'missing');
    const item = api.tree.getTreeItem({ kind: 'server', server: missing });
    assert.equal(item.contextValue, 'mcpHost.server.error', 'the inline Diagnose action is shown for this contextValue (package.json)');
    assert.equal(item.command?.command, 'mcpHost.diagnoseServer');
    assert.deepEqual(item.command?.arguments, [missing.id]);
  });

  it('on the "missing" server it opens a document that says the command was not found and what to do', async function () {
    this.timeout(60_000);
    const missing = server(api, 'missing');
    // What the row's click runs: the command with the server's id.
    const result = await vscode.commands.executeCommand<DiagnoseResult | undefined>('mcpHost.diagnoseServer', missing.id);
    assert.ok(result, 'the command returns the document it opened');
    assert.equal(result.report.server, 'missing');
    assert.equal(result.report.verdict, 'fail');
    const command = result.report.checks.find((c) => c.id === 'command');
    assert.equal(command?.status, 'fail');

    const uri = vscode.Uri.parse(result.uri);
    assert.equal(uri.scheme, 'mcp-host-doctor');
    assert.match(uri.path, /Diagnosis of missing\.md$/, 'the document is named after the server');
    const document = await vscode.workspace.openTextDocument(uri);
    const text = document.getText();
    assert.match(text, /^# Diagnosis of "missing"$/m);
    assert.match(text, /^\*\*Verdict: ✖ fails\.\*\* Command found: Install mcp-host-no-such-command-xyz/m);
    assert.match(text, /^- ✖ \*\*Command found\*\* — "mcp-host-no-such-command-xyz" was not found\. PATH: /m);
    assert.match(text, /^ {2}- \*\*Fix:\*\* Install mcp-host-no-such-command-xyz, or put the absolute path of the program in "command" in .*mcp\.json/m);
    assert.match(text, /^- – \*\*Handshake\*\* — Skipped: the command was not found\.$/m);

    // It was shown: as a Markdown preview, or (without the Markdown extension) as the document itself.
    await waitFor(
      () =>
        vscode.window.tabGroups.all.some((g) =>
          g.tabs.some((t) => t.label.includes('Diagnosis of missing') || (t.input instanceof vscode.TabInputText && t.input.uri.toString() === result.uri)),
        ),
      'a tab showing the diagnosis',
      10_000,
    );
  });

  it('a healthy server: every check passes and the handshake names the server it reached', async function () {
    this.timeout(60_000);
    await waitForState(api, 'good', 'running', 40_000);
    const stateBefore = api.controller.registry.findByName('good')?.state;
    const pidBefore = stateBefore?.kind === 'running' ? stateBefore.pid : undefined;
    const result = await vscode.commands.executeCommand<DiagnoseResult | undefined>('mcpHost.diagnoseServer', 'good');
    assert.equal(result?.report.verdict, 'pass', JSON.stringify(result?.report.checks, null, 1));
    // A running server is not started a second time: its handshake comes from the running session.
    assert.match(result.report.checks.find((c) => c.id === 'handshake')?.detail ?? '', /^Running now \(so no second copy was started\): good-server 1\.2\.3, protocol [\d-]+ \((legacy|modern) era\)/);
    assert.equal(api.controller.registry.findByName('good')?.state, stateBefore, 'the running session is untouched');
    assert.ok(pidBefore !== undefined, 'a local server has a pid');
  });
});
