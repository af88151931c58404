import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { ServerConnection, serverId, type ConnectionEnvironment, type ServerState } from '../../src/host/serverConnection';
import type { ConfigSource, InputDefinition, ServerDefinition } from '../../src/host/config';
import { runCli } from '../../src/cli/main';
import { fixture } from '../helpers/paths';
import { recordingLogger } from '../helpers/servers';

// One known token in each place a secret can come from; none may reach a person.
const TOKENS = {
  input: 'input-secret-7Qx2',
  envLiteral: 'env-literal-secret-4Kd9',
  envReference: 'envref-secret-8Hw3',
  tokenArg: 'arg-secret-2Zp5',
  wellKnown: 'ghp_0123456789abcdefghijABCDEFGHIJklmn',
  typed: 'typed-password-3Jm1',
  header: 'hdr-input-secret-5Nb8',
  headerLiteral: 'hdr-literal-secret-6Vc4',
};

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-secrets-ws-'));
const source: ConfigSource = { file: path.join(workspace, '.vscode', 'mcp.json'), kind: 'workspace', workspaceFolder: workspace };
const inputs: InputDefinition[] = [
  { id: 'apiKey', type: 'promptString', password: true },
  { id: 'tok', type: 'promptString', password: true },
];
const processEnv = { ...process.env, MCP_HOST_TEST_PLAIN: TOKENS.envReference };

function leaky(fail: boolean): ServerDefinition {
  return {
    type: 'stdio',
    name: fail ? 'leaky-fail' : 'leaky',
    command: process.execPath,
    args: [fixture('leak-secrets.mjs'), '${input:apiKey}', `--token=${TOKENS.tokenArg}`, TOKENS.wellKnown],
    env: {
      SERVICE_API_KEY: TOKENS.envLiteral,
      PLAIN_REF: '${env:MCP_HOST_TEST_PLAIN}',
      LEAK_ENV: 'SERVICE_API_KEY,PLAIN_REF',
      ...(fail ? { LEAK_FAIL: '1' } : {}),
    },
    source,
  };
}

function connection(def: ServerDefinition) {
  const logs: string[] = [];
  const states: ServerState[] = [];
  const env: ConnectionEnvironment = {
    clientInfo: { name: 'mcp-host-tests', version: '0' },
    logger: recordingLogger(logs),
    traceEnabled: () => true,
    requestTimeoutMs: () => 10_000,
    serverLogLevel: () => undefined,
    inputs: () => inputs,
    inputResolver: { resolve: async (input) => (input.id === 'apiKey' ? TOKENS.input : TOKENS.header) },
    handlers: {},
    processEnv,
    shutdown: { closeStdinGraceMs: 300, sigtermGraceMs: 300 },
    // No crash restarts: the first failure is what the test looks at.
    schedule: () => ({ dispose() {} }),
  };
  const c = new ServerConnection(def, serverId(def), def.name, def.source, env);
  c.onDidChangeState((s) => states.push(s));
  return { c, logs, states };
}

function assertNoToken(where: string, text: string): void {
  for (const [name, token] of Object.entries(TOKENS)) {
    assert.ok(!text.includes(token), `${where} holds the ${name} token: ${text}`);
  }
}

function stateTexts(states: ServerState[]): string {
  return JSON.stringify(states.map((s) => ({ ...s, client: undefined })));
}

describe('secrets never reach a log, a state or the CLI (real processes)', () => {
  test('a server that prints its secrets to stderr and fails: not in the log, not in the error state', async () => {
    const { c, logs, states } = connection(leaky(true));
    await c.start();
    assert.equal(c.state.kind, 'error');
    const message = c.state.kind === 'error' ? c.state.message : '';
    // The stderr lines did reach the message (so this test looks at the right text) ...
    assert.match(message, /leak: argv/);
    assert.match(message, /SERVICE_API_KEY=/);
    // ... without the secrets in them.
    assertNoToken('the error message', message);
    assertNoToken('a state', stateTexts(states));
    assert.ok(logs.some((l) => l.includes('[stderr] leak: argv')), logs.join('\n'));
    assertNoToken('the log', logs.join('\n'));
    // The command line in the log and in a tooltip goes through the same redaction.
    assertNoToken('redact()', c.redact(['node', `--token=${TOKENS.tokenArg}`, TOKENS.wellKnown, TOKENS.input].join(' ')));
    await c.stop();
  });

  test('a running server: stderr, its log messages, protocol traces and tool arguments are redacted', async () => {
    const { c, logs, states } = connection(leaky(false));
    await c.start();
    assert.equal(c.state.kind, 'running');
    const result = await c.client!.callTool('echo', { note: TOKENS.input, password: TOKENS.typed, also: TOKENS.wellKnown });
    // The tool itself gets what it was given: redaction is for what a person sees.
    assert.ok(JSON.stringify(result).includes(TOKENS.typed));
    await c.stop();
    assert.ok(logs.some((l) => l.startsWith('trace: →') && l.includes('tools/call')), 'protocol traces were logged');
    assert.ok(logs.some((l) => l.includes('[stderr] leak: tool arguments')), 'the tool echoed its arguments to stderr');
    assert.ok(logs.some((l) => l.includes('tool arguments') && !l.includes('[stderr]')), 'the server logged its arguments');
    assertNoToken('the log', logs.join('\n'));
    assertNoToken('a state', stateTexts(states));
  });

  test('a remote server that echoes its credential headers in an error: not in the state, not in the log', async () => {
    const server = http.createServer((req, res) => {
      // A 5xx answer: its body excerpt is shown (a 4xx would make the client try HTTP+SSE instead).
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`rejected: ${req.headers.authorization} / ${String(req.headers['x-api-key'])} / ${String(req.headers.cookie)}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    after(() => server.close());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const { c, logs, states } = connection({
      type: 'http',
      name: 'remote-leaky',
      url,
      headers: { Authorization: 'Bearer ${input:tok}', 'X-Api-Key': TOKENS.headerLiteral, Cookie: 'session=${env:MCP_HOST_TEST_PLAIN}' },
      source,
    });
    await c.start();
    assert.equal(c.state.kind, 'error');
    const message = c.state.kind === 'error' ? c.state.message : '';
    assert.match(message, /rejected/, 'the body excerpt is in the message');
    assertNoToken('the error message', message);
    assertNoToken('a state', stateTexts(states));
    assertNoToken('the log', logs.join('\n'));
    await c.stop();
  });

  test('the CLI: neither its one-line error nor --verbose stderr shows a secret', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-secrets-'));
    const config = path.join(dir, 'mcp.json');
    const entry = {
      command: process.execPath,
      args: [fixture('leak-secrets.mjs'), '--api-key', TOKENS.tokenArg, TOKENS.wellKnown, '${env:MCP_HOST_TEST_PLAIN}'],
      env: { LEAK_FAIL: '1', SERVICE_API_KEY: TOKENS.envLiteral, LEAK_ENV: 'SERVICE_API_KEY' },
    };
    fs.writeFileSync(config, JSON.stringify({ servers: { leaky: entry } }));
    let stdout = '';
    let stderr = '';
    const code = await runCli(['list', '--verbose', '--config', config, '--server', 'leaky'], {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      cwd: dir,
      env: processEnv,
    });
    assert.equal(code, 3, stderr);
    assert.match(stderr, /\[leaky\] leak: argv/, 'the server stderr was echoed');
    assert.match(stderr, /leak: env SERVICE_API_KEY=/);
    assertNoToken('CLI stderr', stderr);
    assertNoToken('CLI stdout', stdout);
  });
});
