// The gateway on the host floor, in this process, with a real server behind its ServerConnection and
// the SDK client in front: what it relays is marked in the traffic with who asked, and tools a
// person disabled are neither listed nor callable through it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ServerConnection, serverId } from '../../src/host/serverConnection';
import type { ConfigSource, ServerDefinition } from '../../src/host/config';
import { Gateway, type GatewayOptions } from '../../src/host/gateway/gateway';
import { buildTimeline } from '../../src/host/traffic';
import { buildTrafficModel } from '../../src/vscode/traffic/trafficRows';
import type { ClientRequestHandlers } from '../../src/protocol/client';
import { testEnvironment } from '../helpers/host';
import { EVERYTHING } from '../helpers/servers';
import { fixture } from '../helpers/paths';

/**
 * A stdio server shared by a Gateway in this process (its traffic recorded), and one agent, the
 * SDK client, connected to it: made in the describe's before(), ended in its after().
 */
function sharedWithAgent(name: string, args: string[], env: Record<string, string>, options: GatewayOptions = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `gateway-host-${name}-`));
  const source: ConfigSource = { file: path.join(dir, 'mcp.json'), kind: 'workspace', workspaceFolder: dir };
  const def: ServerDefinition = { type: 'stdio', name, command: process.execPath, args, env, source };
  const gateway = new Gateway(options);
  const server = new ServerConnection(def, serverId(def), def.name, source, testEnvironment([], { trafficCapacity: () => 1000 }));
  const shared = { gateway, server, client: undefined as unknown as Client };

  before(async () => {
    await gateway.listen();
    await server.start();
    gateway.share(server);
    shared.client = new Client({ name: 'chat-agent', version: '1' });
    await shared.client.connect(new StreamableHTTPClientTransport(new URL(gateway.urlOf(name)), { requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } } }));
  });

  after(async () => {
    await shared.client?.close();
    await gateway.close();
    await server.stop();
    server.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return shared;
}

describe('the gateway in front of a ServerConnection', () => {
  // A secret of the server's configuration: the host hides it wherever a person sees it.
  const secret = 'Zq8vN3pL0wR7tY2uK5mB';
  const disabled = new Set(['add']);
  const shared = sharedWithAgent('good', [fixture('good-server.mjs')], { API_TOKEN: secret }, { isToolDisabled: (server, tool) => server === 'good' && disabled.has(tool) });
  const { gateway, server } = shared;

  test("a relayed call is the gateway client's in the traffic; the host's own is not", async () => {
    await shared.client.callTool({ name: 'echo', arguments: { text: 'from the agent' } });
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
    const call = shared.client.callTool({ name: 'slow', arguments: { ms: 10_000 } }, undefined, { signal: abort.signal });
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

  test('a request nested more than 512 levels deep is refused (-32600) before anything records or relays it', async () => {
    const url = gateway.urlOf('good');
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${gateway.token}` };
    const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'deep', version: '1' } } };
    const session = (await fetch(url, { method: 'POST', headers, body: JSON.stringify(initialize) })).headers.get('mcp-session-id')!;
    const recorded = server.traffic.entries().length;
    const depth = 5000;
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`;
    const res = await fetch(url, { method: 'POST', headers: { ...headers, 'Mcp-Session-Id': session }, body });
    assert.equal(res.status, 400);
    const answer = (await res.json()) as { id: unknown; error: { code: number; message: string } };
    assert.equal(answer.id, 1);
    assert.equal(answer.error.code, -32600);
    assert.match(answer.error.message, /more than 512 levels deep/);
    assert.equal(server.traffic.entries().length, recorded, 'nothing was recorded');
    // The traffic view still draws.
    buildTrafficModel([{ id: server.id, name: server.name, traffic: server.traffic, redact: (t: string) => t }], {});
    await fetch(url, { method: 'DELETE', headers: { ...headers, 'Mcp-Session-Id': session } });
  });

  test("a server's log messages reach a client as the person's log has them (redacted, cut at 16 KiB); so do error messages", async () => {
    const logged: Array<{ data: unknown }> = [];
    shared.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params));
    await server.callTool('log', { level: 'error', data: `upstream said 401 for token ${secret}` });
    await server.callTool('log', { level: 'info', data: 'x'.repeat(2_000_000) });
    await assert.rejects(shared.client.callTool({ name: `no-such-tool-${secret}`, arguments: {} }), (err: Error) => {
      assert.match(err.message, /Unknown tool: no-such-tool-\*\*\*/);
      return true;
    });
    const deadline = Date.now() + 5000;
    while (logged.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(logged.length, 2);
    assert.equal(logged[0].data, 'upstream said 401 for token ***');
    const long = String(logged[1].data);
    assert.ok(long.length < 17 * 1024, `a 2 MB log line reached the client as ${long.length} characters`);
    assert.match(long, /more characters cut\]$/);
  });

  test('a request id already in flight in the session is refused; the first call keeps its answer', async () => {
    const url = gateway.urlOf('good');
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${gateway.token}` };
    const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'reuser', version: '1' } } };
    const session = (await fetch(url, { method: 'POST', headers, body: JSON.stringify(initialize) })).headers.get('mcp-session-id')!;
    const post = (body: unknown) => fetch(url, { method: 'POST', headers: { ...headers, 'Mcp-Session-Id': session }, body: JSON.stringify(body) });
    const first = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow', arguments: { ms: 500 } } });
    assert.equal(first.status, 200);
    const second = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'again' } } });
    assert.equal(second.status, 400);
    assert.deepEqual(await second.json(), { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'request id 7 is already in flight in this session' } });
    const answer = await Promise.race([first.text(), new Promise<string>((r) => setTimeout(() => r('no answer in 5 s'), 5000))]);
    assert.match(answer, /"id":7,"result":.*slept 500ms/);
    await fetch(url, { method: 'DELETE', headers: { ...headers, 'Mcp-Session-Id': session } });
  });

  test('a disabled tool is not listed and is refused with a message naming it', async () => {
    const names = (await shared.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('echo'));
    assert.ok(!names.includes('add'));
    await assert.rejects(shared.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }), /"add" of server "good" is disabled/);
    // The person's own list still has it: only the gateway's clients are kept from it.
    assert.ok(server.lists.tools.some((t) => t.name === 'add'));
  });

  test('a tool disabled while a client is connected: the client is told to list again, and the tool is gone', async () => {
    const listChanged = new Promise<void>((resolve) => shared.client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    disabled.add('echo');
    try {
      gateway.toolsChanged('good');
      await listChanged;
      assert.ok(!(await shared.client.listTools()).tools.some((t) => t.name === 'echo'));
    } finally {
      disabled.delete('echo');
    }
    assert.ok((await shared.client.listTools()).tools.some((t) => t.name === 'echo'));
  });
});

describe("the gateway: a server's questions go to the one that can have caused them", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-host-ask-'));
  const source: ConfigSource = { file: path.join(dir, 'mcp.json'), kind: 'workspace', workspaceFolder: dir };
  const def: ServerDefinition = { type: 'stdio', name: 'everything', command: process.execPath, args: EVERYTHING, env: {}, source };
  const gateway = new Gateway();
  const personAsked: string[] = [];
  const editor: ClientRequestHandlers = {
    elicit: async (params) => {
      personAsked.push(String(params.message));
      return { action: 'decline' };
    },
  };
  const server = new ServerConnection(def, serverId(def), def.name, source, testEnvironment([], { handlers: gateway.serverRequestHandlers('everything', editor) }));
  const agentAsked: string[] = [];
  const clients: Client[] = [];

  async function agent(name: string, capabilities: Record<string, unknown>): Promise<Client> {
    const client = new Client({ name, version: '1' }, { capabilities });
    if (capabilities.elicitation) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        agentAsked.push(request.params.message);
        return { action: 'accept', content: { name: 'the agent' } };
      });
    }
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.urlOf('everything')), { requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } } }));
    clients.push(client);
    return client;
  }

  before(async () => {
    await gateway.listen();
    await server.start();
    gateway.share(server);
  });

  after(async () => {
    for (const client of clients) await client.close();
    await gateway.close();
    await server.stop();
    server.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("the person's own call while an agent has a call in flight: the person is asked, not the agent", async () => {
    personAsked.length = 0;
    agentAsked.length = 0;
    const client = await agent('chat-agent', { elicitation: {} });
    const abort = new AbortController();
    const busy = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 5 } }, undefined, { signal: abort.signal }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    const result = await server.callTool('trigger-elicitation-request', {});
    abort.abort();
    await busy;
    assert.equal(personAsked.length, 1, 'the person was asked');
    assert.deepEqual(agentAsked, [], 'the agent was not asked');
    assert.match(JSON.stringify(result.content), /decline/i);
  });

  test("an agent's own call: the agent is asked; an agent that cannot answer: the person is, and the call does not fail", async () => {
    personAsked.length = 0;
    agentAsked.length = 0;
    const asking = await agent('asking-agent', { elicitation: {} });
    const answered = await asking.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    assert.equal(agentAsked.length, 1);
    assert.deepEqual(personAsked, []);
    assert.match(JSON.stringify(answered.content), /accept/i);
    const mute = await agent('mute-agent', {});
    const fallen = await mute.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    assert.equal(agentAsked.length, 1, 'no second question to an agent');
    assert.equal(personAsked.length, 1, 'the person was asked instead');
    assert.match(JSON.stringify(fallen.content), /decline/i);
    assert.notEqual(fallen.isError, true);
  });
});

describe('the gateway keeps a bounded number of sessions per server', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-host-cap-'));
  const source: ConfigSource = { file: path.join(dir, 'mcp.json'), kind: 'workspace', workspaceFolder: dir };
  const def: ServerDefinition = { type: 'stdio', name: 'good', command: process.execPath, args: [fixture('good-server.mjs')], env: {}, source };
  const gateway = new Gateway({ maxSessionsPerServer: 3 });
  const server = new ServerConnection(def, serverId(def), def.name, source, testEnvironment([]));

  before(async () => {
    await gateway.listen();
    await server.start();
    gateway.share(server);
  });

  after(async () => {
    await gateway.close();
    await server.stop();
    server.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const headers = () => ({ 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${gateway.token}` });

  async function newSession(): Promise<string> {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
    const res = await fetch(gateway.urlOf('good'), { method: 'POST', headers: headers(), body: JSON.stringify(init) });
    assert.equal(res.status, 200);
    await res.text();
    return res.headers.get('mcp-session-id')!;
  }

  async function ping(session: string): Promise<number> {
    const res = await fetch(gateway.urlOf('good'), { method: 'POST', headers: { ...headers(), 'Mcp-Session-Id': session }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) });
    await res.text();
    return res.status;
  }

  test('a fourth session of three allowed ends the one unused longest (its client gets 404); the others and the new one work', async () => {
    const [first, second, third] = [await newSession(), await newSession(), await newSession()];
    // The second is now the one unused longest.
    assert.equal(await ping(first), 200);
    assert.equal(await ping(third), 200);
    const fourth = await newSession();
    assert.equal(await ping(second), 404, 'the session unused longest was ended');
    for (const session of [first, third, fourth]) assert.equal(await ping(session), 200);
  });

  test('one whose client has its stream open outlasts an idle one unused for longer', async () => {
    const sessions = [await newSession(), await newSession(), await newSession()];
    // The first opens its GET stream (as VS Code does) and then goes quiet; the second is idle.
    const controller = new AbortController();
    const stream = await fetch(gateway.urlOf('good'), { headers: { ...headers(), 'Mcp-Session-Id': sessions[0] }, signal: controller.signal });
    assert.equal(stream.status, 200);
    try {
      assert.equal(await ping(sessions[1]), 200);
      assert.equal(await ping(sessions[2]), 200);
      await newSession();
      assert.equal(await ping(sessions[1]), 404, 'the idle one was ended');
      assert.equal(await ping(sessions[0]), 200, 'the one with its stream open was kept');
    } finally {
      controller.abort();
    }
  });

  test('when every other session has a call in flight, the one unused longest is ended: its call is answered with an error, the others finish', async () => {
    const sessions = [await newSession(), await newSession(), await newSession()];
    const call = (session: string) =>
      fetch(gateway.urlOf('good'), {
        method: 'POST',
        headers: { ...headers(), 'Mcp-Session-Id': session },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow', arguments: { ms: 2000 } } }),
      });
    // In order: the first call's session is the one unused longest. Each answer's headers come at once.
    const responses: Response[] = [];
    for (const session of sessions) responses.push(await call(session));
    await newSession();
    assert.match(await responses[0].text(), /"error":.*the gateway ended this session: server \S*good\S* has more than 3 sessions; start a new one/);
    for (const res of responses.slice(1)) assert.match(await res.text(), /"result"/);
    assert.equal(await ping(sessions[0]), 404);
  });
});

describe('the gateway in front of a modern-era server (2026-07-28)', () => {
  const shared = sharedWithAgent('modern', [fixture('modern-only.mjs')], {});
  const { server } = shared;

  test("an agent's _meta cannot stand in for the host's version, identity or capabilities; its other keys go through", async () => {
    const result = await shared.client.callTool({
      name: 'echo',
      arguments: { text: 'hi' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '1999-01-01',
        'io.modelcontextprotocol/clientInfo': { name: 'not-mcp-host', version: '6.6.6' },
        'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
        'com.example/trace': 'abc',
      },
    });
    assert.equal((result.content as Array<{ text: string }>)[0].text, 'hi', 'answered in the version the host agreed on');
    const sent = server.traffic.entries().flatMap((e) => (e.kind === 'message' && e.direction === 'send' && (e.message as { method?: string }).method === 'tools/call' ? [e.message] : []));
    assert.equal(sent.length, 1);
    const meta = (sent[0] as { params: { _meta: Record<string, unknown> } }).params._meta;
    assert.equal(meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
    assert.notEqual((meta['io.modelcontextprotocol/clientInfo'] as { name: string }).name, 'not-mcp-host');
    assert.equal((meta['io.modelcontextprotocol/clientCapabilities'] as Record<string, unknown>).sampling, undefined);
    assert.equal(meta['com.example/trace'], 'abc');
  });
});
