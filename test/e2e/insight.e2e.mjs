// Seeing what happens and why, as a person does: the traffic view after the servers started
// (a row selected, its JSON shown), Diagnose on a server that failed to start, and the Server
// Report of server-everything. Screenshots of each go to test-results/ (the README's images).
import { join } from 'node:path';
import { openViewContainer, runCommand, treeItem } from '../../scripts/vscode-host/host.mjs';
import { RESULTS, flavourFromArgs, scenario, webview } from './lib.mjs';

const flavour = flavourFromArgs();


// A user-level server whose command is not installed: what "it does not start" looks like.
const settings = { 'mcpHost.servers': { weather: { type: 'stdio', command: 'mcp-weather-server', args: ['--units', 'metric'] } } };

await scenario(
  'insight',
  flavour,
  async ({ page, step }) => {
    await step('the servers start; the one whose command is missing fails', async () => {
      await openViewContainer(page, 'MCP Host', 30_000);
      await treeItem(page, 'everything').locator('.label-description', { hasText: /^running · \d+ tools/ }).waitFor({ state: 'visible', timeout: 45_000 });
      await treeItem(page, 'weather').locator('.label-description', { hasText: /error|failed|not found/i }).waitFor({ state: 'visible', timeout: 30_000 });
    });

    await step('Show Traffic lists every server’s messages, requests paired with their responses', async () => {
      await runCommand(page, 'MCP Host: Show Traffic');
      await page.locator('.tabs-container .tab', { hasText: 'MCP Traffic' }).waitFor({ state: 'visible', timeout: 20_000 });
      const view = webview(page);
      const row = view.locator('#timeline tbody tr', { hasText: 'tools/list' }).filter({ hasText: 'everything' }).first();
      await row.waitFor({ state: 'visible', timeout: 20_000 });
      await view.locator('#timeline tbody tr', { hasText: 'initialize' }).first().waitFor({ state: 'visible' });
      await row.click();
      await view.locator('#detail pre', { hasText: '"tools"' }).first().waitFor({ state: 'visible', timeout: 10_000 });
      await view.locator('#detail h2', { hasText: 'Response' }).waitFor({ state: 'visible' });
      await page.waitForTimeout(300);
      await page.mouse.move(1200, 780);
      await page.screenshot({ path: join(RESULTS, `traffic-${flavour}.png`) });
    });

    await step('the text filter narrows the timeline', async () => {
      const view = webview(page);
      await view.locator('#text').fill('get-env');
      await view.locator('#count', { hasText: /^\d+ of \d+ rows$/ }).waitFor({ state: 'visible', timeout: 10_000 });
      const shown = await view.locator('#timeline tbody tr[data-key]').count();
      if (shown === 0) throw new Error('no row matches "get-env", but server-everything lists a tool of that name');
      await view.locator('#text').fill('');
    });

    await step('one click on the failed server says why and what to do (Diagnose)', async () => {
      await treeItem(page, 'weather').click();
      await page.locator('.tabs-container .tab', { hasText: 'Diagnosis of weather' }).first().waitFor({ state: 'visible', timeout: 30_000 });
      const preview = webview(page);
      await preview.getByText(/mcp-weather-server.*not found|not found.*mcp-weather-server/).first().waitFor({ state: 'visible', timeout: 20_000 });
      await preview.getByText(/absolute path/).first().waitFor({ state: 'visible', timeout: 10_000 });
      await page.waitForTimeout(300);
      await page.mouse.move(1200, 780);
      await page.screenshot({ path: join(RESULTS, `doctor-${flavour}.png`) });
    });

    await step('Server Report (context menu) grades server-everything as a Markdown preview', async () => {
      // From the server's context menu, as a person does.
      await treeItem(page, 'everything').click({ button: 'right' });
      // Hovered and chosen with Enter: a plain click does not reach 1.139's menu in this host.
      await page.locator('.context-view .action-label', { hasText: 'Server Report' }).first().hover();
      await page.keyboard.press('Enter');
      await page.locator('.tabs-container .tab', { hasText: 'everything (server report)' }).first().waitFor({ state: 'visible', timeout: 20_000 });
      await webview(page).locator('h2, h3', { hasText: /Largest tools/i }).first().waitFor({ state: 'visible', timeout: 20_000 });
      await webview(page).getByText(/Grade [A-F]/).first().waitFor({ state: 'visible', timeout: 10_000 });
      await page.waitForTimeout(300);
      await page.mouse.move(1200, 780);
      await page.screenshot({ path: join(RESULTS, `report-${flavour}.png`) });
    });
  },
  { settings },
);
