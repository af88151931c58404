// A `${env:}` value in a server's url is a secret (#18): the CLI shows the url as written, never the
// value, in its stderr (--verbose, errors), --trace, the doctor, the report and the servers list.
// The value here is short (5 characters), below what the redactor treats as a secret by its look,
// so what keeps it out is how addresses are shown (util/displayUrl.ts), not redaction afterwards.
// Real processes: dist/cli.js against a small Streamable HTTP server in this process.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { runCli, type CliRun } from '../helpers/cli';
import { ServerConnection, serverId } from '../../src/host/serverConnection';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';
import { testEnvironment } from '../helpers/host';

const VALUE = 'Zq7xW';
const QUERY_VALUE = 'Kv3pL';

/** Runs the built CLI without blocking this process (the HTTP server below must keep answering). */
const cli = (args: string[], cwd: string): Promise<CliRun> =>
  runCli(args, { cwd, env: { ...process.env, MCP_HOST_TEST_K: VALUE, MCP_HOST_TEST_Q: QUERY_VALUE } });

/** A minimal Streamable HTTP server (JSON answers) at /<VALUE>/mcp; anything else is 404. */
function startServer(seen: string[]): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== `/${VALUE}/mcp`) {
      res.writeHead(404).end('not here');
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id?: number | string; method: string; params?: { protocolVersion?: string } };
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const answer = (payload: object) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...payload }));
      };
      if (msg.method === 'initialize') answer({ result: { protocolVersion: msg.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'url-secrets', version: '1.0.0' } } });
      else if (msg.method === 'tools/list') answer({ result: { tools: [{ name: 'hello', description: 'Says hello.', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] } });
      else if (msg.method === 'tools/call') answer({ result: { content: [{ type: 'text', text: 'hello' }] } });
      else answer({ error: { code: -32601, message: `no ${msg.method}` } });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('a ${env:} value in a url is never shown', () => {
  const seen: string[] = [];
  let server: http.Server;
  let dir: string;
  let config: string;

  before(async () => {
    server = await startServer(seen);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-url-secrets-'));
    config = path.join(dir, 'mcp.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        servers: {
          remote: { type: 'http', url: `${base}/\${env:MCP_HOST_TEST_K}/mcp?key=\${env:MCP_HOST_TEST_Q}&literal=${QUERY_VALUE}` },
          // Nothing answers here: the failure names the address.
          broken: { type: 'http', url: `${base}/\${env:MCP_HOST_TEST_K}/missing?key=\${env:MCP_HOST_TEST_Q}` },
        },
      }),
    );
  });
  after(() => {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const assertHidden = (what: string, text: string) => {
    assert.ok(!text.includes(VALUE), `${what} shows the path's value:\n${text}`);
    assert.ok(!text.includes(QUERY_VALUE), `${what} shows a query value:\n${text}`);
  };

  test('list --verbose and --trace: the url as written', async () => {
    const trace = path.join(dir, 'trace.jsonl');
    const run = await cli(['list', '--verbose', '--trace', trace, '--config', config, '--server', 'remote'], dir);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(seen.some((u) => u.startsWith(`/${VALUE}/mcp?key=${QUERY_VALUE}`)), 'the server was reached at the resolved url');
    // (The redactor may mask `key=` on top: either way no value.)
    assert.match(run.stderr, /\/\$\{env:MCP_HOST_TEST_K\}\/mcp\?key=(\$\{env:MCP_HOST_TEST_Q\}|\*\*\*)&literal=…/);
    assertHidden('--verbose stderr', run.stderr);
    const traced = fs.readFileSync(trace, 'utf8');
    assert.match(traced, /\$\{env:MCP_HOST_TEST_K\}/);
    assertHidden('the trace', traced);
  });

  test('a failure names the address without the values', async () => {
    const run = await cli(['list', '--config', config, '--server', 'broken'], dir);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /\$\{env:MCP_HOST_TEST_K\}\/missing/);
    assertHidden('the error', run.stderr);
  });

  test('the doctor, the report and the servers list', async () => {
    for (const args of [
      ['doctor', '--config', config, '--server', 'remote'],
      ['doctor', '--json', '--config', config, '--server', 'broken'],
      ['report', '--config', config, '--server', 'remote'],
      ['report', '--json', '--config', config, '--server', 'remote'],
      ['--config', config],
    ]) {
      const run = await cli(args, dir);
      assert.notEqual(run.code, null, `${args.join(' ')} was killed`);
      assertHidden(`${args.join(' ')} stdout`, run.stdout);
      assertHidden(`${args.join(' ')} stderr`, run.stderr);
    }
    const servers = await cli(['--config', config], dir);
    assert.match(servers.stdout, /\$\{env:MCP_HOST_TEST_K\}\/mcp\?key=(\$\{env:MCP_HOST_TEST_Q\}|\*\*\*)&literal=…/);
    const doctor = await cli(['doctor', '--config', config, '--server', 'broken'], dir);
    assert.match(doctor.stdout + doctor.stderr, /\$\{env:MCP_HOST_TEST_K\}\/missing/, 'the doctor names the address as written');
  });

  test("the editor's side: the log, the running state's address, and a failure", async () => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const source: ConfigSource = { file: config, kind: 'workspace', workspaceFolder: dir };
    const processEnv = { ...process.env, MCP_HOST_TEST_K: VALUE, MCP_HOST_TEST_Q: QUERY_VALUE };
    for (const [name, pathPart, expected] of [
      ['remote', 'mcp', 'running'],
      ['broken', 'missing', 'error'],
    ] as const) {
      const logs: string[] = [];
      const def: ServerDefinition = { type: 'http', name, url: `${base}/\${env:MCP_HOST_TEST_K}/${pathPart}?key=\${env:MCP_HOST_TEST_Q}`, headers: {}, source };
      const connection = new ServerConnection(def, serverId(def), name, source, testEnvironment(logs, { processEnv, traceEnabled: () => true }));
      try {
        await connection.start();
        const state = connection.state;
        assert.equal(state.kind, expected, state.kind === 'error' ? state.message : state.kind);
        if (state.kind === 'running') assert.equal(state.url, `${base}/\${env:MCP_HOST_TEST_K}/mcp?key=\${env:MCP_HOST_TEST_Q}`);
        assertHidden(`${name}: the state`, JSON.stringify({ ...state, client: undefined }));
        assertHidden(`${name}: the log`, logs.join('\n'));
        assert.match(logs.join('\n'), /\$\{env:MCP_HOST_TEST_K\}/);
      } finally {
        connection.dispose();
      }
    }
  });
});
