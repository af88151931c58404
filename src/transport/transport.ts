import type { Disposable } from '../util/disposable';
import type { Event } from '../util/event';

/**
 * A listener of incoming messages. `textLength`, when the transport knows it, is the length of
 * the message's JSON text (characters or UTF-8 bytes): the connection skips its nesting walk for
 * a text too short to nest too deep (util/nesting.ts). Transports that do not know it omit it.
 */
export type MessageListener = (value: unknown, textLength?: number) => void;

/** Why a transport closed. `expected` is true when we asked it to close. */
export interface TransportCloseInfo {
  readonly reason: string;
  readonly expected: boolean;
  readonly exitCode?: number | null;
  readonly signal?: NodeJS.Signals | null;
  /** The last lines the process wrote to stderr, oldest first. */
  readonly stderrTail?: readonly string[];
  readonly error?: Error;
}

/** A framing- or parse-level problem with incoming bytes; the transport stays open. */
export interface TransportWarning {
  readonly message: string;
  /** A short, log-safe excerpt of the offending input. */
  readonly excerpt?: string;
  /** Set when a message was refused for its size, so the request it answers can fail now. */
  readonly oversize?: OversizeNotice;
}

export interface OversizeNotice {
  /** Its size, or when `complete` is false, the bytes seen before it was refused. */
  readonly bytes: number;
  readonly complete: boolean;
  readonly limit: number;
  /** The id of the request it answers, when that could be read from its first or last bytes. */
  readonly answers?: number | string;
  /** How a person raises the limit. */
  readonly hint?: string;
}

/** How a message is sent; a transport may ignore what it has no use for. */
export interface SendOptions {
  /**
   * Likely nothing to gather this message with: the only request under way, after a message that
   * was too (a caller that waits for each answer). A transport that writes a tick's messages
   * together may write this one at once (if nothing is queued before it).
   */
  readonly alone?: boolean;
}

/**
 * Moves JSON-RPC payloads. The transport delivers parsed JSON values (not yet
 * validated as JSON-RPC) and sends already-serialisable objects.
 */
export interface Transport {
  /** Starts the transport; resolves once messages may be sent. Rejects if it cannot start. */
  start(): Promise<void>;
  /**
   * Sends one JSON-RPC message (or batch). Resolves when written (respecting back-pressure).
   * The messages sent in one tick may share one promise (StdioTransport writes them together),
   * while it is pending; a promise is never returned again once its tick is over, nor once it
   * has settled: JsonRpcConnection takes the requests of one promise for one write, timed from
   * its first.
   */
  send(message: unknown, options?: SendOptions): Promise<void>;
  /** Closes gracefully; a second call forces. Resolves when fully closed. */
  close(): Promise<void>;
  readonly onMessage: (listener: MessageListener) => Disposable;
  readonly onClose: Event<TransportCloseInfo>;
  readonly onWarning: Event<TransportWarning>;
  /** Free-form log lines (e.g. stderr of a child process). */
  readonly onLog: Event<string>;
  readonly isClosed: boolean;
  /** The process id, for transports that start a process. */
  readonly pid?: number;
  /**
   * True for a transport of the legacy era alone (HTTP+SSE, 2024-11-05: the 2026-07-28 protocol
   * has no such transport). An 'auto' client sends `initialize` at once, without the era probe.
   * Read once, after start(): a transport that finds out its kind while starting says so by then.
   */
  readonly legacyEraOnly?: boolean;
  /**
   * Names the server's endpoint for what the process remembers of it across connections (HTTP:
   * origin, path and a query digest, endpointMemory.ts; its era: protocol/eraCache.ts). Undefined over stdio,
   * whose era is learned anew with each process.
   */
  readonly endpointKey?: string;
  /**
   * Told the negotiated protocol version once the handshake is done (HTTP transports send
   * it as the MCP-Protocol-Version header on every later request). Optional: stdio ignores it.
   * The modern era sets it before its first request; undefined takes it back (the era probe
   * failed and `initialize` goes out without one).
   */
  setProtocolVersion?(version: string | undefined): void;
  /**
   * Streamable HTTP, 2026-07-28: learns a listed tool's `x-mcp-header` annotations, so that its
   * calls carry them as Mcp-Param-* headers. Returns why the definition is invalid (the client
   * then leaves the tool out of tools/list), or undefined. Transports without such headers
   * (stdio, HTTP+SSE) do not have it.
   */
  registerTool?(name: string, inputSchema: unknown): string | undefined;
}

/** An error from the transport; `code` is a Node errno code ('ENOENT', 'EACCES', 'EPIPE', ...) or 'ECLOSED'. */
export class TransportError extends Error {
  readonly code: string;
  readonly label?: string;
  constructor(message: string, code: string, options?: { cause?: unknown; label?: string }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'TransportError';
    this.code = code;
    this.label = options?.label;
  }
}
