// Test host library: a real VS Code (the server build shipped in the npm package code-server)
// driven by headless Chromium through playwright-core. Used by code-stub.mjs (the stand-in for the
// desktop `code` binary that @vscode/test-electron launches), run-integration.mjs, e2e-smoke.mjs and
// start.mjs. Install the flavours first: `node scripts/vscode-host/install.mjs`.
//
// Flavours: 'old' = VS Code 1.100.3 on this machine's Node 20, 'new' = VS Code 1.139.1 on Node 24.
//
// ------------------------------------------------------------------------------------------------
// Playwright selectors, each checked on BOTH flavours (1.100.3 and 1.139.1) in headless Chromium by
// e2e-smoke.mjs / the smoke extension (test/vscode-host-smoke). Helpers below wrap the common ones.
//
//   workbench ready    .monaco-workbench, then .part.activitybar and .part.statusbar visible
//                      (waitForWorkbench). Extension contributions arrive ~1-2 s later: wait for
//                      the thing you need, never sleep.
//   activity bar       .part.activitybar
//     a container      .part.activitybar a.action-label[aria-label^="Smoke Test"]  (aria-label =
//                      container title, built-ins add a keybinding: "Explorer (Ctrl+Shift+E)").
//                      By id instead of title: a.action-label[class*="activity-workbench-view-extension-<containerId>-"]
//                      Open/active: its parent li.action-item has class "checked" and
//                      aria-selected="true" (the li's aria-label is empty until it is rendered
//                      active, so select the <a>).                       -> openViewContainer()
//   side bar           .part.sidebar (visible once a container is open)
//     title            .part.sidebar .composite.title h2 — text "Smoke Test: Smoke Items" when the
//                      container has ONE view, "Smoke Test" when it has several
//     view header      .part.sidebar .pane-header[aria-label^="Smoke Items"] (aria-label
//                      "<View name> Section", aria-expanded true|false, click toggles). With a single
//                      view the header exists but has class "hidden".
//     view pane        .part.sidebar .pane:has(.pane-header[aria-label^="Smoke Items"])
//     view title action  <pane> .pane-header .actions .action-label[aria-label="Refresh Smoke Items"]
//                      (aria-label = command title; hover the header first)
//   tree items         .part.sidebar .monaco-list-row[role="treeitem"]; label text in .label-name;
//                      aria-level (1 = top), aria-expanded only on collapsible items, aria-selected.
//                      aria-label is the TOOLTIP when one is set, and 1.139 appends ", has actions"
//                      when the item has inline actions: so do NOT match items by role name
//                      exactly; match .label-name text                      -> treeItem()
//     inline action    <row> .actions .action-label[aria-label="Poke Item"] (in the DOM for every
//                      row; hover the row before clicking)
//   command palette    F1 -> .quick-input-widget visible; input: .quick-input-widget input.input
//                      (value starts with '>'; fill('>Title')); rows: .quick-input-list .monaco-list-row
//                      (aria-label "Category: Title, keybinding"); Enter runs the focused first row;
//                      the widget hides afterwards (a command with its own quick pick reuses the
//                      widget).                          -> runCommand(), chooseCommand()
//   notifications      1.100 draws toasts (.notifications-toasts .notification-list-item-message);
//                      1.139 does NOT draw toasts in this mode. On both: run "Notifications: Show
//                      Notifications", then .notifications-center .notification-list-item-message
//                      (newest first; Escape closes the centre). Match by text, do not count rows:
//                      1.100 sometimes renders a stale duplicate row.       -> showNotifications()
//   status bar         .part.statusbar .statusbar-item; an extension's item has
//                      id="<publisher>.<name>.<item id>" (e.g. #mcp-host-test\.vscode-host-smoke\.vscodeHostSmoke\.status
//                      or [id$=".vscodeHostSmoke.status"]); aria-label spells icons ("check  Smoke ready").
//   editor tabs        .tabs-container .tab[aria-label="hello.txt"]; text: .editor-instance .view-lines
//   panel              .part.panel (Problems / Output / Terminal; the terminal works on both)
//
// Pitfalls: the workbench ignores the URL payload unless the server runs with
// --enable-smoke-test-driver (startServer passes it). vscode.env.uiKind is Web and appName is
// "code-server" here. The extension host inherits the server's environment: pass test variables via
// startServer({ env }). A workspace inside a git repository makes the git extension ask about the
// parent repository (a notification): QUIET_SETTINGS turns that off, and 1.139's chat side bar too.
// ------------------------------------------------------------------------------------------------

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { formatWithOptions } from 'node:util';
import { FLAVOURS, HOST_DIR, REPO_ROOT, flavourInfo } from './flavours.mjs';

export { FLAVOURS, HOST_DIR, REPO_ROOT, flavourInfo };

/** @typedef {import('./flavours.mjs').Flavour} Flavour */
/** @typedef {import('./flavours.mjs').FlavourInfo} FlavourInfo */

/** The Chromium that playwright-core drives (Debian package `chromium`). */
export const CHROMIUM_PATH = process.env.VSCODE_HOST_CHROMIUM || '/usr/bin/chromium';

/** Flags for headless Chromium in a container without GPU, sandbox or network. */
export const CHROMIUM_ARGS = Object.freeze([
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
]);

/**
 * The install of a flavour, checked: throws a readable error telling how to install it.
 * @param {string} flavour
 * @returns {FlavourInfo}
 */
export function requireFlavour(flavour) {
  const info = flavourInfo(flavour);
  /** @type {any} */
  let marker = null;
  try {
    marker = JSON.parse(readFileSync(resolve(info.dir, '.installed.json'), 'utf8'));
  } catch {}
  if (!marker || marker.codeServer !== info.codeServer || !existsSync(info.serverMain)) {
    throw new Error(`VS Code flavour "${flavour}" (${info.vscode}) is not installed in ${info.dir}. Run: node scripts/vscode-host/install.mjs ${flavour}`);
  }
  // The old flavour's native modules were built for the Node that ran the installer: keep using it.
  if (flavour === 'old' && marker.node && existsSync(marker.node)) info.node = marker.node;
  if (!existsSync(info.node)) throw new Error(`node binary for flavour ${flavour} is missing: ${info.node}. Rerun the installer with --force.`);
  return info;
}

// ------------------------------------------------------------------------------------------------
// Server

/**
 * @typedef {object} StartServerOptions
 * @property {Flavour} flavour
 * @property {string} [workspace]     folder (or .code-workspace file) that url() opens by default
 * @property {string} extensionsDir   where installed (not development) extensions live
 * @property {string} userDataDir     the server's user data (User/settings.json, logs)
 * @property {string} [serverDataDir] defaults to <userDataDir>/server-data
 * @property {Record<string, string | undefined>} [env] extra environment for the server and so for
 *   the extension host (undefined removes a variable)
 * @property {boolean} [loginShellEnv=false]  true: VS Code reads the login shell's environment
 *   (bash -ilc) before an extension host starts, as for a person (`npm start`); tests leave it off
 *   (--force-disable-user-env): here that shell never exits and VS Code waits 10 s for it each time
 * @property {boolean} [trust=true]   true: pass --disable-workspace-trust (every folder trusted, as in
 *   runs of the test-electron package). false: keep workspace trust on, to test Restricted Mode.
 * @property {Record<string, unknown>} [settings] user settings merged into the file
 *   User/settings.json of userDataDir before the start, e.g. QUIET_SETTINGS
 * @property {number} [port=0]        port on 127.0.0.1 (0: any free port)
 * @property {string[]} [extraArgs]   more server-main.js arguments
 * @property {number} [startTimeoutMs=60000]
 * @property {(line: string) => void} [onOutput] every line of the server's stdout/stderr
 */

/**
 * @typedef {object} VsCodeServer
 * @property {Flavour} flavour
 * @property {FlavourInfo} info
 * @property {number} port
 * @property {number} pid                 process (and process group) id of server-main.js
 * @property {string} origin              http://127.0.0.1:PORT
 * @property {(folder?: string | null, payload?: WorkbenchPayload) => string} url  workbench URL;
 *   folder defaults to the workspace given to startServer, null opens an empty window
 * @property {(absPath: string) => string} remoteUri  vscode-remote:// URI of a path on this server
 * @property {() => string} output        the last lines the server printed (for error reports)
 * @property {Promise<{code: number | null, signal: string | null}>} exited resolves when it exits
 * @property {() => Promise<void>} stop  kills the whole process tree; safe to call more than once
 */

/** Processes started by this module, killed if the Node process exits without stopping them. */
const liveGroups = new Set();
process.on('exit', () => {
  for (const pid of liveGroups) killTree(pid, 'SIGKILL');
});

/**
 * Every descendant of pid (children, grandchildren...), read from /proc.
 * @param {number} pid
 * @returns {number[]}
 */
function descendants(pid) {
  /** @type {Map<number, number[]>} */
  const children = new Map();
  let entries = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      // pid (comm) state ppid ...; comm may contain spaces and parentheses
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid)?.push(Number(e));
    } catch {}
  }
  const out = [];
  const queue = [pid];
  while (queue.length) {
    const p = /** @type {number} */ (queue.shift());
    for (const c of children.get(p) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

/**
 * Signals a process group and every descendant (some may have left the group, e.g. `detached`
 * children an extension spawned).
 * @param {number} pid @param {NodeJS.Signals} signal
 */
function killTree(pid, signal) {
  const pids = descendants(pid);
  try {
    process.kill(-pid, signal);
  } catch {}
  for (const p of pids) {
    try {
      process.kill(p, signal);
    } catch {}
  }
}

/** Variables a surrounding VS Code (terminal, extension host, test run) sets that must not reach ours. */
const LEAKED_VARS = /^(VSCODE_(IPC_HOOK|PID$|CWD$|NLS_CONFIG$|HANDLES_|ESM_ENTRYPOINT$|AMD_ENTRYPOINT$|CODE_CACHE_PATH$|CRASH_REPORTER|L10N_|GIT_|INJECTION$|PARENT_PID$|INSPECTOR_OPTIONS$|SHELL_|NODE_CACHED_DATA_DIR$)|ELECTRON_RUN_AS_NODE$|ELECTRON_NO_ATTACH_CONSOLE$)/;

/**
 * Environment for the server: ours minus variables a surrounding VS Code would leak, plus
 * EXTENSIONS_GALLERY='{}' (no marketplace look-ups) and the caller's variables.
 * @param {Record<string, string | undefined>} [extra]
 */
function serverEnv(extra = {}) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (LEAKED_VARS.test(k)) continue;
    env[k] = v;
  }
  env.EXTENSIONS_GALLERY = '{}';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/**
 * Starts VS Code's server (lib/vscode/out/server-main.js) in its own process group and waits for
 * `listening on PORT`.
 * @param {StartServerOptions} opts
 * @returns {Promise<VsCodeServer>}
 */
export async function startServer(opts) {
  const info = requireFlavour(opts.flavour);
  const userDataDir = resolve(opts.userDataDir);
  const extensionsDir = resolve(opts.extensionsDir);
  const serverDataDir = resolve(opts.serverDataDir ?? resolve(userDataDir, 'server-data'));
  for (const d of [userDataDir, extensionsDir, serverDataDir]) mkdirSync(d, { recursive: true });
  if (opts.settings) writeUserSettings(userDataDir, opts.settings);
  const workspace = opts.workspace ? resolve(opts.workspace) : undefined;
  if (workspace && !existsSync(workspace)) throw new Error(`workspace ${workspace} does not exist`);
  const args = [
    info.serverMain,
    '--host', '127.0.0.1',
    '--port', String(opts.port ?? 0),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--enable-smoke-test-driver',
    '--disable-telemetry',
    // Tests get this process's environment, not a person's shell profile (see loginShellEnv).
    ...(opts.loginShellEnv ? [] : ['--force-disable-user-env']),
    ...(opts.trust === false ? [] : ['--disable-workspace-trust']),
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir,
    '--server-data-dir', serverDataDir,
    ...(opts.extraArgs ?? []),
  ];
  const child = spawn(info.node, args, {
    cwd: workspace && !workspace.endsWith('.code-workspace') ? workspace : REPO_ROOT,
    env: serverEnv(opts.env),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = /** @type {number} */ (child.pid);
  if (pid) liveGroups.add(pid);

  /** @type {string[]} */
  const lines = [];
  const output = () => lines.join('\n');
  /** @type {(port: number) => void} */
  let onPort = () => {};
  const portPromise = new Promise((res) => (onPort = res));
  const onChunk = (/** @type {{ buf: string }} */ state) => (/** @type {Buffer} */ chunk) => {
    state.buf += chunk.toString('utf8');
    let i;
    while ((i = state.buf.indexOf('\n')) >= 0) {
      const line = state.buf.slice(0, i).replace(/\r$/, '');
      state.buf = state.buf.slice(i + 1);
      lines.push(line);
      if (lines.length > 300) lines.shift();
      opts.onOutput?.(line);
      const m = /listening on (\d+)/.exec(line);
      if (m) onPort(Number(m[1]));
    }
  };
  child.stdout?.on('data', onChunk({ buf: '' }));
  child.stderr?.on('data', onChunk({ buf: '' }));

  /** @type {Promise<{code: number | null, signal: string | null}>} */
  const exited = new Promise((res) => {
    child.on('exit', (code, signal) => res({ code, signal }));
    child.on('error', (err) => {
      lines.push(`spawn error: ${err.message}`);
      res({ code: null, signal: null });
    });
  });

  let stopping = /** @type {Promise<void> | null} */ (null);
  const stop = () => {
    if (stopping) return stopping;
    stopping = (async () => {
      if (!pid) return;
      killTree(pid, 'SIGTERM');
      const done = await Promise.race([exited.then(() => true), sleep(3000, true).then(() => false)]);
      if (!done) lines.push('server did not exit within 3 s of SIGTERM; sending SIGKILL');
      // Whatever is left of the tree (the leader may be gone, its group or orphans not).
      killTree(pid, 'SIGKILL');
      await Promise.race([exited, sleep(2000, true)]);
      liveGroups.delete(pid);
    })();
    return stopping;
  };

  const timeoutMs = opts.startTimeoutMs ?? 60_000;
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const port = await Promise.race([
    portPromise,
    exited.then((r) => {
      throw new Error(`VS Code server (${opts.flavour}) exited before listening (code ${r.code}, signal ${r.signal}):\n${output()}`);
    }),
    new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`VS Code server (${opts.flavour}) did not print "listening on PORT" within ${timeoutMs / 1000} s:\n${output()}`)), timeoutMs);
    }),
  ]).catch(async (err) => {
    await stop();
    throw err;
  }).finally(() => clearTimeout(timer));

  const origin = `http://127.0.0.1:${port}`;
  const remoteUri = (/** @type {string} */ p) => remoteUriFor(port, p);
  return {
    flavour: opts.flavour,
    info,
    port,
    pid,
    origin,
    url: (folder, payload) => workbenchUrl(port, folder === undefined ? workspace : folder ?? undefined, payload),
    remoteUri,
    output,
    exited,
    stop,
  };
}

/**
 * Merges settings into <userDataDir>/User/settings.json (the server keeps the user's settings there).
 * @param {string} userDataDir @param {Record<string, unknown>} settings
 */
export function writeUserSettings(userDataDir, settings) {
  const file = resolve(userDataDir, 'User', 'settings.json');
  /** @type {Record<string, unknown>} */
  let current = {};
  if (existsSync(file)) {
    try {
      current = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      throw new Error(`${file} is not plain JSON (comments?); cannot merge settings into it`);
    }
  }
  mkdirSync(resolve(userDataDir, 'User'), { recursive: true });
  writeFileSync(file, JSON.stringify({ ...current, ...settings }, null, 2) + '\n');
}

/**
 * Settings that keep a scripted session quiet and screenshots clean; not applied unless asked for.
 * (No git prompt for the repository around a test workspace, no chat side bar or AI prompts.)
 */
export const QUIET_SETTINGS = Object.freeze({
  'git.openRepositoryInParentFolders': 'never',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'workbench.tips.enabled': false,
  'workbench.startupEditor': 'none',
  'extensions.ignoreRecommendations': true,
  'files.watcherExclude': { '**/.vscode-test-host/**': true, '**/node_modules/**': true },
});

// ------------------------------------------------------------------------------------------------
// Workbench URL

/**
 * What the workbench should load. Paths are absolute paths on the server's machine.
 * @typedef {object} WorkbenchPayload
 * @property {string | string[]} [extensionDevelopmentPath]  extension folder(s) under development
 * @property {string} [extensionTestsPath]  test entry (a module exporting run()), runs and then
 *   calls window.codeAutomationExit(code)
 * @property {boolean} [skipWelcome=true]
 * @property {[string, string][]} [extra]  more payload entries, e.g. [['extensionDevelopmentKind', 'workspace']]
 */

/**
 * vscode-remote URI for an absolute path on the server (how the workbench names server files).
 * @param {number} port @param {string} absPath
 */
export function remoteUriFor(port, absPath) {
  if (!isAbsolute(absPath)) throw new Error(`not an absolute path: ${absPath}`);
  const encoded = resolve(absPath).split('/').map(encodeURIComponent).join('/');
  return `vscode-remote://127.0.0.1:${port}${encoded}`;
}

/**
 * The payload array the workbench reads from the `payload` query parameter.
 * @param {number} port @param {WorkbenchPayload} [p]
 * @returns {[string, string][]}
 */
export function workbenchPayload(port, p = {}) {
  /** @type {[string, string][]} */
  const out = [];
  if (p.skipWelcome !== false) out.push(['skipWelcome', 'true']);
  const devPaths = p.extensionDevelopmentPath === undefined ? [] : Array.isArray(p.extensionDevelopmentPath) ? p.extensionDevelopmentPath : [p.extensionDevelopmentPath];
  for (const d of devPaths) out.push(['extensionDevelopmentPath', remoteUriFor(port, resolve(d))]);
  if (p.extensionTestsPath) out.push(['extensionTestsPath', remoteUriFor(port, resolve(p.extensionTestsPath))]);
  for (const e of p.extra ?? []) out.push(e);
  return out;
}

/**
 * http://127.0.0.1:PORT/?folder=/abs&payload=... (a *.code-workspace file opens as a workspace;
 * no folder: an empty window).
 * @param {number} port @param {string} [folder] @param {WorkbenchPayload} [payload]
 */
export function workbenchUrl(port, folder, payload) {
  const q = [];
  if (folder) {
    const abs = resolve(folder);
    q.push(`${abs.endsWith('.code-workspace') ? 'workspace' : 'folder'}=${abs.split('/').map(encodeURIComponent).join('/')}`);
  } else {
    q.push('ew=true');
  }
  q.push(`payload=${encodeURIComponent(JSON.stringify(workbenchPayload(port, payload)))}`);
  return `http://127.0.0.1:${port}/?${q.join('&')}`;
}

// ------------------------------------------------------------------------------------------------
// Browser

/**
 * Headless Chromium through playwright-core.
 * @param {{ headless?: boolean, args?: string[], slowMo?: number }} [opts]
 * @returns {Promise<import('playwright-core').Browser>}
 */
export async function launchBrowser(opts = {}) {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}. Run node scripts/vscode-host/install.mjs (it installs the Debian package chromium) or set VSCODE_HOST_CHROMIUM`);
  }
  const { chromium } = await import('playwright-core');
  const headless = opts.headless ?? true;
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless,
    args: [...CHROMIUM_ARGS.filter((a) => headless || a !== '--headless'), ...(opts.args ?? [])],
    slowMo: opts.slowMo,
  });
}

/**
 * Opens a workbench page and waits until the workbench is drawn.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url  from server.url()
 * @param {{ viewport?: {width: number, height: number}, timeoutMs?: number,
 *           onConsole?: (text: string, type: string) => void }} [opts]
 * @returns {Promise<import('playwright-core').Page>}
 */
export async function openWorkbench(browser, url, opts = {}) {
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1400, height: 900 } });
  const page = await context.newPage();
  if (opts.onConsole) page.on('console', (m) => opts.onConsole?.(consoleText(m), m.type()));
  await page.goto(url);
  await waitForWorkbench(page, opts.timeoutMs);
  return page;
}

/**
 * Waits for the workbench (activity bar and status bar drawn).
 * @param {import('playwright-core').Page} page @param {number} [timeoutMs=60000]
 */
export async function waitForWorkbench(page, timeoutMs = 60_000) {
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator('.monaco-workbench .part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
}

/**
 * Chooses a command in the command palette by its title, as a person would (F1, type, click the
 * row; or, with `byKeyboard`, Enter once the row is the focused one), and returns without waiting
 * for the palette to close: a command that opens its own quick pick (Run Tool…, MCP: List
 * Servers) reuses the same widget.
 * @param {import('playwright-core').Page} page @param {string} title
 * @param {{timeoutMs?: number, byKeyboard?: boolean}} [opts]
 */
export async function chooseCommand(page, title, opts = {}) {
  const timeout = opts.timeoutMs ?? 15_000;
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('input.input');
  // The command of exactly this title ("View: Close All Editors", not "… in Group", which a recent use could list first).
  const rows = widget
    .locator(opts.byKeyboard ? '.quick-input-list .monaco-list-row.focused' : '.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: exactly(title) }) });
  const row = rows.first();
  // The palette closes when something else takes the focus (VS Code reveals a server's output panel
  // a moment after its MCP: Start Server); a person then opens it again.
  for (let attempt = 1; ; attempt++) {
    try {
      await page.keyboard.press('F1');
      await widget.waitFor({ state: 'visible', timeout });
      await input.fill('>' + title, { timeout: 5_000 });
      await row.waitFor({ state: 'visible', timeout });
      if (opts.byKeyboard) await page.keyboard.press('Enter');
      else await row.click({ timeout: 5_000 });
      return;
    } catch (err) {
      if (attempt === 3 || (await widget.isVisible())) throw err;
      console.log(`    (the command palette closed before "${title}" was chosen; opening it again)`);
    }
  }
}

/**
 * Runs a command from the command palette by its title and waits for the palette to close.
 * @param {import('playwright-core').Page} page @param {string} title @param {{timeoutMs?: number}} [opts]
 */
export async function runCommand(page, title, opts = {}) {
  await chooseCommand(page, title, opts);
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: opts.timeoutMs ?? 15_000 });
}

/**
 * Opens an activity-bar view container (an extension's `viewsContainers.activitybar` entry) by its
 * title, if it is not open already, and waits for the side bar to show it.
 * @param {import('playwright-core').Page} page @param {string} title  e.g. 'Explorer', 'MCP Servers'
 */
export async function openViewContainer(page, title, timeout = 15_000) {
  const link = `a.action-label[aria-label^="${cssString(title)}"]`;
  const item = page.locator(`.part.activitybar ${link}`).first();
  await item.waitFor({ state: 'visible', timeout });
  const li = page.locator('.part.activitybar li.action-item', { has: page.locator(link) }).first();
  if (!(await li.evaluate((e) => e.classList.contains('checked'))) || !(await page.locator('.part.sidebar').isVisible())) {
    await item.click();
  }
  await page.locator('.part.sidebar .composite.title h2', { hasText: title }).first().waitFor({ state: 'visible', timeout });
}

/**
 * A tree item in the side bar whose label is exactly `label` (the row's aria-label is the tooltip when
 * the item has one, so it is not matched on).
 * @param {import('playwright-core').Page} page @param {string} label
 */
export function treeItem(page, label) {
  return page
    .locator('.part.sidebar .monaco-list-row[role="treeitem"]')
    .filter({ has: page.locator('.label-name', { hasText: exactly(label) }) });
}

/** A RegExp that matches the whole of `text`, and nothing else. @param {string} text */
function exactly(text) {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
}

/**
 * Opens the notification centre (works on both flavours; 1.139 draws no toasts in this mode) and
 * returns the locator of the notification messages.
 * @param {import('playwright-core').Page} page
 */
export async function showNotifications(page) {
  const center = page.locator('.notifications-center');
  if (!(await center.isVisible())) await runCommand(page, 'Notifications: Show Notifications');
  await center.waitFor({ state: 'visible', timeout: 10_000 });
  return center.locator('.notification-list-item-message');
}

/** @param {string} s */
function cssString(s) {
  return s.replace(/["\\]/g, '\\$&');
}

/**
 * The text of a browser console message with the `%c` styling of VS Code's console logger removed
 * (synchronous and approximate: format placeholders are not substituted; see formatConsoleMessage).
 * @param {import('playwright-core').ConsoleMessage} msg
 */
export function consoleText(msg) {
  const t = msg.text();
  const m = /^%c\s*([A-Z]+)\s+color: [^ ]+ /.exec(t);
  return m ? `${m[1]} ${t.slice(m[0].length)}` : t;
}

/**
 * A browser console message as VS Code meant it. VS Code's browser console logger writes
 * console.log('%c INFO', 'color: #33f', message, ...args); in an extension test run the extension
 * host's console (mocha's reporter) arrives through that logger, with the extension's own format
 * string and arguments. Returns the level (INFO, WARN, ERR, TRACE, DBUG, or the console type for
 * plain messages), the text with format placeholders substituted, and whether it came through VS
 * Code's logger.
 * @param {import('playwright-core').ConsoleMessage} msg
 * @returns {Promise<{ level: string, text: string, logger: boolean }>}
 */
export async function formatConsoleMessage(msg) {
  const handles = msg.args();
  /** @param {import('playwright-core').JSHandle} h */
  const value = async (h) => {
    try {
      return await h.jsonValue();
    } catch {
      return h.evaluate((x) => String(x)).catch(() => '<unserialisable>');
    }
  };
  const first = handles.length ? await value(handles[0]) : undefined;
  const m = typeof first === 'string' ? /^%c\s*([A-Z]+)\s*$/.exec(first) : null;
  if (!m || handles.length < 2) return { level: msg.type(), text: msg.text(), logger: false };
  const rest = await Promise.all(handles.slice(2).map(value));
  return { level: m[1], text: rest.length ? formatWithOptions({ colors: false }, ...rest) : '', logger: true };
}

/**
 * Lines VS Code's own workbench logs at INFO during a run, which are not the extension's output.
 * Only a convenience to keep test output readable: code-stub.mjs prints them with VSCODE_HOST_VERBOSE=1.
 */
export const WORKBENCH_NOISE = [
  /^Resolving connection token /,
  /^Resolved connection token /,
  /^Creating a socket \(/,
  /^Ignoring fetching additional builtin extensions/,
  /^Updating additional builtin extensions cache/,
  /^Started initializing default profile extensions/,
  /^Completed initializing default profile extensions/,
  /^ChatSessionStore: /,
  /^\[(AgentHost|AgentHost:[a-z]+|ChatModelSelection|AccountPolicyGate|reconnection-grace-time)\]/,
  /^\[Service Worker\] registration/,
  /^Creation of workbench contribution '[^']*' took/,
  // Errors whose stack is the workbench's own code in the browser (the extension host's stacks name
  // files on disk instead), e.g. 1.139's "Timed out waiting for authentication provider 'github'".
  /^[^\n]*\n\s+at .*https?:\/\/127\.0\.0\.1:\d+\/[^ ]*\/static\/out\/vs\//,
];

/** @param {string} text */
export function isWorkbenchNoise(text) {
  return WORKBENCH_NOISE.some((re) => re.test(text));
}

// ------------------------------------------------------------------------------------------------
// VSIX

/**
 * Installs a packaged extension the way a user's VS Code does (server-main.js --install-extension).
 * @param {Flavour} flavour @param {string} vsixPath @param {string} extensionsDir
 * @returns {Promise<string>} the installer's output
 */
export async function installVsix(flavour, vsixPath, extensionsDir) {
  const info = requireFlavour(flavour);
  const vsix = resolve(vsixPath);
  if (!existsSync(vsix)) throw new Error(`VSIX not found: ${vsix}`);
  mkdirSync(resolve(extensionsDir), { recursive: true });
  const args = [info.serverMain, '--install-extension', vsix, '--force', '--extensions-dir', resolve(extensionsDir), '--accept-server-license-terms'];
  return new Promise((res, rej) => {
    const child = spawn(info.node, args, { env: serverEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', (e) => rej(e));
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0 && !/\bfailed\b/i.test(out)) res(out);
      else rej(new Error(`installing ${vsix} into ${extensionsDir} (${flavour}) failed (exit ${code}):\n${out}`));
    });
  });
}

/** @param {number} ms @param {boolean} [unref] true: the timer alone does not keep Node running */
export function sleep(ms, unref = false) {
  return new Promise((r) => {
    const t = setTimeout(r, ms);
    if (unref) t.unref();
  });
}
