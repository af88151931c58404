// The three clients over Streamable HTTP, behind the same interface as clients.mjs:
//   open(options) -> session { listTools(): Tool[], echo(text): string, blob(bytes): number, close() }
// options: { tools?: number, sse?: boolean } become the session's URL query (?tools=N&sse=1),
// which test/fixtures/bench-http-server.mjs reads at initialize. Every session of a run talks
// to the same server (baseUrl); close() ends the session with a DELETE in all three.
import { createRequire } from 'node:module';
import { HttpFloorClient } from './http-floor-client.mjs';
import { OURS_BUNDLE } from './paths.mjs';

const CLIENT_INFO = { name: 'mcp-host-bench', version: '0.0.0' };
const PROTOCOL_VERSION = '2025-11-25';

function sessionUrl(baseUrl, { tools, sse } = {}) {
  const query = new URLSearchParams();
  if (tools !== undefined) query.set('tools', String(tools));
  if (sse) query.set('sse', '1');
  const q = query.toString();
  return q ? `${baseUrl}?${q}` : baseUrl;
}

/** Ours: McpClient over createHttpTransport('http', ...), from the production-like bundle (build.mjs). */
async function loadOurs(baseUrl) {
  // BENCH_OURS_BUNDLE: another build of ours to load instead (for A/B runs of a change by hand).
  const { McpClient, createHttpTransport, useHttpAgents, ownKeepAliveAgents } = createRequire(import.meta.url)(process.env.BENCH_OURS_BUNDLE || OURS_BUNDLE);
  if (typeof createHttpTransport !== 'function') {
    throw new Error('out/bench/ours.cjs has no createHttpTransport: src/transport/http.ts does not exist yet (or build.mjs has not run since)');
  }
  // The agents the CLI installs (src/cli.ts): keep-alive agents of its own, like the socket floor's.
  // BENCH_OURS_AGENT=global: Node's global agents instead, as in VS Code (which proxies requests
  // that name no agent).
  if (process.env.BENCH_OURS_AGENT !== 'global' && typeof useHttpAgents === 'function') useHttpAgents(ownKeepAliveAgents);
  return {
    async open(options) {
      const transport = createHttpTransport('http', { url: sessionUrl(baseUrl, options), label: 'bench-http-server' });
      // BENCH_OURS_ERA=legacy: the era known (a config's protocolEra, or what the host remembers), no probe.
      const era = process.env.BENCH_OURS_ERA ? { protocolEra: process.env.BENCH_OURS_ERA } : {};
      const client = new McpClient(transport, { label: "server 'bench-http'", clientInfo: CLIENT_INFO, ...era });
      await client.connect();
      return {
        listTools: () => client.listAllTools(),
        echo: async (text) => (await client.callTool('echo', { text })).content[0].text,
        blob: async (bytes) => (await client.callTool('blob', { bytes })).content[0].text.length,
        close: async () => {
          await client.close();
          client.dispose();
        },
      };
    },
  };
}

/** The official SDK: Client over StreamableHTTPClientTransport, as its README shows. */
async function loadSdk(baseUrl) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  return {
    async open(options) {
      const transport = new StreamableHTTPClientTransport(new URL(sessionUrl(baseUrl, options)));
      const client = new Client(CLIENT_INFO, { capabilities: {} });
      await client.connect(transport);
      return {
        listTools: async () => {
          const all = [];
          let cursor;
          do {
            const page = await client.listTools(cursor === undefined ? undefined : { cursor });
            all.push(...page.tools);
            cursor = page.nextCursor;
          } while (cursor !== undefined);
          return all;
        },
        echo: async (text) => (await client.callTool({ name: 'echo', arguments: { text } })).content[0].text,
        blob: async (bytes) => (await client.callTool({ name: 'blob', arguments: { bytes } })).content[0].text.length,
        close: async () => {
          // The SDK's close() only aborts; ending the session is a separate call.
          await transport.terminateSession();
          await client.close();
        },
      };
    },
  };
}

/** The floor: see http-floor-client.mjs; `socket` posts through node:http with a keep-alive agent. */
async function loadFloor(baseUrl, { socket = false } = {}) {
  return {
    async open(options) {
      const client = new HttpFloorClient(sessionUrl(baseUrl, options), { socket });
      const init = await client.request('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO });
      if (typeof init.protocolVersion !== 'string') throw new Error('floor: bad initialize result');
      client.setProtocolVersion(init.protocolVersion);
      await client.notify('notifications/initialized');
      return {
        listTools: async () => {
          const all = [];
          let cursor;
          do {
            const page = await client.request('tools/list', cursor === undefined ? undefined : { cursor });
            for (const t of page.tools) all.push(t);
            cursor = page.nextCursor;
          } while (cursor !== undefined);
          return all;
        },
        echo: async (text) => (await client.request('tools/call', { name: 'echo', arguments: { text } })).content[0].text,
        blob: async (bytes) => (await client.request('tools/call', { name: 'blob', arguments: { bytes } })).content[0].text.length,
        close: () => client.close(),
      };
    },
  };
}

export const HTTP_CLIENTS = { ours: loadOurs, sdk: loadSdk, floor: loadFloor, socket: (baseUrl) => loadFloor(baseUrl, { socket: true }) };
