#!/usr/bin/env node
// The Python environment of the test servers written with the MCP Python SDK and fastmcp
// (test/fixtures/python/): a git-ignored venv, .venv-mcp/, with PINNED versions.
//
//   node scripts/python-env.mjs                 # create or check it; prints what it did
//   node scripts/python-env.mjs --print-python  # the same, then the venv's python path alone on stdout's last line
//
// Idempotent: a marker in the venv records the pins; when it matches, nothing is installed
// (a few milliseconds). Run by npm test (a setup layer before `process`) and by the Python
// process tests when they run alone. Packages come from pip's configured indexes (here, the
// machine's local mirror); pip is told not to retry an unreachable index, which otherwise
// costs minutes per run. On Debian, a python3 without venv/ensurepip gets python3-venv from apt.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const VENV = join(ROOT, '.venv-mcp');
/** The versions the fixtures are written against; change them here only. */
export const PINS = { mcp: '2.3.0', fastmcp: '4.0.10' };
const MARKER = join(VENV, 'mcp-host-pins.json');
const LOCK = `${VENV}.lock`;
const LOCK_STALE_MS = 15 * 60_000;
const MIN_PYTHON = [3, 10];

const venvPython = () => join(VENV, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
const log = (/** @type {string} */ line) => console.error(`[python-env] ${line}`);

/** Runs a command; its output is kept (and shown when it fails). */
function run(/** @type {string} */ cmd, /** @type {string[]} */ args, timeoutMs = 10 * 60_000) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`, error: r.error };
}

function markerMatches() {
  if (!existsSync(MARKER) || !existsSync(venvPython())) return false;
  try {
    return JSON.stringify(JSON.parse(readFileSync(MARKER, 'utf8')).pins) === JSON.stringify(PINS);
  } catch {
    return false;
  }
}

/** A python3 of at least MIN_PYTHON, or a clear error. */
function findPython() {
  for (const candidate of [process.env.MCP_HOST_PYTHON, 'python3', 'python'].filter(Boolean)) {
    const r = run(/** @type {string} */ (candidate), ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], 30_000);
    if (!r.ok) continue;
    const [major, minor] = r.output.trim().split('.').map(Number);
    if (major > MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor >= MIN_PYTHON[1])) return /** @type {string} */ (candidate);
  }
  throw new Error(`no python3 ${MIN_PYTHON.join('.')} or newer on PATH (set MCP_HOST_PYTHON to one); the MCP Python SDK needs it`);
}

/** Debian splits venv/ensurepip into python3-venv; install it where we may. */
function ensureVenvModule(/** @type {string} */ python) {
  if (run(python, ['-c', 'import venv, ensurepip'], 30_000).ok) return;
  const apt = run('sh', ['-c', 'command -v apt-get'], 10_000).ok;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!apt || !root) {
    throw new Error(`${python} has no venv/ensurepip module; install it (on Debian/Ubuntu: apt-get install python3-venv)`);
  }
  log('python3 has no venv module: apt-get install python3-venv');
  run('apt-get', ['update', '-qq'], 5 * 60_000);
  const r = run('apt-get', ['install', '-y', '-qq', 'python3-venv'], 10 * 60_000);
  if (!r.ok || !run(python, ['-c', 'import venv, ensurepip'], 30_000).ok) {
    throw new Error(`could not install python3-venv with apt-get:\n${r.output.slice(-2000)}`);
  }
}

function pipInstall() {
  const specs = Object.entries(PINS).map(([name, version]) => `${name}==${version}`);
  // --retries 0: an index this machine cannot reach fails at once instead of after minutes of backoff.
  const args = ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--retries', '0', ...specs];
  let r = run(venvPython(), args);
  if (!r.ok) {
    log('pip install failed; trying once more');
    r = run(venvPython(), args);
  }
  if (!r.ok) {
    const tail = r.output.split('\n').filter((l) => !/is ignored: it is neither a file nor a directory/.test(l)).slice(-25).join('\n');
    throw new Error(`pip could not install ${specs.join(' ')} into ${VENV}. Is a package index (or a local mirror) configured for pip?\n${tail}`);
  }
}

function create() {
  const python = findPython();
  ensureVenvModule(python);
  rmSync(VENV, { recursive: true, force: true });
  log(`creating ${VENV} with ${python}`);
  const made = run(python, ['-m', 'venv', VENV], 5 * 60_000);
  if (!made.ok) throw new Error(`${python} -m venv ${VENV} failed:\n${made.output.slice(-2000)}`);
  const started = Date.now();
  log(`pip install ${Object.entries(PINS).map(([n, v]) => `${n}==${v}`).join(' ')}`);
  pipInstall();
  const check = run(venvPython(), ['-c', 'import mcp, fastmcp; print(fastmcp.__version__)'], 60_000);
  if (!check.ok) throw new Error(`the venv was installed but mcp/fastmcp do not import:\n${check.output.slice(-2000)}`);
  writeFileSync(MARKER, `${JSON.stringify({ pins: PINS, python: python, created: new Date().toISOString() }, null, 2)}\n`);
  log(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** One creator at a time (npm test's layer and a test run alone may overlap): a lock directory. */
async function withLock(/** @type {() => void} */ work) {
  const deadline = Date.now() + LOCK_STALE_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (markerMatches()) return;
      const age = (() => {
        try {
          return Date.now() - statSync(LOCK).mtimeMs;
        } catch {
          return 0;
        }
      })();
      if (age > LOCK_STALE_MS || Date.now() > deadline) rmSync(LOCK, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    if (!markerMatches()) work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Makes sure the venv is there with the pinned versions; returns its python. */
export async function ensurePythonEnv() {
  if (!markerMatches()) await withLock(create);
  return venvPython();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  try {
    const python = await ensurePythonEnv();
    log(`ready: ${python} (mcp ${PINS.mcp}, fastmcp ${PINS.fastmcp}) in ${Date.now() - started} ms`);
    if (process.argv.includes('--print-python')) console.log(python);
  } catch (err) {
    log(`FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
