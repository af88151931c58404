#!/usr/bin/env node
// Lists a VSIX and fails if it carries what must not ship (sources, tests, node_modules), or if
// its extension page would be broken: a README image that does not resolve, a manifest string
// without its package.nls.json entry, no repository or bugs address.
import { statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const vsix = process.argv[2] ?? 'mcp-host.vsix';
// python3's zipfile lists the archive (unzip is not on every machine).
const listing = execFileSync('python3', ['-c', 'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', vsix], { encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const files = listing.filter((f) => f.startsWith('extension/')).map((f) => f.slice('extension/'.length));
const forbidden = files.filter((f) => /^(src|test|out|node_modules|bench|scripts|demo|\.vscode-test-host|test-results)\//.test(f) || /\.(ts|map)$/.test(f));
const required = ['package.json', 'package.nls.json', 'dist/extension.js', 'dist/cli.js', 'dist/cli-main.js', 'dist/remote.js', 'dist/ajv.js', 'dist/inspect.js', 'dist/catalog.js', 'media/icon.png', 'media/activitybar.svg', 'README.md', 'CHANGELOG.md', 'LICENSE.txt'];
// vsce stores README.md and CHANGELOG.md in lower case.
const lower = new Set(files.map((f) => f.toLowerCase()));
const missing = required.filter((f) => !lower.has(f.toLowerCase()));
const size = statSync(vsix).size;
console.log(`${vsix}: ${(size / 1024).toFixed(1)} KiB, ${files.length} files`);
for (const f of files) console.log(`  ${f}`);
let passedChecks = 0;
let failedChecks = 0;
/** One text file of the archive. */
const read = (name) =>
  execFileSync('python3', ['-c', 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode("utf-8"))', vsix, name], { encoding: 'utf8' });
const check = (problems, what) => {
  if (problems.length) {
    console.log(`${what}: ${problems.join('; ')}`);
    failedChecks++;
  } else passedChecks++;
};
const entry = (name) => listing.find((f) => f.toLowerCase() === `extension/${name}`.toLowerCase());
const manifestText = entry('package.json') ? read(entry('package.json')) : '{}';
const manifest = JSON.parse(manifestText);
const nls = entry('package.nls.json') ? JSON.parse(read(entry('package.nls.json'))) : {};
// Every %key% of the manifest has its text.
const keys = [...manifestText.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]);
check(keys.filter((k) => typeof nls[k] !== 'string'), 'manifest strings missing from package.nls.json');
if (keys.length === 0) check(['no %key% references'], 'manifest strings not localizable');
check(
  [!manifest.repository?.url && 'repository', !manifest.bugs?.url && 'bugs', !manifest.categories?.length && 'categories'].filter(Boolean),
  'manifest fields missing',
);
// The README's images: a relative one must be in the VSIX (VS Code's extension page shows it from
// there), an absolute one must be https.
const readme = entry('readme.md') ? read(entry('readme.md')) : '';
const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)[^)]*\)|<img[^>]+src="([^"]+)"/g)].map((m) => m[1] ?? m[2]);
check(
  images.filter((src) => (/^[a-z][a-z0-9+.-]*:/i.test(src) ? !src.startsWith('https://') : !entry(src.replace(/^\.\//, '')))),
  'README images that would not resolve',
);
console.log(`README images (${images.length}): ${images.join(', ')}`);
// The integration tests' hooks replace every consent dialog: never in what ships.
const bundle = entry('dist/extension.js') ? read(entry('dist/extension.js')) : '';
check(bundle.includes('mcpHost.internal.testHooks') ? ['mcpHost.internal.testHooks'] : [], 'test-only commands in dist/extension.js');
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
