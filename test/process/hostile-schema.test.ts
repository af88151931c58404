// The hostile catalogue, schema part (#18): a server's schema patterns run on RE2 in the CLI, so
// `^(a|a)*$` against 'a' x 40 + 'b' ends at once (a backtracking engine needs hours), and the
// mismatch is reported. Real processes: dist/cli.js and hostile/redos-schema.mjs.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { REPO_ROOT, fixture } from '../helpers/paths';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const SERVER = fixture('hostile/redos-schema.mjs');

function call(tool: string, ...flags: string[]) {
  const started = performance.now();
  // The timeout only ends a hung run: a backtracking engine would need hours here.
  const run = spawnSync(process.execPath, [CLI, 'call', tool, ...flags, '--', process.execPath, SERVER], { encoding: 'utf8', timeout: 60_000 });
  return { ...run, ms: performance.now() - started };
}

describe('hostile schema patterns through mcp-host call', () => {
  test('an outputSchema pattern of ^(a|a)*$: checked at once, the mismatch named with path and keyword', () => {
    const run = call('redos');
    assert.equal(run.signal, null, 'the CLI was killed (hung)');
    assert.equal(run.status, 0, run.stderr);
    assert.ok(run.ms < 20_000, `took ${run.ms.toFixed(0)} ms`);
    assert.match(run.stderr, /the structuredContent of tool "redos" does not match its outputSchema:\n {2}\/s \(s\) must match pattern "\^\(a\|a\)\*\$" \[pattern\]/);
  });

  test('--json carries the verdict as outputSchemaCheck', () => {
    const run = call('redos', '--json');
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout) as { structuredContent: unknown; outputSchemaCheck: { status: string; issues: Array<{ path: string; keyword: string }> } };
    assert.equal(out.outputSchemaCheck.status, 'invalid');
    assert.deepEqual(out.outputSchemaCheck.issues.map((i) => [i.path, i.keyword]), [['/s', 'pattern']]);
    assert.match(run.stderr, /does not match its outputSchema/);
  });

  test('a matching result says nothing on stderr; a pattern RE2 cannot run is reported as not checked', () => {
    const ok = call('ok', '--json');
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stderr, '');
    assert.equal((JSON.parse(ok.stdout) as { outputSchemaCheck: { status: string } }).outputSchemaCheck.status, 'valid');
    const backref = call('backref');
    assert.equal(backref.status, 0, backref.stderr);
    assert.match(backref.stderr, /outputSchema of tool "backref": the pattern .* of s \(\/properties\/s\/pattern\) was not checked: RE2 has no backreferences/);
  });
});
