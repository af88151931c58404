import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ServerConnection, serverId, type ConnectionEnvironment } from '../../src/host/serverConnection';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';
import { NotAnMcpServerError, RemoteError } from '../../src/protocol/errors';
import { fixture } from '../helpers/paths';
import { testEnvironment } from '../helpers/host';
import { makeClient } from '../helpers/servers';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-start-errors-'));
const source: ConfigSource = { file: path.join(dir, 'mcp.json'), kind: 'user' };

/** Starts a server through the host floor and returns its error message (it must fail). */
async function startFailure(name: string, command: string, args: string[], env: Record<string, string> = {}, overrides: Partial<ConnectionEnvironment> = {}) {
  const def: ServerDefinition = { type: 'stdio', name, command, args, env, source };
  const c = new ServerConnection(def, serverId(def), name, source, testEnvironment([], {
    // No restart: the first failure is the one looked at.
    restartPolicy: { initialDelayMs: 60_000, maxDelayMs: 60_000, maxCrashes: 1, windowMs: 60_000 },
    ...overrides,
  }));
  const started = Date.now();
  try {
    await c.start();
    const state = c.state;
    assert.equal(state.kind, 'error', `state: ${JSON.stringify(state.kind)}`);
    return { message: state.kind === 'error' ? state.message : '', ms: Date.now() - started };
  } finally {
    await c.stop();
    c.dispose();
  }
}

describe('start failures say what happened', { timeout: 30_000 }, () => {
  test('a server that crashes at start: the "Cannot find module" line, not the Node stack trailer', async () => {
    const { message } = await startFailure('missing-module', process.execPath, [fixture('missing-module.cjs')]);
    assert.match(message, /exited with code 1/);
    assert.match(message, /Error: Cannot find module '\.\/lib\/no-such-module'/);
    assert.doesNotMatch(message, /Node\.js v\d/);
    assert.doesNotMatch(message, /requireStack/);
  });

  test('a wrong script path: the "Cannot find module" line names it', async () => {
    const missing = path.join(dir, 'no-such-server.js');
    const { message } = await startFailure('wrong-path', process.execPath, [missing]);
    assert.ok(message.includes(`Error: Cannot find module '${missing}'`), message);
    assert.doesNotMatch(message, /Node\.js v\d/);
  });

  test('an initialize timeout shows what the server said on stderr', async () => {
    const { message, ms } = await startFailure('hangs', process.execPath, [fixture('stderr-then-hang.mjs')], {}, { requestTimeoutMs: () => 1500 });
    assert.match(message, /did not answer initialize within 1500 ms/);
    assert.match(message, /fatal: missing API_KEY/);
    assert.ok(ms < 8000, `took ${ms} ms`);
  });

  test('a process that echoes its input (a fixture, and real cat) is told it is not an MCP server, at once', async () => {
    for (const [command, args] of [
      [process.execPath, [fixture('echo-input.mjs')]],
      ['cat', []],
    ] as const) {
      const { message, ms } = await startFailure('echo', command, [...args]);
      assert.match(message, /is not an MCP server/);
      assert.match(message, /sent our initialize request back/);
      assert.ok(message.includes(command), message);
      assert.doesNotMatch(message, /Method not found/);
      assert.ok(ms < 3000, `told after ${ms} ms, not at the timeout`);
    }
  });

  test('a server that answers "Method not found" is reported as such, not as an echo', async () => {
    const { message } = await startFailure('nf', process.execPath, [fixture('method-not-found.mjs')]);
    assert.match(message, /Method not found/);
    assert.doesNotMatch(message, /not an MCP server/);
  });

  test('protocol floor: the echo fails initialize with NotAnMcpServerError; a real error answer stays a RemoteError', async () => {
    const echo = makeClient([fixture('echo-input.mjs')], { label: 'echo' });
    await assert.rejects(echo.client.connect(), (err: unknown) => err instanceof NotAnMcpServerError && err.method === 'initialize');
    await echo.stop();
    const nf = makeClient([fixture('method-not-found.mjs')], { label: 'nf' });
    await assert.rejects(nf.client.connect(), (err: unknown) => err instanceof RemoteError && err.code === -32601);
    await nf.stop();
  });
});
