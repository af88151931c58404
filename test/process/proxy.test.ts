// The CLI through a real HTTP proxy (test/fixtures/http-proxy.mjs: the npm package `proxy`):
// HTTP_PROXY and HTTPS_PROXY are honoured, NO_PROXY bypasses them, and a proxy that is not there
// or refuses gives an error naming the proxy, never its credentials.
// proxy-from-env proxies loopback addresses too unless NO_PROXY names them (as curl does), so the
// servers here on 127.0.0.1 are reached through the proxy when HTTP_PROXY is set.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { FIXTURES_DIR, REPO_ROOT } from '../helpers/paths';
import { freePort, startServerProcess, type HttpServerProcess } from '../helpers/http';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const PROXY_FIXTURE = path.join(FIXTURES_DIR, 'http-proxy.mjs');
const SERVER_FIXTURE = path.join(FIXTURES_DIR, 'bench-http-server.mjs');

/** No proxy variable inherited from the test's environment. */
const NO_PROXY_ENV: Record<string, string> = Object.fromEntries(
  ['http_proxy', 'https_proxy', 'all_proxy', 'no_proxy'].flatMap((name) => [
    [name, ''],
    [name.toUpperCase(), ''],
  ]),
);

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...NO_PROXY_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function startProxy(...args: string[]): Promise<HttpServerProcess> {
  return startServerProcess([PROXY_FIXTURE, ...args], (line) => {
    const m = /^PROXY_LISTENING (\d+)$/.exec(line);
    return m ? Number(m[1]) : undefined;
  });
}

/** The requests the proxy was asked since `from` (an index into its output). */
function seen(proxy: HttpServerProcess, from = 0): string[] {
  return proxy.output.slice(from).filter((line) => line.startsWith('PROXY_SAW '));
}

describe('the CLI through a real HTTP proxy', () => {
  let server: HttpServerProcess;
  let proxy: HttpServerProcess;
  let refusing: HttpServerProcess;
  let mcpUrl: string;

  before(async () => {
    [server, proxy, refusing] = await Promise.all([
      startServerProcess([SERVER_FIXTURE], (line) => {
        const m = /^BENCH_HTTP_LISTENING http:\/\/127\.0\.0\.1:(\d+)\/mcp$/.exec(line);
        return m ? Number(m[1]) : undefined;
      }),
      startProxy(),
      startProxy('--refuse'),
    ]);
    mcpUrl = `http://127.0.0.1:${server.port}/mcp`;
  });

  after(async () => {
    await Promise.all([server?.stop(), proxy?.stop(), refusing?.stop()]);
  });

  test('HTTP_PROXY: every request goes through the proxy', async () => {
    const from = proxy.output.length;
    const r = await cli(['list', '--url', mcpUrl], { HTTP_PROXY: `http://127.0.0.1:${proxy.port}` });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}echo\b/m);
    const asked = seen(proxy, from);
    assert.ok(asked.includes(`PROXY_SAW POST ${mcpUrl}`), asked.join('\n'));
  });

  test('lower-case http_proxy works too', async () => {
    const from = proxy.output.length;
    const r = await cli(['list', '--url', mcpUrl], { http_proxy: `http://127.0.0.1:${proxy.port}` });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(seen(proxy, from).length > 0);
  });

  test('NO_PROXY naming the host bypasses the proxy', async () => {
    const from = proxy.output.length;
    const r = await cli(['list', '--url', mcpUrl], { HTTP_PROXY: `http://127.0.0.1:${proxy.port}`, NO_PROXY: 'localhost,127.0.0.1' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}echo\b/m);
    assert.deepEqual(seen(proxy, from), []);
  });

  test('a proxy that is not there: the error names the proxy, not its credentials', async () => {
    const port = await freePort();
    const r = await cli(['list', '--url', mcpUrl], { HTTP_PROXY: `http://someone:hunter2@127.0.0.1:${port}` });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, new RegExp(`ECONNREFUSED the proxy 127\\.0\\.0\\.1:${port}`));
    assert.doesNotMatch(r.stderr + r.stdout, /hunter2|someone/);
  });

  test('a proxy that refuses (407): the answer is reported, the credentials are not', async () => {
    const r = await cli(['list', '--url', mcpUrl], { HTTP_PROXY: `http://someone:hunter2@127.0.0.1:${refusing.port}` });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /HTTP 407/);
    assert.doesNotMatch(r.stderr + r.stdout, /hunter2|someone/);
    assert.ok(seen(refusing).length > 0);
  });

  const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
  test('HTTPS_PROXY: an https server is reached through a CONNECT tunnel', { skip: !hasOpenssl && 'needs openssl to make a certificate' }, async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-proxy-'));
    const [key, cert] = [path.join(folder, 'key.pem'), path.join(folder, 'cert.pem')];
    const made = spawnSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost', '-keyout', key, '-out', cert],
      { encoding: 'utf8' },
    );
    assert.equal(made.status, 0, made.stderr);
    // TLS in front of the fixture server: each request relayed to it as is.
    const tls = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
      const relay = http.request(`http://127.0.0.1:${server.port}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      relay.on('error', () => res.destroy());
      req.pipe(relay);
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const tlsPort = (tls.address() as AddressInfo).port;
    try {
      const from = proxy.output.length;
      // localhost, not 127.0.0.1: https-proxy-agent checks the certificate of an IP-address target
      // against "localhost" (it sets no servername for IPs and omits the host).
      const r = await cli(['list', '--url', `https://localhost:${tlsPort}/mcp`], { HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`, NODE_EXTRA_CA_CERTS: cert });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^ {2}echo\b/m);
      assert.ok(seen(proxy, from).includes(`PROXY_SAW CONNECT localhost:${tlsPort}`), seen(proxy, from).join('\n'));
    } finally {
      tls.closeAllConnections();
      await new Promise((resolve) => tls.close(resolve));
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
