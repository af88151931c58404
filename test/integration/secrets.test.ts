// Secrets in a real VS Code: a server that prints every secret it was given (an ${input:} value
// from SecretStorage, a secret env value, a --token= argument, a well-known token) and fails must
// not show them in the tree's description and tooltip or in its log; nor may a tool run by hand.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import type { ServerConnection } from '../../src/host/serverConnection';
import { REPO_ROOT, activateExtension, waitFor, waitForState } from './helpers';
import { ScriptedPerson, testHooks } from './usagePrompter';

const LEAKY = path.join(REPO_ROOT, 'test', 'fixtures', 'leak-secrets.mjs');
const TOKENS = {
  input: 'vsc-input-secret-5Tg7',
  envLiteral: 'vsc-env-secret-9Rf2',
  tokenArg: 'vsc-arg-secret-3Wd8',
  wellKnown: 'ghp_vscTOKEN0123456789abcdefghijKLMNOP',
  typed: 'vsc-typed-password-1Qa6',
};

function entry(fail: boolean): Record<string, unknown> {
  return {
    command: process.execPath,
    args: [LEAKY, '${input:leakKey}', `--token=${TOKENS.tokenArg}`, TOKENS.wellKnown],
    env: { SERVICE_API_KEY: TOKENS.envLiteral, LEAK_ENV: 'SERVICE_API_KEY', ...(fail ? { LEAK_FAIL: '1' } : {}) },
  };
}

function assertNoToken(where: string, text: string): void {
  for (const [name, token] of Object.entries(TOKENS)) assert.ok(!text.includes(token), `${where} holds the ${name} token: ${text}`);
}

function tooltipText(item: vscode.TreeItem): string {
  const tooltip = item.tooltip;
  return typeof tooltip === 'string' ? tooltip : (tooltip?.value ?? '');
}

describe('secrets stay out of the tree and the logs', function () {
  this.timeout(60_000);
  let api: McpHostApi;
  const config = () => vscode.workspace.getConfiguration('mcpHost');
  const person = new ScriptedPerson().always('input:leakKey', TOKENS.input);

  before(async () => {
    api = await activateExtension();
    (await testHooks()).setPrompter(person);
    await config().update('inputs', [{ id: 'leakKey', type: 'promptString', password: true }], vscode.ConfigurationTarget.Global);
    await config().update('servers', { 'leaky-fail': entry(true), leaky: entry(false) }, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.commands.executeCommand('mcpHost.forgetInputs');
    await config().update('servers', undefined, vscode.ConfigurationTarget.Global);
    await config().update('inputs', undefined, vscode.ConfigurationTarget.Global);
    (await testHooks()).setPrompter(undefined);
  });

  it('an error state: the description and tooltip show the stderr lines and the command, without the secrets', async () => {
    const s: ServerConnection = await waitForState(api, 'leaky-fail', 'error');
    const item = api.tree.getTreeItem({ kind: 'server', server: s });
    const tooltip = tooltipText(item);
    // The tooltip does show what failed (so this looks at the right text) ...
    assert.match(tooltip, /leak: argv/);
    assert.match(tooltip, /leak: env SERVICE_API_KEY=/);
    assert.match(tooltip, /Command: `.*leak-secrets\.mjs/);
    // ... but none of the secrets, in the tooltip, the description or the log.
    assertNoToken('the tooltip', tooltip);
    assertNoToken('the description', String(item.description));
    assertNoToken('the log', api.controller.recentLog(s.id).join('\n'));
    await s.stop();
  });

  it('a tool run by hand: its arguments are not logged at info, and what the server echoes is redacted', async () => {
    const s = await waitForState(api, 'leaky', 'running');
    await waitFor(() => s.lists.tools.length > 0, 'the tools of leaky');
    await vscode.commands.executeCommand('mcpHost.runTool', {
      server: 'leaky',
      tool: 'echo',
      arguments: { note: TOKENS.input, password: TOKENS.typed, also: TOKENS.wellKnown },
    });
    const log = await waitFor(() => {
      const lines = api.controller.recentLog(s.id);
      return lines.some((l) => l.includes('[stderr] leak: tool arguments')) ? lines : undefined;
    }, 'the server to echo its arguments');
    assert.ok(log.some((l) => l.includes('Tool call echo (by hand)')), log.join('\n'));
    assertNoToken('the log', log.join('\n'));
    assertNoToken('the tooltip', tooltipText(api.tree.getTreeItem({ kind: 'server', server: s })));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await s.stop();
  });
});
