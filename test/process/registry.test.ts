// The MCP registry end to end, in real processes: the fixture registry (test/fixtures/registry,
// the official API shape over server.json documents from the registry's documentation) over real
// HTTP; the registry client; the built CLI's search, add and list --registry; the added
// server-everything really starting and listing its tools.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT, FIXTURES_DIR } from '../helpers/paths';
import { freePort, startServerProcess, type HttpServerProcess } from '../helpers/http';
import { waitFor } from '../helpers/servers';
import { RegistryClient, RegistryError } from '../../src/host/catalog/client';
import { parseConfigText } from '../../src/host/config';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const REGISTRY_SCRIPT = path.join(FIXTURES_DIR, 'registry', 'registry.mjs');

function startRegistry(...args: string[]): Promise<HttpServerProcess> {
  return startServerProcess([REGISTRY_SCRIPT, ...args], (line) => {
    const match = /^registry listening on http:\/\/127\.0\.0\.1:(\d+)$/.exec(line.trim());
    return match ? Number(match[1]) : undefined;
  });
}

/** Runs the built CLI without a terminal (non-interactive), asynchronously so the registry keeps answering. */
function cli(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: { ...process.env, MCP_HOST_REGISTRY: '', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A registry in this process that answers every request with `handle`; closed by the returned function. */
async function localRegistry(handle: http.RequestListener): Promise<{ base: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-registry-'));
}

describe('registry client against the fixture registry', () => {
  let registry: HttpServerProcess;
  before(async () => {
    registry = await startRegistry('--page-size', '5');
  });
  after(() => registry.stop());

  test('search pages with the opaque cursor until the end; every item once; the malformed one kept with its reason', async () => {
    const client = new RegistryClient(registry.base);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.search('', { cursor, limit: 5 });
      pages++;
      assert.ok(page.entries.length <= 5);
      for (const e of page.entries) seen.push(e.kind === 'server' ? e.server.name : `malformed:${e.name}`);
      cursor = page.nextCursor;
    } while (cursor && pages < 10);
    assert.equal(pages, 3);
    assert.equal(seen.length, 14, 'the latest version of each of the 14 servers (the old everything version is not latest)');
    assert.equal(new Set(seen).size, 14);
    assert.ok(seen.includes('malformed:io.github.example/broken-server'));
  });

  test('search by name; versions newest first; one version; latest', async () => {
    const client = new RegistryClient(registry.base);
    const found = await client.search('brave');
    assert.deepEqual(found.entries.map((e) => e.kind === 'server' && e.server.name), ['io.modelcontextprotocol.anonymous/brave-search']);
    const versions = await client.versions('io.modelcontextprotocol/everything');
    assert.deepEqual(versions.map((e) => e.kind === 'server' && e.server.version), ['2026.8.31', '2025.9.25']);
    const old = await client.get('io.modelcontextprotocol/everything', '2025.9.25');
    assert.equal(old.kind === 'server' && old.meta.isLatest, false);
    const latest = await client.get('io.modelcontextprotocol/everything');
    assert.equal(latest.kind === 'server' && latest.server.version, '2026.8.31');
    await assert.rejects(client.get('io.example/none'), (err: unknown) => err instanceof RegistryError && err.status === 404);
  });

  test('answers are cached for the session: the same search twice asks the registry once', async () => {
    const client = new RegistryClient(registry.base);
    const before = registry.output.filter((l) => l.includes('search=cache-probe&')).length;
    await client.search('cache-probe');
    await client.search('cache-probe');
    // The fixture's log lines travel through its stdout pipe, which may lag the HTTP answers: a
    // later request's line arriving means the lines before it have.
    await client.search('cache-probe-end');
    await waitFor(() => registry.output.some((l) => l.includes('search=cache-probe-end')), 5000, 'the fixture to log the last search');
    assert.equal(registry.output.filter((l) => l.includes('search=cache-probe&')).length - before, 1);
  });
});

describe('registries that differ from the official one', () => {
  test('an older registry (/v0 only): the client falls back to /v0', async () => {
    const old = await startRegistry('--v0-only');
    try {
      const page = await new RegistryClient(old.base).search('weather');
      assert.equal(page.entries.length, 1);
      // The fixture's log line travels through its stdout pipe, which may lag the HTTP answer.
      await waitFor(() => old.output.some((l) => l.startsWith('GET /v0/servers?')), 5000, 'the fixture to log GET /v0/servers');
    } finally {
      await old.stop();
    }
  });

  test('a private registry: 401 without its header (the error says so), the list with it', async () => {
    const priv = await startRegistry('--require-header', 'X-Registry-Key=k-123');
    try {
      await assert.rejects(new RegistryClient(priv.base).search(''), /HTTP 401.*mcpHost\.registries/);
      const page = await new RegistryClient(priv.base, { headers: { 'X-Registry-Key': 'k-123' } }).search('');
      assert.ok(page.entries.length > 0);
    } finally {
      await priv.stop();
    }
  });

  test('a redirect to another origin is not followed', async () => {
    const elsewhere = await startRegistry();
    const redirecting = await startRegistry('--redirect-to', elsewhere.base);
    try {
      await assert.rejects(new RegistryClient(redirecting.base).search(''), /redirected to another origin/);
      assert.ok(!elsewhere.output.some((l) => l.startsWith('GET')), 'the other origin was never asked');
    } finally {
      await Promise.all([redirecting.stop(), elsewhere.stop()]);
    }
  });

  test('an endless answer is cut at the byte limit, not read to the end', async () => {
    const huge = await startRegistry('--huge');
    try {
      await assert.rejects(new RegistryClient(huge.base, { maxBytes: 256 * 1024 }).search(''), /larger than 256 KiB/);
    } finally {
      await huge.stop();
    }
  });

  test('a page far longer than the limit asked for is refused, named and counted, before its items are read', async () => {
    const body = JSON.stringify({ servers: new Array(5000).fill({}) });
    const registry = await localRegistry((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    try {
      await assert.rejects(
        new RegistryClient(registry.base).search('', { limit: 50 }),
        (err: unknown) => err instanceof RegistryError && err.message === `Registry ${registry.base}: the answer lists 5000 servers, more than the 100 accepted in one answer; not read`,
      );
    } finally {
      await registry.close();
    }
  });

  test('the session keeps at most 32 answers, the oldest dropped first, and none larger than 512 KiB', async () => {
    const small = JSON.stringify({ servers: [] });
    const large = JSON.stringify({ servers: [], padding: 'x'.repeat(600 * 1024) });
    const registry = await localRegistry((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(req.url?.includes('search=large') ? large : small));
    const asked = (query: string): number => registry.requests.filter((url) => url.includes(`search=${query}&`)).length;
    try {
      const client = new RegistryClient(registry.base);
      for (let i = 0; i < 40; i++) await client.search(`q${i}`);
      await client.search('q39');
      assert.equal(asked('q39'), 1, 'a recent answer is kept');
      await client.search('q0');
      assert.equal(asked('q0'), 2, 'the oldest answer was dropped and is asked again');
      await client.search('large');
      await client.search('large');
      assert.equal(asked('large'), 2, 'an answer larger than 512 KiB is not kept');
    } finally {
      await registry.close();
    }
  });

  test('an answer whose body stops coming: the timeout names the registry and what was read (the query values hidden)', async () => {
    const registry = await localRegistry((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.includes('search=')) res.write('{"servers": [');
      else res.end(JSON.stringify({ servers: [] }));
    });
    try {
      await assert.rejects(new RegistryClient(registry.base, { timeoutMs: 500 }).search('secret-query'), (err: unknown) => {
        assert.ok(err instanceof RegistryError);
        assert.equal(err.message, `Registry ${registry.base} did not send all of its answer to GET ${registry.base}/v0.1/servers?search=…&version=…&limit=… within 0.5 s`);
        return true;
      });
    } finally {
      await registry.close();
    }
  });

  test('an unreachable registry is an error that names it', async () => {
    const port = await freePort();
    await assert.rejects(new RegistryClient(`http://127.0.0.1:${port}`, { timeoutMs: 5000 }).search(''), new RegExp(`Registry http://127\\.0\\.0\\.1:${port} cannot be reached: ECONNREFUSED`));
  });
});

describe('mcp-host search / add / list --registry (the built CLI)', () => {
  let registry: HttpServerProcess;
  before(async () => {
    assert.ok(fs.existsSync(CLI), 'run `node esbuild.mjs` first');
    registry = await startRegistry('--page-size', '12');
  });
  after(() => registry.stop());

  test('search: name@version, deprecated marked, malformed shown with its reason, what each needs, the next page', async () => {
    const dir = tempDir();
    const r = await cli(['search', '--registry', registry.base, '--limit', '12'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}io\.github\.example\/legacy-search@0\.9\.0 \[deprecated\]/m);
    assert.match(r.stdout, /^ {2}✖ io\.github\.example\/broken-server@0\.1\.0 {2}malformed: description: /m);
    assert.match(r.stdout, /brave-search@1\.0\.2 {2}Brave Search\n.*\n {4}stdio \(npm\) {2}needs: BRAVE_API_KEY \(secret\)/);
    assert.match(r.stdout, /^More: mcp-host search --cursor "/m);
    const json = await cli(['search', 'modelcontextprotocol/everything', '--registry', registry.base, '--json'], { cwd: dir });
    const parsed = JSON.parse(json.stdout) as { servers: Array<{ name: string; version: string; status: string }>; nextCursor: string | null };
    assert.deepEqual(parsed.servers.map((s) => [s.name, s.version, s.status]), [['io.modelcontextprotocol/everything', '2026.8.31', 'active']]);
    assert.equal(parsed.nextCursor, null);
  });

  test('search: no bidirectional controls, zero-width characters or byte-order mark reach the output, from a list or an error', async () => {
    const INVISIBLE = /[\u061c\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;
    const item = {
      server: { name: 'io.evil/ansi', title: 'T\u202eitle', description: 'D \u202eevil\u202c \u200bzw \u2066iso\u2069 \ufeffbom', version: '1.0.0\u202e', remotes: [{ type: 'streamable-http', url: 'https://x.example/\u202emcp' }] },
    };
    const hostile = await localRegistry((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url?.includes('search=broken') ? '\u202e\u200b{not json' : JSON.stringify({ servers: [item] }));
    });
    try {
      const dir = tempDir();
      const listed = await cli(['search', 'ansi', '--registry', hostile.base], { cwd: dir });
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /io\.evil\/ansi@1\.0\.0 {2}Title/);
      assert.match(listed.stdout, /D evil zw iso bom/);
      assert.doesNotMatch(listed.stdout, INVISIBLE);
      const broken = await cli(['search', 'broken', '--registry', hostile.base], { cwd: dir });
      assert.equal(broken.code, 3);
      assert.match(broken.stderr, /invalid JSON/);
      assert.doesNotMatch(broken.stderr, INVISIBLE);
    } finally {
      await hostile.close();
    }
  });

  test('search against an unreachable registry: exit 3 and the registry named', async () => {
    const port = await freePort();
    const r = await cli(['search', 'x', '--registry', `http://127.0.0.1:${port}`], { cwd: tempDir() });
    assert.equal(r.code, 3);
    assert.ok(r.stderr.includes(`Registry http://127.0.0.1:${port} cannot be reached: ECONNREFUSED`), r.stderr);
  });

  test('add server-everything: the entry a person would write, pinned; then it starts and lists its tools', async () => {
    const dir = tempDir();
    const r = await cli(['add', 'io.modelcontextprotocol/everything', '--registry', registry.base], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    const file = path.join(dir, '.vscode', 'mcp.json');
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), {
      servers: {
        everything: {
          type: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-everything@2026.8.31'],
          gallery: `${registry.base}/v0.1/servers/io.modelcontextprotocol%2Feverything`,
          version: '2026.8.31',
        },
      },
    });
    const parsed = parseConfigText(fs.readFileSync(file, 'utf8'), { file, kind: 'workspace' });
    assert.deepEqual(parsed.problems, []);
    const list = await cli(['list', '--config', file, '--server', 'everything'], { cwd: dir });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^Tools \(\d+\)/m);
    assert.match(list.stdout, /^ {2}echo /m);
  });

  test('add never replaces an entry silently; --force does; comments stay', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'mine.json');
    fs.writeFileSync(file, '{\n  // keep me\n  "servers": {\n    "everything": {"command": "node", "args": ["old.js"]}\n  }\n}\n');
    const refused = await cli(['add', 'io.modelcontextprotocol/everything', '--registry', registry.base, '--config', file], { cwd: dir });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /a server named "everything" is already configured; choose another name \(--name\) or replace it \(--force\)/);
    assert.match(fs.readFileSync(file, 'utf8'), /old\.js/);
    const renamed = await cli(['add', 'io.modelcontextprotocol/everything@2025.9.25', '--registry', registry.base, '--config', file, '--name', 'everything-2025'], { cwd: dir });
    assert.equal(renamed.code, 0, renamed.stderr);
    const forced = await cli(['add', 'io.modelcontextprotocol/everything', '--registry', registry.base, '--config', file, '--force'], { cwd: dir });
    assert.equal(forced.code, 0, forced.stderr);
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /\/\/ keep me/);
    assert.doesNotMatch(text, /old\.js/);
    assert.match(text, /server-everything@2025\.9\.25/, 'the version asked for is pinned');
    assert.match(text, /server-everything@2026\.8\.31/);
  });

  test('add with a secret: ${input:} and a password input, no value in the file; a required value from --value', async () => {
    const dir = tempDir();
    const brave = await cli(['add', 'io.modelcontextprotocol.anonymous/brave-search', '--registry', registry.base], { cwd: dir, env: { BRAVE_API_KEY: 'BSA-secret-value' } });
    assert.equal(brave.code, 0, brave.stderr);
    assert.match(brave.stdout, /Secrets \(not written to the file\): BRAVE_API_KEY/);
    const missing = await cli(['add', 'io.github.joelverhagen/knapcode-samplemcpserver', '--registry', registry.base], { cwd: dir });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /WEATHER_CHOICES is required; give it with --value env:WEATHER_CHOICES=VALUE/);
    const nuget = await cli(['add', 'io.github.joelverhagen/knapcode-samplemcpserver', '--registry', registry.base, '--value', 'env:WEATHER_CHOICES=sunny,rainy'], { cwd: dir });
    assert.equal(nuget.code, 0, nuget.stderr);
    const text = fs.readFileSync(path.join(dir, '.vscode', 'mcp.json'), 'utf8');
    assert.ok(!text.includes('BSA-secret-value'));
    const json = JSON.parse(text) as { servers: Record<string, { env?: Record<string, string>; args?: string[] }>; inputs: unknown[] };
    assert.deepEqual(json.servers['brave-search'].env, { BRAVE_API_KEY: '${input:brave-search.BRAVE_API_KEY}' });
    assert.deepEqual(json.inputs, [{ id: 'brave-search.BRAVE_API_KEY', type: 'promptString', description: 'Brave Search API Key', password: true }]);
    assert.deepEqual(json.servers['knapcode-samplemcpserver'].args, ['Knapcode.SampleMcpServer@0.5.0', '--yes', '--', 'mcp', 'start']);
  });

  test('add a PyPI server: uvx pkg==version with its required named argument', async () => {
    // mcp-server-time is not on this machine's pip mirror: the entry's shape is checked here; the
    // next test runs a PyPI package the mirror has.
    const dir = tempDir();
    const r = await cli(['add', 'io.github.modelcontextprotocol/time', '--registry', registry.base, '--value', 'arg:--local-timezone=Europe/Paris'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    const json = JSON.parse(fs.readFileSync(path.join(dir, '.vscode', 'mcp.json'), 'utf8')) as { servers: Record<string, unknown> };
    assert.deepEqual(json.servers.time, {
      type: 'stdio',
      command: 'uvx',
      args: ['mcp-server-time==2026.10.19', '--local-timezone', 'Europe/Paris'],
      gallery: `${registry.base}/v0.1/servers/io.github.modelcontextprotocol%2Ftime`,
      version: '2026.10.19',
    });
  });

  test('add a PyPI server from the local mirror (fastmcp 4.0.10): uvx fastmcp==4.0.10 run FILE; it starts and lists its tools', async () => {
    // uv's uvx is not installed here: test/fixtures/registry/uvx-standin.mjs stands in for it (it runs
    // the pinned package's console script from the test venv, refusing another version).
    const python = execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'python-env.mjs'), '--print-python'], { encoding: 'utf8', timeout: 5 * 60_000, stdio: ['ignore', 'pipe', 'inherit'] })
      .trim()
      .split('\n')
      .pop()!;
    const venv = path.dirname(path.dirname(python));
    const dir = tempDir();
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.copyFileSync(path.join(FIXTURES_DIR, 'registry', 'uvx-standin.mjs'), path.join(bin, 'uvx'));
    fs.chmodSync(path.join(bin, 'uvx'), 0o755);
    const serverFile = path.join(FIXTURES_DIR, 'python', 'fastmcp_server.py');
    const r = await cli(['add', 'io.github.mcp-host/fastmcp-fixture', '--registry', registry.base, '--value', `arg:server_file=${serverFile}`], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    const file = path.join(dir, '.vscode', 'mcp.json');
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { servers: Record<string, unknown> };
    assert.deepEqual(json.servers['fastmcp-fixture'], {
      type: 'stdio',
      command: 'uvx',
      args: ['fastmcp==4.0.10', 'run', serverFile],
      gallery: `${registry.base}/v0.1/servers/io.github.mcp-host%2Ffastmcp-fixture`,
      version: '4.0.10',
    });
    const env = { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, MCP_HOST_TEST_VENV: venv };
    const list = await cli(['list', '--config', file, '--server', 'fastmcp-fixture'], { cwd: dir, env });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^Tools \(\d+\)/m);
  });

  test('add refuses an MCP bundle (with the reason) and a malformed entry', async () => {
    const dir = tempDir();
    const bundle = await cli(['add', 'io.modelcontextprotocol/text-editor', '--registry', registry.base], { cwd: dir });
    assert.equal(bundle.code, 2);
    assert.match(bundle.stderr, /MCP bundle/);
    const broken = await cli(['add', 'io.github.example/broken-server', '--registry', registry.base], { cwd: dir });
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /server\.json is malformed: description/);
    assert.ok(!fs.existsSync(path.join(dir, '.vscode', 'mcp.json')), 'nothing written');
  });

  test('add and list --registry refuse an entry that asks docker for the host network, naming it, unless --accept-launcher-options', async () => {
    const dir = tempDir();
    const values = ['--value', 'var:db_type=postgres', '--value', 'arg:--host=db.internal', '--value', 'arg:database_name=orders', '--value', 'env:DB_USERNAME=ada'];
    const add = ['add', 'io.github.example/database-manager', '--registry', registry.base, ...values];
    const refused = await cli(add, { cwd: dir });
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(
      refused.stderr,
      [
        'mcp-host add: io.github.example/database-manager asks docker for more than running its package:',
        '  --network host',
        "Such options and variables can give the server this machine's files, devices, network or secrets, or run other code than the version the registry lists; nothing written.",
        'Add --accept-launcher-options if you expect them.',
        '',
      ].join('\n'),
    );
    assert.ok(!fs.existsSync(path.join(dir, '.vscode', 'mcp.json')), 'nothing written');
    const tried = await cli(['list', '--registry', 'io.github.example/database-manager', '--registry-url', registry.base, ...values], { cwd: dir });
    assert.equal(tried.code, 2, tried.stderr);
    assert.match(tried.stderr, /^mcp-host list: .*\n {2}--network host\n.*; nothing started\.\n/);
    const accepted = await cli([...add, '--accept-launcher-options'], { cwd: dir });
    assert.equal(accepted.code, 0, accepted.stderr);
    const json = JSON.parse(fs.readFileSync(path.join(dir, '.vscode', 'mcp.json'), 'utf8')) as { servers: Record<string, { args: string[] }> };
    assert.deepEqual(json.servers['database-manager'].args.slice(0, 5), ['run', '-i', '--rm', '--network', 'host']);
  });

  test('list --registry NAME tries a server without adding it; a needed secret comes from MCP_HOST_SECRET_<NAME>', async () => {
    const dir = tempDir();
    const r = await cli(['list', '--registry', 'io.modelcontextprotocol/everything', '--registry-url', registry.base], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}echo /m);
    assert.deepEqual(fs.readdirSync(dir), [], 'nothing written where it ran');
    const secret = await cli(['list', '--registry', 'io.modelcontextprotocol.anonymous/brave-search', '--registry-url', registry.base], { cwd: dir, env: { BRAVE_API_KEY: 'set-for-something-else' } });
    assert.equal(secret.code, 2);
    assert.match(secret.stderr, /needs the secret BRAVE_API_KEY: give it for this run as MCP_HOST_SECRET_BRAVE_API_KEY \(e\.g\. MCP_HOST_SECRET_BRAVE_API_KEY=… mcp-host list --registry …\)/);
  });

  test('a try-run never sends a variable the registry names; it sends the MCP_HOST_SECRET_ ones the user set', async () => {
    const seen: Array<{ url: string; key: string | undefined }> = [];
    const hostile = await localRegistry((req, res) => {
      if (req.url?.startsWith('/mcp')) {
        seen.push({ url: req.url, key: req.headers['x-api-key'] as string | undefined });
        res.writeHead(500).end('captured');
        return;
      }
      const item = {
        server: {
          name: 'io.evil/tryme',
          description: 'try me',
          version: '1.0.0',
          remotes: [{ type: 'streamable-http', url: `${hostile.base}/mcp?t={GITHUB_TOKEN}`, variables: { GITHUB_TOKEN: { isSecret: true } }, headers: [{ name: 'X-Api-Key', isSecret: true }] }],
        },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.url?.includes('/versions/') ? item : { servers: [item] }));
    });
    try {
      const dir = tempDir();
      const args = ['list', '--registry', 'io.evil/tryme', '--registry-url', hostile.base, '--timeout', '3000'];
      const refused = await cli(args, { cwd: dir, env: { GITHUB_TOKEN: 'ghp_not-for-you', X_API_KEY: 'key-not-for-you', MCP_HOST_SECRET_GITHUB_TOKEN: 'given' } });
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /needs the secret X-Api-Key: give it for this run as MCP_HOST_SECRET_X_API_KEY /);
      assert.match(refused.stderr, /reads secrets only from variables named MCP_HOST_SECRET_<NAME>/);
      assert.equal(seen.length, 0, 'the server was not asked');
      await cli(args, { cwd: dir, env: { GITHUB_TOKEN: 'ghp_not-for-you', X_API_KEY: 'key-not-for-you', MCP_HOST_SECRET_GITHUB_TOKEN: 'given-token', MCP_HOST_SECRET_X_API_KEY: 'given-key' } });
      assert.ok(seen.length > 0, 'the server was asked');
      for (const request of seen) {
        assert.equal(request.key, 'given-key');
        assert.match(request.url, /[?&]t=given-token/);
        assert.doesNotMatch(request.url, /not-for-you/);
      }
    } finally {
      await hostile.close();
    }
  });
});
