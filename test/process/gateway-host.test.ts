// The gateway on the host floor, in this process, with a real server behind its ServerConnection and
// the SDK client in front: what it relays is marked in the traffic with who asked, and tools a
// person disabled are neither listed nor callable through it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ServerConnection, serverId } from '../../src/host/serverConnection';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';
import { Gateway } from '../../src/host/gateway/gateway';
import { buildTimeline } from '../../src/host/traffic';
import { buildTrafficModel } from '../../src/vscode/traffic/trafficRows';
import { testEnvironment } from '../helpers/host';
import { fixture } from '../helpers/paths';

describe('the gateway in front of a ServerConnection', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-host-'));
  const source: ConfigSource = { file: path.join(dir, 'mcp.json'), kind: 'workspace', workspaceFolder: dir };
  const def: ServerDefinition = { type: 'stdio', name: 'good', command: process.execPath, args: [fixture('good-server.mjs')], env: {}, source };
  const disabled = new Set(['add']);
  const gateway = new Gateway({ isToolDisabled: (server, tool) => server === 'good' && disabled.has(tool) });
  const server = new ServerConnection(def, serverId(def), def.name, source, testEnvironment([], { trafficCapacity: () => 1000 }));
  let client: Client;

  before(async () => {
    await gateway.listen();
    await server.start();
    gateway.share(server);
    client = new Client({ name: 'chat-agent', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.urlOf('good')), { requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } } }));
  });

  after(async () => {
    await client?.close();
    await gateway.close();
    await server.stop();
    server.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("a relayed call is the gateway client's in the traffic; the host's own is not", async () => {
    await client.callTool({ name: 'echo', arguments: { text: 'from the agent' } });
    await server.callTool('echo', { text: 'from the person' });
    const calls = buildTimeline(server.traffic.entries()).filter((r) => r.method === 'tools/call');
    assert.equal(calls.length, 2);
    assert.deepEqual(calls[0].origin, { via: 'gateway', name: 'chat-agent' });
    assert.equal(calls[0].status, 'ok');
    assert.equal(calls[1].origin, undefined);
    const source = { id: server.id, name: server.name, traffic: server.traffic, redact: (t: string) => t };
    const agentRows = buildTrafficModel([source], { via: 'gateway', method: 'tools/call' }).rows;
    assert.equal(agentRows.length, 1);
    assert.equal(agentRows[0].via, 'chat-agent');
    assert.equal(buildTrafficModel([source], { via: 'host', method: 'tools/call' }).rows.length, 1);
  });

  test("a client's cancellation reaches the server as notifications/cancelled for the relayed call", async () => {
    const abort = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: { ms: 10_000 } }, undefined, { signal: abort.signal });
    await new Promise((r) => setTimeout(r, 200));
    abort.abort();
    await assert.rejects(call);
    const deadline = Date.now() + 5000;
    let row;
    while (Date.now() < deadline) {
      row = buildTimeline(server.traffic.entries()).find((r) => r.method === 'tools/call' && JSON.stringify(r.first).includes('"slow"'));
      if (row?.status === 'cancelled') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(row?.status, 'cancelled');
    assert.deepEqual(row?.origin, { via: 'gateway', name: 'chat-agent' });
  });

  test('a disabled tool is not listed and is refused with a message naming it', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('echo'));
    assert.ok(!names.includes('add'));
    await assert.rejects(client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }), /"add" of server "good" is disabled/);
    // The person's own list still has it: only the gateway's clients are kept from it.
    assert.ok(server.lists.tools.some((t) => t.name === 'add'));
  });

  test('a tool disabled while a client is connected: the client is told to list again, and the tool is gone', async () => {
    const listChanged = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    disabled.add('echo');
    try {
      gateway.toolsChanged('good');
      await listChanged;
      assert.ok(!(await client.listTools()).tools.some((t) => t.name === 'echo'));
    } finally {
      disabled.delete('echo');
    }
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'echo'));
  });
});
