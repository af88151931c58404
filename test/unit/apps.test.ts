import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { hasAppView, isAppOnly, isVisibleToApp, toolUi } from '../../src/protocol/apps';
import { appCspDirectives, appPageCsp, appViewCsp, checkedCsp, formatCsp, isAppMime, loadAppResource } from '../../src/host/apps/resource';
import { LOG_TEXT_LIMIT, MESSAGE_TEXT_LIMIT, McpAppBridge, type AppServer } from '../../src/host/apps/bridge';
import type { CallToolResult, Tool } from '../../src/protocol/schemas';

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

  test('no declared CSP: no network at all; base-uri is the specification default', () => {
    const policy = formatCsp(appCspDirectives(checkedCsp(undefined).csp));
    assert.match(policy, /connect-src 'none'/);
    assert.match(policy, /script-src 'unsafe-inline';/);
    assert.match(policy, /base-uri 'self'(;|$)/);
    assert.match(formatCsp(appCspDirectives(checkedCsp({ baseUriDomains: ['https://cdn.example.com'] }).csp)), /base-uri https:\/\/cdn\.example\.com(;|$)/);
  });

  test('declared origins need a scheme; scheme sources, keywords, wildcards over a TLD and injected directives are rejected', () => {
    const good = ['https://api.example.com', 'HTTPS://API.EXAMPLE.COM', 'wss://live.example.com:8443', 'https://*.example.com', 'http://localhost:3000', 'https://cdn.example.com/lib/', 'https://example.com:*'];
    const bad = [
      'api.example.com',
      'localhost:3000',
      '//example.com',
      'https://*.com',
      'HTTPS://*.COM',
      'https://*',
      '*',
      '*.example.com',
      'data:',
      'DATA:',
      'blob:',
      'https:',
      "'unsafe-eval'",
      "'UNSAFE-INLINE'",
      "'self'",
      '"https://a.com"',
      'https://a.com;script-src *',
      'https://a.com script-src *',
      'https://a.com\tscript-src',
      'https://a.com\nscript-src *',
      'https://a.com,https://b.com',
      'javascript:alert(1)',
      'ftp://example.com',
      '',
      42,
    ];
    const { csp, rejected } = checkedCsp({ connectDomains: [...good, ...bad] });
    assert.deepEqual(csp.connectDomains, good);
    assert.deepEqual(rejected, bad.map(String));
  });

  test('the composed policy: a view that declares one origin may connect to it and nowhere else', () => {
    const { csp } = checkedCsp({ connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'] });
    const directive = (policy: string, name: string) =>
      policy
        .split('; ')
        .find((d) => d.startsWith(`${name} `))
        ?.split(' ')
        .slice(1);
    // The view's own <meta> policy: what it declared, nothing else.
    const view = appViewCsp(csp);
    assert.deepEqual(directive(view, 'connect-src'), ['https://api.example.com']);
    assert.deepEqual(directive(view, 'default-src'), ["'none'"]);
    assert.deepEqual(directive(view, 'script-src'), ["'unsafe-inline'", 'https://cdn.example.com']);
    // The page's policy (inherited by the srcdoc frame): the same network, plus the extension's
    // own files; inline scripts allowed and no nonce (a nonce would switch 'unsafe-inline' off).
    const page = appPageCsp('https://file+.vscode-resource.vscode-cdn.net', csp);
    assert.deepEqual(directive(page, 'connect-src'), ['https://api.example.com']);
    assert.deepEqual(directive(page, 'script-src'), ['https://file+.vscode-resource.vscode-cdn.net', "'unsafe-inline'", 'https://cdn.example.com']);
    assert.doesNotMatch(page, /nonce-/);
    assert.deepEqual(directive(page, 'frame-src'), ["'none'"]);
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
        listResources: async () => [{ uri: 'file:///a.txt', name: 'a' }],
        listResourceTemplates: async () => [{ uriTemplate: 'file:///{path}', name: 'files' }],
        redact: (text) => text,
      },
      delegate: { confirmToolCall: async () => confirm, confirmLink: async () => false, openLink: async () => false, sizeChanged() {}, requestTeardown() {}, log() {} },
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

  test('ui/message: without a chat it is refused; with one its text, bounded, goes to the chat input', async () => {
    const without = bridgeWith([tool('t')]);
    await without.bridge.receive(initialize);
    await without.bridge.receive({ jsonrpc: '2.0', id: 2, method: 'ui/message', params: { role: 'user', content: [{ type: 'text', text: 'hi' }] } });
    assert.equal(without.sent.at(-1).error.code, -32601);
    const messages: string[] = [];
    const bridge = new McpAppBridge({
      hostInfo: { name: 'h', version: '1' },
      tool: tool('t'),
      server: { name: 's', tools: () => [tool('t')], callTool: async () => ({ content: [] }), readResource: async () => ({ contents: [] }), listResources: async () => [], listResourceTemplates: async () => [], redact: (text) => text },
      delegate: { confirmToolCall: async () => true, confirmLink: async () => false, openLink: async () => false, sizeChanged() {}, requestTeardown() {}, log() {}, sendMessage: async (text) => (messages.push(text), true) },
      send: () => undefined,
      hostContext: {},
    });
    await bridge.receive(initialize);
    await bridge.receive({ jsonrpc: '2.0', id: 2, method: 'ui/message', params: { role: 'user', content: [{ type: 'text', text: 'plan a trip' }, { type: 'image', data: 'x' }, { type: 'text', text: 'x'.repeat(20_000) }] } });
    assert.equal(messages.length, 1);
    assert.ok(messages[0].startsWith('plan a trip\n'));
    assert.equal(messages[0].length, MESSAGE_TEXT_LIMIT);
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

describe('the bridge after the view is gone, and what it tells the view', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: { appInfo: { name: 'v', version: '1' }, appCapabilities: {}, protocolVersion: '2026-01-26' } };
  const initialized = { jsonrpc: '2.0', method: 'ui/notifications/initialized' };
  function bridgeWith(options: { confirm?: () => Promise<boolean>; confirmLink?: () => Promise<boolean>; callTool?: AppServer['callTool'] } = {}) {
    const sent: any[] = [];
    const calls: string[] = [];
    const opened: string[] = [];
    const logs: string[] = [];
    const view = tool('view');
    const bridge = new McpAppBridge({
      hostInfo: { name: 'h', version: '1' },
      tool: view,
      server: {
        name: 's',
        tools: () => [view],
        callTool:
          options.callTool ??
          (async (name): Promise<CallToolResult> => {
            calls.push(name);
            return { content: [] };
          }),
        readResource: async () => ({ contents: [] }),
        listResources: async () => [{ uri: 'file:///a.txt', name: 'a' }],
        listResourceTemplates: async () => [{ uriTemplate: 'file:///{path}', name: 'files' }],
        redact: (text) => text.replaceAll('hunter2', '[redacted]'),
      },
      delegate: {
        confirmToolCall: options.confirm ?? (async () => true),
        confirmLink: options.confirmLink ?? (async () => true),
        openLink: async (url) => {
          opened.push(url);
          return true;
        },
        sizeChanged() {},
        requestTeardown() {},
        log: (level, text) => logs.push(`${level} ${text}`),
      },
      send: (m) => sent.push(m),
      hostContext: {},
      teardownTimeoutMs: 50,
    });
    return { bridge, sent, calls, opened, logs };
  }
  /** A promise and the function that settles it, for answers that come later. */
  function later<T>() {
    let settle!: (value: T) => void;
    const promise = new Promise<T>((resolve) => (settle = resolve));
    return { promise, settle };
  }

  test('a tool call confirmed after the view closed is not made', async () => {
    const answer = later<boolean>();
    const { bridge, sent, calls } = bridgeWith({ confirm: () => answer.promise });
    await bridge.receive(initialize);
    const receiving = bridge.receive({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'view', arguments: {} } });
    await new Promise((r) => setImmediate(r));
    bridge.dispose();
    answer.settle(true);
    await receiving;
    assert.deepEqual(calls, []);
    assert.equal(sent.length, 1, 'nothing after the answer to ui/initialize');
  });

  test('a link confirmed after the view closed is not opened; a second link waits for the first question', async () => {
    const answer = later<boolean>();
    const { bridge, sent, opened } = bridgeWith({ confirmLink: () => answer.promise });
    await bridge.receive(initialize);
    const first = bridge.receive({ jsonrpc: '2.0', id: 2, method: 'ui/open-link', params: { url: 'https://a.example/' } });
    await bridge.receive({ jsonrpc: '2.0', id: 3, method: 'ui/open-link', params: { url: 'https://b.example/' } });
    assert.equal(sent.at(-1).id, 3);
    assert.match(sent.at(-1).error.message, /waiting/);
    bridge.dispose();
    answer.settle(true);
    await first;
    assert.deepEqual(opened, []);
  });

  test('a link the person agrees to is opened, one after the other', async () => {
    const { bridge, sent, opened } = bridgeWith();
    await bridge.receive(initialize);
    await bridge.receive({ jsonrpc: '2.0', id: 2, method: 'ui/open-link', params: { url: 'https://a.example/' } });
    await bridge.receive({ jsonrpc: '2.0', id: 3, method: 'ui/open-link', params: { url: 'https://b.example/' } });
    assert.deepEqual(opened, ['https://a.example/', 'https://b.example/']);
    assert.deepEqual(sent.at(-1), { jsonrpc: '2.0', id: 3, result: {} });
  });

  test('resources/list and resources/templates/list are served (serverResources is advertised)', async () => {
    const { bridge, sent } = bridgeWith();
    await bridge.receive(initialize);
    assert.deepEqual(sent[0].result.hostCapabilities.serverResources, {});
    await bridge.receive({ jsonrpc: '2.0', id: 2, method: 'resources/list', params: {} });
    await bridge.receive({ jsonrpc: '2.0', id: 3, method: 'resources/templates/list' });
    assert.deepEqual(sent[1].result, { resources: [{ uri: 'file:///a.txt', name: 'a' }] });
    assert.deepEqual(sent[2].result, { resourceTemplates: [{ uriTemplate: 'file:///{path}', name: 'files' }] });
  });

  test('a log without data is a line of text; long data is cut; secrets are redacted', async () => {
    const { bridge, logs } = bridgeWith();
    await bridge.receive({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } });
    await bridge.receive({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: { password: 'hunter2' } } });
    await bridge.receive({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(10_000) } });
    assert.equal(logs[0], 'info undefined');
    assert.equal(logs[1], 'debug {"password":"[redacted]"}');
    assert.equal(logs[2].length, 'info '.length + LOG_TEXT_LIMIT + 1);
  });

  test('an error sent to the view is redacted', async () => {
    const { bridge, sent } = bridgeWith({
      callTool: async () => {
        throw new Error('HTTP 401 with token hunter2');
      },
    });
    await bridge.receive(initialize);
    await bridge.receive({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'view' } });
    assert.equal(sent[1].error.message, 'HTTP 401 with token [redacted]');
  });

  test('teardown before ui/notifications/initialized sends nothing; whenReady rejects when the view closes first', async () => {
    const { bridge, sent } = bridgeWith();
    const ready = bridge.whenReady();
    await bridge.receive(initialize);
    await bridge.teardown();
    assert.deepEqual(
      sent.map((m) => m.method ?? 'answer'),
      ['answer'],
    );
    assert.equal(bridge.state, 'closed');
    await assert.rejects(ready, /closed/);
    await assert.rejects(bridge.whenReady(), /closed/);
  });

  test('teardown of a ready view asks it, then closes', async () => {
    const { bridge, sent } = bridgeWith();
    await bridge.receive(initialize);
    await bridge.receive(initialized);
    await bridge.teardown();
    assert.equal(sent.at(-1).method, 'ui/resource-teardown');
    assert.equal(bridge.state, 'closed');
  });

  test('a reloaded page gets a new session with the last input and outcome again', async () => {
    const { bridge, sent } = bridgeWith();
    bridge.sendToolInput({ a: 1 });
    bridge.sendToolResult({ content: [{ type: 'text', text: 'first' }] });
    bridge.sendToolResult({ content: [{ type: 'text', text: 'second' }] });
    await bridge.receive(initialize);
    await bridge.receive(initialized);
    const next = bridge.reopen();
    assert.equal(bridge.state, 'closed');
    sent.length = 0;
    await next.receive(initialize);
    await next.receive(initialized);
    assert.equal(next.state, 'ready');
    assert.deepEqual(
      sent.map((m) => m.method ?? 'answer'),
      ['answer', 'ui/notifications/tool-input', 'ui/notifications/tool-result'],
    );
    assert.deepEqual(sent[1].params, { arguments: { a: 1 } });
    assert.equal(sent[2].params.content[0].text, 'second');
    // The old session is deaf: a message to it does nothing.
    await bridge.receive({ jsonrpc: '2.0', id: 9, method: 'ping' });
    assert.equal(sent.length, 3);
  });
});

describe("a remote server's app and this machine's network", () => {
  const loopback = ['http://localhost:3000', 'ws://localhost', 'https://app.localhost', 'http://127.0.0.1:8080', 'http://127.1', 'http://0x7f.0.0.1', 'http://2130706433', 'http://0.0.0.0:9000', 'http://0.0.0.0'];
  const privateNetwork = ['http://10.0.0.1', 'https://172.16.5.4', 'https://172.31.255.255/x', 'http://192.168.1.1', 'http://169.254.169.254/latest', 'http://printer.local', 'https://*.corp.local', 'http://router.home.arpa'];
  const internet = ['https://api.example.com', 'https://172.32.0.1', 'https://192.169.0.1', 'https://11.0.0.1', 'wss://*.example.com:443', 'https://localhost.example.com'];

  test('a public remote server: loopback and private-network origins refused in every field, the rest kept', () => {
    const declared = { connectDomains: [...loopback, ...privateNetwork, ...internet], resourceDomains: ['http://127.0.0.1', 'https://cdn.example.com'], frameDomains: ['http://10.1.2.3'] };
    const { csp, rejected, refusedNetwork } = checkedCsp(declared, 'public');
    assert.deepEqual(csp.connectDomains, internet);
    assert.deepEqual(csp.resourceDomains, ['https://cdn.example.com']);
    assert.deepEqual(csp.frameDomains, []);
    assert.deepEqual(rejected, []);
    assert.deepEqual(refusedNetwork, [...loopback, ...privateNetwork, 'http://127.0.0.1', 'http://10.1.2.3']);
  });

  test('a server on the private network may name it, not this machine; a local server (and stdio) anything', () => {
    const declared = { connectDomains: [...loopback, ...privateNetwork, ...internet] };
    const fromPrivate = checkedCsp(declared, 'private');
    assert.deepEqual(fromPrivate.csp.connectDomains, [...privateNetwork, ...internet]);
    assert.deepEqual(fromPrivate.refusedNetwork, loopback);
    assert.deepEqual(checkedCsp(declared, 'loopback').csp.connectDomains, [...loopback, ...privateNetwork, ...internet]);
    assert.deepEqual(checkedCsp(declared).refusedNetwork, []);
  });

  test('loadAppResource passes the zone through: the app still opens without the refused origins', async () => {
    const html = '<p>hi</p>';
    const app = await loadAppResource(
      async (uri) => ({ contents: [{ uri, mimeType: 'text/html;profile=mcp-app', text: html, _meta: { ui: { csp: { connectDomains: ['http://localhost:1234', 'https://api.example.com'] } } } }] }),
      'ui://x/view',
      undefined,
      'public',
    );
    assert.equal(app.html, html);
    assert.deepEqual(app.csp.connectDomains, ['https://api.example.com']);
    assert.deepEqual(app.refusedNetworkDomains, ['http://localhost:1234']);
  });
});

describe('network zones', () => {
  test('IPv6 and names as URLs carry them', async () => {
    const { zoneOfHostname, zoneOfUrl } = await import('../../src/util/networkZone');
    assert.equal(zoneOfUrl(new URL('http://[::1]:3000/mcp')), 'loopback');
    assert.equal(zoneOfUrl(new URL('http://[::ffff:127.0.0.1]/')), 'loopback');
    assert.equal(zoneOfUrl(new URL('http://[::ffff:192.168.0.2]/')), 'private');
    assert.equal(zoneOfUrl(new URL('http://[fd12:3456::1]/')), 'private');
    assert.equal(zoneOfUrl(new URL('http://[fe80::1]/')), 'private');
    assert.equal(zoneOfUrl(new URL('http://[2001:db8::1]/')), 'public');
    assert.equal(zoneOfUrl(new URL('https://mcp.example.com/')), 'public');
    assert.equal(zoneOfHostname('LOCALHOST.'), 'loopback');
  });
});
