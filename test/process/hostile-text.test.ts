// The hostile catalogue, text part (#18): what a server controls cannot stall the event loop,
// crash the CLI, or reach the terminal raw. Real processes: good-server.mjs (its `log` tool sends
// notifications/message with any data) and hostile/deep-result.mjs (a 150,000-deep result, escapes).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ServerConnection, serverId } from '../../src/host/serverConnection';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';
import { testEnvironment } from '../helpers/host';
import { REPO_ROOT, fixture } from '../helpers/paths';
import { stallProbe } from '../helpers/stall';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const DEEP = fixture('hostile/deep-result.mjs');
const JUNK = fixture('hostile/stdout-junk.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-hostile-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const source: ConfigSource = { file: path.join(dir, 'mcp.json'), kind: 'workspace', workspaceFolder: dir };
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function cli(args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000, cwd: dir });
}

describe('hostile text from a server', () => {
  test('a 1 MB dotted log line: the event loop never stalls 100 ms while the connection takes it', async () => {
    const logs: string[] = [];
    const def: ServerDefinition = { type: 'stdio', name: 'noisy', command: process.execPath, args: [fixture('good-server.mjs')], env: {}, source };
    const server = new ServerConnection(def, serverId(def), def.name, source, testEnvironment(logs));
    try {
      await server.start();
      const line = '.a'.repeat(512 * 1024);
      const longestStall = async (): Promise<number> => {
        const probe = stallProbe();
        await server.callTool('log', { level: 'error', data: line });
        await server.callTool('log', { level: 'error', data: `x${line}` });
        // The log notifications arrive beside the answers: let them be logged.
        await new Promise((resolve) => setTimeout(resolve, 300));
        return probe.stop();
      };
      // The machine is shared: a stall over the bound is measured again, up to twice. A stall the
      // host causes (the quadratic redaction held it 29 s) shows every time.
      const stalls = [await longestStall()];
      while (stalls[stalls.length - 1] >= 100 && stalls.length < 3) stalls.push(await longestStall());
      assert.ok(stalls[stalls.length - 1] < 100, `the event loop stalled ${stalls.map((ms) => ms.toFixed(0)).join(', ')} ms`);
      const logged = logs.filter((l) => l.includes('.a.a.a'));
      assert.ok(logged.length >= 1, 'the log message was not logged');
      for (const l of logged) assert.ok(l.length < 20_000, `a log line of ${l.length} characters was kept whole`);
    } finally {
      server.dispose();
    }
  });

  // Lines that fail JSON.parse (an exception each), text, and valid notifications: Node reads a
  // busy pipe up to 32 chunks in one turn, which held the loop 1.5–2.2 s and 90–230 ms.
  const floods = [
    { junk: '{x}', lines: 200_000 },
    { junk: 'x', lines: 200_000 },
    { junk: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }), lines: 100_000 },
  ];
  for (const { junk, lines } of floods) {
    test(`${lines} lines of ${JSON.stringify(junk)} on stdout: the event loop never stalls 100 ms, the log gets a few "not JSON" warnings a second`, async () => {
      const logs: string[] = [];
      const def: ServerDefinition = { type: 'stdio', name: 'junk', command: process.execPath, args: [JUNK], env: { JUNK: junk }, source };
      const server = new ServerConnection(def, serverId(def), def.name, source, testEnvironment(logs, { requestTimeoutMs: () => 60_000 }));
      try {
        await server.start();
        const longestStall = async (): Promise<number> => {
          const probe = stallProbe();
          const started = Date.now();
          const result = await server.callTool('junk', { lines });
          assert.match(JSON.stringify(result), /junk written/);
          const stall = await probe.stop();
          // A line a second at most past the first ten, and the count of the rest.
          const warned = logs.splice(0).filter((l) => /not JSON/.test(l));
          assert.ok(warned.length <= 12 + 12 * Math.ceil((Date.now() - started) / 1000), `${warned.length} warnings`);
          return stall;
        };
        // As above: a stall over the bound is measured again, up to twice.
        const stalls = [await longestStall()];
        while (stalls[stalls.length - 1] >= 100 && stalls.length < 3) stalls.push(await longestStall());
        assert.ok(stalls[stalls.length - 1] < 100, `the event loop stalled ${stalls.map((ms) => ms.toFixed(0)).join(', ')} ms`);
        assert.match(JSON.stringify(await server.callTool('echo', { text: 'still here' })), /still here/);
      } finally {
        server.dispose();
      }
    });
  }

  test('a 150,000-deep result: refused with a clear error, no crash, the trace written', () => {
    const trace = path.join(dir, 'deep.jsonl');
    const run = cli(['call', 'deep', '--trace', trace, '--', process.execPath, DEEP]);
    assert.notEqual(run.status, null, 'the CLI was killed');
    assert.ok(run.status !== 0);
    assert.match(run.stderr, /nests more than \d+ levels deep; it was refused/);
    assert.doesNotMatch(run.stderr, /RangeError|at .*\.js:\d+/, run.stderr);
    const lines = fs.readFileSync(trace, 'utf8').trim().split('\n');
    for (const line of lines) JSON.parse(line);
    assert.ok(lines.length >= 4, `only ${lines.length} trace lines`);
  });

  test('a message nested within the limit still works', () => {
    const run = spawnSync(process.execPath, [CLI, 'call', 'deep', '--json', '--', process.execPath, DEEP], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, DEPTH: '100' } });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /"a":/);
  });

  test('terminal escapes in tool text, names and descriptions never reach the output raw', () => {
    for (const args of [['call', 'escapes'], ['list'], ['call', 'escapes', '--json'], ['list', '--json']]) {
      const run = cli([...args, '--', process.execPath, DEEP]);
      assert.equal(run.status, 0, `${args.join(' ')}: ${run.stderr}`);
      assert.doesNotMatch(run.stdout, RAW_CONTROL, `${args.join(' ')} printed a control character`);
      assert.doesNotMatch(run.stderr, RAW_CONTROL);
    }
    const text = cli(['call', 'escapes', '--', process.execPath, DEEP]).stdout;
    assert.match(text, /before.*after/);
    assert.ok(!text.includes('\u001b') && !text.includes('\u0007'));
  });
});
