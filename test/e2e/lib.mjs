// Shared set-up of the browser end-to-end tests: a real VS Code server with the extension under
// development, the demo workspace, and headless Chromium driving the workbench like a person.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { HOST_DIR, QUIET_SETTINGS, REPO_ROOT, launchBrowser, openViewContainer, openWorkbench, runCommand, startServer, treeItem, waitForWorkbench } from '../../scripts/vscode-host/host.mjs';

export const RESULTS = join(REPO_ROOT, 'test-results');

const DEMO_REMOTE_PORT = 3001;

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * The demo's remote server ("everything-remote" in demo/.vscode/mcp.json), as `npm start` serves it.
 * Its port must be free first: the previous scenario's server may still be exiting, and this one
 * then prints "listening on port" anyway (Express 5 calls the listen callback with the error)
 * before "Failed to start: Port 3001 is already in use", and the scenario met ECONNREFUSED.
 */
async function startDemoRemoteServer() {
  const freeBy = Date.now() + 15_000;
  while (await listening(DEMO_REMOTE_PORT)) {
    if (Date.now() > freeBy) throw new Error(`port ${DEMO_REMOTE_PORT} of the demo's remote server is taken by another process`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // The preload makes it listen on 127.0.0.1 only.
  const child = spawn(process.execPath, ['--import', join(REPO_ROOT, 'test/fixtures/http/bind-loopback.mjs'), join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'streamableHttp'], {
    env: { ...process.env, PORT: String(DEMO_REMOTE_PORT) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk.toString()));
  const deadline = Date.now() + 20_000;
  while (!(/listening on port/i.test(stderr) && (await listening(DEMO_REMOTE_PORT)))) {
    if (child.exitCode !== null || /failed to start/i.test(stderr) || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the demo's remote server did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

/** Stops the demo's remote server and waits until it has exited (its port is free for the next scenario). */
async function stopDemoRemoteServer(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killed = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(killed);
}

/**
 * Collapses a server's row so the categories of the server after it are the first of their name
 * (the demo's "apps-basic" sorts before "everything").
 */
export async function collapseServer(page, name) {
  const row = treeItem(page, name);
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  await row.locator('.label-description', { hasText: /^running/ }).waitFor({ state: 'visible', timeout: 45_000 });
  if ((await row.getAttribute('aria-expanded')) === 'true') await row.locator('.monaco-tl-twistie').click();
  await page.waitForFunction((el) => el?.getAttribute('aria-expanded') === 'false', await row.elementHandle(), { timeout: 10_000 });
}

/**
 * The document inside the webview shown last (VS Code nests it: iframe.webview > iframe#active-frame).
 * Only visible webviews count: one hidden behind another editor's tab keeps its iframe, and being
 * later in the page it would otherwise be taken for the one on screen.
 */
export function webview(page) {
  return page.locator('iframe.webview.ready').filter({ visible: true }).last().contentFrame().frameLocator('#active-frame');
}

export function flavourFromArgs() {
  const i = process.argv.indexOf('--flavour');
  return i > 0 ? process.argv[i + 1] : 'old';
}

/**
 * Runs named steps in order, printing each and a final "N passed, N failed" line.
 * `options.settings`: user settings added to the quiet ones (e.g. a user-level server).
 * `options.after`: puts back what the scenario wrote into the demo workspace, when it ends (also in
 * a workbench shared with other scenarios, which run after it).
 */
export async function scenario(name, flavour, body, options = {}) {
  // Registered instead of run when test/e2e/shared-workbench.mjs imports the file, to run it in
  // one workbench with others.
  const registered = globalThis.mcpHostE2eScenarios;
  if (registered) {
    registered.push({ name, body, options });
    return;
  }
  const { failed } = await inWorkbench(name, flavour, options.settings, async (session) => {
    console.log(`${name} on VS Code ${session.server.info.vscode}`);
    await session.run(name, body, '', options.after);
  });
  process.exit(failed ? 1 : 0);
}

/**
 * Runs scenarios one after the other in one workbench (each VS Code launch costs about 11 s on
 * these machines, and the demo servers' start about 8 more). Between two, the workbench is put
 * back as a person would: editors closed, notifications cleared, the MCP Host tree collapsed;
 * should that fail, the page is loaded afresh. A failed step is named with its scenario.
 * `settings`: the user settings of them all. `failedBefore`: failures already counted (files that
 * did not load), included in the final line.
 */
export async function scenariosInOneWorkbench(scenarios, flavour, { failedBefore = 0, settings = {} } = {}) {
  const names = scenarios.map((s) => s.name);
  const { failed } = await inWorkbench(names.join('+'), flavour, settings, async (session) => {
    console.log(`${names.join(', ')} on VS Code ${session.server.info.vscode}, in one workbench`);
    for (const [i, { name, body, options }] of scenarios.entries()) {
      console.log(`${name}:`);
      if (i > 0) await session.clear(`after ${names[i - 1]}`);
      await session.run(name, body, `${name} › `, options.after);
    }
  }, failedBefore);
  process.exit(failed ? 1 : 0);
}

/** What a scenario expects to find: no editor, notification or picker, the tree collapsed. */
async function clearWorkbench(page) {
  await page.keyboard.press('Escape');
  await runCommand(page, 'View: Close All Editors');
  await page.locator('.part.editor .tabs-container .tab').first().waitFor({ state: 'detached', timeout: 10_000 });
  await runCommand(page, 'Notifications: Clear All Notifications');
  await openViewContainer(page, 'MCP Host');
  // The container's one view: its title actions are in the side bar's title, drawn on hover.
  await page.locator('.part.sidebar .composite.title').hover();
  await page.locator('.part.sidebar .action-label[aria-label^="Collapse All"]').first().click();
  await page.locator('.part.sidebar .monaco-list-row[role="treeitem"][aria-level="1"][aria-expanded="true"]').first().waitFor({ state: 'detached', timeout: 10_000 });
}

/**
 * The demo's remote server, a VS Code server with the demo workspace and a browser on its
 * workbench, for `use`; then all of it stopped. Returns the steps passed and failed.
 */
async function inWorkbench(name, flavour, settings, use, failedBefore = 0) {
  const runDir = join(HOST_DIR, 'runs', `e2e-${name}-${flavour}-${Date.now()}`);
  mkdirSync(runDir, { recursive: true });
  mkdirSync(RESULTS, { recursive: true });
  let server;
  let browser;
  let remote;
  let passed = 0;
  let failed = failedBefore;
  let currentPage;
  /** A failure: its line (with its scenario's name in a shared workbench), and what the person saw. */
  const fail = async (what, err, shotName) => {
    failed++;
    console.log(`  ✖ ${what}: ${err?.stack ?? err}`);
    const shot = join(RESULTS, `failed-${shotName.replace(/\W+/g, '-')}-${flavour}.png`);
    await currentPage?.screenshot({ path: shot }).then(() => console.log(`    screenshot: ${shot}`), () => undefined);
  };
  /** Runs one scenario's body, then its `after`; a failed step ends that scenario. */
  const run = async (scenarioName, body, prefix = '', after = undefined) => {
    let stepFailed = false;
    const step = async (title, fn) => {
      const started = Date.now();
      try {
        await fn();
        passed++;
        console.log(`  ✔ ${title} (${Date.now() - started} ms)`);
      } catch (err) {
        stepFailed = true;
        await fail(`${prefix}${title}`, err, scenarioName);
        throw err;
      }
    };
    try {
      await body({ page: currentPage, step, flavour, server });
    } catch (err) {
      if (!stepFailed) await fail(`${prefix}${scenarioName}`, err, scenarioName);
    }
    try {
      await after?.();
    } catch (err) {
      await fail(`${prefix}putting back what ${scenarioName} wrote`, err, scenarioName);
    }
  };
  /** Clears the workbench for the next scenario; failing that, loads the page afresh. */
  const clear = async (what) => {
    try {
      await clearWorkbench(currentPage);
    } catch (err) {
      await fail(`clearing the workbench ${what}`, err, `clearing ${what}`);
      await currentPage.reload();
      await waitForWorkbench(currentPage);
    }
  };
  try {
    remote = await startDemoRemoteServer();
    server = await startServer({
      flavour,
      workspace: join(REPO_ROOT, 'demo'),
      userDataDir: join(runDir, 'user'),
      extensionsDir: join(runDir, 'extensions'),
      settings: { ...QUIET_SETTINGS, 'workbench.colorTheme': 'Default Dark Modern', ...settings },
    });
    browser = await launchBrowser();
    const url = server.url(undefined, { extensionDevelopmentPath: REPO_ROOT });
    currentPage = await openWorkbench(browser, url, { viewport: { width: 1280, height: 800 } });
    await use({ server, run, clear });
  } catch (err) {
    failed++;
    console.log(`  ✖ set-up: ${err?.stack ?? err}`);
  } finally {
    await browser?.close().catch(() => {});
    await server?.stop();
    if (remote) await stopDemoRemoteServer(remote);
  }
  console.log(`${passed} passed, ${failed} failed`);
  if (failed === 0) rmSync(runDir, { recursive: true, force: true });
  return { passed, failed };
}
