import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../helpers/paths';
import { freePort, startEverythingHttp, type HttpServerProcess } from '../helpers/http';
import { scriptedBrowser, startAuthorizationServer, startResourceServer } from '../helpers/oauth-servers';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI without blocking this process (the test's own HTTP servers must keep answering). */
function cli(args: string[], env: NodeJS.ProcessEnv = {}, onStderr?: (text: string, child: ChildProcess) => void): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      onStderr?.(stderr, child);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('mcp-host CLI with remote servers', () => {
  let streamable: HttpServerProcess;
  let sse: HttpServerProcess;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-cli-remote-'));

  before(async () => {
    [streamable, sse] = await Promise.all([startEverythingHttp('streamableHttp'), startEverythingHttp('sse')]);
  });

  after(async () => {
    await Promise.all([streamable?.stop(), sse?.stop()]);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('list --url reaches a Streamable HTTP server', async () => {
    const r = await cli(['list', '--url', `http://127.0.0.1:${streamable.port}/mcp`]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /protocol 2025-11-25/);
    assert.match(r.stdout, /^ {2}echo "Echo Tool" - /m);
  });

  test('call and read --url', async () => {
    const call = await cli(['call', 'echo', '--args', '{"message":"over the wire"}', '--url', `http://127.0.0.1:${streamable.port}/mcp`]);
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /Echo: over the wire/);
    const read = await cli(['read', 'demo://resource/static/document/architecture.md', '--url', `http://127.0.0.1:${streamable.port}/mcp`]);
    assert.equal(read.code, 0, read.stderr);
    assert.ok(read.stdout.length > 100);
  });

  test('--transport sse speaks the 2024-11-05 HTTP+SSE transport; http falls back to it by itself', async () => {
    const forced = await cli(['list', '--transport', 'sse', '--url', `http://127.0.0.1:${sse.port}/sse`]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /^ {2}echo "Echo Tool" - /m);
    const fallback = await cli(['list', '--verbose', '--url', `http://127.0.0.1:${sse.port}/sse`]);
    assert.equal(fallback.code, 0, fallback.stderr);
    assert.match(fallback.stdout, /^ {2}echo "Echo Tool" - /m);
    assert.match(fallback.stderr, /HTTP\+SSE|legacy/i, 'the fallback is said with --verbose');
  });

  test('a config entry with url, and headers with ${env:} variables', async () => {
    const file = path.join(tmp, 'mcp.json');
    fs.writeFileSync(file, JSON.stringify({ servers: { remote: { type: 'http', url: `http://127.0.0.1:${streamable.port}/mcp`, headers: { 'X-Team': '${env:TEAM}' } } } }));
    const r = await cli(['call', 'echo', '--args', '{"message":"from config"}', '--config', file, '--server', 'remote'], { TEAM: 'blue' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Echo: from config/);
  });

  test('usage errors for remote options are one clear line', async () => {
    const bad = await cli(['list', '--url', 'ftp://x']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--url takes an http:\/\/ or https:\/\/ URL/);
    const both = await cli(['list', '--url', 'http://127.0.0.1:1/mcp', '--', 'node', 'x.js']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give one server/);
    const header = await cli(['list', '--header', 'no colon', '--url', 'http://127.0.0.1:1/mcp']);
    assert.equal(header.code, 2);
    assert.match(header.stderr, /--header takes "Name: value"/);
  });

  test('an unreachable server: exit 3 with the address and the reason', async () => {
    const port = await freePort();
    const r = await cli(['list', '--url', `http://127.0.0.1:${port}/mcp`]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, new RegExp(`127\\.0\\.0\\.1:${port}`));
    assert.match(r.stderr, /ECONNREFUSED|refused/i);
  });

  test('OAuth: without a terminal the CLI says to sign in; with one it prints the URL, waits for the browser, and keeps the token in an owner-only file', async () => {
    const as = await startAuthorizationServer();
    const rs = await startResourceServer({ issuer: as.issuer, prm: 'header' });
    const tokenFile = path.join(tmp, 'tokens', 'oauth.json');
    try {
      const refused = await cli(['list', '--url', rs.url], { MCP_HOST_TOKEN_FILE: tokenFile });
      assert.equal(refused.code, 3, refused.stderr);
      assert.match(refused.stderr, /sign in/i);
      assert.ok(!fs.existsSync(tokenFile), 'nothing stored without a sign-in');

      const browser = scriptedBrowser();
      let opened: Promise<void> | undefined;
      const signedIn = await cli(['list', '--url', rs.url], { MCP_HOST_TOKEN_FILE: tokenFile, MCP_HOST_SIGN_IN: '1' }, (stderr) => {
        const match = /^ {2}(http:\/\/\S+)$/m.exec(stderr);
        if (match && !opened) opened = browser.openBrowser(new URL(match[1]));
      });
      await opened;
      assert.equal(signedIn.code, 0, signedIn.stderr);
      assert.match(signedIn.stdout, /^Tools \(/m);
      assert.match(signedIn.stderr, /open this address in a browser/);
      const mode = fs.statSync(tokenFile).mode & 0o777;
      assert.equal(mode, 0o600, 'the token file is owner-only');

      // The stored token is used the next time, with no sign-in.
      const again = await cli(['list', '--url', rs.url], { MCP_HOST_TOKEN_FILE: tokenFile });
      assert.equal(again.code, 0, again.stderr);
      const tokens = rs.authorizations.filter((h): h is string => !!h).map((h) => h.replace(/^Bearer /, ''));
      assert.ok(tokens.length > 0);
      for (const run of [refused, signedIn, again]) {
        for (const token of tokens) assert.ok(!run.stderr.includes(token) && !run.stdout.includes(token), 'no token printed');
      }
    } finally {
      await rs.stop();
      await as.stop();
    }
  });
});
