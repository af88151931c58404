// Who asked, through the real relay path: RunningServerRequests.relayRequest -> McpClient.sendRequest
// -> JsonRpcConnection.request (legacy) or ModernRequests.send (modern). sendOnBehalfOf marks what is
// sent within its call (protocolTrace.ts): these fail if the first write of a relayed request ever
// moves behind an await.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { McpClient } from '../../src/protocol/client';
import { RunningServerRequests } from '../../src/host/connection/requests';
import type { ServerState } from '../../src/host/connection/state';
import { ProtocolTrace } from '../../src/host/connection/protocolTrace';
import { TrafficRecorder, buildTimeline } from '../../src/host/traffic';
import { Redactor } from '../../src/host/redact';
import { nullLogger } from '../../src/util/logger';
import { MemoryTransport } from '../helpers/memory-transport';

const AGENT = { via: 'gateway', name: 'chat-agent' } as const;

class Running extends RunningServerRequests {
  readonly name = 'fake';
  constructor(private readonly running: McpClient) {
    super();
  }
  get state(): ServerState {
    return { kind: 'running', client: this.running } as unknown as ServerState;
  }
}

async function connected(era: 'legacy' | 'modern') {
  const rec = new TrafficRecorder(1000);
  const trace = new ProtocolTrace(rec, nullLogger, new Redactor(), () => false);
  const transport = new MemoryTransport();
  transport.autoReply = (m: any, t: MemoryTransport) => {
    if (m.method === 'initialize') t.receive({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } });
    else if (m.method === 'server/discover') t.receive({ jsonrpc: '2.0', id: m.id, result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, _meta: {} } });
    else if (m.method === 'tools/call') t.receive({ jsonrpc: '2.0', id: m.id, result: { content: [] } });
  };
  const client = new McpClient(transport, { label: 'fake', clientInfo: { name: 'host', version: '1' }, protocolEra: era, requestTimeoutMs: 2000, onTrace: (d, m) => trace.onMessage(d, m) });
  await client.connect();
  return { client, rec, server: new Running(client) };
}

describe('a relayed request in the traffic ring', () => {
  for (const era of ['legacy', 'modern'] as const) {
    test(`${era} era: the relayed tools/call is the gateway client's, the host's own is not`, async () => {
      const { client, rec, server } = await connected(era);
      await server.relayRequest('tools/call', { name: 'x' }, undefined, AGENT);
      await client.callTool('x', {});
      const rows = buildTimeline(rec.entries()).filter((r) => r.method === 'tools/call');
      assert.deepEqual(rows.map((r) => r.origin?.name), ['chat-agent', undefined]);
      client.dispose();
    });
  }
});
