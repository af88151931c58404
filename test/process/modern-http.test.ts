// 2026-07-28 over Streamable HTTP, end to end: our client and transport against a modern HTTP
// server. x-mcp-header: invalid tool definitions are left out of tools/list (with a warning),
// calls carry Mcp-Param-* headers, and a -32020 HeaderMismatch on a tool never listed is
// answered by listing the tools and sending the call once more. -32022 naming the very version
// that was sent: asked once more, then given up.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpClient } from '../../src/protocol/client';
import { RemoteError } from '../../src/protocol/errors';
import { createHttpTransport } from '../../src/transport/http';
import { recordingLogger } from '../helpers/servers';

const VERSION = '2026-07-28';
const TOOLS = [
  {
    name: 'execute_sql',
    inputSchema: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
      required: ['region', 'query'],
    },
  },
  { name: 'broken', inputSchema: { type: 'object', properties: { data: { type: 'object', 'x-mcp-header': 'Data' } } } },
  { name: 'plain', inputSchema: { type: 'object' } },
];

interface Seen {
  method: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * Answers discover, tools/list and tools/call; a call of execute_sql without its header gets
 * -32020. The first `refusals` requests are answered -32022 (naming 2026-07-28 as supported).
 */
async function modernServer(refusals = 0, firstAnswerDelayMs = 0) {
  const seen: Seen[] = [];
  let firstDelay = firstAnswerDelayMs;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const delay = firstDelay;
      firstDelay = 0;
      if (delay > 0) setTimeout(answer, delay);
      else answer();
    });
    const answer = () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const message = JSON.parse(body) as { id?: number; method: string; params?: { name?: string; arguments?: Record<string, unknown> } };
      seen.push({ method: message.method, headers: req.headers });
      const reply = (status: number, payload: Record<string, unknown>) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...payload }));
      };
      if (message.id !== undefined && refusals > 0) {
        refusals--;
        reply(400, { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [VERSION], requested: VERSION } } });
      } else if (message.id === undefined) {
        res.writeHead(202).end();
      } else if (message.method === 'server/discover') {
        reply(200, { result: { resultType: 'complete', supportedVersions: [VERSION], capabilities: { tools: {} }, serverInfo: { name: 'headers', version: '1.0.0' } } });
      } else if (message.method === 'tools/list') {
        reply(200, { result: { resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: TOOLS } });
      } else if (message.method === 'tools/call') {
        const region = message.params?.arguments?.region;
        const header = req.headers['mcp-param-region'] as string | undefined;
        const decoded = header?.match(/^=\?base64\?(.*)\?=$/) ? Buffer.from(header.slice(9, -2), 'base64').toString('utf8') : header;
        if (message.params?.name === 'execute_sql' && (typeof region !== 'string' || decoded !== region)) {
          reply(400, { error: { code: -32020, message: `Header mismatch: Mcp-Param-Region does not match region` } });
          return;
        }
        reply(200, { result: { resultType: 'complete', content: [{ type: 'text', text: `ran ${message.params?.name}` }] } });
      } else {
        reply(404, { error: { code: -32601, message: 'Method not found' } });
      }
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    seen,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function connected(url: string, logs: string[]) {
  const transport = createHttpTransport('http', { url, label: 'headers' });
  const client = new McpClient(transport, { label: "server 'headers'", clientInfo: { name: 'tests', version: '0.0.0' }, requestTimeoutMs: 10_000, logger: recordingLogger(logs) });
  await client.connect();
  assert.equal(client.era, 'modern');
  return {
    client,
    async close() {
      await client.close().catch(() => undefined);
      client.dispose();
      await transport.close().catch(() => undefined);
    },
  };
}

describe('x-mcp-header over Streamable HTTP (2026-07-28)', () => {
  test('an invalid definition is left out with a warning; calls carry Mcp-Param-* headers, encoded', async () => {
    const server = await modernServer();
    const logs: string[] = [];
    const c = await connected(server.url, logs);
    try {
      const tools = await c.client.listAllTools();
      assert.deepEqual(tools.map((t) => t.name), ['execute_sql', 'plain']);
      assert.ok(logs.some((l) => /left out the tool "broken".*not string, integer or boolean/.test(l)), logs.join('\n'));

      await c.client.callTool('execute_sql', { region: 'us-west1', query: 'SELECT 1' });
      await c.client.callTool('execute_sql', { region: 'Zürich ', query: 'SELECT 2' });
      await c.client.callTool('plain', { region: 'ignored' });
      const calls = server.seen.filter((s) => s.method === 'tools/call');
      assert.equal(calls[0].headers['mcp-method'], 'tools/call');
      assert.equal(calls[0].headers['mcp-name'], 'execute_sql');
      assert.equal(calls[0].headers['mcp-param-region'], 'us-west1');
      assert.equal(calls[0].headers['mcp-param-query'], undefined, 'unannotated parameters are not mirrored');
      assert.equal(calls[1].headers['mcp-param-region'], `=?base64?${Buffer.from('Zürich ').toString('base64')}?=`);
      assert.equal(calls.at(-1)?.headers['mcp-param-region'], undefined, 'a tool without annotations sends none');
    } finally {
      await c.close();
      await server.close();
    }
  });

  test('HeaderMismatch on a tool never listed: the tools are listed, then the call goes once more with its header', async () => {
    const server = await modernServer();
    const c = await connected(server.url, []);
    try {
      const result = await c.client.callTool('execute_sql', { region: 'eu-west1', query: 'SELECT 1' });
      assert.deepEqual(result.content, [{ type: 'text', text: 'ran execute_sql' }]);
      assert.deepEqual(
        server.seen.map((s) => s.method),
        ['server/discover', 'tools/call', 'tools/list', 'tools/call'],
      );
      assert.equal(server.seen.at(-1)?.headers['mcp-param-region'], 'eu-west1');
      // A second mismatch (the header cannot help: the server wants something else) is not retried again.
      const before = server.seen.length;
      await assert.rejects(c.client.callTool('execute_sql', { query: 'no region' }), (err: unknown) => err instanceof RemoteError && err.code === -32020);
      assert.deepEqual(server.seen.slice(before).map((s) => s.method), ['tools/call', 'tools/list', 'tools/call']);
    } finally {
      await c.close();
      await server.close();
    }
  });

  test('-32022 naming the version that was sent: the probe is sent once more, and a second refusal ends it', async () => {
    const once = await modernServer(1);
    const c = await connected(once.url, []);
    try {
      assert.deepEqual(once.seen.map((s) => [s.method, s.headers['mcp-protocol-version']]), [
        ['server/discover', VERSION],
        ['server/discover', VERSION],
      ]);
    } finally {
      await c.close();
      await once.close();
    }
    const twice = await modernServer(2);
    const transport = createHttpTransport('http', { url: twice.url, label: 'headers' });
    const client = new McpClient(transport, { label: "server 'headers'", clientInfo: { name: 'tests', version: '0.0.0' }, requestTimeoutMs: 10_000 });
    try {
      await assert.rejects(client.connect(), /2026-07-28/);
      assert.equal(twice.seen.length, 2);
    } finally {
      client.dispose();
      await transport.close().catch(() => undefined);
      await twice.close();
    }
  });

  test('a modern server slower than the era probe: initialize is refused, and server/discover is asked again (modern, not a failed start)', async () => {
    const slow = await modernServer(0, 800);
    const transport = createHttpTransport('http', { url: slow.url, label: 'slow' });
    const client = new McpClient(transport, { label: "server 'slow'", clientInfo: { name: 'tests', version: '0.0.0' }, requestTimeoutMs: 10_000, eraProbeTimeoutMs: 300 });
    try {
      await client.connect();
      assert.equal(client.era, 'modern');
      assert.deepEqual(slow.seen.map((s) => s.method), ['server/discover', 'initialize', 'server/discover']);
    } finally {
      await client.close().catch(() => undefined);
      client.dispose();
      await slow.close();
    }
  });

  test("a client that waits for another's probe of the same endpoint waits no longer than its own probe would", async () => {
    const slow = await modernServer(0, 1_500);
    const open = (label: string, eraProbeTimeoutMs: number) => {
      const transport = createHttpTransport('http', { url: slow.url, label });
      return new McpClient(transport, { label: `server '${label}'`, clientInfo: { name: 'tests', version: '0.0.0' }, requestTimeoutMs: 10_000, eraProbeTimeoutMs });
    };
    const first = open('first', 1_000);
    const second = open('second', 200);
    const order: string[] = [];
    try {
      const firstDone = first.connect().then(() => order.push('first'));
      // The second starts while the first one's probe is under way, and waits for it at first.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const secondDone = second.connect().then(() => order.push('second'));
      await Promise.all([firstDone, secondDone]);
      assert.deepEqual(order, ['second', 'first'], 'the second asked on its own after its probe time, while the first was still waiting');
      assert.equal(second.era, 'modern');
      assert.equal(first.era, 'modern');
    } finally {
      for (const c of [first, second]) {
        await c.close().catch(() => undefined);
        c.dispose();
      }
      await slow.close();
    }
  });
});
