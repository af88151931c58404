#!/usr/bin/env node
// `npm start`: the extension in a real VS Code, for a person. Starts VS Code's server with the
// extension under development loaded and prints the workbench URL to open in a browser (the server
// listens on 127.0.0.1 only; to reach it from another machine forward the SAME port, e.g.
// `ssh -L 8765:127.0.0.1:8765 host` with --port 8765, and open the printed URL unchanged: the URL names
// the extension as vscode-remote://127.0.0.1:PORT/..., which must match the page's host). Ctrl+C stops it.
//
//   node scripts/vscode-host/start.mjs [--flavour old|new] [--port N] [--folder P]
//     [--extensionDevelopmentPath P] [--env KEY=VALUE ...] [--screenshot out.png]
//
// --flavour     old = VS Code 1.100.3, new = VS Code 1.139.1 (default: new)
// --folder      folder or .code-workspace to open (default: an empty window)
// --screenshot  instead of waiting: open the workbench in headless Chromium, save a screenshot, exit
//
// User data (settings, state) persists in .vscode-test-host/start/<flavour>/ between sessions.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { HOST_DIR, REPO_ROOT, launchBrowser, openWorkbench, sleep, startServer } from './host.mjs';

/**
 * @param {string} msg
 * @returns {never}
 */
function fail(msg) {
  console.error(`[start] ${msg}`);
  process.exit(2);
}

/** @type {{ flavour: string, port: number, folder?: string, devPath: string, env: Record<string, string>, screenshot?: string }} */
const o = { flavour: 'new', port: 0, devPath: REPO_ROOT, env: {} };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  let a = argv[i];
  /** @type {string | undefined} */
  let v;
  const eq = a.indexOf('=');
  if (a.startsWith('--') && eq > 0 && a !== '--env') [a, v] = [a.slice(0, eq), a.slice(eq + 1)];
  const val = () => v ?? argv[++i] ?? fail(`${a} needs a value`);
  switch (a) {
    case '--flavour': o.flavour = val(); break;
    case '--port': o.port = Number(val()); break;
    case '--folder': case '--workspace': o.folder = resolve(val()); break;
    case '--extensionDevelopmentPath': o.devPath = resolve(val()); break;
    case '--env': {
      const kv = val();
      const k = kv.indexOf('=');
      if (k <= 0) fail(`--env wants KEY=VALUE, got ${kv}`);
      o.env[kv.slice(0, k)] = kv.slice(k + 1);
      break;
    }
    case '--screenshot': o.screenshot = resolve(val()); break;
    default: fail(`unknown argument ${a}`);
  }
}
if (o.flavour !== 'old' && o.flavour !== 'new') fail('--flavour must be old or new');
if (!Number.isInteger(o.port) || o.port < 0) fail('--port must be a port number');
const pkgPath = join(o.devPath, 'package.json');
if (!existsSync(pkgPath)) fail(`${o.devPath} has no package.json`);
const main = JSON.parse(readFileSync(pkgPath, 'utf8')).main;
if (main && !existsSync(resolve(o.devPath, main)) && !existsSync(resolve(o.devPath, main + '.js'))) {
  fail(`${resolve(o.devPath, main)} does not exist: build the extension first (npm run build)`);
}

const base = join(HOST_DIR, 'start', o.flavour);
const server = await startServer({
  flavour: /** @type {'old' | 'new'} */ (o.flavour),
  workspace: o.folder,
  userDataDir: join(base, 'user-data'),
  extensionsDir: join(base, 'extensions'),
  port: o.port,
  env: o.env,
  // A person's session: their shell profile's PATH (nvm, pyenv, ~/.local/bin) reaches the servers.
  loginShellEnv: true,
});
const url = server.url(o.folder ?? null, { extensionDevelopmentPath: o.devPath });
const stop = async () => {
  await server.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

if (o.screenshot) {
  const browser = await launchBrowser();
  try {
    const page = await openWorkbench(browser, url);
    await sleep(3000); // let the extension activate and draw
    await page.screenshot({ path: o.screenshot });
    console.log(`[start] screenshot ${o.screenshot}`);
  } finally {
    await browser.close();
    await server.stop();
  }
  process.exit(0);
}
console.log(`[start] VS Code ${server.info.vscode} (${o.flavour}) with ${o.devPath}\n[start] open: ${url}\n[start] Ctrl+C to stop`);
server.exited.then((r) => {
  console.error(`[start] the server exited (code ${r.code}, signal ${r.signal})\n${server.output()}`);
  process.exit(1);
});
