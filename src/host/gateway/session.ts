// One gateway client's session: its requests relayed to the shared server, and what the server sends
// back routed to it (progress by its token, the server's own requests on the stream of the call that
// caused them, list_changed and logging on its GET stream).
import type * as http from 'node:http';
import { ErrorCode, McpError } from '../../protocol/errors';
import { errorMessage } from '../../util/errorMessage';
import { isRecord } from '../../util/isRecord';
import { MetaKey } from '../../protocol/era';
import type { ServerConnection } from '../serverConnection';

/**
 * `_meta` keys that are the client's own in the modern era (its version, identity, capabilities,
 * log level): toward the shared server the client is MCP Host, whose connection sets them; an
 * agent's values are dropped rather than sent in their place (the server would see another
 * client, or a version the session never agreed on).
 */
const HOST_OWNED_META: ReadonlySet<string> = new Set([MetaKey.protocolVersion, MetaKey.clientInfo, MetaKey.clientCapabilities, MetaKey.logLevel]);

/** What the gateway speaks to its clients (the Streamable HTTP eras VS Code and the SDK client use). */
export const GATEWAY_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

export function negotiateVersion(requested: string | undefined): string {
  return requested !== undefined && GATEWAY_PROTOCOL_VERSIONS.includes(requested) ? requested : GATEWAY_PROTOCOL_VERSIONS[0];
}

type Id = string | number;

interface InFlight {
  readonly abort: AbortController;
  readonly stream: http.ServerResponse;
}

interface PendingServerRequest {
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
}

export class GatewaySession {
  private readonly inFlight = new Map<Id, InFlight>();
  private readonly pending = new Map<string, PendingServerRequest>();
  private standalone: http.ServerResponse | undefined;
  private nextServerRequest = 1;
  private closed = false;
  /** Calls of this session sent to the server and not yet answered (Gateway.causingSession). */
  relaying = 0;
  /** When the client last sent something, opened its stream or got an answer (performance.now()). */
  lastUsed = performance.now();

  constructor(
    readonly id: string,
    readonly serverName: string,
    private readonly connection: ServerConnection,
    readonly protocolVersion: string,
    /** The client's name from its initialize, shown in the traffic view. */
    readonly clientName: string,
    private readonly clientCapabilities: Record<string, unknown>,
    private readonly isToolDisabled?: (server: string, tool: string) => boolean,
  ) {}

  /**
   * How much of it is under way: 0 nothing (a client gone without DELETE looks so), 1 only its
   * stream open (a live client between calls), 2 calls in flight.
   */
  get activity(): 0 | 1 | 2 {
    return this.inFlight.size > 0 ? 2 : this.standalone ? 1 : 0;
  }

  async receive(message: Record<string, unknown>, res: http.ServerResponse): Promise<void> {
    this.lastUsed = performance.now();
    const method = typeof message.method === 'string' ? message.method : undefined;
    const id = message.id as Id | undefined;
    if (method === undefined) {
      this.answerServerRequest(message);
      res.writeHead(202).end();
      return;
    }
    if (id === undefined) {
      this.clientNotification(method, isRecord(message.params) ? message.params : {});
      res.writeHead(202).end();
      return;
    }
    if (this.inFlight.has(id)) {
      // The first call keeps its entry: its answer, and its cancellation when its stream closes.
      respondError(res, 400, id, ErrorCode.InvalidRequest, `request id ${JSON.stringify(id)} is already in flight in this session`);
      return;
    }
    await this.relay(id, method, isRecord(message.params) ? message.params : undefined, res);
  }

  /** A notification to this client on its GET stream (dropped when it has none, as the spec allows). */
  notify(method: string, params?: Record<string, unknown>): void {
    if (this.standalone) writeEvent(this.standalone, { jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  openStandaloneStream(res: http.ServerResponse): void {
    if (this.standalone) {
      res.writeHead(409).end();
      return;
    }
    this.lastUsed = performance.now();
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    res.flushHeaders();
    this.standalone = res;
    res.on('close', () => {
      if (this.standalone === res) this.standalone = undefined;
    });
  }

  /** A request of the server (sampling, elicitation) for this client, on the stream of its call. */
  requestFromServer(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    const capability = method === 'sampling/createMessage' ? 'sampling' : 'elicitation';
    if (!isRecord(this.clientCapabilities[capability])) {
      return Promise.reject(new McpError(ErrorCode.MethodNotFound, `the gateway client "${this.clientName}" did not declare '${capability}'`));
    }
    const stream = this.latestStream();
    if (!stream) return Promise.reject(new McpError(ErrorCode.InternalError, 'the gateway client has no open stream'));
    const id = `gateway-${this.nextServerRequest++}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      signal.addEventListener('abort', () => {
        if (!this.pending.delete(id)) return;
        writeEvent(stream, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'cancelled by the server' } });
        reject(new McpError(ErrorCode.RequestTimeout, 'cancelled'));
      });
      writeEvent(stream, { jsonrpc: '2.0', id, method, params });
    });
  }

  /** The server went away: every call of this session in flight gets an error now. */
  failInFlight(reason: string): void {
    for (const [id, call] of this.inFlight) {
      writeEvent(call.stream, { jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: reason } });
      call.stream.end();
      call.abort.abort();
    }
    this.inFlight.clear();
  }

  close(): void {
    this.closed = true;
    for (const call of this.inFlight.values()) {
      call.abort.abort();
      call.stream.end();
    }
    this.inFlight.clear();
    for (const p of this.pending.values()) p.reject(new McpError(ErrorCode.InternalError, 'the gateway session ended'));
    this.pending.clear();
    this.standalone?.end();
    this.standalone = undefined;
  }

  private async relay(id: Id, method: string, params: Record<string, unknown> | undefined, res: http.ServerResponse): Promise<void> {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    res.flushHeaders();
    const call: InFlight = { abort: new AbortController(), stream: res };
    this.inFlight.set(id, call);
    res.on('close', () => {
      // The client went away: the server is told to stop working on it.
      if (this.inFlight.get(id) === call) {
        this.inFlight.delete(id);
        call.abort.abort();
      }
    });
    let answer: Record<string, unknown>;
    try {
      answer = { result: await this.answer(method, params, call) };
    } catch (err) {
      const error = err instanceof McpError ? err.toJson() : { code: ErrorCode.InternalError, message: errorMessage(err) };
      // Redacted as the person's views show it.
      answer = { error: { ...error, message: this.connection.redact(error.message) } };
    }
    if (this.inFlight.get(id) !== call || this.closed) return;
    this.inFlight.delete(id);
    this.lastUsed = performance.now();
    writeEvent(res, { jsonrpc: '2.0', id, ...answer });
    res.end();
  }

  private async answer(method: string, params: Record<string, unknown> | undefined, call: InFlight): Promise<Record<string, unknown>> {
    if (method === 'ping') return {};
    if (method === 'tools/call') {
      const tool = typeof params?.name === 'string' ? params.name : '';
      if (this.isToolDisabled?.(this.serverName, tool)) {
        throw new McpError(ErrorCode.InvalidParams, `The tool "${tool}" of server "${this.serverName}" is disabled in MCP Host (mcpHost.tools.disabled).`);
      }
    }
    const meta = isRecord(params?._meta) ? params._meta : undefined;
    const progressToken = meta?.progressToken;
    const { _meta: _dropped, ...rest } = params ?? {};
    const otherMeta = meta ? Object.fromEntries(Object.entries(meta).filter(([k]) => k !== 'progressToken' && !HOST_OWNED_META.has(k))) : undefined;
    const relayed = { ...rest, ...(otherMeta && Object.keys(otherMeta).length > 0 ? { _meta: otherMeta } : {}) };
    let result: Record<string, unknown>;
    this.relaying++;
    try {
      result = await this.connection.relayRequest(method, params ? relayed : undefined, {
        signal: call.abort.signal,
        onProgress:
          progressToken === undefined
            ? undefined
            : (update) => writeEvent(call.stream, { jsonrpc: '2.0', method: 'notifications/progress', params: { ...update, progressToken } }),
      }, { via: 'gateway', name: this.clientName });
    } finally {
      this.relaying--;
    }
    if (method === 'tools/list' && Array.isArray(result.tools) && this.isToolDisabled) {
      return { ...result, tools: result.tools.filter((t) => !(isRecord(t) && typeof t.name === 'string' && this.isToolDisabled!(this.serverName, t.name))) };
    }
    return result;
  }

  private clientNotification(method: string, params: Record<string, unknown>): void {
    if (method === 'notifications/cancelled') {
      const requestId = params.requestId as Id | undefined;
      const call = requestId === undefined ? undefined : this.inFlight.get(requestId);
      if (call) {
        this.inFlight.delete(requestId!);
        call.abort.abort();
        call.stream.end();
      }
    }
    // notifications/initialized and roots changes: the shared server's roots are the host's.
  }

  private answerServerRequest(message: Record<string, unknown>): void {
    const id = String(message.id);
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (isRecord(message.result)) pending.resolve(message.result);
    else {
      const error = isRecord(message.error) ? message.error : {};
      pending.reject(new McpError(typeof error.code === 'number' ? error.code : ErrorCode.InternalError, typeof error.message === 'string' ? error.message : 'the client answered with an error'));
    }
  }

  /** The stream of the latest call in flight, else the GET stream. */
  private latestStream(): http.ServerResponse | undefined {
    let last: http.ServerResponse | undefined;
    for (const call of this.inFlight.values()) last = call.stream;
    return last ?? this.standalone;
  }
}

export function respondError(res: http.ServerResponse, status: number, id: string | number | undefined, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message } }));
}

function writeEvent(res: http.ServerResponse, message: unknown): void {
  if (res.writableEnded) return;
  res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}
