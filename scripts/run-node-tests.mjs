// Runs every compiled *.test.js under the given folders with Node's test runner.
// Node 20 has no glob support in `node --test`, so the files are listed here.
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

const dirs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
// --mostly-waiting: files that spend their time waiting on the processes and servers they start.
const mostlyWaiting = process.argv.includes('--mostly-waiting');
const extra = process.argv.slice(2).filter((a) => a.startsWith('--') && a !== '--mostly-waiting');
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
// Files run two at a time at least: node:test's default (one fewer than the CPUs) is one file at
// a time on a 2-CPU machine. Files that mostly wait on the processes and servers they start run
// one more than the CPUs (the process layer on 2 CPUs: 345 s one at a time, 212 two at a time,
// 173-183 three at a time). Every file makes its own temporary folders, listens on ports of its
// own (port 0) and counts or stops only the processes it started.
// (--test-concurrency: Node 20.10 and later.)
const [major, minor] = process.versions.node.split('.').map(Number);
const known = major > 20 || (major === 20 && minor >= 10);
const filesAtOnce = mostlyWaiting ? availableParallelism() + 1 : Math.max(2, availableParallelism() - 1);
const concurrency = !known || extra.some((a) => a.startsWith('--test-concurrency')) ? [] : [`--test-concurrency=${filesAtOnce}`];
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...concurrency, ...extra, ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
