// The options and the states of McpClient (client.ts), here so that the parts of the client
// (handshake.ts, modernRequests.ts) need not import client.ts, which imports them.
import type { TransportCloseInfo } from '../transport/transport';
import type { Logger } from '../util/logger';
import type { MessageDirection } from './connection';
import type { ProtocolEra, ProtocolEraSetting } from './era';
import type { DiscoverResult, Implementation, InitializeResult } from './schemas';

export interface McpClientOptions {
  /** Names the server in logs and errors, e.g. `server 'everything'`. */
  label: string;
  clientInfo: Implementation;
  logger?: Logger;
  /** Default per-request timeout. */
  requestTimeoutMs?: number;
  /** Timeout of the initialize handshake (default: requestTimeoutMs). */
  initializeTimeoutMs?: number;
  /** The version offered first (legacy: in initialize; modern: in each request's _meta). */
  protocolVersion?: string;
  /**
   * Which protocol era to speak: 'auto' (default) probes with server/discover and falls back to
   * initialize; 'modern' and 'legacy' skip the probe (for servers that misbehave on it).
   */
  protocolEra?: ProtocolEraSetting;
  /** How long the server/discover probe waits before the server is taken for legacy (default 5 s, less with a shorter handshake timeout). */
  eraProbeTimeoutMs?: number;
  /**
   * Extensions advertised in the `extensions` field of our capabilities (both eras), e.g. MCP Apps:
   * `{ 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } }`.
   */
  extensions?: Record<string, Record<string, unknown>>;
  onTrace?: (direction: MessageDirection, message: unknown) => void;
}

/** A client once its handshake is done. */
export interface ReadyClientState {
  kind: 'ready';
  /** In the modern era, made from server/discover (serverInfo from its _meta). */
  initializeResult: InitializeResult;
  era: ProtocolEra;
  discoverResult?: DiscoverResult;
}

export type McpClientState = { kind: 'new' } | { kind: 'connecting' } | ReadyClientState | { kind: 'closed'; info: TransportCloseInfo };
