// The traffic view in a real VS Code: after Run Tool, "MCP Host: Show Traffic" shows the tools/call
// with its response, on the page itself; a selected row shows its JSON; the filter and Export work.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import type { TrafficViewHandle } from '../../src/vscode/traffic/trafficView';
import { activateExtension, waitFor, waitForState } from './helpers';

describe('Traffic view in a real VS Code', function () {
  this.timeout(60_000);
  let api: McpHostApi;
  let view: TrafficViewHandle;

  before(async function () {
    this.timeout(90_000);
    api = await activateExtension();
    await api.ready;
    const good = await waitForState(api, 'good', 'running', 30_000).catch(async () => {
      await api.controller.registry.findByName('good')?.start();
      return waitForState(api, 'good', 'running', 30_000);
    });
    assert.ok(good.traffic.enabled, 'recording is on by default');
    view = (await vscode.commands.executeCommand<TrafficViewHandle>('mcpHost.internal.trafficTestHook'))!;
    // In this host (VS Code for the web), a webview made while the Markdown preview an earlier test
    // file left open is still there can stay blank, waiting for a service worker: start clean.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('after Run Tool, the view shows the tools/call with its response', async () => {
    const marker = `traffic-${Date.now()}`;
    await vscode.commands.executeCommand('mcpHost.runTool', { server: 'good', tool: 'echo', arguments: { text: marker } });
    await vscode.commands.executeCommand('mcpHost.showTraffic', 'good');
    assert.equal(view.filter.server, api.controller.registry.findByName('good')?.id, 'opened from a server: filtered to it');
    // Earlier tests may have run tools on "good" too: this run's call is the one with the marker.
    const row = await waitFor(() => {
      const model = view.model;
      return model?.rows.find((r) => r.method === 'tools/call' && r.status === 'ok' && JSON.stringify(model.index.get(r.key)?.row.first).includes(marker));
    }, 'the tools/call row in the model').catch((err: unknown) => {
      const rows = view.model?.rows.map((r) => `${r.server} ${r.method ?? r.kind} ${r.status}`).slice(-15) ?? ['no model'];
      throw new Error(`${String(err)}; filter ${JSON.stringify(view.filter)}; last rows: ${rows.join(' | ')}`);
    });
    assert.equal(row.server, 'good');
    assert.equal(row.direction, 'send');
    assert.ok((row.responseBytes ?? 0) > 0 && row.latencyMs !== undefined);
    await view.painted();
    const snapshot = await view.snapshot();
    const shown = snapshot.rows.find((r) => r.includes('tools/call'));
    assert.ok(shown, `the page shows the row: ${snapshot.rows.join(' | ')}`);
    assert.match(shown, /→ tools\/call \d+ ok \d+ ms/);

    // A click on the row shows the request and the response.
    await view.simulate({ type: 'select', key: row.key });
    let detail = '';
    for (const deadline = Date.now() + 15_000; !(detail.includes(marker) && detail.includes('Response')); ) {
      if (Date.now() > deadline) assert.fail(`the page does not show the selected message: ${detail}`);
      await new Promise((r) => setTimeout(r, 100));
      detail = (await view.snapshot()).detail ?? '';
    }
    assert.match(detail, /"method": "tools\/call"/);
  });

  it('the text filter narrows the rows; Export writes the shown rows as JSON Lines', async () => {
    const marker = `filtered-${Date.now()}`;
    await vscode.commands.executeCommand('mcpHost.runTool', { server: 'good', tool: 'echo', arguments: { text: marker } });
    await view.simulate({ type: 'filter', filter: { text: marker } });
    const rows = await waitFor(() => (view.model?.rows.length === 1 ? view.model.rows : undefined), 'one row matching the marker');
    assert.equal(rows[0].method, 'tools/call');

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-traffic-')), 'export.jsonl');
    const original = vscode.window.showSaveDialog;
    (vscode.window as { showSaveDialog: typeof original }).showSaveDialog = () => Promise.resolve(vscode.Uri.file(file)); // the dialog cannot be driven here
    try {
      await view.simulate({ type: 'export' });
    } finally {
      (vscode.window as { showSaveDialog: typeof original }).showSaveDialog = original;
    }
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { server: string; direction: string; message: { method?: string } });
    assert.deepEqual(lines.map((l) => [l.server, l.direction]), [['good', 'send'], ['good', 'receive']]);
    assert.equal(lines[0].message.method, 'tools/call');
    await view.simulate({ type: 'filter', filter: {} });
  });
});
