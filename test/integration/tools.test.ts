// Running tools by hand, inside a real VS Code, against real servers (good-server, content-server,
// server-everything): arguments validated before sending, the schema form driven through its real
// page, every content type rendered in the result view, structuredContent checked against the
// outputSchema, and cancellation reaching the server.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import type { CallToolResult } from '../../src/protocol/schemas';
import type { ToolsTestHook } from '../../src/vscode/usage/tools';
import type { ResultSnapshot } from '../../src/vscode/webview/protocol';
import { REPO_ROOT, activateExtension, server, waitFor, waitForState, within } from './helpers';

const CONTENT_SERVER = path.join(REPO_ROOT, 'test', 'fixtures', 'content-server.mjs');

/** Polls an async probe until it yields a value. */
async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function text(result: CallToolResult | undefined): string {
  return (result?.content ?? []).map((b) => (b.type === 'text' ? (b as { text: string }).text : '')).join('');
}

describe('Tools: Run Tool in a real VS Code', function () {
  this.timeout(60_000);
  let api: McpHostApi;
  let hook: ToolsTestHook;
  const config = () => vscode.workspace.getConfiguration('mcpHost');

  const run = (request: { server: string; tool: string; arguments?: Record<string, unknown>; form?: boolean }): Promise<CallToolResult | undefined> =>
    Promise.resolve(vscode.commands.executeCommand<CallToolResult | undefined>('mcpHost.runTool', request));

  /** The result view of the latest run, once its page has rendered it. */
  async function renderedView(): Promise<ResultSnapshot> {
    const view = await waitFor(() => hook.latestResultView(), 'a result view');
    const model = await waitFor(() => view.model, 'the result model');
    await view.rendered(model.runId);
    const snapshot = await view.snapshot();
    assert.equal(snapshot.runId, model.runId, 'the page shows the latest run');
    return snapshot;
  }

  async function callCount(): Promise<number> {
    const result = await server(api, 'content').client!.callTool('call-count');
    return Number(text(result));
  }

  before(async function () {
    this.timeout(90_000);
    api = await activateExtension();
    hook = (await vscode.commands.executeCommand<ToolsTestHook>('mcpHost.tools.testHook'))!;
    await config().update('servers', { content: { type: 'stdio', command: process.execPath, args: [CONTENT_SERVER] } }, vscode.ConfigurationTarget.Global);
    // Earlier test files may have stopped every server (the deactivation test): start them again.
    await waitFor(() => api.controller.registry.findByName('content'), 'the content server to be configured');
    for (const name of ['good', 'everything', 'content']) {
      const s = server(api, name);
      if (s.state.kind !== 'running') await s.start();
      await waitForState(api, name, 'running', 30_000);
      await waitFor(() => server(api, name).lists.tools.length > 0, `${name} tools`);
    }
  });

  after(async () => {
    for (const view of hook.resultViews()) view.panel.dispose();
    await config().update('servers', undefined, vscode.ConfigurationTarget.Global);
    await config().update('tools.trusted', undefined, vscode.ConfigurationTarget.Global);
  });

  it('contributes Run Tool to the palette and to tool items in the tree', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('mcpHost.runTool'));
    const pkg = vscode.extensions.getExtension('mcp-host.mcp-host')!.packageJSON as { contributes: { commands: Array<{ command: string; title: string }>; menus: Record<string, Array<{ command: string; when: string; group?: string }>> } };
    assert.equal(pkg.contributes.commands.find((c) => c.command === 'mcpHost.runTool')?.title, 'Run Tool…');
    const inline = pkg.contributes.menus['view/item/context'].find((m) => m.command === 'mcpHost.runTool' && m.group?.startsWith('inline'));
    assert.match(inline?.when ?? '', /viewItem == mcpHost\.tool/);
  });

  it('runs a tool with flat arguments and shows the result as "<tool> — <server>"', async () => {
    const result = await run({ server: 'content', tool: 'flat', arguments: { text: 'hello', count: 2, verbose: true, mode: 'careful' } });
    assert.deepEqual(JSON.parse(text(result)), { text: 'hello', count: 2, verbose: true, mode: 'careful' });
    const snapshot = await renderedView();
    assert.equal(hook.latestResultView()!.panel.title, 'Flat Arguments — content');
    assert.match(snapshot.text, /Success/);
    assert.match(snapshot.text, /"mode": "careful"/, 'the JSON text is shown formatted');
  });

  it('refuses invalid arguments before sending anything (2020-12 and draft-07 schemas)', async () => {
    const before = await callCount();
    await assert.rejects(run({ server: 'content', tool: 'flat', arguments: { text: 'x', count: 0, mode: 'turbo' } }), (err: Error) => {
      assert.match(err.message, /nothing was sent/);
      assert.match(err.message, /text must NOT have fewer than 2 characters/);
      assert.match(err.message, /count must be >= 1/);
      assert.match(err.message, /mode must be one of: "fast", "slow", "careful"/);
      return true;
    });
    await assert.rejects(run({ server: 'content', tool: 'nested', arguments: { target: 'x', options: {}, steps: [{ weight: -1, extra: 1 }] } }), (err: Error) => {
      assert.match(err.message, /options\.depth is required/);
      assert.match(err.message, /steps\[0\]\.name is required/);
      assert.match(err.message, /steps\[0\]\.extra is not allowed/);
      assert.match(err.message, /steps\[0\]\.weight must be >= 0/);
      return true;
    });
    // 2020-12 prefixItems and draft-07 tuple items are both understood.
    await assert.rejects(run({ server: 'content', tool: 'tuple-2020', arguments: { pair: ['a', 'b'] } }), /pair\[1\] must be a number/);
    await assert.rejects(run({ server: 'content', tool: 'tuple-07', arguments: { pair: ['a', 'b'] } }), /pair\[1\] must be a number/);
    assert.equal(await callCount(), before + 1, 'the server received no tools/call for the refused runs (only call-count itself)');
    assert.equal(text(await run({ server: 'content', tool: 'tuple-2020', arguments: { pair: ['a', 1] } })), '["a",1]');
    assert.equal(text(await run({ server: 'content', tool: 'tuple-07', arguments: { pair: ['a', 1] } })), '["a",1]');
    // server-everything's schemas are draft-07.
    await assert.rejects(run({ server: 'everything', tool: 'get-sum', arguments: { a: 'one', b: 2 } }), /a must be a number/);
    assert.match(text(await run({ server: 'everything', tool: 'get-sum', arguments: { a: 1, b: 2 } })), /3/);
  });

  it('an input schema in an unsupported dialect is reported, not silently trusted', async () => {
    const result = await run({ server: 'content', tool: 'old-dialect', arguments: { x: 'y' } });
    assert.equal(text(result), '{"x":"y"}');
    const log = api.controller.recentLog(server(api, 'content').id);
    assert.ok(log.some((l) => /old-dialect: arguments not checked: .*draft-04.*not support/.test(l)), log.slice(-5).join('\n'));
  });

  it('nested arguments through the real form: errors shown at their fields, then a valid submission runs', async () => {
    const pending = run({ server: 'content', tool: 'nested', form: true, arguments: { target: '', options: { depth: 9 }, steps: [{ name: 'build' }] } });
    const form = await waitFor(() => hook.forms().find((f) => f.title === 'Run Nested Arguments — content'), 'the form');
    await within(form.ready, 35_000, 'the form page to say ready');
    const snap = await form.snapshot();
    const paths = snap.fields.map((f) => f.path);
    for (const p of ['/target', '/options', '/options/depth', '/options/tags', '/steps', '/steps/0/name', '/steps/0/weight']) assert.ok(paths.includes(p), `field ${p} in ${paths.join(', ')}`);
    assert.equal(snap.fields.find((f) => f.path === '/options/depth')?.control, 'integer');
    assert.equal(snap.fields.find((f) => f.path === '/steps')?.control, 'array');

    await form.press('submit');
    const shown = await until(async () => {
      const s = await form.snapshot();
      return s.fields.some((f) => f.path === '/options/depth' && f.error) ? s : undefined;
    }, 'errors at the fields');
    const errors = Object.fromEntries(shown.fields.filter((f) => f.error).map((f) => [f.path, f.error]));
    assert.match(String(errors['/target']), /is required/);
    assert.match(String(errors['/options/depth']), /must be <= 5/);
    assert.ok(shown.summary.length >= 2, 'a summary lists the problems');

    await form.fill('/target', 'repo');
    await form.fill('/options/depth', '2');
    await form.fill('/steps/0/weight', '1.5');
    await form.press('submit');
    const result = await within(pending, 20_000, 'the run after a valid submission');
    assert.deepEqual(result?.structuredContent, { received: { target: 'repo', options: { depth: 2 }, steps: [{ name: 'build', weight: 1.5 }] }, stepCount: 1 });
    const view = await renderedView();
    assert.match(view.text, /Matches the outputSchema/);
  });

  it('the JSON editor of the form is validated too', async () => {
    const pending = run({ server: 'content', tool: 'nested', form: true, arguments: {} });
    const form = await waitFor(() => hook.forms().find((f) => f.title === 'Run Nested Arguments — content'), 'the form');
    await within(form.ready, 35_000, 'the form page to say ready');
    await form.press('json');
    await form.fill('', '{"target": "t", "options": {"depth": 1}, "steps": []}');
    await form.press('submit');
    const snap = await until(async () => {
      const s = await form.snapshot();
      return s.summary.length > 0 ? s : undefined;
    }, 'the summary');
    assert.equal(snap.mode, 'json');
    assert.match(snap.summary.join('\n'), /steps must NOT have fewer than 1 items/);
    await form.fill('', '{"target": "t", "options": {"depth": 1}, "steps": [{"name": "only"}]}');
    await form.press('submit');
    const result = await within(pending, 20_000, 'the run after a valid submission');
    assert.equal((result?.structuredContent as { stepCount: number }).stepCount, 1);
  });

  it('offers the last arguments again', async () => {
    await run({ server: 'content', tool: 'flat', arguments: { text: 'remember me', count: 4 } });
    const good = server(api, 'content');
    const node = { kind: 'tool' as const, server: good, tool: good.lists.tools.find((t) => t.name === 'flat')! };
    const pending = vscode.commands.executeCommand('mcpHost.runToolWithForm', node);
    const form = await waitFor(() => hook.forms().find((f) => f.title === 'Run Flat Arguments — content'), 'the form');
    await within(form.ready, 35_000, 'the form page to say ready');
    const snap = await form.snapshot();
    assert.deepEqual(snap.value, { text: 'remember me', count: 4 });
    await form.press('cancel');
    assert.equal(await pending, undefined, 'a cancelled form runs nothing');
  });

  it('renders every content type: Markdown text, image, audio, resource link, embedded resources', async () => {
    await run({ server: 'content', tool: 'all-content', arguments: {} });
    const snap = await renderedView();
    assert.deepEqual(snap.blocks.map((b) => b.kind), ['text', 'image', 'audio', 'resource_link', 'resource', 'resource']);
    const [md, image, audio, link, embeddedText, embeddedBlob] = snap.blocks;
    assert.match(md.html, /<h1>Report<\/h1>/);
    assert.match(md.html, /<strong>systems<\/strong>/);
    assert.match(md.html, /<table>/);
    assert.match(image.html, /<img [^>]*src="data:image\/png;base64,iVBORw0KGgo/);
    assert.match(image.text, /for user/);
    assert.match(audio.html, /<audio [^>]*src="data:audio\/wav;base64,UklGR/);
    assert.match(link.html, /class="resource-link"/);
    assert.match(link.text, /The linked resource/);
    assert.match(link.text, /mem:\/\/content\/linked\.md/);
    assert.match(embeddedText.text, /Embedded text resource\./);
    assert.match(embeddedBlob.html, /<img [^>]*src="data:image\/png;base64,/);

    // Clicking the link reads the resource and shows it.
    const view = hook.latestResultView()!;
    await view.simulate({ type: 'openLink', uri: 'mem://content/linked.md' });
    const resource = await renderedView();
    assert.equal(hook.latestResultView()!.panel.title, 'linked.md — content');
    assert.match(resource.blocks[0].html, /<h1>Linked resource<\/h1>/);
  });

  it('server-everything: image, resource links, annotated message', async () => {
    await run({ server: 'everything', tool: 'get-tiny-image', arguments: {} });
    let snap = await renderedView();
    assert.ok(snap.blocks.some((b) => b.kind === 'image' && /<img [^>]*src="data:image\/png;base64,/.test(b.html)), snap.blocks.map((b) => b.kind).join());
    await run({ server: 'everything', tool: 'get-resource-links', arguments: { count: 2 } });
    snap = await renderedView();
    assert.equal(snap.blocks.filter((b) => b.kind === 'resource_link').length, 2);
    await run({ server: 'everything', tool: 'get-annotated-message', arguments: { messageType: 'error', includeImage: true } });
    snap = await renderedView();
    assert.ok(snap.blocks.some((b) => b.kind === 'image'));
  });

  it('checks structuredContent against the outputSchema, and flags a mismatch', async () => {
    await run({ server: 'good', tool: 'add', arguments: { a: 2, b: 3 } });
    let snap = await renderedView();
    assert.match(snap.text, /Structured content/);
    assert.match(snap.text, /✓ Matches the outputSchema/);
    assert.match(snap.text, /"sum": 5/);

    await run({ server: 'everything', tool: 'get-structured-content', arguments: { location: 'Chicago' } });
    snap = await renderedView();
    assert.match(snap.text, /✓ Matches the outputSchema/);

    await run({ server: 'content', tool: 'bad-structured', arguments: {} });
    snap = await renderedView();
    assert.match(snap.text, /✗ Does not match the tool’s outputSchema/);
    assert.match(snap.text, /count must be an integer/);
    assert.match(snap.text, /"count": "three"/, 'the mismatching data is still shown');

    await run({ server: 'content', tool: 'missing-structured', arguments: {} });
    snap = await renderedView();
    assert.match(snap.text, /declares an outputSchema, but the result has no structuredContent/);
  });

  it('marks isError results as tool errors', async () => {
    const result = await run({ server: 'good', tool: 'fail', arguments: { message: 'the disk is full' } });
    assert.equal(result?.isError, true);
    const snap = await renderedView();
    assert.match(snap.html, /class="status status-tool-error"/);
    assert.match(snap.text, /Tool error \(isError: true\)/);
    assert.match(snap.text, /the disk is full/);
  });

  it('never lets server text become markup', async () => {
    await run({ server: 'content', tool: 'html-text', arguments: {} });
    const snap = await renderedView();
    const block = snap.blocks[0];
    assert.doesNotMatch(block.html, /<script/i);
    assert.doesNotMatch(block.html, /<img/i);
    assert.doesNotMatch(block.html, /<b>not bold<\/b>/);
    assert.match(block.html, /&lt;script&gt;/);
    assert.match(block.text, /<b>not bold<\/b>/, 'the markup is shown as text');
  });

  it('keeps large results responsive: a 2 MB text is cut at 1 MB with "show all"', async () => {
    const result = await run({ server: 'content', tool: 'big-text', arguments: { bytes: 2 * 1024 * 1024 } });
    assert.equal(text(result).length, 2 * 1024 * 1024);
    const snap = await renderedView();
    assert.match(snap.text, /Showing the first 1\.0 MB of 2\.0 MB/);
    const view = hook.latestResultView()!;
    await view.simulate({ type: 'showAll', blockIndex: 0 });
    const editor = await waitFor(() => vscode.window.visibleTextEditors.find((e) => e.document.isUntitled && e.document.getText().length === 2 * 1024 * 1024), 'the full text in an editor');
    assert.ok(editor);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('a destructive tool runs without asking only when trusted', async () => {
    const wipe = server(api, 'content').lists.tools.find((t) => t.name === 'wipe')!;
    assert.equal(wipe.annotations?.destructiveHint, true);
    await config().update('tools.trusted', ['content/wipe'], vscode.ConfigurationTarget.Global);
    const result = await run({ server: 'content', tool: 'wipe', arguments: { target: 'cache' } });
    assert.equal(text(result), 'wiped cache');
  });

  it('shows progress and cancels: the server receives notifications/cancelled and stops', async () => {
    const good = server(api, 'good');
    const pending = run({ server: 'good', tool: 'slow', arguments: { ms: 30_000 } });
    await waitFor(() => hook.runningCalls() === 1, 'the call to be running');
    await new Promise((r) => setTimeout(r, 500)); // let progress arrive
    assert.equal(hook.cancelRunning(), 1);
    assert.equal(await pending, undefined);
    const lines = await waitFor(() => {
      const log = api.controller.recentLog(good.id);
      return log.some((l) => /slow: stopped after \d+ms \(cancelled\)/.test(l)) ? log : undefined;
    }, 'the server to log that it stopped', 10_000);
    assert.ok(lines.some((l) => /request \d+ cancelled: cancelled by the user/.test(l)), 'the server got notifications/cancelled with the reason');
    const snap = await renderedView();
    assert.match(snap.text, /Cancelled/);
  });

  it('times out by the per-server setting', async () => {
    await config().update('tools.serverTimeoutSeconds', { good: 1 }, vscode.ConfigurationTarget.Global);
    await config().update('tools.maxTotalTimeoutSeconds', 1, vscode.ConfigurationTarget.Global);
    try {
      const started = Date.now();
      const result = await run({ server: 'good', tool: 'slow', arguments: { ms: 10_000 } });
      assert.equal(result, undefined);
      assert.ok(Date.now() - started < 6000, 'gave up after about a second');
      const snap = await renderedView();
      assert.match(snap.text, /Failed/);
      assert.match(snap.text, /timed out|maximum total time/i);
    } finally {
      await config().update('tools.serverTimeoutSeconds', undefined, vscode.ConfigurationTarget.Global);
      await config().update('tools.maxTotalTimeoutSeconds', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
