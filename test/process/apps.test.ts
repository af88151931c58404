// MCP Apps against the example servers from npm: the capability we advertise, the tools' _meta.ui,
// the ui:// resource, and the host bridge (src/host/apps/bridge.ts) driven by ext-apps' own `App`
// class (the code the examples' views run), over an in-memory message pair instead of postMessage.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { McpClient } from '../../src/protocol/client';
import { StdioTransport } from '../../src/transport/stdio';
import { MCP_APPS_CLIENT_SETTINGS, MCP_APPS_EXTENSION_ID, hasAppView, toolUi } from '../../src/protocol/apps';
import type { Tool } from '../../src/protocol/schemas';
import { McpAppBridge, type AppHostDelegate, type AppServer } from '../../src/host/apps/bridge';
import { appPageCsp, appViewCsp, checkedCsp, loadAppResource } from '../../src/host/apps/resource';
import { NODE_MODULES, REPO_ROOT } from '../helpers/paths';

const BASIC = path.join(NODE_MODULES, '@modelcontextprotocol/server-basic-vanillajs/dist/index.js');
const BUDGET = path.join(NODE_MODULES, '@modelcontextprotocol/server-budget-allocator/dist/index.js');
const EXT_APPS = path.join(NODE_MODULES, '@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js');

// A real ES module import (the test is compiled to CommonJS, where import() would become require()).
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<any>;

interface Connected {
  client: McpClient;
  trace: Array<{ direction: string; message: any }>;
  stop(): Promise<void>;
}

async function connect(script: string, era: 'auto' | 'legacy'): Promise<Connected> {
  const transport = new StdioTransport({ command: process.execPath, args: [script, '--stdio'], shutdown: { closeStdinGraceMs: 500, sigtermGraceMs: 500 } });
  const trace: Connected['trace'] = [];
  const client = new McpClient(transport, {
    label: `server '${path.basename(path.dirname(path.dirname(script)))}'`,
    clientInfo: { name: 'mcp-host-tests', version: '0.0.0' },
    requestTimeoutMs: 20_000,
    protocolEra: era,
    extensions: { [MCP_APPS_EXTENSION_ID]: MCP_APPS_CLIENT_SETTINGS },
    onTrace: (direction, message) => trace.push({ direction, message }),
  });
  await client.connect();
  return {
    client,
    trace,
    async stop() {
      await transport.close();
      client.dispose();
    },
  };
}

/** The capabilities we sent: in initialize (legacy) or in each request's _meta (modern). */
function sentCapabilities(trace: Connected['trace']): any {
  for (const { direction, message } of trace) {
    if (direction !== 'send') continue;
    if (message.method === 'initialize') return message.params.capabilities;
    const meta = message.params?._meta;
    const modern = meta && Object.entries(meta).find(([key]) => key.endsWith('clientCapabilities'));
    if (modern) return modern[1];
  }
  return undefined;
}

/** The two ends of a message channel: the host's bridge and the view's App transport. */
function viewTransport(deliverToHost: (message: unknown) => void) {
  const transport = {
    onmessage: undefined as ((message: unknown) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((error: Error) => void) | undefined,
    async start() {},
    async send(message: unknown) {
      // A structured clone, as postMessage makes: nothing is shared between the two sides.
      const copy = structuredClone(message);
      setImmediate(() => deliverToHost(copy));
    },
    async close() {
      transport.onclose?.();
    },
    /** The host sends to the view. */
    deliver(message: unknown) {
      const copy = structuredClone(message);
      setImmediate(() => transport.onmessage?.(copy));
    },
  };
  return transport;
}

/** The server as the bridge sees it, straight from the client (the editor goes through ServerConnection). */
function serverOf(s: Connected, name: string, tools: Tool[]): AppServer {
  return {
    name,
    tools: () => tools,
    callTool: (n, a, o) => s.client.callTool(n, a, o),
    readResource: (u, o) => s.client.readResource(u, o),
    listResources: () => s.client.listAllResources(),
    listResourceTemplates: () => s.client.listAllResourceTemplates(),
    redact: (text) => text,
  };
}

function recordingDelegate(): AppHostDelegate & { confirmed: string[]; links: string[]; sizes: unknown[]; logs: unknown[] } {
  const d = {
    confirmed: [] as string[],
    links: [] as string[],
    sizes: [] as unknown[],
    logs: [] as unknown[],
    async confirmToolCall(tool: Tool) {
      d.confirmed.push(tool.name);
      return true;
    },
    async confirmLink() {
      return true;
    },
    async openLink(url: string) {
      d.links.push(url);
      return true;
    },
    sizeChanged(size: unknown) {
      d.sizes.push(size);
    },
    requestTeardown() {},
    log(_level: string, text: string) {
      d.logs.push(text);
    },
  };
  return d;
}

for (const era of ['auto', 'legacy'] as const) {
  describe(`MCP Apps: server-basic-vanillajs (protocolEra ${era})`, () => {
    let s: Connected;
    let tools: Tool[];

    before(async () => {
      s = await connect(BASIC, era);
      tools = await s.client.listAllTools();
    });
    after(async () => {
      await s?.stop();
    });

    test('advertises the extension io.modelcontextprotocol/ui with its MIME type', () => {
      const capabilities = sentCapabilities(s.trace);
      assert.ok(capabilities, `no capabilities found in what was sent (era ${s.client.era})`);
      assert.deepEqual(capabilities.extensions, { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } });
    });

    test("keeps each tool's _meta.ui (resource URI, default visibility)", () => {
      const tool = tools.find((t) => t.name === 'get-time');
      assert.ok(tool, `get-time not listed: ${tools.map((t) => t.name).join(', ')}`);
      assert.equal((tool._meta?.ui as any)?.resourceUri, 'ui://get-time/mcp-app.html');
      assert.deepEqual(toolUi(tool), { resourceUri: 'ui://get-time/mcp-app.html', visibility: ['model', 'app'] });
      assert.equal(hasAppView(tool), true);
    });

    test('the ui:// resource is the MCP App HTML with its (empty) CSP', async () => {
      const app = await loadAppResource((uri) => s.client.readResource(uri), 'ui://get-time/mcp-app.html');
      assert.match(app.html, /<button id="get-time-btn">/);
      assert.deepEqual(app.csp, { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] });
      assert.deepEqual(app.rejectedDomains, []);
    });
  });
}

describe('MCP Apps: the host bridge with ext-apps’ App class', () => {
  let s: Connected;
  let extApps: any;

  before(async () => {
    s = await connect(BASIC, 'auto');
    extApps = await importModule(pathToFileURL(EXT_APPS).href);
  });
  after(async () => {
    await s?.stop();
  });

  async function openView(options: { beforeConnect?: (bridge: McpAppBridge) => void } = {}) {
    const tools = await s.client.listAllTools();
    const tool = tools.find((t) => t.name === 'get-time')!;
    const delegate = recordingDelegate();
    const toView: any[] = [];
    const transport = viewTransport((message) => void bridge.receive(message));
    const bridge: McpAppBridge = new McpAppBridge({
      hostInfo: { name: 'mcp-host-tests', version: '0.0.0' },
      tool,
      server: serverOf(s, 'basic', tools),
      delegate,
      send: (message) => {
        toView.push(message);
        transport.deliver(message);
      },
      hostContext: { theme: 'dark', displayMode: 'inline', styles: { variables: { '--color-background-primary': '#1e1e1e' } } },
    });
    options.beforeConnect?.(bridge);
    const app = new extApps.App({ name: 'test-view', version: '1.0.0' }, {}, { autoResize: false });
    const inputs: any[] = [];
    const results: any[] = [];
    app.ontoolinput = (params: any) => inputs.push(params);
    app.ontoolresult = (params: any) => results.push(params);
    return { app, bridge, delegate, toView, inputs, results, transport, tool };
  }

  test('ui/initialize: the host context (theme, style variables, the tool) and capabilities reach the view; the result passes the package schema', async () => {
    const v = await openView();
    await v.app.connect(v.transport);
    await v.bridge.whenReady();
    const context = v.app.getHostContext();
    assert.equal(context.theme, 'dark');
    assert.equal(context.styles.variables['--color-background-primary'], '#1e1e1e');
    assert.equal(context.toolInfo.tool.name, 'get-time');
    assert.deepEqual(v.app.getHostCapabilities().serverTools, {});
    const answer = v.toView.find((m) => m.result?.hostInfo);
    const checked = extApps.McpUiInitializeResultSchema.safeParse(answer.result);
    assert.ok(checked.success, JSON.stringify(checked.error?.issues));
    assert.equal(v.bridge.state, 'ready');
    await v.bridge.teardown();
  });

  test('notifications wait until the view says it is initialized; tool-input comes before tool-result', async () => {
    const v = await openView({
      beforeConnect: (bridge) => {
        // The tool ran before the view loaded: both must be held, in order.
        bridge.sendToolInput({ asked: 1 });
        bridge.sendToolResult({ content: [{ type: 'text', text: 'first' }] });
      },
    });
    assert.equal(v.toView.length, 0, 'nothing may be sent before ui/initialize');
    await v.app.connect(v.transport);
    await v.bridge.whenReady();
    await waitUntil(() => v.results.length === 1);
    assert.deepEqual(v.inputs, [{ arguments: { asked: 1 } }]);
    assert.equal(v.results[0].content[0].text, 'first');
    const methods = v.toView.filter((m) => m.method).map((m) => m.method);
    assert.deepEqual(methods, ['ui/notifications/tool-input', 'ui/notifications/tool-result']);
    // Both notifications came after the answer to ui/initialize.
    const initAnswer = v.toView.findIndex((m) => m.result?.hostInfo);
    assert.ok(v.toView.findIndex((m) => m.method === 'ui/notifications/tool-input') > initAnswer);
    await v.bridge.teardown();
  });

  test('a tool call from the view reaches the same server; a later result reaches the open view', async () => {
    const v = await openView();
    await v.app.connect(v.transport);
    await v.bridge.whenReady();
    const result = await v.app.callServerTool({ name: 'get-time', arguments: {} });
    assert.match(result.structuredContent.time, /^\d{4}-\d{2}-\d{2}T/);
    assert.deepEqual(v.delegate.confirmed, ['get-time']);
    // The tool runs again (Run Tool with the view open): the new result goes to the same view.
    v.bridge.sendToolResult({ content: [{ type: 'text', text: 'again' }], structuredContent: { time: 'later' } });
    await waitUntil(() => v.results.length === 1);
    assert.equal(v.results[0].structuredContent.time, 'later');
    await v.bridge.teardown();
  });

  test('the view cannot call a tool the server does not have, nor use methods this host lacks', async () => {
    const v = await openView();
    await v.app.connect(v.transport);
    await v.bridge.whenReady();
    await assert.rejects(() => v.app.callServerTool({ name: 'delete-everything', arguments: {} }), /no tool "delete-everything"/);
    await assert.rejects(() => v.app.sendMessage({ role: 'user', content: [{ type: 'text', text: 'hi' }] }), /does not support ui\/message/);
    assert.deepEqual(v.delegate.confirmed, []);
    await v.bridge.teardown();
  });

  test('the view lists the server’s resources (App.listServerResources) through the host', async () => {
    const v = await openView();
    await v.app.connect(v.transport);
    await v.bridge.whenReady();
    assert.deepEqual(v.app.getHostCapabilities().serverResources, {});
    const listed = await v.app.listServerResources();
    assert.ok(
      listed.resources.some((r: any) => r.uri === 'ui://get-time/mcp-app.html'),
      JSON.stringify(listed),
    );
    await v.bridge.teardown();
  });

  test('open-link, size changes and logs go to the host; teardown is answered by the view before it closes', async () => {
    const v = await openView();
    let tornDown = false;
    v.app.onteardown = async () => {
      tornDown = true;
      return {};
    };
    await v.app.connect(v.transport);
    await v.bridge.whenReady();
    const opened = await v.app.openLink({ url: 'https://modelcontextprotocol.io/' });
    assert.equal(opened.isError, undefined);
    assert.deepEqual(v.delegate.links, ['https://modelcontextprotocol.io/']);
    await v.app.sendSizeChanged({ width: 400, height: 321.6 });
    await v.app.sendLog({ level: 'info', data: 'hello from the view' });
    await waitUntil(() => v.delegate.sizes.length === 1 && v.delegate.logs.length === 1);
    assert.deepEqual(v.delegate.sizes, [{ width: 400, height: 322 }]);
    await v.bridge.teardown();
    assert.equal(tornDown, true);
    assert.equal(v.bridge.state, 'closed');
    // After teardown nothing more goes to the view.
    const sent = v.toView.length;
    v.bridge.sendToolResult({ content: [] });
    assert.equal(v.toView.length, sent);
  });
});

describe('MCP Apps: server-budget-allocator', () => {
  let s: Connected;
  before(async () => {
    s = await connect(BUDGET, 'auto');
  });
  after(async () => {
    await s?.stop();
  });

  test('its tool points at its view, and the view is an MCP App', async () => {
    const tools = await s.client.listAllTools();
    const tool = tools.find((t) => hasAppView(t));
    assert.ok(tool, 'no tool with a view');
    assert.equal(tool.name, 'get-budget-data');
    const app = await loadAppResource((uri) => s.client.readResource(uri), toolUi(tool).resourceUri!);
    assert.match(app.html, /<html/i);
    assert.ok(app.html.length > 10_000);
  });

  test('running the tool and handing its result to the bridge delivers the structured content to the view', async () => {
    const extApps = await importModule(pathToFileURL(EXT_APPS).href);
    const tools = await s.client.listAllTools();
    const tool = tools.find((t) => t.name === 'get-budget-data')!;
    const transport = viewTransport((message) => void bridge.receive(message));
    const bridge: McpAppBridge = new McpAppBridge({
      hostInfo: { name: 'mcp-host-tests', version: '0.0.0' },
      tool,
      server: serverOf(s, 'budget', tools),
      delegate: recordingDelegate(),
      send: (message) => transport.deliver(message),
      hostContext: { theme: 'light' },
    });
    const app = new extApps.App({ name: 'budget-view', version: '1.0.0' }, {}, { autoResize: false });
    const results: any[] = [];
    app.ontoolresult = (params: any) => results.push(params);
    bridge.sendToolInput({});
    bridge.sendToolResult(await s.client.callTool('get-budget-data', {}));
    await app.connect(transport);
    await waitUntil(() => results.length === 1);
    assert.equal(results[0].structuredContent.config.currency, 'USD');
    await bridge.teardown();
  });
});

/**
 * The view's page as the extension builds it (appPageCsp, the bundled dist/webview/mcpApp.js),
 * in Chromium, served over HTTP in place of the webview's resource origin. It loads a view that
 * declares one connect origin, and the view tries what a real app does (an onclick attribute, a
 * script it creates) and what its policy forbids (another origin; the page's own files, which
 * only the page's policy allows: proof that the view's <meta> policy is in force).
 */
describe('MCP Apps: the view page and its frame in Chromium', () => {
  const CHROMIUM = process.env.VSCODE_HOST_CHROMIUM || '/usr/bin/chromium';
  let browser: Browser | undefined;
  let page: Page;
  let site: Counted;
  let declared: Counted;
  let other: Counted;

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) return;
    declared = await countingServer(() => 'declared');
    other = await countingServer(() => 'other');
    const csp = checkedCsp({ connectDomains: [declared.origin] }).csp;
    site = await countingServer((url) => {
      if (url === '/page.html') return { type: 'text/html', body: pageDocument(site.origin, appPageCsp(site.origin, csp)) };
      if (url === '/stub.js') return { type: 'text/javascript', body: STUB };
      if (url === '/dist/webview/mcpApp.js') return { type: 'text/javascript', body: fs.readFileSync(path.join(REPO_ROOT, 'dist', 'webview', 'mcpApp.js'), 'utf8') };
      return 'a file of the extension';
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'] });
    page = await browser.newPage();
    await page.goto(`${site.origin}/page.html`);
    await page.waitForFunction(() => (window as any).fromPage?.some((m: any) => m.type === 'ready'));
    await page.evaluate(([html, policy]) => window.postMessage({ type: 'load', html, csp: policy, title: 'view' }, '*'), [VIEW_HTML, appViewCsp(csp)]);
  });
  after(async () => {
    await browser?.close();
    for (const server of [site, declared, other]) server?.close();
  });

  async function viewFrame(): Promise<Frame> {
    await page.waitForFunction(() => (window as any).fromPage?.some((m: any) => m.type === 'loaded'));
    let frame: Frame | undefined;
    await waitUntil(() => (frame = page.frames().find((f) => f.url() === 'about:srcdoc')) !== undefined);
    assert.ok(frame, 'no srcdoc frame');
    await frame.waitForFunction(() => document.body?.dataset.started === 'yes', undefined, { timeout: 10_000 });
    return frame;
  }

  test('the page script loads; the view runs its inline script, an onclick attribute and a script it creates', async (t) => {
    if (!browser) return t.skip(`no Chromium at ${CHROMIUM}`);
    const frame = await viewFrame();
    await frame.click('#b');
    const seen = await frame.evaluate(() => ({ clicked: document.body.dataset.clicked, created: document.body.dataset.created }));
    assert.deepEqual(seen, { clicked: 'yes', created: 'yes' });
  });

  test('the view document carries its own policy: connect-src is the declared origin and no other', async (t) => {
    if (!browser) return t.skip(`no Chromium at ${CHROMIUM}`);
    const frame = await viewFrame();
    const meta = await frame.evaluate(() => document.head.firstElementChild?.outerHTML ?? '');
    const connect = /connect-src ([^;"]*)/.exec(meta)?.[1];
    assert.equal(connect, declared.origin, meta);
    const probes = await frame.evaluate(
      async ([ok, no, own]) => {
        const fetched = async (url: string) => fetch(url).then((r) => `fetched ${r.status}`, () => 'blocked');
        const image = (url: string) =>
          new Promise<string>((resolve) => {
            const img = document.createElement('img');
            img.onload = () => resolve('loaded');
            img.onerror = () => resolve('blocked');
            img.src = url;
          });
        return { declared: await fetched(ok), other: await fetched(no), pageFile: await image(own) };
      },
      [`${declared.origin}/x`, `${other.origin}/x`, `${site.origin}/pixel.png`],
    );
    assert.deepEqual(probes, { declared: 'fetched 200', other: 'blocked', pageFile: 'blocked' });
    assert.equal(declared.count('/x'), 1);
    assert.equal(other.count('/x'), 0, 'the undeclared origin was reached');
    assert.equal(site.count('/pixel.png'), 0, "the page's policy alone let the view load the page's files");
  });
});

/** The page the extension writes (appPanel.ts pageHtml), with a stand-in for acquireVsCodeApi. */
function pageDocument(origin: string, policy: string): string {
  const attr = policy.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
  return `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="${attr}"></head>
<body><p id="status"></p><main id="app"></main>
<script src="${origin}/stub.js"></script><script src="${origin}/dist/webview/mcpApp.js"></script></body></html>`;
}

// Functions evaluated in the browser, in this Node-typed file.
declare const window: any;
declare const document: any;

const STUB = `window.fromPage = [];
window.acquireVsCodeApi = () => ({ postMessage: (m) => window.fromPage.push(m), getState() {}, setState() {} });`;

const VIEW_HTML = `<!DOCTYPE html><html><head><title>view</title></head><body>
<button id="b" onclick="document.body.dataset.clicked = 'yes'">b</button>
<script>
  const made = document.createElement('script');
  made.textContent = "document.body.dataset.created = 'yes'";
  document.body.append(made);
  document.body.dataset.started = 'yes';
</script></body></html>`;

interface Counted {
  origin: string;
  count(url: string): number;
  close(): void;
}

/** A local HTTP server that answers anyone (CORS *) and counts the requests that reach it. */
async function countingServer(answer: (url: string) => string | { type: string; body: string }): Promise<Counted> {
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    counts.set(url, (counts.get(url) ?? 0) + 1);
    const reply = answer(url);
    const { type, body } = typeof reply === 'string' ? { type: 'text/plain', body: reply } : reply;
    res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Content-Type': type });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, count: (url) => counts.get(url) ?? 0, close: () => server.close() };
}

async function waitUntil(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
