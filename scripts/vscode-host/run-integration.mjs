#!/usr/bin/env node
// Runs an extension's integration tests in a real VS Code through @vscode/test-electron's runTests,
// with the offline stand-in (code-old / code-new) as the VS Code executable.
//
//   node scripts/vscode-host/run-integration.mjs --flavour old|new \
//     --extensionTestsPath out/test/integration/index.js \
//     [--extensionDevelopmentPath .]   (default: the repository root; repeatable)
//     [--workspace test/fixtures/ws]   (folder or .code-workspace to open; default: none)
//     [--env KEY=VALUE ...]            (environment for the extension host; repeatable)
//     [--launch-arg ARG ...]           (extra VS Code command-line arguments; repeatable)
//     [--user-data-dir D] [--extensions-dir D]  (default: a fresh folder per run, see below)
//     [--timeout SECONDS]              (whole run; default 600, or VSCODE_HOST_TIMEOUT)
//     [--keep] [--verbose]
//     [-- more launch args]
//
// Each run gets fresh user data and extensions folders under .vscode-test-host/runs/; they are
// deleted after a passing run (unless --keep) and kept after a failure for the logs.
// Exits with the tests' exit code (0 = all passed).
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { HOST_DIR, REPO_ROOT, requireFlavour } from './host.mjs';

const require = createRequire(import.meta.url);
const TAG = '[run-integration]';

/**
 * @param {string} [msg]
 * @returns {never}
 */
function usage(msg) {
  if (msg) console.error(`${TAG} ${msg}`);
  console.error('usage: node scripts/vscode-host/run-integration.mjs --flavour old|new --extensionTestsPath P [--extensionDevelopmentPath P] [--workspace P] [--env K=V] [--launch-arg A] [--user-data-dir D] [--extensions-dir D] [--timeout S] [--keep] [--verbose] [-- args]');
  process.exit(2);
}

/** @param {string[]} argv */
function parse(argv) {
  /** @type {{ flavour?: string, testsPath?: string, devPaths: string[], workspace?: string,
   *   env: Record<string, string>, launchArgs: string[], userDataDir?: string, extensionsDir?: string,
   *   timeout?: string, keep: boolean, verbose: boolean }} */
  const o = { devPaths: [], env: {}, launchArgs: [], keep: false, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i];
    if (a === '--') {
      o.launchArgs.push(...argv.slice(i + 1));
      break;
    }
    /** @type {string | undefined} */
    let v;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0 && a !== '--env') {
      v = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    const val = () => {
      if (v !== undefined) return v;
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--flavour': o.flavour = val(); break;
      case '--extensionTestsPath': case '--tests': o.testsPath = resolve(val()); break;
      case '--extensionDevelopmentPath': o.devPaths.push(resolve(val())); break;
      case '--workspace': case '--folder': o.workspace = resolve(val()); break;
      case '--env': {
        const kv = val();
        const k = kv.indexOf('=');
        if (k <= 0) usage(`--env wants KEY=VALUE, got ${kv}`);
        o.env[kv.slice(0, k)] = kv.slice(k + 1);
        break;
      }
      case '--launch-arg': o.launchArgs.push(val()); break;
      case '--user-data-dir': o.userDataDir = resolve(val()); break;
      case '--extensions-dir': o.extensionsDir = resolve(val()); break;
      case '--timeout': o.timeout = val(); break;
      case '--keep': o.keep = true; break;
      case '--verbose': o.verbose = true; break;
      case '--help': case '-h': usage(); break;
      default: usage(`unknown argument ${a}`);
    }
  }
  return o;
}

async function main() {
  const o = parse(process.argv.slice(2));
  const flavour = o.flavour ?? process.env.VSCODE_HOST_FLAVOUR;
  if (flavour !== 'old' && flavour !== 'new') usage('--flavour old|new is required');
  if (!o.testsPath) usage('--extensionTestsPath is required');
  if (!existsSync(o.testsPath) && !existsSync(o.testsPath + '.js')) usage(`${o.testsPath} does not exist (did the tests compile?)`);
  if (o.workspace && !existsSync(o.workspace)) usage(`workspace ${o.workspace} does not exist`);
  if (o.devPaths.length === 0) o.devPaths.push(REPO_ROOT);
  if (o.timeout !== undefined && !(Number(o.timeout) > 0)) usage(`--timeout wants seconds, got ${o.timeout}`);
  try {
    requireFlavour(flavour);
  } catch (e) {
    console.error(`${TAG} ${/** @type {Error} */ (e).message}`);
    process.exit(2);
  }

  const runDir = join(HOST_DIR, 'runs', `${flavour}-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
  const userDataDir = o.userDataDir ?? join(runDir, 'user-data');
  const extensionsDir = o.extensionsDir ?? join(runDir, 'extensions');
  mkdirSync(userDataDir, { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });

  const { runTests, TestRunFailedError } = require('@vscode/test-electron');
  const wrapper = resolve(dirname(fileURLToPath(import.meta.url)), `code-${flavour}`);
  /** @type {Record<string, string>} */
  const env = { ...o.env };
  if (o.timeout) env.VSCODE_HOST_TIMEOUT = String(o.timeout);
  if (o.verbose) env.VSCODE_HOST_VERBOSE = '1';

  const launchArgs = [
    ...(o.workspace ? [o.workspace] : []),
    `--user-data-dir=${userDataDir}`,
    `--extensions-dir=${extensionsDir}`,
    ...o.launchArgs,
  ];
  const started = Date.now();
  console.log(`${TAG} VS Code ${flavour}: tests ${o.testsPath}, extension ${o.devPaths.join(', ')}${o.workspace ? `, workspace ${o.workspace}` : ''}`);
  let code;
  try {
    code = await runTests({
      vscodeExecutablePath: wrapper,
      extensionDevelopmentPath: o.devPaths.length === 1 ? o.devPaths[0] : o.devPaths,
      extensionTestsPath: o.testsPath,
      launchArgs,
      extensionTestsEnv: env,
    });
  } catch (err) {
    const e = /** @type {any} */ (err);
    code = typeof e?.code === 'number' && e.code !== 0 ? e.code : 1;
    if (!(e instanceof TestRunFailedError)) {
      console.error(`${TAG} ${e?.stack ?? e}`);
    }
  }
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (code === 0 && !o.keep && !o.userDataDir && !o.extensionsDir) rmSync(runDir, { recursive: true, force: true });
  if (code === 0) console.log(`${TAG} ${flavour}: passed in ${secs} s`);
  else console.error(`${TAG} ${flavour}: FAILED (exit code ${code}) after ${secs} s; logs kept in ${userDataDir}`);
  process.exit(code);
}

main().catch((err) => {
  console.error(`${TAG} ${err?.stack ?? err}`);
  process.exit(1);
});
