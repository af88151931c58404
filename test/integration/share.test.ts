// Sharing with the chat in a real VS Code (1.101+; skipped on the 1.100 flavour): a server named in
// mcpHost.share is offered through VS Code's MCP definition provider API, pointing at this window's
// gateway; a call through the gateway shows in the traffic as the calling client's.
//
// What cannot be driven here: the chat agent itself needs a language model, which this offline test
// host does not have, so no agent turn picks a tool. Covered instead, with VS Code's own machinery:
// VS Code asks our provider for its definitions; VS Code's command workbench.mcp.startServer starts
// our definition (VS Code's MCP client connects to the gateway from its extension host, with the
// definition's header), its tools appear in vscode.lm.tools, and vscode.lm.invokeTool calls one the
// way the agent would; the call is in our traffic as VS Code's (origin: gateway, VS Code's name).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import { buildTimeline } from '../../src/host/traffic';
import type { TreeNode } from '../../src/vscode/serverTree';
import { canShareWithChat } from '../../src/vscode/share';
import { activateExtension, EXTENSION_ID, waitFor, waitForState } from './helpers';

// 1.100 has only a proposed API of the same name, which extensions may not use.
const hasApi = canShareWithChat();

const START_MCP_SERVER = 'workbench.mcp.startServer';
/** VS Code's id of an extension-provided definition: "<extension id, lower case>/<label>". */
const OUR_DEFINITION_ID = `${EXTENSION_ID}/good (MCP Host)`;

/**
 * Starts our definition in VS Code's MCP layer until a tool it did not list before appears (VS Code
 * takes our definitions into its server list after a short debounce, so the first start may find
 * nothing), and returns the name VS Code gave that tool.
 */
async function startOurDefinitionFor(toolName: string, before: ReadonlySet<string>): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    await vscode.commands.executeCommand(START_MCP_SERVER, OUR_DEFINITION_ID, { autoTrustChanges: true });
    const added = vscode.lm.tools.map((t) => t.name).filter((n) => !before.has(n));
    const tool = added.find((n) => n.endsWith(`_${toolName}`));
    if (tool) return tool;
    if (Date.now() > deadline) throw new Error(`VS Code listed no new ${toolName} tool after starting ${OUR_DEFINITION_ID} (new: ${added.join(', ') || 'none'})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('Share with Chat in a real VS Code', function () {
  this.timeout(90_000);
  let api: McpHostApi;
  /** The name VS Code gave our shared echo tool (set by the test that starts our definition). */
  let ourEcho: string | undefined;
  const settings = () => vscode.workspace.getConfiguration('mcpHost');
  const listed = (tool: string) => vscode.lm.tools.some((t) => t.name === tool);
  const goodNode = (): TreeNode => api.tree.getChildren().find((n) => n.kind === 'server' && n.server.name === 'good')!;

  before(async function () {
    if (!hasApi) this.skip();
    api = await activateExtension();
    await api.ready;
    await waitForState(api, 'good', 'running', 30_000).catch(async () => {
      await api.controller.registry.findByName('good')?.start();
      return waitForState(api, 'good', 'running', 30_000);
    });
    await vscode.workspace.getConfiguration('mcpHost').update('share', ['good'], vscode.ConfigurationTarget.Workspace);
  });

  after(async () => {
    if (!hasApi) return;
    // Stop VS Code's client of our definition, so later suites see no traffic of it.
    if ((await vscode.commands.getCommands(true)).includes(START_MCP_SERVER)) await vscode.commands.executeCommand('workbench.mcp.stopServer', OUR_DEFINITION_ID);
    await settings().update('share', undefined, vscode.ConfigurationTarget.Workspace);
    await settings().update('tools.disabled', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('VS Code is offered the shared server at the gateway, without the token in the URL', async () => {
    const provided = await waitFor(() => api.sharing.lastProvided.find((d) => d.label === 'good (MCP Host)'), 'VS Code asking the provider for the shared server', 30_000);
    assert.match(provided.url, /^http:\/\/127\.0\.0\.1:\d+\/servers\/good\/mcp$/);
    assert.ok(!provided.url.includes(api.sharing.gateway.token));
  });

  it("a call through the gateway is in the traffic as the calling client's", async () => {
    const url = api.sharing.gateway.urlOf('good');
    const headers = { Authorization: `Bearer ${api.sharing.gateway.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const init = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agent-stand-in', version: '1' } } }) });
    assert.equal(init.status, 200);
    const session = init.headers.get('mcp-session-id')!;
    const marker = `shared-${Date.now()}`;
    const call = await fetch(url, { method: 'POST', headers: { ...headers, 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: marker } } }) });
    assert.match(await call.text(), new RegExp(marker));
    const good = api.controller.registry.findByName('good')!;
    const row = buildTimeline(good.traffic.entries()).find((r) => r.method === 'tools/call' && JSON.stringify(r.first).includes(marker));
    assert.deepEqual(row?.origin, { via: 'gateway', name: 'agent-stand-in' });
  });

  it("VS Code's own MCP layer calls the shared server's tool through the gateway, recorded as VS Code's", async function () {
    // No model picks a tool here, so VS Code's own commands do what the chat would: start the
    // server of OUR definition only (not '*', which would also start VS Code's copies from mcp.json)
    // and invoke its tool through vscode.lm.invokeTool, which runs VS Code's MCP client.
    if (!(await vscode.commands.getCommands(true)).includes(START_MCP_SERVER)) this.skip(); // a VS Code without this command
    const before = new Set(vscode.lm.tools.map((t) => t.name));
    const echo = await startOurDefinitionFor('echo', before);
    const marker = `vscode-${Date.now()}`;
    const result = await vscode.lm.invokeTool(echo, { input: { text: marker }, toolInvocationToken: undefined });
    assert.deepEqual(result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '?')), [marker]);
    // The call reached the process MCP Host runs, through the gateway, as VS Code's client.
    const good = api.controller.registry.findByName('good')!;
    const row = await waitFor(() => buildTimeline(good.traffic.entries()).find((r) => r.method === 'tools/call' && JSON.stringify(r.first).includes(marker)), 'the call in our traffic');
    assert.deepEqual(row.origin, { via: 'gateway', name: vscode.env.appName });
    ourEcho = echo;
  });

  it("the tree's Allow for Chat (On/Off) edits mcpHost.tools.disabled, and VS Code drops and regains the tool", async () => {
    assert.ok(ourEcho, 'the previous test started our definition in VS Code');
    const tools = api.tree.getChildren(goodNode()).find((n) => n.kind === 'category' && n.category === 'tools')!;
    const echoNode = api.tree.getChildren(tools).find((n) => n.kind === 'tool' && n.tool.name === 'echo')!;
    await vscode.commands.executeCommand('mcpHost.toggleToolForChat', echoNode);
    assert.deepEqual(settings().inspect('tools.disabled')?.workspaceValue, ['good/echo']);
    // The gateway tells VS Code to list the tools again; the disabled one is no longer offered.
    await waitFor(() => !listed(ourEcho!), 'VS Code to drop the tool disabled for chat');
    await vscode.commands.executeCommand('mcpHost.toggleToolForChat', echoNode);
    assert.deepEqual(settings().inspect('tools.disabled')?.workspaceValue, []);
    await waitFor(() => listed(ourEcho!), 'VS Code to list the tool again');
  });

  it("the tree's Share with Chat (On/Off) edits mcpHost.share, and VS Code loses and regains the definition", async () => {
    assert.ok(ourEcho, 'the previous tests started our definition in VS Code');
    const provided = () => api.sharing.lastProvided.some((d) => d.label === 'good (MCP Host)');
    await vscode.commands.executeCommand('mcpHost.toggleShareWithChat', goodNode());
    assert.equal(settings().inspect('share')?.workspaceValue, 'none');
    await waitFor(() => !provided(), 'VS Code to be given no shared good');
    await waitFor(() => !listed(ourEcho!), "VS Code to drop the unshared server's tools");
    assert.doesNotMatch(String(api.tree.getTreeItem(goodNode()).description), /shared with chat/);
    await vscode.commands.executeCommand('mcpHost.toggleShareWithChat', goodNode());
    assert.deepEqual(settings().inspect('share')?.workspaceValue, ['good']);
    await waitFor(() => provided(), 'VS Code to be given the shared good again');
    assert.match(String(api.tree.getTreeItem(goodNode()).description), /shared with chat/);
  });
});
