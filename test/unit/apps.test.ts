import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { hasAppView, isAppOnly, isVisibleToApp, toolUi } from '../../src/protocol/apps';
import { appCspDirectives, checkedCsp, formatCsp, isAppMime, loadAppResource } from '../../src/host/apps/resource';
import { McpAppBridge } from '../../src/host/apps/bridge';
import type { Tool } from '../../src/protocol/schemas';

const tool = (name: string, ui?: unknown): Tool => ({ name, inputSchema: { type: 'object' }, ...(ui === undefined ? {} : { _meta: { ui } }) });

describe('tool _meta.ui', () => {
  test('resource URI and visibility, with defaults and the older flat key', () => {
    assert.deepEqual(toolUi(tool('a')), { visibility: ['model', 'app'] });
    assert.deepEqual(toolUi(tool('b', { resourceUri: 'ui://x/v.html', visibility: ['app'] })), { resourceUri: 'ui://x/v.html', visibility: ['app'] });
    assert.equal(toolUi({ _meta: { 'ui/resourceUri': 'ui://old/v.html' } }).resourceUri, 'ui://old/v.html');
    // Not a ui:// URI, or nonsense visibility: as if absent.
    assert.equal(hasAppView(tool('c', { resourceUri: 'https://example.com/x.html' })), false);
    assert.deepEqual(toolUi(tool('d', { visibility: ['nobody', 3] })).visibility, ['model', 'app']);
  });

  test('app-only tools are hidden from people, model-only tools from apps', () => {
    assert.equal(isAppOnly(tool('a', { visibility: ['app'] })), true);
    assert.equal(isAppOnly(tool('b', { visibility: ['model', 'app'] })), false);
    assert.equal(isAppOnly(tool('c')), false);
    assert.equal(isVisibleToApp(tool('d', { visibility: ['model'] })), false);
    assert.equal(isVisibleToApp(tool('e')), true);
  });
});

describe('the view resource and its policy', () => {
  test('the MIME type is compared without case or spaces', () => {
    assert.equal(isAppMime('text/html;profile=mcp-app'), true);
    assert.equal(isAppMime('text/html; profile=MCP-App'), true);
    assert.equal(isAppMime('text/html'), false);
  });

  test('only plain origins get into the policy; keywords and directive breakers are rejected', () => {
    const { csp, rejected } = checkedCsp({
      connectDomains: ['https://api.example.com', "'unsafe-eval'", 'https://a.com; script-src *', '*'],
      resourceDomains: ['https://*.cdn.example.com', 'http://localhost:3000'],
    });
    assert.deepEqual(csp.connectDomains, ['https://api.example.com']);
    assert.deepEqual(csp.resourceDomains, ['https://*.cdn.example.com', 'http://localhost:3000']);
    assert.deepEqual(rejected, ["'unsafe-eval'", 'https://a.com; script-src *', '*']);
    const policy = formatCsp(appCspDirectives(csp));
    assert.match(policy, /connect-src https:\/\/api\.example\.com(;|$)/);
    assert.match(policy, /frame-src 'none'/);
    assert.match(policy, /default-src 'none'/);
    assert.doesNotMatch(policy, /unsafe-eval/);
  });

  test('no declared CSP: no network at all', () => {
    const policy = formatCsp(appCspDirectives(checkedCsp(undefined).csp));
    assert.match(policy, /connect-src 'none'/);
    assert.match(policy, /script-src 'unsafe-inline';/);
  });

  test('the resource must be an MCP App; its _meta.ui comes from the content, else from the listing', async () => {
    const read = async (uri: string) => ({ contents: [{ uri, mimeType: 'text/html;profile=mcp-app', text: '<html></html>' }] });
    const app = await loadAppResource(read, 'ui://x/v.html', { _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: false } } });
    assert.deepEqual(app.csp.connectDomains, ['https://api.example.com']);
    assert.equal(app.prefersBorder, false);
    await assert.rejects(() => loadAppResource(async (uri) => ({ contents: [{ uri, mimeType: 'text/plain', text: 'x' }] }), 'ui://x/v.html'), /not an MCP App/);
    await assert.rejects(() => loadAppResource(read, 'file:///etc/passwd'), /not a ui:\/\/ resource/);
  });
});

describe('the bridge never trusts the view', () => {
  function bridgeWith(tools: Tool[], confirm = true) {
    const sent: any[] = [];
    const calls: string[] = [];
    const bridge = new McpAppBridge({
      hostInfo: { name: 'h', version: '1' },
      tool: tools[0],
      server: {
        name: 's',
        tools: () => tools,
        callTool: async (name) => {
          calls.push(name);
          return { content: [] };
        },
        readResource: async () => ({ contents: [] }),
      },
      delegate: { confirmToolCall: async () => confirm, openLink: async () => false, sizeChanged() {}, requestTeardown() {}, log() {} },
      send: (m) => sent.push(m),
      hostContext: {},
    });
    return { bridge, sent, calls };
  }
  const initialize = { jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: { appInfo: { name: 'v', version: '1' }, appCapabilities: {}, protocolVersion: '2026-01-26' } };

  test('tools/call before ui/initialize is refused', async () => {
    const { bridge, sent, calls } = bridgeWith([tool('t')]);
    await bridge.receive({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 't' } });
    assert.equal(sent[0].error.code, -32600);
    assert.deepEqual(calls, []);
  });

  test('a model-only tool, and a declined destructive one, are not called', async () => {
    const hidden = bridgeWith([tool('view'), tool('secret', { visibility: ['model'] })]);
    await hidden.bridge.receive(initialize);
    await hidden.bridge.receive({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'secret' } });
    assert.match(hidden.sent[1].error.message, /not visible to apps/);
    assert.deepEqual(hidden.calls, []);

    const declined = bridgeWith([tool('rm', { visibility: ['app'] })], false);
    await declined.bridge.receive(initialize);
    await declined.bridge.receive({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'rm' } });
    assert.match(declined.sent[1].error.message, /declined/);
    assert.deepEqual(declined.calls, []);
  });

  test('an app-only tool may be called by its app', async () => {
    const { bridge, sent, calls } = bridgeWith([tool('view'), tool('refresh', { visibility: ['app'] })]);
    await bridge.receive(initialize);
    await bridge.receive({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'refresh', arguments: {} } });
    assert.deepEqual(calls, ['refresh']);
    assert.deepEqual(sent[1].result, { content: [] });
  });

  test('invalid messages are answered with errors or dropped, never acted on', async () => {
    const { bridge, sent } = bridgeWith([tool('t')]);
    await bridge.receive('not an object');
    await bridge.receive({ jsonrpc: '2.0', id: 3, method: 'ui/initialize', params: { appInfo: 'x' } });
    await bridge.receive({ jsonrpc: '1.0', id: 4, method: 'ping' });
    assert.equal(sent.length, 2);
    assert.equal(sent[0].error.code, -32602);
    assert.equal(sent[1].error.code, -32600);
    assert.equal(bridge.state, 'initializing');
  });

  test('ui/notifications/initialized before ui/initialize does not release held notifications', async () => {
    const { bridge, sent } = bridgeWith([tool('t')]);
    bridge.sendToolInput({ a: 1 });
    await bridge.receive({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
    assert.equal(sent.length, 0);
    await bridge.receive(initialize);
    await bridge.receive({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
    assert.deepEqual(
      sent.map((m) => m.method ?? 'answer'),
      ['answer', 'ui/notifications/tool-input'],
    );
  });
});
