// The three clients behind one small interface, so every scenario runs the same code for all.
//   open(options) -> session { listTools(): Tool[], echo(text): string, blob(bytes): number, close() }
// Each session returns what the caller needs to check the answer (the scenarios verify every
// result, so a client that skipped work would fail rather than look fast).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { FloorClient } from './floor-client.mjs';
import { OURS_BUNDLE } from './paths.mjs';

export const SERVER = fileURLToPath(new URL('../test/fixtures/bench-server.mjs', import.meta.url));
const CLIENT_INFO = { name: 'mcp-host-bench', version: '0.0.0' };
const PROTOCOL_VERSION = '2025-11-25';

function serverEnv(tools) {
  return { ...process.env, BENCH_TOOLS: String(tools ?? 3) };
}

/**
 * Ours: McpClient over StdioTransport, from the same esbuild production build the extension ships.
 * With recordTraffic, every message also goes into a TrafficRecorder as ServerConnection records
 * it for the traffic view (the default 1000 messages), to measure what recording costs.
 */
async function loadOurs({ recordTraffic = false } = {}) {
  // BENCH_OURS_BUNDLE: another build of ours to load instead (for A/B runs of a change by hand).
  const { McpClient, StdioTransport, TrafficRecorder } = createRequire(import.meta.url)(process.env.BENCH_OURS_BUNDLE || OURS_BUNDLE);
  const traffic = recordTraffic ? new TrafficRecorder(1000) : undefined;
  return {
    async open({ tools } = {}) {
      const transport = new StdioTransport({
        command: process.execPath,
        args: [SERVER],
        env: { BENCH_TOOLS: String(tools ?? 3) },
        label: 'bench-server',
      });
      const onTrace = traffic ? (direction, message) => traffic.recordMessage(direction, message) : undefined;
      const client = new McpClient(transport, { label: "server 'bench'", clientInfo: CLIENT_INFO, onTrace });
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

/** The official SDK: Client over StdioClientTransport, as its README shows. */
async function loadSdk() {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  return {
    async open({ tools } = {}) {
      const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER], env: serverEnv(tools), stderr: 'ignore' });
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
        close: () => client.close(),
      };
    },
  };
}

/** The floor: see floor-client.mjs. */
async function loadFloor() {
  return {
    async open({ tools } = {}) {
      const client = new FloorClient(process.execPath, [SERVER], serverEnv(tools));
      await client.start();
      const init = await client.request('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO });
      if (typeof init.protocolVersion !== 'string') throw new Error('floor: bad initialize result');
      client.notify('notifications/initialized');
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

export const CLIENTS = { ours: () => loadOurs(), sdk: loadSdk, floor: loadFloor, 'ours+traffic': () => loadOurs({ recordTraffic: true }) };
