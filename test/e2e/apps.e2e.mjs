// MCP Apps: a person runs the tool of an MCP App server (server-basic-vanillajs, "apps-basic" in
// demo/.vscode/mcp.json) from Run Tool…; its view opens beside the result, shows the result, and a
// button in the view calls a tool on the server and updates the view. The view is sandboxed: it
// cannot reach the page that hosts it (nor acquireVsCodeApi), and a fetch its CSP does not allow
// is blocked (a local server counts the requests that get through: none may). Screenshot:
// test-results/mcp-app-<flavour>.png.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { chooseCommand, openViewContainer, treeItem } from '../../scripts/vscode-host/host.mjs';
import { RESULTS, flavourFromArgs, scenario } from './lib.mjs';

const flavour = flavourFromArgs();

/** A local server the view will try to reach: it would answer anyone (CORS *), if the request came. */
async function startBait() {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'text/plain' });
    res.end('reached');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/bait`, requests: () => requests, close: () => server.close() };
}

/** The view's frame: the sandboxed srcdoc frame that holds the app's #get-time-btn. */
async function viewFrame(page, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (frame.url() !== 'about:srcdoc') continue;
      const found = await frame.locator('#get-time-btn').count().catch(() => 0);
      if (found > 0) return frame;
    }
    await page.waitForTimeout(250);
  }
  throw new Error('the view did not render (no frame with #get-time-btn)');
}

async function runToolFromPalette(page, title) {
  const widget = page.locator('.quick-input-widget');
  await chooseCommand(page, 'MCP Host: Run Tool…');
  await widget.locator('.quick-input-title', { hasText: 'Run Tool' }).waitFor({ state: 'visible', timeout: 10_000 });
  await widget.locator('input.input').fill(title);
  await widget.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.press('Enter');
}

const bait = await startBait();

await scenario('apps', flavour, async ({ page, step }) => {
  let frame;
  let firstTime;

  await step('the MCP App server runs; its tool is marked as having a view', async () => {
    await openViewContainer(page, 'MCP Host', 30_000);
    await treeItem(page, 'apps-basic').locator('.label-description', { hasText: /^running · \d+ tools?/ }).waitFor({ state: 'visible', timeout: 45_000 });
  });

  await step('Run Tool… on "Get Time" opens its view beside the result, showing the result', async () => {
    await runToolFromPalette(page, 'Get Time');
    await page.locator('.tabs-container .tab', { hasText: 'Get Time (view) — apps-basic' }).waitFor({ state: 'visible', timeout: 30_000 });
    frame = await viewFrame(page);
    await frame.locator('#server-time', { hasText: /^\d{4}-\d{2}-\d{2}T/ }).waitFor({ state: 'visible', timeout: 20_000 });
    firstTime = await frame.locator('#server-time').textContent();
  });

  await step('a button in the view calls the tool on the server, and the view updates', async () => {
    await page.waitForTimeout(1100);
    await frame.locator('#get-time-btn').click();
    await frame.waitForFunction((before) => {
      const text = document.getElementById('server-time')?.textContent ?? '';
      return /^\d{4}-\d{2}-\d{2}T/.test(text) && text !== before;
    }, firstTime, { timeout: 20_000 });
  });

  await step('the view gets the VS Code theme: light or dark as the workbench, and its colours', async () => {
    const workbench = (await page.locator('.monaco-workbench').first().getAttribute('class')) ?? '';
    const expected = /\b(vs-dark|hc-black)\b/.test(workbench) ? 'dark' : 'light';
    const seen = await frame.evaluate(() => ({
      theme: document.documentElement.getAttribute('data-theme') ?? getComputedStyle(document.documentElement).colorScheme,
      background: getComputedStyle(document.documentElement).getPropertyValue('--color-background-primary').trim(),
    }));
    assert.equal(seen.theme, expected);
    assert.match(seen.background, /^(#|rgb)/, `no --color-background-primary in the view: ${JSON.stringify(seen)}`);
  });

  await step('the view cannot reach the page that hosts it, nor the webview API', async () => {
    const reach = await frame.evaluate(() => {
      const tries = {};
      tries.acquireVsCodeApi = typeof globalThis.acquireVsCodeApi;
      try {
        tries.parentDocument = window.parent.document ? 'reachable' : 'none';
      } catch (e) {
        tries.parentDocument = `blocked (${e.name})`;
      }
      try {
        tries.parentApi = typeof window.parent.acquireVsCodeApi;
      } catch (e) {
        tries.parentApi = `blocked (${e.name})`;
      }
      tries.origin = window.origin;
      return tries;
    });
    assert.equal(reach.acquireVsCodeApi, 'undefined');
    assert.match(reach.parentDocument, /^blocked/);
    assert.match(reach.parentApi, /^blocked/);
    assert.equal(reach.origin, 'null', 'the view must have an opaque origin');
  });

  await step('a fetch its CSP does not allow is blocked (and never reaches the server)', async () => {
    const outcome = await frame.evaluate(async (url) => {
      const violations = [];
      document.addEventListener('securitypolicyviolation', (e) => violations.push(`${e.effectiveDirective} ${e.blockedURI}`));
      let fetched;
      try {
        const res = await fetch(url);
        fetched = `fetched ${res.status}`;
      } catch (e) {
        fetched = `failed (${e.name})`;
      }
      await new Promise((r) => setTimeout(r, 200));
      return { fetched, violations };
    }, bait.url);
    assert.match(outcome.fetched, /^failed/);
    assert.ok(outcome.violations.some((v) => v.startsWith('connect-src') && v.includes('127.0.0.1')), `no connect-src violation: ${JSON.stringify(outcome.violations)}`);
    assert.equal(bait.requests(), 0, 'the request reached the server');
  });

  await step('screenshot of the view beside the result', async () => {
    await page.mouse.move(1200, 780);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(RESULTS, `mcp-app-${flavour}.png`) });
  });
});
