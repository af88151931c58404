import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { StdioTransport, TransportError, TransportStartError, type StdioTransportOptions } from '../../src/transport/stdio';
import type { TransportCloseInfo, TransportWarning } from '../../src/transport/transport';
import { REPO_ROOT } from '../helpers/paths';

/**
 * A tiny line-oriented test server. Flags (argv):
 *   --ignore-eof      keep running after stdin ends
 *   --ignore-sigterm  ignore SIGTERM
 *   --grandchild F    start a grandchild (same process group, ignores SIGTERM) and write its pid to F
 *   --grandchild-inherit-stderr  the grandchild keeps our stderr open
 *   --setsid-child F  start a child in its own session (detached: setsid(), ignores SIGTERM), pid to F
 *   --hold-stdin      do not read stdin until SIGUSR1
 *   --slow            read stdin slowly
 *   --close-stdin     close stdin at once but keep running
 *   --pid-file F      write our pid to F
 *   --banner          print a non-JSON line on stdout first
 * Commands (one JSON object per line): echo, env, cwd, stderr, exit, burst-exit, big, ack.
 */
const SERVER = String.raw`
import { spawn } from 'node:child_process';
import { writeFileSync, renameSync, closeSync } from 'node:fs';
const argv = process.argv.slice(2);
const flag = (f) => argv.includes(f);
const value = (f) => { const i = argv.indexOf(f); return i >= 0 ? argv[i + 1] : undefined; };
const out = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const writeAtomic = (file, text) => { writeFileSync(file + '.tmp', text); renameSync(file + '.tmp', file); };
if (flag('--ignore-sigterm')) { process.on('SIGTERM', () => {}); process.stderr.write('ignoring SIGTERM\n'); }
if (value('--pid-file')) writeAtomic(value('--pid-file'), String(process.pid));
if (value('--grandchild')) {
  const g = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); setTimeout(() => process.exit(0), 60000);"],
    { stdio: ['ignore', 'ignore', flag('--grandchild-inherit-stderr') ? 'inherit' : 'ignore'] });
  g.unref();
  writeAtomic(value('--grandchild'), String(g.pid));
}
if (value('--setsid-child')) {
  const g = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); setTimeout(() => process.exit(0), 60000);"],
    { detached: true, stdio: 'ignore' });
  g.unref();
  writeAtomic(value('--setsid-child'), String(g.pid));
}
if (flag('--banner')) process.stdout.write('Starting server v1.0 ... OK\n');
if (flag('--ignore-eof')) setInterval(() => {}, 1000);
if (flag('--close-stdin')) { closeSync(0); process.stderr.write('stdin closed\n'); setInterval(() => {}, 1000); }
else {
  let pending = [];
  let pendingBytes = 0;
  let count = 0;
  let chunks = 0;
  const onLine = (line) => {
    if (line.trim() === '') return;
    const m = JSON.parse(line);
    count++;
    switch (m.cmd) {
      case 'echo': out({ echo: m.payload }); break;
      case 'env': out({ env: process.env[m.name] ?? null }); break;
      case 'cwd': out({ cwd: process.cwd() }); break;
      case 'stderr': process.stderr.write(m.text, () => out({ ok: true })); break;
      case 'exit': process.stdout.write(JSON.stringify({ bye: true }) + '\n', () => process.exit(m.code)); break;
      case 'burst-exit': {
        // A big message and a final line without a newline, then exit at once.
        out({ big: 'z'.repeat(m.size) });
        for (let i = 0; i < 5; i++) out({ seq: i });
        // Exit as soon as the kernel has the bytes: the host reads most of them after the exit.
        process.stdout.write(JSON.stringify({ last: true }), () => process.exit(m.code ?? 0));
        break;
      }
      case 'ack': out({ ack: m.seq, len: m.data.length, count }); break;
      default: out({ unknown: m.cmd });
    }
  };
  process.stdin.on('data', (chunk) => {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) { if (start < chunk.length) { pending.push(chunk.subarray(start)); pendingBytes += chunk.length - start; } break; }
      pending.push(chunk.subarray(start, nl));
      const line = Buffer.concat(pending).toString('utf8');
      pending = []; pendingBytes = 0;
      onLine(line);
      start = nl + 1;
    }
    if (flag('--slow') && ++chunks % 8 === 0) { process.stdin.pause(); setTimeout(() => process.stdin.resume(), 1); }
  });
  if (!flag('--ignore-eof')) process.stdin.on('end', () => process.exit(0));
  if (flag('--hold-stdin')) {
    process.stdin.pause();
    const keepAlive = setInterval(() => {}, 1000); // a paused stdin does not keep us alive
    process.on('SIGUSR1', () => { clearInterval(keepAlive); process.stdin.resume(); });
  }
}
`;

let dir = '';
let serverPath = '';
const transports: StdioTransport[] = [];

function makeTransport(args: string[], extra: Partial<StdioTransportOptions> = {}) {
  const t = new StdioTransport({
    command: process.execPath,
    args: [serverPath, ...args],
    shutdown: { closeStdinGraceMs: 200, sigtermGraceMs: 200 },
    ...extra,
  });
  transports.push(t);
  const messages: unknown[] = [];
  const logs: string[] = [];
  const warnings: TransportWarning[] = [];
  const closes: TransportCloseInfo[] = [];
  const events: string[] = [];
  t.onMessage((m) => {
    messages.push(m);
    events.push('message');
  });
  t.onLog((l) => logs.push(l));
  t.onWarning((w) => warnings.push(w));
  const closed = new Promise<TransportCloseInfo>((resolve) =>
    t.onClose((info) => {
      closes.push(info);
      events.push('close');
      resolve(info);
    }),
  );
  return { t, messages, logs, warnings, closes, events, closed };
}

async function waitFor<T>(fn: () => T | undefined | false, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Whether a process runs. A zombie (dead, not yet reaped by init) counts as dead. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true; // no /proc: trust kill(pid, 0)
  }
}

async function readPid(file: string): Promise<number> {
  return waitFor(() => (fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : undefined), `pid in ${file}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A started transport whose server does not read its stdin until SIGUSR1 is sent to `pid`. */
async function startHeld(tag: string) {
  const pidFile = path.join(dir, `${tag}-${Date.now()}.pid`);
  const made = makeTransport(['--hold-stdin', '--pid-file', pidFile]);
  await made.t.start();
  return { ...made, pid: await readPid(pidFile) };
}

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-stdio-'));
  serverPath = path.join(dir, 'server.mjs');
  fs.writeFileSync(serverPath, SERVER);
});

after(async () => {
  await Promise.all(transports.map((t) => t.close().then(() => t.close())));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('StdioTransport: messages, environment, stderr', { timeout: 20000 }, () => {
  test('round-trips messages (multibyte too) and reports non-JSON stdout as a warning', async () => {
    const { t, messages, warnings } = makeTransport(['--banner']);
    await t.start();
    assert.equal(t.isClosed, false);
    assert.ok(typeof t.pid === 'number');
    await t.send({ cmd: 'echo', payload: { text: 'hi 😀 世界', n: [1, 2] } });
    await t.send({ cmd: 'echo', payload: 'second' });
    await waitFor(() => messages.length >= 2, 'echoes');
    assert.deepEqual(messages, [{ echo: { text: 'hi 😀 世界', n: [1, 2] } }, { echo: 'second' }]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].excerpt ?? '', /Starting server v1\.0/);
    await t.close();
  });

  test('env: variables are added, null removes an inherited one, the rest is inherited', async () => {
    process.env.MCP_HOST_TEST_REMOVE_ME = 'present';
    process.env.MCP_HOST_TEST_INHERITED = 'inherited';
    try {
      const { t, messages } = makeTransport([], { env: { MCP_HOST_TEST_ADDED: 'added value', MCP_HOST_TEST_REMOVE_ME: null, MCP_HOST_TEST_UNDEF: undefined } });
      await t.start();
      for (const name of ['MCP_HOST_TEST_ADDED', 'MCP_HOST_TEST_REMOVE_ME', 'MCP_HOST_TEST_INHERITED', 'MCP_HOST_TEST_UNDEF']) {
        await t.send({ cmd: 'env', name });
      }
      await waitFor(() => messages.length >= 4, 'env answers');
      assert.deepEqual(messages, [{ env: 'added value' }, { env: null }, { env: 'inherited' }, { env: null }]);
      await t.close();
    } finally {
      delete process.env.MCP_HOST_TEST_REMOVE_ME;
      delete process.env.MCP_HOST_TEST_INHERITED;
    }
  });

  test('cwd is honoured', async () => {
    const sub = fs.mkdtempSync(path.join(dir, 'cwd-'));
    const { t, messages } = makeTransport([], { cwd: sub });
    await t.start();
    await t.send({ cmd: 'cwd' });
    await waitFor(() => messages.length >= 1, 'cwd answer');
    assert.deepEqual(messages, [{ cwd: fs.realpathSync(sub) }]);
    await t.close();
  });

  test('stderr becomes log lines; the close info has the exit code and the stderr tail', async () => {
    const { t, logs, closed, messages } = makeTransport([], { stderrTailLines: 3 });
    await t.start();
    await t.send({ cmd: 'stderr', text: 'one\ntwo 😀\r\nthree\n\nfour\nfi' });
    await t.send({ cmd: 'stderr', text: 've\nsix\n' });
    await waitFor(() => messages.length >= 2, 'stderr acks');
    await t.send({ cmd: 'exit', code: 3 });
    const info = await closed;
    assert.deepEqual(logs, ['one', 'two 😀', 'three', '', 'four', 'five', 'six']);
    assert.equal(info.exitCode, 3);
    assert.equal(info.signal, null);
    assert.equal(info.expected, false);
    assert.equal(info.reason, 'exited with code 3');
    assert.deepEqual(info.stderrTail, ['four', 'five', 'six']);
    assert.equal(t.isClosed, true);
    await assert.rejects(t.send({ cmd: 'echo' }), (err: TransportError) => err.code === 'ECLOSED');
  });

  test('all of stdout (a big message, a final line without newline) is delivered before onClose', async () => {
    const { t, messages, events, closed, warnings } = makeTransport([]);
    await t.start();
    await t.send({ cmd: 'burst-exit', size: 3 * 1024 * 1024, code: 0 });
    const info = await closed;
    assert.equal(info.exitCode, 0);
    assert.equal(info.expected, false);
    assert.equal(warnings.length, 0);
    assert.equal(messages.length, 7);
    assert.equal((messages[0] as { big: string }).big.length, 3 * 1024 * 1024);
    assert.deepEqual(messages.slice(1), [{ seq: 0 }, { seq: 1 }, { seq: 2 }, { seq: 3 }, { seq: 4 }, { last: true }]);
    assert.deepEqual(events.slice(-2), ['message', 'close']);
  });

  test('an oversize message is refused with one warning and later messages still arrive', async () => {
    const { t, messages, warnings } = makeTransport([], { maxMessageBytes: 1000, maxMessageBytesHint: 'raise mcpHost.maxMessageBytes' });
    await t.start();
    await t.send({ cmd: 'echo', payload: 'x'.repeat(5000) });
    await t.send({ cmd: 'echo', payload: 'small' });
    await waitFor(() => messages.length >= 1, 'small echo');
    assert.deepEqual(messages, [{ echo: 'small' }]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].message, /limit of 1000 bytes/);
    assert.match(warnings[0].message, /mcpHost\.maxMessageBytes/);
    await t.close();
  });
});

describe('StdioTransport: start errors', { timeout: 10000 }, () => {
  test('ENOENT: command not found, with the PATH searched', async () => {
    const t = new StdioTransport({ command: 'mcp-host-no-such-command-xyz', env: { PATH: '/nonexistent/bin:/usr/bin' } });
    const closes: TransportCloseInfo[] = [];
    t.onClose((i) => closes.push(i));
    await assert.rejects(t.start(), (err: TransportStartError) => {
      assert.ok(err instanceof TransportStartError);
      assert.equal(err.code, 'ENOENT');
      assert.equal(err.command, 'mcp-host-no-such-command-xyz');
      assert.equal(err.message, 'command not found: mcp-host-no-such-command-xyz (searched PATH: /nonexistent/bin:/usr/bin)');
      return true;
    });
    assert.equal(t.isClosed, true);
    await t.close(); // resolves at once
    await assert.rejects(t.send({}), TransportError);
    assert.equal(closes.length, 0, 'a failed start reports through start(), not onClose');
  });

  test('ENOENT: a missing path, a missing cwd, a missing interpreter', async () => {
    const missing = new StdioTransport({ command: './nope-server.sh', cwd: dir, label: 'my-server' });
    await assert.rejects(missing.start(), (err: TransportStartError) => {
      assert.equal(err.code, 'ENOENT');
      assert.equal(err.label, 'my-server');
      assert.match(err.message, /^my-server: command not found: \.\/nope-server\.sh \(no such file: .*nope-server\.sh\)$/);
      return true;
    });

    const badCwd = new StdioTransport({ command: process.execPath, args: ['-e', ''], cwd: path.join(dir, 'does-not-exist') });
    await assert.rejects(badCwd.start(), (err: TransportStartError) => {
      assert.equal(err.code, 'ENOENT');
      assert.match(err.message, /working directory does not exist: .*does-not-exist/);
      return true;
    });

    const script = path.join(dir, 'bad-shebang.sh');
    fs.writeFileSync(script, '#!/nonexistent/interpreter\n', { mode: 0o755 });
    const badInterp = new StdioTransport({ command: script });
    await assert.rejects(badInterp.start(), (err: TransportStartError) => {
      assert.equal(err.code, 'ENOENT');
      assert.match(err.message, /interpreter was not found/);
      return true;
    });
  });

  test('EACCES: a file that is not executable', async () => {
    const file = path.join(dir, 'not-executable.sh');
    fs.writeFileSync(file, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    const t = new StdioTransport({ command: file });
    await assert.rejects(t.start(), (err: TransportStartError) => {
      assert.ok(err instanceof TransportStartError);
      assert.equal(err.code, 'EACCES');
      assert.match(err.message, /permission denied/);
      assert.match(err.message, /not-executable\.sh/);
      return true;
    });
  });

  test('send before start rejects; close before start resolves and start then rejects', async () => {
    const t = new StdioTransport({ command: process.execPath, args: [serverPath] });
    await assert.rejects(t.send({}), (err: TransportError) => err.code === 'ENOTSTARTED');
    await t.close();
    await assert.rejects(t.start(), (err: TransportStartError) => err.code === 'ECLOSED');
  });
});

describe('StdioTransport: shutdown', { timeout: 20000 }, () => {
  test('a well-behaved server exits on stdin EOF: expected, code 0, fast', async () => {
    const { t, closes, closed } = makeTransport([], { shutdown: { closeStdinGraceMs: 5000, sigtermGraceMs: 5000 } });
    await t.start();
    const t0 = Date.now();
    await t.close();
    const elapsed = Date.now() - t0;
    const info = await closed;
    assert.ok(elapsed < 2000, `close took ${elapsed} ms`);
    assert.equal(info.expected, true);
    assert.equal(info.exitCode, 0);
    assert.equal(info.signal, null);
    assert.equal(info.reason, 'exited with code 0');
    await t.close(); // after exit: immediate
    await sleep(50);
    assert.equal(closes.length, 1, 'onClose fires exactly once');
  });

  test('close() while starting: start() rejects, the process is stopped, onClose does not fire', async () => {
    const { t, closes } = makeTransport(['--ignore-eof']);
    const starting = t.start();
    assert.equal(t.start(), starting, 'start() is idempotent');
    const pid = t.pid;
    assert.ok(typeof pid === 'number');
    const closing = t.close();
    await assert.rejects(starting, (err: TransportStartError) => err.code === 'ECLOSED');
    await closing;
    assert.equal(isAlive(pid), false);
    await sleep(20);
    assert.equal(closes.length, 0);
  });

  test('a server that ignores stdin EOF gets SIGTERM', async () => {
    const { t, closed } = makeTransport(['--ignore-eof']);
    await t.start();
    const t0 = Date.now();
    await t.close();
    const elapsed = Date.now() - t0;
    const info = await closed;
    assert.equal(info.signal, 'SIGTERM');
    assert.equal(info.exitCode, null);
    assert.equal(info.expected, true);
    assert.match(info.reason, /^killed by SIGTERM \(it did not exit within 200 ms of its input closing/);
    assert.ok(elapsed >= 190 && elapsed < 1500, `close took ${elapsed} ms`);
  });

  test('a server that ignores SIGTERM gets SIGKILL', async () => {
    const { t, closed, logs } = makeTransport(['--ignore-eof', '--ignore-sigterm']);
    await t.start();
    await waitFor(() => logs.some((l) => l.includes('ignoring SIGTERM')), 'the server to install its SIGTERM handler', 10_000);
    const t0 = Date.now();
    await t.close();
    const elapsed = Date.now() - t0;
    const info = await closed;
    assert.equal(info.signal, 'SIGKILL');
    assert.equal(info.expected, true);
    assert.match(info.reason, /^killed by SIGKILL \(it did not exit within 200 ms of SIGTERM/);
    assert.ok(elapsed >= 390 && elapsed < 2000, `close took ${elapsed} ms`);
  });

  test('a second close() forces an immediate SIGKILL', async () => {
    const { t, closed } = makeTransport(['--ignore-eof', '--ignore-sigterm'], { shutdown: { closeStdinGraceMs: 10000, sigtermGraceMs: 10000 } });
    await t.start();
    const t0 = Date.now();
    const first = t.close();
    assert.equal(t.isClosed, true);
    await assert.rejects(t.send({ cmd: 'echo' }), (err: TransportError) => err.code === 'ECLOSED');
    await sleep(50);
    const second = t.close();
    await Promise.all([first, second]);
    const elapsed = Date.now() - t0;
    const info = await closed;
    assert.ok(elapsed < 1500, `took ${elapsed} ms`);
    assert.equal(info.signal, 'SIGKILL');
    assert.equal(info.expected, true);
    assert.match(info.reason, /forced close/);
  });

  test('close() kills the grandchild (process group)', async () => {
    const pidFile = path.join(dir, `grandchild-${Date.now()}.pid`);
    const { t, closed } = makeTransport(['--grandchild', pidFile]);
    await t.start();
    const gpid = await readPid(pidFile);
    assert.ok(isAlive(gpid));
    await t.close();
    const info = await closed;
    assert.equal(info.exitCode, 0);
    await waitFor(() => !isAlive(gpid), `grandchild ${gpid} to die`, 2000);
  });

  test('close() kills a child that left the process group (setsid) and ignores SIGTERM (Linux: found in /proc)', { skip: process.platform !== 'linux' }, async () => {
    for (const serverArgs of [[], ['--ignore-eof']]) {
      const pidFile = path.join(dir, `setsid-${Date.now()}.pid`);
      const { t, closed } = makeTransport(['--setsid-child', pidFile, ...serverArgs], { shutdown: { closeStdinGraceMs: 200, sigtermGraceMs: 300 } });
      await t.start();
      const cpid = await readPid(pidFile);
      assert.ok(isAlive(cpid));
      await t.close();
      await closed;
      await waitFor(() => !isAlive(cpid), `setsid child ${cpid} (server ${serverArgs.join(' ') || 'exits on EOF'}) to die`, 2000);
    }
  });

  test('the grandchild does not survive a server that exits by itself, even holding stderr open', async () => {
    const pidFile = path.join(dir, `grandchild-inherit-${Date.now()}.pid`);
    const { t, closed } = makeTransport(['--grandchild', pidFile, '--grandchild-inherit-stderr']);
    await t.start();
    const gpid = await readPid(pidFile);
    assert.ok(isAlive(gpid));
    const t0 = Date.now();
    await t.send({ cmd: 'exit', code: 5 });
    const info = await closed;
    assert.ok(Date.now() - t0 < 1500, 'onClose did not wait for the stderr pipe held by the grandchild');
    assert.equal(info.exitCode, 5);
    assert.equal(info.expected, false);
    await waitFor(() => !isAlive(gpid), `grandchild ${gpid} to die`, 2000);
  });

  test('servers still running when the host process exits are killed', async () => {
    const pidFile = path.join(dir, `orphan-${Date.now()}.pid`);
    const stdioModule = path.join(REPO_ROOT, 'out', 'src', 'transport', 'stdio.js');
    const hostCode = `
      const { StdioTransport } = require(${JSON.stringify(stdioModule)});
      const t = new StdioTransport({ command: process.execPath, args: [${JSON.stringify(serverPath)}, '--ignore-eof', '--ignore-sigterm', '--pid-file', ${JSON.stringify(pidFile)}] });
      t.start().then(() => {
        const wait = setInterval(() => {
          if (require('fs').existsSync(${JSON.stringify(pidFile)})) { clearInterval(wait); process.exit(0); }
        }, 10);
      });
    `;
    const host = spawn(process.execPath, ['-e', hostCode], { stdio: 'inherit' });
    const code = await new Promise<number | null>((resolve) => host.on('exit', (c) => resolve(c)));
    assert.equal(code, 0);
    const pid = await readPid(pidFile);
    await waitFor(() => !isAlive(pid), `server ${pid} to die with its host`, 2000);
  });
});

describe('StdioTransport: sending', { timeout: 30000 }, () => {
  test('send() respects back-pressure: it resolves only once the server reads', async () => {
    const { t, messages, pid } = await startHeld('hold');
    const data = 'd'.repeat(1024 * 1024);
    const resolved: number[] = [];
    const sends = Array.from({ length: 8 }, (_, seq) => t.send({ cmd: 'ack', seq, data }).then(() => resolved.push(seq)));
    await sleep(300);
    assert.equal(resolved.length, 0, `${resolved.length} sends resolved while the server was not reading`);
    process.kill(pid, 'SIGUSR1');
    await Promise.all(sends);
    assert.deepEqual(resolved, [0, 1, 2, 3, 4, 5, 6, 7]);
    await waitFor(() => messages.length >= 8, 'acks');
    assert.deepEqual(messages.map((m) => (m as { ack: number }).ack), [0, 1, 2, 3, 4, 5, 6, 7]);
    await t.close();
  });

  test('one write per tick: sends of a tick share its promise, a later tick gets its own, even while the pipe is full', async () => {
    // Transport.send's rule, which JsonRpcConnection relies on to time a request from its own write.
    const { t, messages, pid } = await startHeld('tick');
    const data = 'd'.repeat(1024 * 1024);
    const first = [t.send({ cmd: 'ack', seq: 0, data }), t.send({ cmd: 'ack', seq: 1, data })];
    assert.equal(first[0], first[1], 'the sends of one tick share one write');
    await sleep(100);
    let settled = false;
    void first[0].then(() => (settled = true));
    await sleep(0);
    assert.equal(settled, false, 'the pipe is full: the first write is still pending');
    const later = t.send({ cmd: 'ack', seq: 2, data: 'x' });
    assert.notEqual(later, first[0], 'a later tick does not join a write still waiting for the pipe');
    process.kill(pid, 'SIGUSR1');
    await Promise.all([...first, later]);
    await waitFor(() => messages.length >= 3, 'acks');
    assert.deepEqual(messages.map((m) => (m as { ack: number }).ack), [0, 1, 2]);
    await t.close();
  });

  test('a message sent alone is written at once, never before what was sent earlier, and still waits for a full pipe', async () => {
    const { t, messages, pid } = await startHeld('alone');
    const stdin = (t as unknown as { child: { stdin: { writableLength: number } } }).child.stdin;
    // Nothing queued: written within send() (the pipe took it), not at the end of the tick.
    const first = t.send({ cmd: 'ack', seq: 0, data: 'a' }, { alone: true });
    assert.equal((t as unknown as { openBatch?: unknown }).openBatch, undefined, 'no batch opened for it');
    let firstDone = false;
    void first.then(() => (firstDone = true));
    await Promise.resolve();
    assert.equal(firstDone, true, 'settled at once: the pipe took it within write()');
    // Behind a batch of this tick it waits its turn; behind a full pipe it waits for the server.
    const data = 'd'.repeat(1024 * 1024);
    const big = [t.send({ cmd: 'ack', seq: 1, data }), t.send({ cmd: 'ack', seq: 2, data })];
    const behindBatch = t.send({ cmd: 'ack', seq: 3, data: 'b' }, { alone: true });
    assert.equal(behindBatch, big[0], 'joins the batch of its tick');
    await sleep(100);
    assert.ok(stdin.writableLength > 0, 'the pipe is full');
    let lateDone = false;
    const late = t.send({ cmd: 'ack', seq: 4, data: 'c' }, { alone: true }).then(() => (lateDone = true));
    await sleep(100);
    assert.equal(lateDone, false, 'not settled while the pipe is full');
    process.kill(pid, 'SIGUSR1');
    await Promise.all([first, ...big, behindBatch, late]);
    await waitFor(() => messages.length >= 5, 'acks');
    assert.deepEqual(messages.map((m) => (m as { ack: number }).ack), [0, 1, 2, 3, 4]);
    await t.close();
  });

  test('a message sent alone that the pipe takes only in part settles when the server has read it', async () => {
    const { t, messages, pid } = await startHeld('alone-big');
    let settled = false;
    const big = t.send({ cmd: 'ack', seq: 0, data: 'd'.repeat(1024 * 1024) }, { alone: true }).then(() => (settled = true));
    assert.equal((t as unknown as { openBatch?: unknown }).openBatch, undefined, 'written alone, no batch');
    await sleep(200);
    assert.equal(settled, false, 'not settled while the server has not read it');
    process.kill(pid, 'SIGUSR1');
    await big;
    await waitFor(() => messages.length >= 1, 'the ack');
    assert.equal((messages[0] as { len: number }).len, 1024 * 1024);
    await t.close();
  });

  test('200 x 1 MB messages to a slow reader all arrive, in order', async () => {
    const { t, messages } = makeTransport(['--slow']);
    await t.start();
    const base = 'm'.repeat(1024 * 1024 - 64);
    const resolved: number[] = [];
    const sends: Promise<void>[] = [];
    for (let seq = 0; seq < 200; seq++) {
      sends.push(t.send({ cmd: 'ack', seq, data: `${seq}:${base}` }).then(() => void resolved.push(seq)));
    }
    await Promise.all(sends);
    assert.deepEqual(resolved, Array.from({ length: 200 }, (_, i) => i));
    await waitFor(() => messages.length >= 200, 'all acks', 20000);
    assert.deepEqual(
      messages.map((m) => (m as { ack: number }).ack),
      Array.from({ length: 200 }, (_, i) => i),
    );
    for (const [i, m] of messages.entries()) {
      const ack = m as { len: number; count: number };
      assert.equal(ack.len, `${i}:`.length + base.length);
      assert.equal(ack.count, i + 1);
    }
    await t.close();
  });

  test('a server that closes its stdin: send rejects (EPIPE), no unhandled error, close still works', async () => {
    const { t, closed, logs } = makeTransport(['--close-stdin']);
    await t.start();
    // Not a fixed wait: a loaded machine took longer than 100 ms to start the server.
    await waitFor(() => logs.some((l) => l.includes('stdin closed')), 'the server to close its stdin', 10_000);
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => t.send({ cmd: 'ack', seq: 0, data: 'x'.repeat(256 * 1024) })));
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.ok(rejected.length >= 1, 'writes to a closed pipe fail');
    assert.ok(rejected.every((r) => r.reason instanceof TransportError));
    assert.match(String((rejected[0].reason as Error).message), /closed its input|exited|closed/);
    await t.close();
    const info = await closed;
    assert.equal(info.expected, true);
  });

  test('small sends, one per tick, to a server that closed its stdin: every one rejects (none resolves, none hangs)', async () => {
    // Each fits the pipe and is written without a callback: a failed one must still reject.
    const { t, logs } = makeTransport(['--close-stdin']);
    await t.start();
    // Not a fixed wait: a loaded machine took longer than 100 ms to start the server.
    await waitFor(() => logs.some((l) => l.includes('stdin closed')), 'the server to close its stdin', 10_000);
    const results: PromiseSettledResult<void>[] = [];
    for (let seq = 0; seq < 3; seq++) {
      results.push(...(await Promise.allSettled([t.send({ cmd: 'ack', seq, data: 'x' })])));
    }
    // Written alone (at once, see send()), too.
    for (let seq = 3; seq < 5; seq++) {
      results.push(...(await Promise.allSettled([t.send({ cmd: 'ack', seq, data: 'x' }, { alone: true })])));
    }
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
    assert.ok(results.every((r) => r.status === 'rejected' && r.reason instanceof TransportError));
    await t.close();
  });

  test('one send only partly taken by the pipe: it rejects when the server dies without reading it', async () => {
    const { t, closed, pid } = await startHeld('hold-die');
    let settled = '';
    const send = t.send({ cmd: 'ack', seq: 0, data: 'p'.repeat(4 * 1024 * 1024) }).then(
      () => (settled = 'resolved'),
      (err: unknown) => (settled = err instanceof TransportError ? 'rejected' : `rejected: ${String(err)}`),
    );
    await sleep(200);
    assert.equal(settled, '', 'settled while the server was not reading');
    process.kill(pid, 'SIGKILL');
    await send;
    assert.equal(settled, 'rejected');
    await closed;
  });

  test('a server that dies while messages are queued: pending sends reject, onClose fires once', async () => {
    const { t, closed, closes } = makeTransport([]);
    await t.start();
    const exitSend = t.send({ cmd: 'exit', code: 7 });
    const data = 'q'.repeat(1024 * 1024);
    const rest = Array.from({ length: 20 }, (_, seq) => t.send({ cmd: 'ack', seq, data }));
    const results = await Promise.allSettled([exitSend, ...rest]);
    const info = await closed;
    assert.equal(info.exitCode, 7);
    assert.equal(info.expected, false);
    assert.ok(results.slice(1).some((r) => r.status === 'rejected'), 'some sends after the exit were rejected');
    await sleep(50);
    assert.equal(closes.length, 1);
  });
});
