// The one test command (`npm test`): every layer that exists, in order, with one
// summary line at the end. Layers: typecheck, unit, process, the official MCP conformance
// suite, in-VS-Code integration (oldest and newest VS Code), browser end-to-end.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const layers = [
  { name: 'typecheck', cmd: ['npx', 'tsc', '-p', '.', '--noEmit'] },
  { name: 'typecheck webviews', cmd: ['npx', 'tsc', '-p', 'tsconfig.webview.json', '--noEmit'] },
  // Type-aware lint: no floating or misused promises, the floors' imports (eslint.config.mjs).
  { name: 'lint', cmd: ['npx', 'eslint', '--max-warnings', '0', '.'] },
  // No import cycle in src/ (madge exits 1 and names each one).
  { name: 'import cycles', cmd: ['npx', 'madge', '--circular', '--extensions', 'ts', 'src'] },
  { name: 'build', cmd: ['node', 'esbuild.mjs'] },
  { name: 'compile tests', cmd: ['npx', 'tsc', '-p', 'tsconfig.test.json'] },
  { name: 'unit', cmd: ['node', 'scripts/run-node-tests.mjs', 'out/test/unit'], counts: true },
  // The official conformance suite against the CLI needs only the build (and Node 22, which it
  // installs from npm): it runs while the installs below are still under way, instead of after them.
  { name: 'conformance', cmd: ['node', 'scripts/conformance.mjs'], counts: true },
  // The suite's 0.2.0 alpha: what the 2026-07-28 revision requires of a client (about 50 s).
  { name: 'conformance 2026-07-28', cmd: ['node', 'scripts/conformance.mjs', '--spec-version', '2026-07-28'], counts: true },
  // The installs (`background`): mostly downloads and native builds, which run beside the layers
  // above from the start, and the process layer waits for them (on a fresh clone they take about
  // 4½ minutes, the layers above about 4).
  // Idempotent: the pinned Python SDK and fastmcp for the Python fixture servers (.venv-mcp/);
  // a failure is reported but the later layers still run (only the Python tests need it: the
  // process layer's and the vscode layer's modern.test.ts, which fails saying the venv is missing).
  { name: 'python env', cmd: ['node', 'scripts/python-env.mjs'], for: ['process', 'vscode'], soft: true, background: true },
  // Idempotent: installs the two test VS Codes (and Chromium from apt) on a fresh machine, else only
  // checks they are there, so `npm ci && npm test` needs nothing beside the clone. Before the
  // process layer: its MCP Apps tests render a view in the Chromium this installs.
  ...(existsSync('scripts/test-vscode.mjs') ? [{ name: 'install test VS Code', cmd: ['node', 'scripts/vscode-host/install.mjs'], for: ['process', 'vscode'], background: true }] : []),
  { name: 'process', cmd: ['node', 'scripts/run-node-tests.mjs', '--mostly-waiting', 'out/test/process'], counts: true, afterInstalls: true },
];
if (existsSync('scripts/test-vscode.mjs')) {
  layers.push({ name: 'vscode', cmd: ['node', 'scripts/test-vscode.mjs'], counts: true, afterInstalls: true });
}

const only = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
const skippedNames = [];
const failures = [];
/** Failed tests by name (each layer's own marks), repeated at the end where CI's tail shows them. */
const failingTests = new Set();

/**
 * The failed test a line of a layer's output names, if any: the VS Code runner names its failures
 * once at its end, the conformance runner marks a failed scenario with ✗ (unless its baseline
 * expects it), node:test with ✖ (a todo that fails does not fail the run).
 */
function failedTestIn(layerName, line) {
  if (layerName === 'vscode') return /^Failed test: (.+)$/.exec(line)?.[1];
  if (layerName.startsWith('conformance')) return line.includes('expected (') ? undefined : /^\s*✗ (.+)$/.exec(line)?.[1];
  if (/# TODO\s*$/.test(line)) return undefined;
  return /^\s*✖ (?!failing tests:)(.+?)(?: \([\d.]+m?s\))?$/.exec(line)?.[1];
}

/**
 * Runs one layer. `write`: where its output goes (a background layer's is kept, and shown whole
 * when a layer waits for it, so that it does not interleave with the output of the others).
 */
function run(layer, write = (text) => process.stdout.write(text)) {
  return new Promise((resolve) => {
    const started = Date.now();
    write(`\n=== ${layer.name}: ${layer.cmd.join(' ')}\n`);
    const child = spawn(layer.cmd[0], layer.cmd.slice(1), { stdio: ['ignore', 'pipe', layer.background ? 'pipe' : 'inherit'] });
    child.stderr?.on('data', (chunk) => write(chunk));
    let tail = '';
    let pendingLine = '';
    child.stdout.on('data', (chunk) => {
      write(chunk);
      tail = (tail + chunk.toString()).slice(-4000);
      // Skipped tests are named: node:test's spec reporter marks them "# SKIP" (or with ﹣); the
      // VS Code runner prints a "Skipped: a; b" line.
      const lines = (pendingLine + chunk.toString()).split('\n');
      pendingLine = lines.pop() ?? '';
      for (const line of lines) {
        const skip = /^\s*﹣ (.+?)(?: \([\d.]+m?s\))? # (?:SKIP)?(.*)$/.exec(line);
        if (skip && layer.counts) skippedNames.push(`${skip[1]}${skip[2] ? ` (${skip[2].trim()})` : ''} [${layer.name}]`);
        const failing = layer.counts ? failedTestIn(layer.name, line) : undefined;
        if (failing) failingTests.add(`${failing.slice(0, 400)} [${layer.name}]`);
        const listed = /^Skipped: (.+)$/.exec(line);
        if (listed && layer.counts && layer.name !== 'unit' && layer.name !== 'process') skippedNames.push(...listed[1].split('; ').map((t) => `${t} [${layer.name}]`));
      }
    });
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (layer.counts) {
        // node:test prints "ℹ pass N" / "ℹ fail N"; the VS Code runner prints "N passed, N failed".
        const p = [...tail.matchAll(/(?:ℹ pass (\d+)|(\d+) passed)/g)].pop();
        const f = [...tail.matchAll(/(?:ℹ fail (\d+)|(\d+) failed)/g)].pop();
        const s = [...tail.matchAll(/(?:ℹ skipped (\d+)|(\d+) skipped)/g)].pop();
        passed += Number(p?.[1] ?? p?.[2] ?? 0);
        failed += Number(f?.[1] ?? f?.[2] ?? 0);
        skipped += Number(s?.[1] ?? s?.[2] ?? 0);
      }
      if (code !== 0) failures.push(`${layer.name} (exit ${code})`);
      write(`=== ${layer.name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${seconds}s${layer.background ? ' (in the background)' : ''}\n`);
      resolve(code);
    });
  });
}

function selected(layer) {
  if (only.length > 0 && !only.includes(layer.name) && layer.counts) return false;
  if (only.length > 0 && layer.for && ![layer.for].flat().some((f) => only.includes(f))) return false;
  return true;
}

/** Whether a layer that failed stops the run: no point testing what does not build or install. */
const stopsTheRun = (layer, code) => code !== 0 && !layer.counts && !layer.soft;

/**
 * The background layers, one after the other (both may need apt-get, which does not wait for its
 * lists lock), started now; the function returned waits for them, shows what they said (kept as
 * it came, bytes, so a character split between two chunks stays whole), and tells whether the run
 * may go on.
 */
function startInstalls() {
  const output = [];
  const write = (chunk) => output.push(chunk);
  const done = (async () => {
    for (const layer of layers.filter((l) => l.background && selected(l))) {
      if (stopsTheRun(layer, await run(layer, write))) return false;
    }
    return true;
  })();
  return async () => {
    const ok = await done;
    for (const chunk of output) process.stdout.write(chunk);
    return ok;
  };
}

const installs = startInstalls();
let installed;
for (const layer of layers) {
  if (layer.background || !selected(layer)) continue;
  if (layer.afterInstalls && installed === undefined && !(installed = await installs())) break;
  if (stopsTheRun(layer, await run(layer))) break;
}
// A run stopped early still lets the installs finish (and shows what they said).
if (installed === undefined) await installs();
console.log('');
for (const f of failingTests) console.log(`Failed test: ${f}`);
if (failures.length > 0) console.log(`Failed layers: ${failures.join(', ')}`);
if (failures.length > 0 && failed === 0) failed = failures.length;
if (skippedNames.length > 0) console.log(`Skipped: ${skippedNames.join('; ')}`);
else if (skipped > 0) console.log(`Skipped: ${skipped} test(s); see the layers' output above`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failures.length > 0 ? 1 : 0);
