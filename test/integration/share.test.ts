// Sharing with the chat in a real VS Code (1.101+; skipped on the 1.100 flavour): a server named in
// mcpHost.share is offered through VS Code's MCP definition provider API, pointing at this window's
// gateway; a call through the gateway shows in the traffic as the calling client's.
//
// What cannot be driven here: the chat agent itself needs a language model, which this offline test
// host does not have, so no agent turn picks a tool. Covered instead: VS Code asks our provider for
// its definitions (the provider API is VS Code's own), and a client speaking to the definition's URL
// with the definition's header (as VS Code's MCP layer does) is served and recorded as that client.
// When this VS Code also starts the shared server's definition and lists its tools in vscode.lm.tools,
// one of them is invoked through VS Code's own MCP layer.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import { buildTimeline } from '../../src/host/traffic';
import { canShareWithChat } from '../../src/vscode/share';
import { activateExtension, waitFor, waitForState } from './helpers';

// 1.100 has only a proposed API of the same name, which extensions may not use.
const hasApi = canShareWithChat();

describe('Share with Chat in a real VS Code', function () {
  this.timeout(90_000);
  let api: McpHostApi;

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
    if (hasApi) await vscode.workspace.getConfiguration('mcpHost').update('share', undefined, vscode.ConfigurationTarget.Workspace);
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

  it("VS Code's own MCP layer calls the shared server's tool, recorded as VS Code's (when this VS Code starts it)", async function () {
    const lm = vscode.lm as unknown as { tools?: ReadonlyArray<{ name: string }>; invokeTool?: (name: string, options: { input: object; toolInvocationToken: undefined }) => Thenable<unknown> };
    const tool = await waitFor(() => lm.tools?.find((t) => /good/i.test(t.name) && /echo/i.test(t.name)), 'the shared echo tool in vscode.lm.tools', 20_000).catch(() => undefined);
    if (!tool || !lm.invokeTool) {
      // VS Code starts MCP servers when the chat needs them; without a model nothing asks here.
      this.skip();
      return;
    }
    const marker = `vscode-${Date.now()}`;
    await lm.invokeTool(tool.name, { input: { text: marker }, toolInvocationToken: undefined });
    const good = api.controller.registry.findByName('good')!;
    const row = buildTimeline(good.traffic.entries()).find((r) => r.method === 'tools/call' && JSON.stringify(r.first).includes(marker));
    assert.equal(row?.origin?.via, 'gateway');
  });
});
