#!/usr/bin/env node
// Lists a VSIX and fails if it carries what must not ship (sources, tests, node_modules).
import { statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const vsix = process.argv[2] ?? 'mcp-host.vsix';
// python3's zipfile lists the archive (unzip is not on every machine).
const listing = execFileSync('python3', ['-c', 'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', vsix], { encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const files = listing.filter((f) => f.startsWith('extension/')).map((f) => f.slice('extension/'.length));
const forbidden = files.filter((f) => /^(src|test|out|node_modules|bench|scripts|demo|\.vscode-test-host|test-results)\//.test(f) || /\.(ts|map)$/.test(f));
const required = ['package.json', 'dist/extension.js', 'dist/cli.js', 'dist/remote.js', 'media/icon.png', 'media/activitybar.svg', 'README.md', 'CHANGELOG.md', 'LICENSE.txt'];
// vsce stores README.md and CHANGELOG.md in lower case.
const lower = new Set(files.map((f) => f.toLowerCase()));
const missing = required.filter((f) => !lower.has(f.toLowerCase()));
const size = statSync(vsix).size;
console.log(`${vsix}: ${(size / 1024).toFixed(1)} KiB, ${files.length} files`);
for (const f of files) console.log(`  ${f}`);
let passedChecks = 0;
let failedChecks = 0;
if (forbidden.length) {
  console.log(`forbidden files in the VSIX: ${forbidden.join(', ')}`);
  failedChecks++;
} else passedChecks++;
if (missing.length) {
  console.log(`missing from the VSIX: ${missing.join(', ')}`);
  failedChecks++;
} else passedChecks++;
console.log(`${passedChecks} passed, ${failedChecks} failed`);
process.exit(failedChecks ? 1 : 0);
