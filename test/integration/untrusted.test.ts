import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { REPO_ROOT, activateExtension, waitFor, waitForState } from './helpers';

// Runs only in a VS Code started with workspace trust on and this folder untrusted
// (scripts/test-vscode.mjs sets VSCODE_HOST_WORKSPACE_TRUST=on for it).
(vscode.workspace.isTrusted ? describe.skip : describe)('in an untrusted workspace', function () {
  this.timeout(60_000);

  it('servers defined by the workspace do not start, and the tree says why and how to trust', async () => {
    const api = await activateExtension();
    const good = await waitFor(() => api.controller.registry.findByName('good'), 'the workspace server to be listed');
    await waitFor(() => good.state.kind === 'stopped' && !!good.state.reason, 'a stopped state with a reason');
    assert.ok(good.state.kind === 'stopped');
    assert.match(good.state.reason ?? '', /not trusted.*Manage Workspace Trust/);
    const item = api.tree.getTreeItem({ kind: 'server', server: good });
    assert.match(String(item.description), /not trusted/);
    assert.equal(good.client, undefined);
  });

  it('servers from the user settings still start', async () => {
    const api = await activateExtension();
    await vscode.workspace
      .getConfiguration('mcpHost')
      .update('servers', { 'user-level': { command: 'node', args: [path.join(REPO_ROOT, 'test', 'fixtures', 'good-server.mjs')] } }, vscode.ConfigurationTarget.Global);
    try {
      await waitForState(api, 'user-level', 'running');
      assert.notEqual(api.controller.registry.findByName('good')!.state.kind, 'running');
    } finally {
      await vscode.workspace.getConfiguration('mcpHost').update('servers', undefined, vscode.ConfigurationTarget.Global);
      await api.controller.shutdown();
    }
  });
});
