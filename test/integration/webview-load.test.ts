// How our webview pages are set, in a real VS Code: each document carries the id of its load and
// says it with "ready", so a panel never takes a replaced document's "ready" for the current one
// (CI once saw a slow schema form reloaded by the watchdog while it was saying "ready": the form was
// set up twice, and the test talked to a document that was being replaced); and a page that the
// second try does not start is handed to its owner to put in a new panel (CI then saw a form's
// frame wait for VS Code's service worker for good: setting its page again cannot start it).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { loadWebview, webviewOptions } from '../../src/vscode/webview/html';
import { WatchedPanel } from '../../src/vscode/webview/watchedPanel';
import { activateExtension, waitFor, within } from './helpers';

function loadIdOf(html: string): string | undefined {
  return /<html lang="en" data-load="([0-9a-f]+)">/.exec(html)?.[1];
}

describe('Webview pages: which document is current', function () {
  this.timeout(30_000);
  const panels: vscode.WebviewPanel[] = [];

  before(async () => {
    await activateExtension();
  });

  after(() => {
    for (const panel of panels) panel.dispose();
  });

  function openPanel(): vscode.WebviewPanel {
    const panel = vscode.window.createWebviewPanel('mcpHost.test', 'page load', vscode.ViewColumn.Active, { ...webviewOptions(), retainContextWhenHidden: true });
    panels.push(panel);
    return panel;
  }

  it("the page's ready names its load; only that load is current", async () => {
    const panel = openPanel();
    const ready = new Promise<{ type: string; load?: string }>((resolve) => panel.webview.onDidReceiveMessage((m: { type: string; load?: string }) => m.type === 'ready' && resolve(m)));
    let saidReady = false;
    const page = loadWebview(panel, { title: 'page load', script: 'traffic.js', styles: ['webview.css', 'traffic.css'] }, () => saidReady, { replacePanel: () => undefined });
    try {
      const load = loadIdOf(panel.webview.html);
      assert.ok(load, 'the document carries its load id');
      const message = await within(ready, 20_000, 'the page to say ready');
      saidReady = true;
      assert.equal(message.load, load, 'ready says which document it comes from');
      assert.equal(page.isCurrent(message.load), true);
      assert.equal(page.isCurrent(undefined), false, 'a ready without a load id is not the current page');
      assert.equal(page.isCurrent('0123456789abcdef'), false, "another document's ready is not the current page");
    } finally {
      page.dispose();
    }
  });

  it('a page slow to say ready is replaced; only the new document is current, and its ready is the one taken', async () => {
    const panel = openPanel();
    const readies: Array<string | undefined> = [];
    panel.webview.onDidReceiveMessage((m: { type: string; load?: string }) => m.type === 'ready' && readies.push(m.load));
    let saidReady = false;
    const page = loadWebview(panel, { title: 'page load', script: 'traffic.js' }, () => saidReady, { retryAfterMs: 1, replacePanel: () => undefined });
    try {
      const first = loadIdOf(panel.webview.html);
      const second = await waitFor(() => loadIdOf(panel.webview.html) !== first && loadIdOf(panel.webview.html), 'the page to be set again', 5000);
      assert.ok(first && second);
      assert.equal(page.isCurrent(first), false, 'the replaced document is not current');
      assert.equal(page.isCurrent(second), true);
      await waitFor(() => readies.some((load) => page.isCurrent(load)), () => `the new document to say ready (readies: ${readies.join(', ')})`);
      saidReady = true;
      assert.equal(readies.filter((load) => page.isCurrent(load)).length, 1, `one ready from the current document (${readies.join(', ')})`);
    } finally {
      page.dispose();
    }
  });

  it('a page still not ready after being set again is handed to its owner to put in a new panel', async () => {
    const panel = openPanel();
    const pages: Array<string | undefined> = [];
    let replaced = 0;
    const page = loadWebview(panel, { title: 'page load', script: 'traffic.js' }, () => false, {
      retryAfterMs: 1,
      replacePanel: () => {
        replaced++;
        pages.push(loadIdOf(panel.webview.html));
      },
    });
    const first = loadIdOf(panel.webview.html);
    try {
      await waitFor(() => replaced > 0, 'the owner to be asked for a new panel', 5000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(replaced, 1, 'asked once, and the watchdog stops there (the new panel has its own)');
      assert.ok(pages[0] && pages[0] !== first, 'the page was set again once before');
    } finally {
      page.dispose();
    }
  });

  it('a watched panel whose page does not start is replaced where it was, until its page starts; the owner hears only its own close', async () => {
    let closes = 0;
    let saidReady = false;
    const view = new WatchedPanel({ viewType: 'mcpHost.test', title: 'watched', viewColumn: vscode.ViewColumn.Active, page: () => ({ title: 'watched', script: 'traffic.js' }), isReady: () => saidReady, retryAfterMs: 300 });
    const first = view.panel;
    let firstDisposed = false;
    first.onDidDispose(() => (firstDisposed = true));
    view.onDidClose(() => closes++);
    try {
      const column = await waitFor(() => first.viewColumn, "the first panel's column");
      await waitFor(() => firstDisposed, 'the first panel to be replaced', 5000);
      // From here the owner counts the page as started: no further replacement.
      saidReady = true;
      const second = view.panel;
      assert.notEqual(second, first, 'a new panel took its place');
      assert.equal(second.title, 'watched');
      assert.equal(second.viewColumn, column, 'where the first one was');
      assert.equal(closes, 0, "a replaced panel's close is not the person's");
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal(view.panel, second, 'no replacement once the page has started');
    } finally {
      view.dispose();
    }
    assert.equal(closes, 1, 'disposing it is one close');
  });

  it('a watched panel behind another tab is not replaced until it is shown', async () => {
    const view = new WatchedPanel({ viewType: 'mcpHost.test', title: 'behind', viewColumn: vscode.ViewColumn.Active, page: () => ({ title: 'behind', script: 'traffic.js' }), isReady: () => false, retryAfterMs: 1000 });
    const first = view.panel;
    try {
      await waitFor(() => first.visible, 'the panel to be shown');
      const front = openPanel();
      front.webview.html = '<!DOCTYPE html><html><body>front</body></html>';
      await waitFor(() => !first.visible, 'the watched panel to be behind the other tab');
      // Its page set again at 1 s, replaced at 2 s were it shown.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(view.panel, first, 'not replaced while behind');
      first.reveal(undefined, false);
      await waitFor(() => view.panel !== first, 'the panel to be replaced once shown (its page still not started)', 5000);
    } finally {
      view.dispose();
    }
  });
});
