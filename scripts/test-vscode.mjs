#!/usr/bin/env node
// The in-VS-Code layers of `npm test`:
//   1. integration tests inside VS Code 1.100.3 (Node 20) and 1.139.1 (Node 24), through
//      @vscode/test-electron's runTests with the offline stand-in (scripts/vscode-host);
//   2. the packaged VSIX installed with --install-extension, activated and checked, as a
//      marketplace user gets it;
//   3. browser end-to-end tests (Playwright + Chromium) that use the workbench as a person would.
// Prints "N passed, N failed" at the end.
//   node scripts/test-vscode.mjs [--flavour old|new] [--only integration|vsix|e2e]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, installVsix, HOST_DIR } from './vscode-host/host.mjs';
import { startPortProxy } from './vscode-host/port-proxy.mjs';

const args = process.argv.slice(2);
const flavourArg = args.includes('--flavour') ? args[args.indexOf('--flavour') + 1] : undefined;
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const flavours = flavourArg ? [flavourArg] : ['old', 'new'];
const WORKSPACE = join(REPO_ROOT, 'test', 'integration', 'workspace');
const TESTS = join(REPO_ROOT, 'out', 'test', 'integration', 'index.js');

let passed = 0;
let failed = 0;
const skippedNames = [];
const failures = [];
/** "title: first line of the error" of each failed test, printed again at the end. */
const failingTests = [];

function run(name, cmd, cmdArgs, env = {}) {
  return new Promise((resolve) => {
    console.log(`\n--- ${name}`);
    const started = Date.now();
    const child = spawn(cmd, cmdArgs, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let lastCounts;
    let skippedLine;
    let pendingLine = '';
    const readLine = (line) => {
      const counts = [...line.matchAll(/(\d+) passed, (\d+) failed/g)].pop();
      if (counts) lastCounts = counts;
      const skipped = /^Skipped: (.+)$/.exec(line);
      if (skipped) skippedLine = skipped[1];
      const failing = /^(?:Failing: |  ✖ )(.+)$/.exec(line);
      if (failing) failingTests.push(`${failing[1].slice(0, 400)} (${name})`);
    };
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      // Whole lines only: a line may come in two chunks.
      const lines = (pendingLine + chunk.toString()).split('\n');
      pendingLine = lines.pop() ?? '';
      lines.forEach(readLine);
    });
    child.on('close', (code) => {
      readLine(pendingLine);
      if (skippedLine) skippedNames.push(...skippedLine.split('; ').map((t) => `${t} (${name})`));
      if (lastCounts) {
        passed += Number(lastCounts[1]);
        failed += Number(lastCounts[2]);
      } else if (code !== 0) {
        failed += 1;
      }
      if (code !== 0) failures.push(name);
      console.log(`--- ${name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
      resolve(code);
    });
  });
}

mkdirSync(join(REPO_ROOT, 'test-results'), { recursive: true });
rmSync(join(REPO_ROOT, 'test-results', 'activation.json'), { force: true });

// The integration runs load the development build from dist/ (they use its test hooks); a VSIX
// packaged before left the production build there.
if ((!only || only === 'integration') && (await run('build', 'node', ['esbuild.mjs'])) !== 0) process.exit(1);

if (!only || only === 'integration') {
  // VS Code as it runs in a browser behind code-server: loopback addresses are reached through
  // its /proxy/PORT/ (asExternalUri), e.g. by the OAuth redirect of a sign-in.
  const proxy = await startPortProxy();
  for (const flavour of flavours) {
    await run(`integration (${flavour})`, process.execPath, [
      'scripts/vscode-host/run-integration.mjs',
      '--flavour', flavour,
      '--extensionTestsPath', TESTS,
      '--extensionDevelopmentPath', REPO_ROOT,
      '--workspace', WORKSPACE,
      '--env', `VSCODE_PROXY_URI=${proxy.template}`,
    ]);
    // A multi-root workspace: roots/list and notifications/roots/list_changed as folders change.
    await run(`multi-root workspace (${flavour})`, process.execPath, [
      'scripts/vscode-host/run-integration.mjs',
      '--flavour', flavour,
      '--extensionTestsPath', TESTS,
      '--extensionDevelopmentPath', REPO_ROOT,
      '--workspace', join(REPO_ROOT, 'test', 'fixtures', 'roots.code-workspace'),
      '--env', 'MCP_HOST_TEST_FILES=requests-roots',
    ]);
    // Restricted Mode: the same workspace, not trusted.
    await run(`untrusted workspace (${flavour})`, process.execPath, [
      'scripts/vscode-host/run-integration.mjs',
      '--flavour', flavour,
      '--extensionTestsPath', TESTS,
      '--extensionDevelopmentPath', REPO_ROOT,
      '--workspace', WORKSPACE,
      '--env', 'VSCODE_HOST_WORKSPACE_TRUST=on',
      '--env', 'MCP_HOST_TEST_FILES=untrusted',
    ]);
  }
  await proxy.close();
}

if (!only || only === 'vsix') {
  // Package exactly as a release would be, then install it into a fresh extensions folder.
  const pkg = await run('package the VSIX', 'npm', ['run', '--silent', 'package']);
  const vsix = join(REPO_ROOT, 'mcp-host.vsix');
  if (pkg === 0 && existsSync(vsix)) {
    await run('VSIX contents', process.execPath, ['scripts/check-vsix.mjs', vsix]);
    for (const flavour of flavours) {
      const extensionsDir = join(HOST_DIR, 'runs', `vsix-${flavour}-${Date.now()}`);
      mkdirSync(extensionsDir, { recursive: true });
      try {
        await installVsix(flavour, vsix, extensionsDir);
        await run(`installed VSIX (${flavour})`, process.execPath, [
          'scripts/vscode-host/run-integration.mjs',
          '--flavour', flavour,
          '--extensionTestsPath', TESTS,
          '--extensionDevelopmentPath', join(REPO_ROOT, 'test', 'vsix-host'),
          '--extensions-dir', extensionsDir,
          '--workspace', WORKSPACE,
          '--env', 'MCP_HOST_TEST_FILES=installed',
          '--env', `MCP_HOST_EXPECT_EXTENSIONS_DIR=${extensionsDir}`,
        ]);
      } catch (err) {
        console.log(`installing the VSIX into ${flavour} failed: ${err}`);
        failures.push(`install VSIX (${flavour})`);
        failed += 1;
      }
    }
  }
}

/**
 * Browser scenarios, in two workbenches (test/e2e/shared-workbench.mjs; a VS Code launch costs
 * about 11 s, the demo servers' start about 8 more), cleared between scenarios: those that run
 * with the demo's settings as they are, then those that bring settings of their own (a user-level
 * server, a registry, AI features) and put back what they write into the demo workspace. A file in
 * neither list gets a VS Code of its own.
 */
const WORKBENCHES = [
  ['tree.e2e.mjs', 'resource.e2e.mjs', 'run-tool.e2e.mjs', 'apps.e2e.mjs'],
  ['insight.e2e.mjs', 'registry.e2e.mjs', 'share.e2e.mjs'],
];

if (!only || only === 'e2e') {
  const e2eDir = join(REPO_ROOT, 'test', 'e2e');
  const files = existsSync(e2eDir) ? readdirSync(e2eDir).filter((f) => f.endsWith('.e2e.mjs')).sort() : [];
  const groups = WORKBENCHES.map((group) => group.filter((f) => files.includes(f))).filter((group) => group.length > 0);
  const alone = files.filter((f) => !groups.flat().includes(f));
  for (const flavour of flavours) {
    for (const group of groups) {
      await run(`e2e ${group.join(', ')} (${flavour})`, process.execPath, [join(e2eDir, 'shared-workbench.mjs'), '--flavour', flavour, ...group]);
    }
    for (const file of alone) {
      await run(`e2e ${file} (${flavour})`, process.execPath, [join(e2eDir, file), '--flavour', flavour]);
    }
  }
}

console.log('');
for (const f of failingTests) console.log(`Failed test: ${f}`);
if (failures.length) console.log(`Failed: ${failures.join(', ')}`);
if (skippedNames.length) console.log(`Skipped: ${skippedNames.join('; ')}`);
console.log(`${passed} passed, ${failed} failed, ${skippedNames.length} skipped`);
process.exit(failures.length ? 1 : 0);
