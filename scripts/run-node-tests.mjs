// Runs every compiled *.test.js under the given folders with Node's test runner.
// Node 20 has no glob support in `node --test`, so the files are listed here.
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const dirs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const extra = process.argv.slice(2).filter((a) => a.startsWith('--'));
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.js')) files.push(p);
  }
}
for (const d of dirs) {
  if (!existsSync(d)) {
    console.error(`run-node-tests: ${d} does not exist (did the tests compile?)`);
    process.exit(2);
  }
  walk(d);
}
if (files.length === 0) {
  console.error(`run-node-tests: no *.test.js under ${dirs.join(', ')}`);
  process.exit(2);
}
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...extra, ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
