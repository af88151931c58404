import type { ZodSchema } from './zod';
import type { Transport, TransportCloseInfo } from '../transport/transport';
import { Emitter, type Event } from '../util/event';
import type { Disposable } from '../util/disposable';
import { nullLogger, type Logger } from '../util/logger';
import { JsonRpcConnection, errorText, type MessageDirection, type RequestOptions, type IncomingRequestContext } from './connection';
import { McpError, ErrorCode, UnsupportedProtocolVersionError } from './errors';
import {
  CallToolResultSchema,
  CompleteResultSchema,
  EmptyResultSchema,
  GetPromptResultSchema,
  InitializeResultSchema,
  ListPromptsResultSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
  LoggingMessageParamsSchema,
  ReadResourceResultSchema,
  ResourceUpdatedParamsSchema,
  type CallToolResult,
  type ClientCapabilities,
  type CompleteResult,
  type CompletionReference,
  type GetPromptResult,
  type Implementation,
  type InitializeResult,
  type LoggingLevel,
  type LoggingMessageParams,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Root,
  type ServerCapabilities,
  type Tool,
} from './schemas';

/** The protocol version we offer, and every version we accept from a server. */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/** A guard against servers whose `nextCursor` never ends. */
export const MAX_LIST_PAGES = 10_000;

export interface McpClientOptions {
  /** Names the server in logs and errors, e.g. `server 'everything'`. */
  label: string;
  clientInfo: Implementation;
  logger?: Logger;
  /** Default per-request timeout. */
  requestTimeoutMs?: number;
  /** Timeout of the initialize handshake (default: requestTimeoutMs). */
  initializeTimeoutMs?: number;
  protocolVersion?: string;
  onTrace?: (direction: MessageDirection, message: unknown) => void;
}

/** Handlers for the requests a server may send to its client. */
export interface ClientRequestHandlers {
  listRoots?: (context: IncomingRequestContext) => Promise<Root[]> | Root[];
  createMessage?: (params: Record<string, unknown>, context: IncomingRequestContext) => Promise<Record<string, unknown>>;
  elicit?: (params: Record<string, unknown>, context: IncomingRequestContext) => Promise<Record<string, unknown>>;
}

export type McpClientState =
  | { kind: 'new' }
  | { kind: 'connecting' }
  | { kind: 'ready'; initializeResult: InitializeResult }
  | { kind: 'closed'; info: TransportCloseInfo };

type Capability = keyof ServerCapabilities;

/**
 * An MCP client over one transport: the initialize handshake, capability-aware
 * typed calls, pagination, and events for the server's notifications.
 */
export class McpClient implements Disposable {
  readonly connection: JsonRpcConnection;
  private readonly logger: Logger;
  private state: McpClientState = { kind: 'new' };
  private readonly handlers: ClientRequestHandlers;
  private readonly disposables: Disposable[] = [];

  private readonly toolsChanged = new Emitter<void>();
  private readonly resourcesChanged = new Emitter<void>();
  private readonly promptsChanged = new Emitter<void>();
  private readonly resourceUpdated = new Emitter<string>();
  private readonly logMessage = new Emitter<LoggingMessageParams>();

  readonly onToolsListChanged: Event<void> = this.toolsChanged.event;
  readonly onResourcesListChanged: Event<void> = this.resourcesChanged.event;
  readonly onPromptsListChanged: Event<void> = this.promptsChanged.event;
  readonly onResourceUpdated: Event<string> = this.resourceUpdated.event;
  readonly onLogMessage: Event<LoggingMessageParams> = this.logMessage.event;
  readonly onClose: Event<TransportCloseInfo>;

  constructor(
    private readonly transport: Transport,
    private readonly options: McpClientOptions,
    handlers: ClientRequestHandlers = {},
  ) {
    this.logger = options.logger ?? nullLogger;
    this.handlers = handlers;
    this.connection = new JsonRpcConnection(transport, {
      label: options.label,
      logger: this.logger,
      defaultTimeoutMs: options.requestTimeoutMs,
      onTrace: options.onTrace,
    });
    this.onClose = this.connection.onClose;
    this.disposables.push(
      this.connection.onClose((info) => {
        this.state = { kind: 'closed', info };
      }),
      this.connection.onNotification('notifications/tools/list_changed', () => this.toolsChanged.fire()),
      this.connection.onNotification('notifications/resources/list_changed', () => this.resourcesChanged.fire()),
      this.connection.onNotification('notifications/prompts/list_changed', () => this.promptsChanged.fire()),
      this.connection.onNotification('notifications/resources/updated', (params) => {
        const parsed = ResourceUpdatedParamsSchema.safeParse(params);
        if (parsed.success) this.resourceUpdated.fire(parsed.data.uri);
        else this.logger.warn(`[${options.label}] ignored an invalid notifications/resources/updated`);
      }),
      this.connection.onNotification('notifications/message', (params) => {
        const parsed = LoggingMessageParamsSchema.safeParse(params);
        if (parsed.success) this.logMessage.fire(parsed.data);
        else this.logger.warn(`[${options.label}] ignored an invalid notifications/message`);
      }),
    );
    this.installHandlers();
  }

  get currentState(): McpClientState {
    return this.state;
  }

  get initializeResult(): InitializeResult | undefined {
    return this.state.kind === 'ready' ? this.state.initializeResult : undefined;
  }

  get serverInfo(): Implementation | undefined {
    return this.initializeResult?.serverInfo;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.initializeResult?.capabilities;
  }

  get protocolVersion(): string | undefined {
    return this.initializeResult?.protocolVersion;
  }

  get instructions(): string | undefined {
    return this.initializeResult?.instructions;
  }

  /** What we tell the server we can do, derived from the installed handlers. */
  get clientCapabilities(): ClientCapabilities {
    const capabilities: ClientCapabilities = {};
    if (this.handlers.listRoots) capabilities.roots = { listChanged: true };
    if (this.handlers.createMessage) capabilities.sampling = {};
    if (this.handlers.elicit) capabilities.elicitation = { form: {}, url: {} };
    return capabilities;
  }

  hasCapability(capability: Capability): boolean {
    return this.serverCapabilities?.[capability] !== undefined;
  }

  /**
   * Starts the transport and performs the handshake: `initialize`, a version check,
   * then `notifications/initialized`. Until it resolves, only `ping` may be sent.
   */
  async connect(signal?: AbortSignal): Promise<InitializeResult> {
    if (this.state.kind !== 'new') throw new Error(`connect() called twice on ${this.options.label}`);
    this.state = { kind: 'connecting' };
    await this.transport.start();
    const offered = this.options.protocolVersion ?? LATEST_PROTOCOL_VERSION;
    let result: InitializeResult;
    try {
      result = await this.connection.request(
        'initialize',
        { protocolVersion: offered, capabilities: this.clientCapabilities, clientInfo: this.options.clientInfo },
        InitializeResultSchema,
        { timeoutMs: this.options.initializeTimeoutMs ?? this.options.requestTimeoutMs, signal },
      );
    } catch (err) {
      await this.closeQuietly();
      throw err;
    }
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
      await this.closeQuietly();
      throw new UnsupportedProtocolVersionError(offered, result.protocolVersion, SUPPORTED_PROTOCOL_VERSIONS);
    }
    if (this.connection.isClosed) {
      throw new McpError(ErrorCode.ConnectionClosed, `${this.options.label} closed during the handshake`);
    }
    this.state = { kind: 'ready', initializeResult: result };
    // HTTP transports send the negotiated version as a header on every later request.
    this.transport.setProtocolVersion?.(result.protocolVersion);
    await this.connection.notify('notifications/initialized');
    return result;
  }

  // --- typed calls ---------------------------------------------------------

  ping(options?: RequestOptions): Promise<void> {
    return this.call('ping', undefined, EmptyResultSchema, options, undefined, true).then(() => undefined);
  }

  listTools(cursor?: string, options?: RequestOptions) {
    return this.call('tools/list', cursorParams(cursor), ListToolsResultSchema, options, 'tools');
  }

  listAllTools(options?: RequestOptions): Promise<Tool[]> {
    return this.collectPages('tools/list', (c) => this.listTools(c, options), (r) => r.tools);
  }

  callTool(name: string, args: Record<string, unknown> = {}, options?: RequestOptions): Promise<CallToolResult> {
    return this.call('tools/call', { name, arguments: args }, CallToolResultSchema, options, 'tools');
  }

  listResources(cursor?: string, options?: RequestOptions) {
    return this.call('resources/list', cursorParams(cursor), ListResourcesResultSchema, options, 'resources');
  }

  listAllResources(options?: RequestOptions): Promise<Resource[]> {
    return this.collectPages('resources/list', (c) => this.listResources(c, options), (r) => r.resources);
  }

  listResourceTemplates(cursor?: string, options?: RequestOptions) {
    return this.call('resources/templates/list', cursorParams(cursor), ListResourceTemplatesResultSchema, options, 'resources');
  }

  listAllResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return this.collectPages('resources/templates/list', (c) => this.listResourceTemplates(c, options), (r) => r.resourceTemplates);
  }

  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.call('resources/read', { uri }, ReadResourceResultSchema, options, 'resources');
  }

  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (!this.serverCapabilities?.resources?.subscribe) {
      throw this.missingCapability('resources/subscribe', 'resources.subscribe');
    }
    await this.call('resources/subscribe', { uri }, EmptyResultSchema, options, 'resources');
  }

  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (!this.serverCapabilities?.resources?.subscribe) {
      throw this.missingCapability('resources/unsubscribe', 'resources.subscribe');
    }
    await this.call('resources/unsubscribe', { uri }, EmptyResultSchema, options, 'resources');
  }

  listPrompts(cursor?: string, options?: RequestOptions) {
    return this.call('prompts/list', cursorParams(cursor), ListPromptsResultSchema, options, 'prompts');
  }

  listAllPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return this.collectPages('prompts/list', (c) => this.listPrompts(c, options), (r) => r.prompts);
  }

  getPrompt(name: string, args: Record<string, string> = {}, options?: RequestOptions): Promise<GetPromptResult> {
    return this.call('prompts/get', { name, arguments: args }, GetPromptResultSchema, options, 'prompts');
  }

  complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options?: RequestOptions,
  ): Promise<CompleteResult> {
    const params: Record<string, unknown> = { ref, argument };
    if (context) params.context = context;
    return this.call('completion/complete', params, CompleteResultSchema, options, 'completions');
  }

  async setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    await this.call('logging/setLevel', { level }, EmptyResultSchema, options, 'logging');
  }

  /** Tells the server the roots changed (it will ask `roots/list` again). */
  async notifyRootsChanged(): Promise<void> {
    if (this.state.kind !== 'ready' || !this.handlers.listRoots) return;
    await this.connection.notify('notifications/roots/list_changed');
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
    this.connection.dispose();
    for (const e of [this.toolsChanged, this.resourcesChanged, this.promptsChanged, this.resourceUpdated, this.logMessage]) e.dispose();
  }

  // --- internals -----------------------------------------------------------

  private call<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: ZodSchema<T>,
    options: RequestOptions | undefined,
    capability: Capability | undefined,
    allowBeforeReady = false,
  ): Promise<T> {
    const state = this.state;
    if (state.kind === 'ready') {
      // Performance: the capabilities straight from the state (hasCapability() goes through three getters).
      if (capability && state.initializeResult.capabilities[capability] === undefined) {
        return Promise.reject(this.missingCapability(method, capability));
      }
      return this.connection.request(method, params, schema, options);
    }
    if (!(allowBeforeReady && state.kind === 'connecting')) {
      const why = state.kind === 'closed' ? `the connection closed (${state.info.reason})` : 'the handshake has not completed';
      return Promise.reject(new McpError(ErrorCode.ConnectionClosed, `Cannot send ${method} to ${this.options.label}: ${why}`));
    }
    if (capability && !this.hasCapability(capability)) {
      return Promise.reject(this.missingCapability(method, capability));
    }
    return this.connection.request(method, params, schema, options);
  }

  private missingCapability(method: string, capability: string): McpError {
    return new McpError(
      ErrorCode.MethodNotFound,
      `${this.options.label} does not offer ${method}: it did not declare the '${capability}' capability`,
    );
  }

  private async collectPages<R extends { nextCursor?: string }, I>(
    method: string,
    fetchPage: (cursor: string | undefined) => Promise<R>,
    items: (page: R) => I[],
  ): Promise<I[]> {
    const all: I[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await fetchPage(cursor);
      const pageItems = items(result);
      for (let i = 0; i < pageItems.length; i++) all.push(pageItems[i]);
      cursor = result.nextCursor;
      if (cursor === undefined) return all;
      if (seen.has(cursor)) {
        throw new McpError(
          ErrorCode.InvalidResult,
          `${this.options.label} returned the cursor ${JSON.stringify(cursor)} of ${method} twice; stopped paging to avoid an endless loop`,
        );
      }
      seen.add(cursor);
    }
    throw new McpError(ErrorCode.InvalidResult, `${this.options.label} returned more than ${MAX_LIST_PAGES} pages for ${method}; stopped`);
  }

  private installHandlers(): void {
    const { listRoots, createMessage, elicit } = this.handlers;
    const unsupported = (method: string, capability: string) => () => {
      throw new McpError(ErrorCode.MethodNotFound, `This client does not support ${method} (no '${capability}' capability was declared)`);
    };
    this.disposables.push(
      this.connection.setRequestHandler(
        'roots/list',
        listRoots ? async (_params, ctx) => ({ roots: await listRoots(ctx) }) : unsupported('roots/list', 'roots'),
      ),
      this.connection.setRequestHandler(
        'sampling/createMessage',
        createMessage ? (params, ctx) => createMessage(params, ctx) : unsupported('sampling/createMessage', 'sampling'),
      ),
      this.connection.setRequestHandler(
        'elicitation/create',
        elicit ? (params, ctx) => elicit(params, ctx) : unsupported('elicitation/create', 'elicitation'),
      ),
    );
  }

  private async closeQuietly(): Promise<void> {
    try {
      await this.connection.close();
    } catch (err) {
      this.logger.debug(`[${this.options.label}] close after a failed handshake: ${errorText(err)}`);
    }
  }
}

function cursorParams(cursor: string | undefined): Record<string, unknown> | undefined {
  return cursor === undefined ? undefined : { cursor };
}
