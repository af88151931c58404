import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { REPO_ROOT, activateExtension, waitFor, waitForState } from './helpers';
import { disabledToolsSetting, shareState } from '../../src/vscode/share';
import { isToolDisabled } from '../../src/host/gateway/sharing';

const GOOD_SERVER = path.join(REPO_ROOT, 'test', 'fixtures', 'good-server.mjs');

/** Sets (or with undefined, removes) a setting at one level and waits until VS Code reports it. */
async function setSetting(key: string, value: unknown, target: vscode.ConfigurationTarget): Promise<void> {
  await vscode.workspace.getConfiguration('mcpHost').update(key, value, target);
  if (target === vscode.ConfigurationTarget.Global) {
    await waitFor(() => JSON.stringify(vscode.workspace.getConfiguration('mcpHost').inspect(key)?.globalValue) === JSON.stringify(value), `${key} in the user settings`);
    return;
  }
  // VS Code may hide a restricted setting's workspace value from inspect() here. A setting it does
  // apply from an untrusted workspace, written after it to the same file: once that one is seen,
  // VS Code has read the file, with the value under test in it.
  const marker = 1000 + (Date.now() % 100_000);
  await vscode.workspace.getConfiguration('mcpHost').update('requestTimeoutSeconds', marker, target);
  await waitFor(() => vscode.workspace.getConfiguration('mcpHost').inspect('requestTimeoutSeconds')?.workspaceValue === marker, 'VS Code to read the workspace settings');
}

// Runs only in a VS Code started with workspace trust on and this folder untrusted
// (scripts/test-vscode.mjs sets VSCODE_HOST_WORKSPACE_TRUST=on for it).
(vscode.workspace.isTrusted ? describe.skip : describe)('in an untrusted workspace', function () {
  this.timeout(60_000);
  // The workspace-level settings these tests write go to the fixture folder's .vscode/settings.json.
  const settingsFile = path.join(REPO_ROOT, 'test', 'integration', 'workspace', '.vscode', 'settings.json');
  const hadSettings = fs.existsSync(settingsFile);
  after(async () => {
    await vscode.workspace.getConfiguration('mcpHost').update('requestTimeoutSeconds', undefined, vscode.ConfigurationTarget.Workspace);
    if (!hadSettings) fs.rmSync(settingsFile, { force: true });
  });

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

  it("the workspace's settings cannot make other hosts' servers start (mcpHost.otherHosts)", async () => {
    const api = await activateExtension();
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } } };
    for (const key of ['mcpHost.servers', 'mcpHost.inputs', 'mcpHost.otherHosts', 'mcpHost.autoStart']) {
      assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(key), `${key} is a restricted setting`);
    }
    // A server of the user's Cline, which the repository would like to see started.
    const clineFile = path.join(path.dirname(api.globalStorageDirectory), 'saoudrizwan.claude-dev', 'settings', 'cline_mcp_settings.json');
    fs.mkdirSync(path.dirname(clineFile), { recursive: true });
    fs.writeFileSync(clineFile, JSON.stringify({ mcpServers: { 'cline-user': { command: 'node', args: [GOOD_SERVER] } } }));
    try {
      await setSetting('otherHosts', ['cline'], vscode.ConfigurationTarget.Workspace);
      await api.controller.reload();
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(api.controller.registry.findByName('cline-user'), undefined, 'the workspace value of mcpHost.otherHosts is not used');
      assert.ok(!api.controller.registry.servers.some((s) => s.source.file === clineFile));

      // The same file, chosen by the user: its server starts (so the test above looked at the right file).
      await setSetting('otherHosts', ['cline'], vscode.ConfigurationTarget.Global);
      await api.controller.reload();
      await waitForState(api, 'cline-user', 'running');
    } finally {
      await setSetting('otherHosts', undefined, vscode.ConfigurationTarget.Workspace);
      await setSetting('otherHosts', undefined, vscode.ConfigurationTarget.Global);
      await api.controller.reload();
      fs.rmSync(clineFile, { force: true });
      await api.controller.shutdown();
    }
  });

  it("the workspace's settings cannot share the user's servers with the chat, nor give it a tool the user turned off", async () => {
    const api = await activateExtension();
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } } };
    for (const key of ['mcpHost.share', 'mcpHost.tools.disabled']) {
      assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(key), `${key} is a restricted setting`);
    }
    try {
      await setSetting('servers', { 'user-shared': { command: 'node', args: [GOOD_SERVER] } }, vscode.ConfigurationTarget.Global);
      await setSetting('tools.disabled', ['user-shared/echo'], vscode.ConfigurationTarget.Global);
      await setSetting('share', 'all', vscode.ConfigurationTarget.Workspace);
      await setSetting('tools.disabled', ['good/echo'], vscode.ConfigurationTarget.Workspace);
      await api.controller.reload();
      const server = await waitFor(() => api.controller.registry.findByName('user-shared'), 'the user server to be listed');
      assert.equal(shareState(server), 'not-shared', "the workspace's 'all' shares nothing");
      const disabled = disabledToolsSetting();
      assert.equal(isToolDisabled(disabled, 'user-shared', 'echo'), true, "the user's disabled tool stays disabled");
      // The user's list alone applies (VS Code hides a restricted setting's workspace value here).
      assert.equal(isToolDisabled(disabled, 'good', 'echo'), false);
      // The user's own choice still shares it (so the check above looked at the right setting).
      await setSetting('share', ['user-shared'], vscode.ConfigurationTarget.Global);
      assert.equal(shareState(server), 'shared');
    } finally {
      await setSetting('share', undefined, vscode.ConfigurationTarget.Workspace);
      await setSetting('tools.disabled', undefined, vscode.ConfigurationTarget.Workspace);
      await setSetting('share', undefined, vscode.ConfigurationTarget.Global);
      await setSetting('tools.disabled', undefined, vscode.ConfigurationTarget.Global);
      await setSetting('servers', undefined, vscode.ConfigurationTarget.Global);
      await api.controller.shutdown();
    }
  });

  it("the workspace's settings cannot turn on autoStart for the user's servers (mcpHost.autoStart)", async () => {
    const api = await activateExtension();
    try {
      await setSetting('autoStart', false, vscode.ConfigurationTarget.Global);
      await setSetting('autoStart', true, vscode.ConfigurationTarget.Workspace);
      await setSetting('servers', { 'user-manual': { command: 'node', args: [GOOD_SERVER] } }, vscode.ConfigurationTarget.Global);
      await api.controller.reload();
      const s = await waitFor(() => api.controller.registry.findByName('user-manual'), 'the user server to be listed');
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(s.state.kind, 'stopped', "the user's autoStart: false holds, whatever the workspace says");
      // It is still the user's server: started by hand, it runs.
      await s.start();
      assert.equal(s.state.kind, 'running');
    } finally {
      await setSetting('servers', undefined, vscode.ConfigurationTarget.Global);
      await setSetting('autoStart', undefined, vscode.ConfigurationTarget.Workspace);
      await setSetting('autoStart', undefined, vscode.ConfigurationTarget.Global);
      await api.controller.shutdown();
    }
  });
});
