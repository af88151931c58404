#!/usr/bin/env node
// End-to-end smoke test of the harness: a person's session in a real VS Code workbench, driven by
// Playwright. Loads test/vscode-host-smoke as the extension under development (no test runner), then:
// waits for the workbench, finds the smoke extension's activity bar container, runs its command from
// the command palette (F1), checks the notification, opens the tree view, clicks a tree item (which runs
// the command again) and saves screenshots in test-results/.
//
//   node scripts/vscode-host/e2e-smoke.mjs [--flavour old|new]   (default: both, one after the other)
//   VSCODE_HOST_HEADED=1 shows the browser (needs a display); VSCODE_HOST_TIMEOUT seconds (default 300)
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  HOST_DIR,
  QUIET_SETTINGS,
  REPO_ROOT,
  launchBrowser,
  openViewContainer,
  openWorkbench,
  requireFlavour,
  runCommand,
  showNotifications,
  startServer,
  treeItem,
} from './host.mjs';

const SMOKE = join(REPO_ROOT, 'test', 'vscode-host-smoke');
const RESULTS = join(REPO_ROOT, 'test-results');

/** @param {'old' | 'new'} flavour */
async function runFlavour(flavour) {
  const t0 = Date.now();
  const step = (/** @type {string} */ msg) => console.log(`[e2e-smoke ${flavour} +${((Date.now() - t0) / 1000).toFixed(1)} s] ${msg}`);
  requireFlavour(flavour);
  const runDir = join(HOST_DIR, 'runs', `e2e-${flavour}-${process.pid}`);
  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  const server = await startServer({
    flavour,
    workspace: join(SMOKE, 'workspace'),
    userDataDir: join(runDir, 'user-data'),
    extensionsDir: join(runDir, 'extensions'),
    settings: QUIET_SETTINGS,
  });
  step(`server on port ${server.port}`);
  const browser = await launchBrowser({ headless: process.env.VSCODE_HOST_HEADED !== '1' });
  /** @type {import('playwright-core').Page | undefined} */
  let page;
  try {
    page = await openWorkbench(browser, server.url(undefined, { extensionDevelopmentPath: SMOKE }));
    step('workbench drawn');

    // The extension's view container appears in the activity bar once its contributions are read.
    await page.locator('.part.activitybar a.action-label[aria-label^="Smoke Test"]').waitFor({ state: 'visible', timeout: 30_000 });
    step('smoke container in the activity bar');

    // Command palette, as a person would: F1, type the title, choose it.
    await runCommand(page, 'Smoke: Say Hello');
    step('ran "Smoke: Say Hello" from the palette');

    const messages = await showNotifications(page);
    await messages.filter({ hasText: 'Hello from the smoke extension (1)' }).waitFor({ state: 'visible', timeout: 15_000 });
    step('notification seen in the notification centre');
    await page.keyboard.press('Escape');

    await openViewContainer(page, 'Smoke Test');
    for (const label of ['Alpha', 'Alpha One', 'Alpha Two', 'Beta']) await treeItem(page, label).waitFor({ state: 'visible', timeout: 15_000 });
    const alpha = treeItem(page, 'Alpha');
    if ((await alpha.getAttribute('aria-expanded')) !== 'true') throw new Error('tree item Alpha should be expanded');
    if ((await treeItem(page, 'Alpha One').getAttribute('aria-level')) !== '2') throw new Error('Alpha One should be at level 2');
    step('tree view shows its items');

    // A tree item with a command: clicking it runs the command a second time.
    await treeItem(page, 'Beta').click();
    await runCommand(page, 'Notifications: Show Notifications');
    await page.locator('.notifications-center .notification-list-item-message', { hasText: 'Hello from the smoke extension (2)' }).waitFor({ state: 'visible', timeout: 15_000 });
    step('clicking a tree item ran the command');
    const centre = await page.locator('.notifications-center .notification-list-item-message').allTextContents();
    const toasts = await page.locator('.notifications-toasts .notification-list-item-message').allTextContents();
    step(`notification centre: ${JSON.stringify(centre)}, toasts: ${JSON.stringify(toasts)}`);

    // Inline action of a tree item (drawn on hover) and a view title action.
    await page.keyboard.press('Escape');
    await treeItem(page, 'Alpha Two').hover();
    await treeItem(page, 'Alpha Two').locator('.actions .action-label[aria-label="Poke Item"]').click();
    await runCommand(page, 'Notifications: Show Notifications');
    await page.locator('.notifications-center .notification-list-item-message', { hasText: 'Poked Alpha Two' }).waitFor({ state: 'visible', timeout: 15_000 });
    await page.keyboard.press('Escape');
    const smokePane = page.locator('.part.sidebar .pane:has(.pane-header[aria-label^="Smoke Items"])');
    await smokePane.locator('.pane-header').hover();
    await smokePane.locator('.pane-header .actions .action-label[aria-label="Refresh Smoke Items"]').click();
    const status = page.locator('.part.statusbar #mcp-host-test\\.vscode-host-smoke\\.vscodeHostSmoke\\.status');
    if ((await status.getAttribute('aria-label'))?.includes('Smoke ready') === false) throw new Error('status bar item should say "Smoke ready" before the refresh');
    await status.filter({ hasText: 'Smoke refreshed 1' }).waitFor({ state: 'visible', timeout: 15_000 });
    step('inline item action, view title action and status bar item work');

    const shot = join(RESULTS, `e2e-smoke-${flavour}.png`);
    await page.screenshot({ path: shot });
    step(`screenshot ${shot}`);
    console.log(`[e2e-smoke ${flavour}] PASS in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    rmSync(runDir, { recursive: true, force: true });
  } catch (err) {
    if (page) {
      const shot = join(RESULTS, `e2e-smoke-${flavour}-FAILED.png`);
      await page.screenshot({ path: shot }).then(() => console.error(`[e2e-smoke ${flavour}] failure screenshot ${shot}`), () => {});
    }
    console.error(`[e2e-smoke ${flavour}] server output:\n${server.output().split('\n').slice(-20).join('\n')}`);
    throw err;
  } finally {
    await browser.close().catch(() => {});
    await server.stop();
  }
}

async function main() {
  const i = process.argv.indexOf('--flavour');
  const arg = i >= 0 ? process.argv[i + 1] : process.argv.find((a) => a.startsWith('--flavour='))?.slice('--flavour='.length);
  if (arg && arg !== 'old' && arg !== 'new') throw new Error(`--flavour must be old or new, not ${arg}`);
  /** @type {('old' | 'new')[]} */
  const flavours = arg ? [/** @type {'old' | 'new'} */ (arg)] : ['old', 'new'];
  const timeoutS = Number(process.env.VSCODE_HOST_TIMEOUT ?? 300);
  setTimeout(() => {
    console.error(`[e2e-smoke] TIMEOUT after ${timeoutS} s`);
    process.exit(124);
  }, timeoutS * 1000).unref();
  for (const f of flavours) await runFlavour(f);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[e2e-smoke] FAILED: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
