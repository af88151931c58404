// `mcp-host call` on server-everything's task tool: waits for the task, prints the result, shows
// the task's status on stderr; Ctrl-C cancels the task (tasks/cancel) and exits 130.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { REPO_ROOT } from '../helpers/paths';
import { EVERYTHING } from '../helpers/servers';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const node = process.execPath;
const CALL = ['call', 'simulate-research-query', '--args', '{"topic":"tide pools"}', '--', node, ...EVERYTHING];

describe('mcp-host call on a task tool', () => {
  test('waits for the task and prints its result; status lines go to stderr', () => {
    const r = spawnSync(node, [CLI, ...CALL], { encoding: 'utf8', cwd: REPO_ROOT, timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /# Research Report: tide pools/);
    assert.doesNotMatch(r.stdout, /mcp-host: task/, 'stdout holds the result alone');
    assert.match(r.stderr, /^mcp-host: task \S+ working: Gathering sources\.\.\.$/m);
    assert.match(r.stderr, /^mcp-host: task \S+ working: Generating report\.\.\.$/m);
    assert.match(r.stderr, /^mcp-host: task \S+ completed/m);
  });

  test('--json prints the CallToolResult of the task', () => {
    const r = spawnSync(node, [CLI, ...CALL.slice(0, 4), '--json', ...CALL.slice(4)], { encoding: 'utf8', cwd: REPO_ROOT, timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.match(result.content[0].text, /Research Report/);
  });

  test('Ctrl-C cancels the task with tasks/cancel and exits 130', async () => {
    const child = spawn(node, [CLI, ...CALL], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no status line in time: ${stderr}`)), 20_000);
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (/working: Analyzing content/.test(stderr)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    child.kill('SIGINT');
    const code = await exited;
    assert.equal(code, 130, stderr);
    assert.match(stderr, /interrupted; cancelling the task/);
    assert.match(stderr, /^mcp-host: task \S+ cancelled/m);
    assert.doesNotMatch(stdout, /Research Report/);
  });
});
