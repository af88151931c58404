#!/usr/bin/env node
// Proves the harness end to end: the smoke extension's integration tests on both VS Code flavours
// (through @vscode/test-electron's runTests and the code-old / code-new stand-ins), then the
// Playwright end-to-end smoke on both. Exits non-zero if any part fails.
//
//   node scripts/vscode-host/smoke.mjs      (npm run vscode-host:smoke)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './host.mjs';

const here = join(REPO_ROOT, 'scripts', 'vscode-host');
const smoke = join(REPO_ROOT, 'test', 'vscode-host-smoke');
const steps = [
  ...['old', 'new'].map((flavour) => ({
    name: `integration (${flavour})`,
    args: [
      join(here, 'run-integration.mjs'), '--flavour', flavour,
      '--extensionDevelopmentPath', smoke,
      '--extensionTestsPath', join(smoke, 'test', 'index.js'),
      '--workspace', join(smoke, 'workspace'),
      '--env', 'VSCODE_HOST_SMOKE_MARKER=passed-through',
    ],
  })),
  { name: 'end-to-end (old, new)', args: [join(here, 'e2e-smoke.mjs')] },
];
const results = [];
for (const s of steps) {
  const t = Date.now();
  console.log(`\n=== ${s.name}`);
  const r = spawnSync(process.execPath, s.args, { stdio: ['ignore', 'inherit', 'inherit'], cwd: REPO_ROOT });
  results.push({ name: s.name, code: r.status ?? 1, secs: ((Date.now() - t) / 1000).toFixed(1) });
}
console.log('');
for (const r of results) console.log(`${r.code === 0 ? 'ok  ' : 'FAIL'} ${r.name} (${r.secs} s${r.code === 0 ? '' : `, exit ${r.code}`})`);
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
