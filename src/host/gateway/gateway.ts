// The gateway: a loopback Streamable HTTP server that lets other MCP clients (the editor's chat
// agent, any client on the machine) use the servers this host already runs. It never owns a process:
// each endpoint relays to one running ServerConnection, so one server process serves everyone.
import * as http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { ClientRequestHandlers } from '../../protocol/client';
import type { IncomingRequestContext } from '../../protocol/connection';
import type { LoggingMessageParams } from '../../protocol/schemas';
import { ErrorCode, McpError } from '../../protocol/errors';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../transport/framing';
import { DisposableStore, type Disposable } from '../../util/disposable';
import { errorMessage } from '../../util/errorMessage';
import { isRecord } from '../../util/isRecord';
import { MAX_MESSAGE_DEPTH, nestsDeeperThan, textMayNestDeeperThan } from '../../util/nesting';
import type { ServerConnection } from '../serverConnection';
import { checkRequestHeaders } from './guard';
import { GatewaySession, negotiateVersion, respondError } from './session';

export interface GatewayOptions {
  /** The bearer token clients must send; a random one when absent. */
  token?: string;
  /** 0 or absent: a free port. */
  port?: number;
  maxBodyBytes?: number;
  /** Tools a person disabled: left out of tools/list and refused when called. */
  isToolDisabled?(server: string, tool: string): boolean;
  /** Sessions kept per shared server; a new one past it ends the one unused longest. Default DEFAULT_MAX_SESSIONS_PER_SERVER. */
  maxSessionsPerServer?: number;
}

/**
 * A client that goes without DELETE (a window reloaded, a process killed) leaves its session
 * behind; each keeps its state until the gateway closes. Past this many per server, a new session
 * ends the one unused longest, those with nothing under way first, then those with only their
 * stream open; its calls in flight are answered with an error, and its client gets 404 next and,
 * as the transport asks of it, starts a new one.
 */
export const DEFAULT_MAX_SESSIONS_PER_SERVER = 32;

/** A new random token (32 bytes, URL-safe), as each window and `mcp-host serve` make one. */
export function newGatewayToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The path of a server's endpoint. */
export function endpointPath(serverName: string): string {
  return `/servers/${encodeURIComponent(serverName)}/mcp`;
}

interface SharedServer {
  readonly name: string;
  readonly connection: ServerConnection;
  readonly scope: DisposableStore;
}

export class Gateway implements Disposable {
  readonly token: string;
  private readonly server: http.Server;
  private readonly shared = new Map<string, SharedServer>();
  private readonly sessions = new Map<string, GatewaySession>();
  private readonly maxBodyBytes: number;
  private portValue = 0;

  constructor(private readonly options: GatewayOptions = {}) {
    this.token = options.token ?? newGatewayToken();
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) respondError(res, 500, undefined, ErrorCode.InternalError, `gateway error: ${errorMessage(err)}`);
        else res.end();
      });
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port ?? 0, '127.0.0.1', () => resolve());
    });
    this.portValue = (this.server.address() as AddressInfo).port;
    return this.portValue;
  }

  get port(): number {
    return this.portValue;
  }

  urlOf(serverName: string): string {
    return `http://127.0.0.1:${this.portValue}${endpointPath(serverName)}`;
  }

  /** Offers a running (or later running) connection at its endpoint. */
  share(connection: ServerConnection): void {
    if (this.shared.has(connection.name)) return;
    const scope = new DisposableStore();
    const entry: SharedServer = { name: connection.name, connection, scope };
    this.shared.set(connection.name, entry);
    scope.add(connection.onDidChangeState((state) => {
      if (state.kind === 'running') this.watchClient(entry);
      else this.failInFlight(entry.name, `server "${entry.name}" is ${state.kind}`);
    }));
    scope.add(connection.onResourceUpdated((uri) => this.broadcast(entry.name, 'notifications/resources/updated', { uri })));
    if (connection.state.kind === 'running') this.watchClient(entry);
  }

  unshare(name: string): void {
    const entry = this.shared.get(name);
    if (!entry) return;
    entry.scope.dispose();
    this.shared.delete(name);
    for (const [id, session] of this.sessions) {
      if (session.serverName === name) {
        session.close();
        this.sessions.delete(id);
      }
    }
  }

  /**
   * The person allowed or disallowed some of a shared server's tools (mcpHost.tools.disabled): its
   * clients are told to list the tools again, so a disabled tool leaves their lists at once.
   */
  toolsChanged(serverName: string): void {
    this.broadcast(serverName, 'notifications/tools/list_changed');
  }

  /**
   * The handlers a shared server's connection uses for the server's own requests (sampling,
   * elicitation). Nothing in such a request says which of our requests caused it: over stdio the
   * protocol ties none to a request, and the connection does not say on which HTTP stream one came.
   * So it goes to a gateway client only when that client is the one possible cause (causingSession);
   * otherwise, and when that client cannot answer (no such capability, an error), to `fallback`,
   * the editor's handlers, which ask the person.
   */
  serverRequestHandlers(serverName: string, fallback: ClientRequestHandlers = {}): ClientRequestHandlers {
    const route = (method: string, params: Record<string, unknown>, ctx: IncomingRequestContext, editor: Handler | undefined) => {
      const session = this.causingSession(serverName);
      if (!session) return refuse(editor, method, params, ctx);
      return session.requestFromServer(method, params, ctx.signal).catch((err: unknown) => {
        if (ctx.signal.aborted || !editor) throw err;
        return editor(params, ctx);
      });
    };
    return {
      listRoots: fallback.listRoots,
      createMessage: (params, ctx) => route('sampling/createMessage', params, ctx, fallback.createMessage),
      elicit: (params, ctx) => route('elicitation/create', params, ctx, fallback.elicit),
    };
  }

  async close(): Promise<void> {
    for (const name of [...this.shared.keys()]) this.unshare(name);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  dispose(): void {
    void this.close();
  }

  // --- HTTP -------------------------------------------------------------------

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const refused = checkRequestHeaders(req.headers, this.portValue, this.token);
    if (refused) {
      if (refused.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
      respondError(res, refused.status, undefined, ErrorCode.InvalidRequest, refused.message);
      return;
    }
    const entry = this.entryFor(req.url ?? '');
    if (!entry) {
      respondError(res, 404, undefined, ErrorCode.InvalidRequest, 'no shared server at this address');
      return;
    }
    const sessionId = header(req, 'mcp-session-id');
    if (req.method === 'POST') return this.handlePost(req, res, entry, sessionId);
    const session = sessionId ? this.sessions.get(sessionId) : undefined;
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (!sessionId) return respondError(res, 400, undefined, ErrorCode.InvalidRequest, 'Mcp-Session-Id header required');
      if (!session || session.serverName !== entry.name) return respondError(res, 404, undefined, ErrorCode.InvalidRequest, 'unknown session');
      if (req.method === 'DELETE') {
        session.close();
        this.sessions.delete(session.id);
        res.writeHead(200).end();
        return;
      }
      session.openStandaloneStream(res);
      return;
    }
    res.writeHead(405, { Allow: 'GET, POST, DELETE' }).end();
  }

  private async handlePost(req: http.IncomingMessage, res: http.ServerResponse, entry: SharedServer, sessionId: string | undefined): Promise<void> {
    const body = await readBody(req, this.maxBodyBytes);
    if (body === 'too-large') return respondError(res, 413, undefined, ErrorCode.InvalidRequest, `message larger than ${this.maxBodyBytes} bytes`);
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return respondError(res, 400, undefined, ErrorCode.ParseError, 'body is not JSON');
    }
    // As at every other arrival point (protocol/connection.ts): what the traffic view, the traces and
    // the relay walk is refused before any of them sees it.
    if (textMayNestDeeperThan(body.length) && nestsDeeperThan(message)) {
      return respondError(res, 400, idOf(message), ErrorCode.InvalidRequest, `message nests more than ${MAX_MESSAGE_DEPTH} levels deep; refused`);
    }
    if (!isRecord(message) || message.jsonrpc !== '2.0') return respondError(res, 400, undefined, ErrorCode.InvalidRequest, 'not a JSON-RPC 2.0 message');
    const id = message.id as string | number | undefined;
    if (message.method === 'initialize') return this.initialize(res, entry, id, message.params);
    if (!sessionId) return respondError(res, 400, id, ErrorCode.InvalidRequest, 'Mcp-Session-Id header required');
    const session = this.sessions.get(sessionId);
    if (!session || session.serverName !== entry.name) return respondError(res, 404, id, ErrorCode.InvalidRequest, 'unknown session');
    const version = header(req, 'mcp-protocol-version');
    if (version !== undefined && version !== session.protocolVersion) {
      return respondError(res, 400, id, ErrorCode.InvalidRequest, `MCP-Protocol-Version ${version} is not the session's (${session.protocolVersion})`);
    }
    await session.receive(message, res);
  }

  /** Ends the sessions of the new one's server past maxSessionsPerServer (never the new one): the least active first, then the longest unused. */
  private endSessionsPastCap(added: GatewaySession): void {
    const max = Math.max(1, this.options.maxSessionsPerServer ?? DEFAULT_MAX_SESSIONS_PER_SERVER);
    const others = [...this.sessions.values()].filter((s) => s.serverName === added.serverName && s !== added);
    if (others.length < max) return;
    others.sort((a, b) => a.activity - b.activity || a.lastUsed - b.lastUsed);
    for (const session of others.slice(0, others.length - max + 1)) {
      session.failInFlight(`the gateway ended this session: server "${added.serverName}" has more than ${max} sessions; start a new one`);
      session.close();
      this.sessions.delete(session.id);
    }
  }

  private initialize(res: http.ServerResponse, entry: SharedServer, id: string | number | undefined, params: unknown): void {
    const state = entry.connection.state;
    if (state.kind !== 'running') return respondError(res, 503, id, ErrorCode.InternalError, `server "${entry.name}" is not running (${state.kind})`);
    const p = isRecord(params) ? params : {};
    const version = negotiateVersion(typeof p.protocolVersion === 'string' ? p.protocolVersion : undefined);
    const clientInfo = isRecord(p.clientInfo) && typeof p.clientInfo.name === 'string' ? p.clientInfo.name.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 80) : 'unknown client';
    const session = new GatewaySession(randomUUID(), entry.name, entry.connection, version, clientInfo, isRecord(p.capabilities) ? p.capabilities : {}, this.options.isToolDisabled);
    this.sessions.set(session.id, session);
    this.endSessionsPastCap(session);
    const result = {
      protocolVersion: version,
      capabilities: state.capabilities,
      serverInfo: state.serverInfo,
      ...(state.instructions ? { instructions: state.instructions } : {}),
    };
    res.writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': session.id });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  }

  private entryFor(url: string): SharedServer | undefined {
    const pathname = url.split('?')[0];
    const match = /^\/servers\/([^/]+)\/mcp$/.exec(pathname);
    if (!match) return undefined;
    let name: string;
    try {
      name = decodeURIComponent(match[1]);
    } catch {
      return undefined;
    }
    return this.shared.get(name);
  }

  // --- the server's side --------------------------------------------------------

  /** The running client's change signals go to every session of that server. */
  private watchClient(entry: SharedServer): void {
    const client = entry.connection.client;
    if (!client) return;
    const launch = new DisposableStore();
    entry.scope.add(launch);
    launch.add(client.onToolsListChanged(() => this.broadcast(entry.name, 'notifications/tools/list_changed')));
    launch.add(client.onResourcesListChanged(() => this.broadcast(entry.name, 'notifications/resources/list_changed')));
    launch.add(client.onPromptsListChanged(() => this.broadcast(entry.name, 'notifications/prompts/list_changed')));
    launch.add(client.onLogMessage((params) => this.broadcast(entry.name, 'notifications/message', asLogged(entry.connection, params))));
    launch.add(client.onClose(() => launch.dispose()));
  }

  private broadcast(serverName: string, method: string, params?: Record<string, unknown>): void {
    for (const session of this.sessions.values()) if (session.serverName === serverName) session.notify(method, params);
  }

  private failInFlight(serverName: string, reason: string): void {
    for (const session of this.sessions.values()) if (session.serverName === serverName) session.failInFlight(reason);
  }

  /**
   * The gateway session whose call caused a server's request, when no other can have: the one
   * session with calls relayed to the server and not answered, while the host itself (the person,
   * the editor) has nothing else in flight there. Two sessions, or a request of the host's own, and
   * the question is the person's. In the modern era (2026-07-28) a server asks only in the results of
   * our requests, and a relayed result goes back to its client as it is: whatever asks there is ours.
   */
  private causingSession(serverName: string): GatewaySession | undefined {
    const connection = this.shared.get(serverName)?.connection;
    const client = connection?.client;
    if (!connection || !client || client.era === 'modern') return undefined;
    let cause: GatewaySession | undefined;
    for (const session of this.sessions.values()) {
      if (session.serverName !== serverName || session.relaying === 0) continue;
      if (cause) return undefined;
      cause = session;
    }
    return cause && connection.requestsInFlight <= cause.relaying ? cause : undefined;
  }
}

/**
 * A server's log message as the person's log has it (ProtocolTrace.logServerMessage): its data and
 * logger name cut at LOG_LINE_MAX and redacted with the server's secrets. Data that needed neither
 * keeps its form; other data becomes the text the log shows.
 */
function asLogged(connection: ServerConnection, params: LoggingMessageParams): Record<string, unknown> {
  const text = typeof params.data === 'string' ? params.data : (JSON.stringify(params.data) ?? '');
  const logged = connection.redactLogLine(text);
  return {
    ...params,
    ...(params.logger === undefined ? {} : { logger: connection.redactLogLine(params.logger) }),
    ...(logged === text ? {} : { data: logged }),
  };
}

type Handler = (params: Record<string, unknown>, ctx: IncomingRequestContext) => Promise<Record<string, unknown>>;

function refuse(
  handler: Handler | undefined,
  method: string,
  params: Record<string, unknown>,
  ctx: IncomingRequestContext,
): Promise<Record<string, unknown>> {
  if (handler) return handler(params, ctx);
  return Promise.reject(new McpError(ErrorCode.MethodNotFound, `no client is there to answer ${method}`));
}

/** A message's id, when it has one a JSON-RPC error can carry. */
function idOf(message: unknown): string | number | undefined {
  const id = isRecord(message) ? message.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The body, counted while it arrives and cut at the limit. */
function readBody(req: http.IncomingMessage, limit: number): Promise<string | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}
