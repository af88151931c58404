#!/usr/bin/env node
// Stand-in for the desktop `code` executable, for @vscode/test-electron's runTests({ vscodeExecutablePath }).
// Run through the wrappers `code-old` / `code-new` (they set VSCODE_HOST_FLAVOUR), or directly with
// --flavour=old|new.
//
// It accepts the desktop command line that runTests builds:
//   --extensionDevelopmentPath=P (repeatable) --extensionTestsPath=P --user-data-dir=D
//   --extensions-dir=D [folder | file.code-workspace] and the flags runTests adds (--no-sandbox,
//   --disable-gpu-sandbox, --disable-updates, --skip-welcome, --skip-release-notes,
//   --disable-workspace-trust), then starts VS Code's server with the same folders and opens the
//   workbench in headless Chromium. The extension host runs the tests; the workbench reports the
//   result through window.codeAutomationExit(code), and this process exits with that code. The
//   extension host's console (mocha's output) is printed on stdout.
//
// The environment of this process (runTests' extensionTestsEnv included) becomes the server's and so
// the extension host's.
//
// Without --extensionTestsPath it starts the server and prints the workbench URL for a person to open,
// until Ctrl+C (like `code --extensionDevelopmentPath=...` opening a window).
//
// Environment:
//   VSCODE_HOST_FLAVOUR       old | new (set by the wrappers)
//   VSCODE_HOST_TIMEOUT       overall limit in seconds for a test run (default 600); on expiry it
//                             prints what it was waiting for and exits with code 124
//   VSCODE_HOST_VERBOSE=1     also print the server's output and every browser console message
//   VSCODE_HOST_SCREENSHOT=P  on failure or timeout, save a screenshot of the workbench to P
import { createWriteStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatConsoleMessage, isWorkbenchNoise, launchBrowser, startServer, waitForWorkbench } from './host.mjs';

const TAG = '[vscode-host]';
const verbose = process.env.VSCODE_HOST_VERBOSE === '1';

/** Desktop flags that take a value when written as `--flag value` (runTests always uses `--flag=value`). */
const VALUE_FLAGS = new Set([
  'extensionDevelopmentPath', 'extensionTestsPath', 'user-data-dir', 'extensions-dir', 'folder-uri',
  'file-uri', 'locale', 'log', 'disable-extension', 'enable-proposed-api', 'profile', 'flavour',
  'inspect-extensions', 'inspect-brk-extensions', 'extensionDevelopmentKind', 'crash-reporter-directory',
  'crash-reporter-id', 'logsPath', 'remote', 'sync', 'install-extension',
]);
/** Desktop-only flags that make no sense for a server in a browser: accepted and ignored. */
const IGNORED_FLAGS = new Set([
  'no-sandbox', 'disable-gpu-sandbox', 'disable-gpu', 'disable-updates', 'skip-welcome',
  'skip-release-notes', 'new-window', 'reuse-window', 'wait', 'disable-chromium-sandbox',
  'disable-crash-reporter', 'disable-telemetry', 'disable-dev-shm-usage', 'no-cached-data',
  'disable-keytar', 'disable-lcd-text', 'skip-add-to-recently-opened', 'use-inmemory-secretstorage',
  'password-store', 'crash-reporter-directory', 'crash-reporter-id', 'locale', 'logsPath', 'sync',
  'verbose', 'inspect-extensions', 'inspect-brk-extensions', 'profile', 'remote', 'file-uri',
]);

/**
 * @param {string[]} argv
 */
function parseArgs(argv) {
  /** @type {{ devPaths: string[], testsPath?: string, userDataDir?: string, extensionsDir?: string,
   *   folder?: string, flavour?: string, trust: boolean, serverArgs: string[], verbose: boolean,
   *   devKind?: string }} */
  const a = { devPaths: [], trust: false, serverArgs: [], verbose };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') continue;
    if (!arg.startsWith('--')) {
      if (a.folder) note(`more than one folder given; opening ${a.folder}, ignoring ${arg}`);
      else a.folder = resolve(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    let value = eq >= 0 ? arg.slice(eq + 1) : undefined;
    if (value === undefined && VALUE_FLAGS.has(name) && i + 1 < argv.length && !argv[i + 1].startsWith('--')) value = argv[++i];
    const need = () => {
      if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
      return value;
    };
    switch (name) {
      case 'extensionDevelopmentPath': a.devPaths.push(toPath(need())); break;
      case 'extensionTestsPath': a.testsPath = toPath(need()); break;
      case 'extensionDevelopmentKind': a.devKind = need(); break;
      case 'user-data-dir': a.userDataDir = resolve(need()); break;
      case 'extensions-dir': a.extensionsDir = resolve(need()); break;
      case 'folder-uri': a.folder = toPath(need()); break;
      case 'flavour': a.flavour = need(); break;
      case 'disable-workspace-trust': a.trust = true; break;
      case 'disable-extensions': a.serverArgs.push('--disable-extensions'); break;
      case 'disable-extension': a.serverArgs.push('--disable-extension', need()); break;
      case 'enable-proposed-api': a.serverArgs.push('--enable-proposed-api', need()); break;
      case 'log': a.serverArgs.push('--log', need()); break;
      case 'verbose': a.verbose = true; break;
      default:
        if (!IGNORED_FLAGS.has(name)) note(`ignoring unsupported flag ${arg}`);
    }
  }
  // runTests always passes --disable-workspace-trust; a test of Restricted Mode asks for trust to stay on.
  if (process.env.VSCODE_HOST_WORKSPACE_TRUST === 'on') a.trust = false;
  return a;
}

class UsageError extends Error {}

/** A path or a file: URI to a path. @param {string} v */
function toPath(v) {
  if (v.startsWith('file:')) return fileURLToPath(v);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) throw new UsageError(`only local paths are supported, not ${v}`);
  return resolve(v);
}

/** @param {string} msg */
function note(msg) {
  process.stderr.write(`${TAG} ${msg}\n`);
}

async function main() {
  const started = Date.now();
  const args = parseArgs(process.argv.slice(2));
  const flavour = args.flavour ?? process.env.VSCODE_HOST_FLAVOUR;
  if (flavour !== 'old' && flavour !== 'new') throw new UsageError('no flavour: run code-old / code-new, or pass --flavour=old|new');
  for (const p of args.devPaths) if (!existsSync(resolve(p, 'package.json'))) throw new UsageError(`--extensionDevelopmentPath ${p} has no package.json`);
  if (args.testsPath && !existsSync(args.testsPath) && !existsSync(args.testsPath + '.js')) {
    throw new UsageError(`--extensionTestsPath ${args.testsPath} does not exist (did the tests compile?)`);
  }
  if (args.folder && !existsSync(args.folder)) throw new UsageError(`folder ${args.folder} does not exist`);
  if (args.folder && !args.folder.endsWith('.code-workspace') && !statSync(args.folder).isDirectory()) {
    throw new UsageError(`${args.folder} is a file; only a folder or a .code-workspace file can be opened`);
  }
  // Same defaults as the desktop when runTests did not pass them (it always does).
  const userDataDir = args.userDataDir ?? resolve('.vscode-test-host', 'user-data');
  const extensionsDir = args.extensionsDir ?? resolve('.vscode-test-host', 'extensions');

  /** @type {{ stop(): Promise<void> }[]} */
  const toStop = [];
  let phase = 'starting the VS Code server';
  let exiting = false;
  /** @type {import('playwright-core').Page | undefined} */
  let page;
  /** @type {() => Promise<void>} */
  let drainConsole = async () => {};
  /** @param {number} code @param {string} [why] */
  const finish = async (code, why) => {
    if (exiting) return;
    exiting = true;
    await Promise.race([drainConsole().catch(() => {}), new Promise((r) => setTimeout(r, 2000).unref())]);
    if (why) note(why);
    if (code !== 0 && args.testsPath) {
      note(`diagnostics: browser console ${resolve(userDataDir, 'browser-console.log')}, server logs under ${resolve(userDataDir, 'logs')}`);
    }
    if (code !== 0 && page && process.env.VSCODE_HOST_SCREENSHOT) {
      const shot = resolve(process.env.VSCODE_HOST_SCREENSHOT);
      mkdirSync(dirname(shot), { recursive: true });
      await page.screenshot({ path: shot, timeout: 5000 }).then(() => note(`screenshot: ${shot}`), () => {});
    }
    // Stop in reverse order, each bounded so a stuck browser cannot hold the exit.
    for (const s of toStop.reverse()) await Promise.race([s.stop().catch(() => {}), new Promise((r) => setTimeout(r, 8000).unref())]);
    if (args.testsPath) note(`${flavour}: finished in ${((Date.now() - started) / 1000).toFixed(1)} s with exit code ${code}`);
    process.exit(code);
  };
  for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
    process.on(sig, () => void finish(sig === 'SIGINT' ? 130 : 143, `received ${sig} while ${phase}; stopping`));
  }

  const timeoutS = Number(process.env.VSCODE_HOST_TIMEOUT ?? 600);
  if (args.testsPath) {
    setTimeout(() => {
      const hint = server ? `\nlast server output:\n${server.output().split('\n').slice(-30).join('\n')}` : '';
      void finish(124, `TIMEOUT: no result after ${timeoutS} s (set VSCODE_HOST_TIMEOUT to change) while ${phase}${hint}`);
    }, timeoutS * 1000).unref();
  }

  /** @type {import('./host.mjs').VsCodeServer | undefined} */
  let server;
  server = await startServer({
    flavour,
    workspace: args.folder,
    userDataDir,
    extensionsDir,
    trust: args.trust,
    extraArgs: args.serverArgs,
    onOutput: args.verbose ? (l) => process.stderr.write(`[server] ${l}\n`) : undefined,
  });
  toStop.push(server);
  const srv = server;
  srv.exited.then((r) => finish(exiting ? 0 : 1, `the VS Code server exited unexpectedly (code ${r.code}, signal ${r.signal}) while ${phase}:\n${srv.output()}`));

  const payload = {
    extensionDevelopmentPath: args.devPaths,
    extensionTestsPath: args.testsPath,
    extra: /** @type {[string, string][]} */ (args.devKind ? [['extensionDevelopmentKind', args.devKind]] : []),
  };
  const url = server.url(args.folder ?? null, payload);

  if (!args.testsPath) {
    phase = 'serving';
    console.log(`${TAG} VS Code ${server.info.vscode} (${flavour}) is serving. Open in a browser:\n${url}\n${TAG} Ctrl+C to stop.`);
    await new Promise(() => {});
  }

  phase = 'launching Chromium';
  const browser = await launchBrowser();
  toStop.push({ stop: () => browser.close() });
  browser.on('disconnected', () => void finish(1, `Chromium disconnected while ${phase}`));
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await context.newPage();

  /** @type {(code: number) => void} */
  let onExitCode = () => {};
  const exitCode = new Promise((r) => (onExitCode = r));
  await page.exposeFunction('codeAutomationExit', (/** @type {unknown} */ code) => {
    onExitCode(typeof code === 'number' ? code : Number(code) || 0);
  });
  // Every browser console message, unfiltered, for diagnosing a failed run.
  const consoleLogPath = resolve(userDataDir, 'browser-console.log');
  mkdirSync(userDataDir, { recursive: true });
  const consoleLog = createWriteStream(consoleLogPath);
  toStop.push({ stop: () => new Promise((r) => consoleLog.end(r)) });
  // Console messages are formatted asynchronously (their arguments live in the page), so they go
  // through a queue that keeps their order and is drained before exiting.
  let consoleQueue = Promise.resolve();
  page.on('console', (m) => {
    consoleQueue = consoleQueue.then(async () => {
      const { level, text, logger } = await formatConsoleMessage(m);
      consoleLog.write(`[${level}] ${text}\n`);
      if (args.verbose) {
        process.stderr.write(`[browser ${level}] ${text}\n`);
        return;
      }
      // Only what came through VS Code's logger: the extension host's console plus a little of the
      // workbench's own INFO logging (the known noise is dropped). Browser-native messages (404s,
      // iframe warnings) only with VSCODE_HOST_VERBOSE=1.
      if (!logger || isWorkbenchNoise(text)) return;
      if (level === 'ERR' || level === 'WARN') process.stderr.write(text + '\n');
      else process.stdout.write(text + '\n');
    }).catch(() => {});
  });
  drainConsole = async () => {
    await consoleQueue;
    await new Promise((r) => setTimeout(r, 300));
    await consoleQueue;
  };
  page.on('pageerror', (e) => {
    if (args.verbose) process.stderr.write(`[browser pageerror] ${e.message}\n`);
  });
  page.on('crash', () => void finish(1, 'the workbench page crashed'));

  phase = 'loading the workbench';
  if (args.verbose) note(`opening ${url}`);
  await page.goto(url);
  await waitForWorkbench(page, 120_000).catch((e) => {
    throw new Error(`the workbench did not appear within 120 s: ${e.message}`);
  });
  phase = 'running the extension tests (waiting for window.codeAutomationExit)';
  const code = await exitCode;
  await drainConsole();
  await finish(code);
}

main().catch((err) => {
  if (err instanceof UsageError) note(`usage error: ${err.message}`);
  else note(`failed: ${err?.stack ?? err}`);
  // Servers started by host.mjs are killed by its process 'exit' handler.
  process.exit(err instanceof UsageError ? 2 : 1);
});
