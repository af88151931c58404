// The MCP client over one transport. Its parts live beside it: the options and states
// (clientOptions.ts), the handshake of either era (handshake.ts), the modern era's requests with
// MRTR and result checks (modernRequests.ts), paging (pagination.ts), tasks (tasks.ts) and the
// modern listen stream (subscriptions.ts). Here: the typed calls of every feature and the events.
import type { ZodSchema } from './zod';
import type { Transport, TransportCloseInfo } from '../transport/transport';
import { Emitter, type Event } from '../util/event';
import type { Disposable } from '../util/disposable';
import { nullLogger, type Logger } from '../util/logger';
import { errorMessage } from '../util/errorMessage';
import { installClientHandlers, type ClientRequestHandlers } from './handlers';
import type { McpClientOptions, McpClientState, ReadyClientState } from './clientOptions';
import { JsonRpcConnection, type RequestOptions } from './connection';
import { McpError, ErrorCode, RemoteError } from './errors';
import { ModernErrorCode, type ProtocolEra } from './era';
import { handshake, type HandshakeContext } from './handshake';
import { answerInputRequest } from './mrtr';
import { ModernRequests } from './modernRequests';
import { collectPages, cursorParams, type ReceivedCacheHints } from './pagination';
import { ListenSubscriptions } from './subscriptions';
import { TaskClient, type TaskCallOptions } from './tasks';
import {
  CallToolResultSchema,
  CompleteResultSchema,
  DiscoverResultSchema,
  EmptyResultSchema,
  GetPromptResultSchema,
  ListPromptsResultSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
  LoggingMessageParamsSchema,
  ReadResourceResultSchema,
  ResourceUpdatedParamsSchema,
  type CallToolResult,
  type ClientCapabilities,
  type DiscoverResult,
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
  type ServerCapabilities,
  type Tool,
} from './schemas';

export type { ClientRequestHandlers };
export type { McpClientOptions, McpClientState } from './clientOptions';
export { DEFAULT_ERA_PROBE_TIMEOUT_MS, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from './handshake';
export { MAX_LIST_PAGES } from './pagination';

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
  /** The modern era's listen stream, made on first need. */
  private listen: ListenSubscriptions | undefined;
  /** The modern era's requests: its `_meta`, MRTR, result checks. */
  private readonly modern: ModernRequests;
  /** ttlMs / cacheScope of the last complete list per method (see cacheHints()). */
  private readonly listHints = new Map<string, ReceivedCacheHints>();

  private readonly toolsChanged = new Emitter<void>();
  private readonly resourcesChanged = new Emitter<void>();
  private readonly promptsChanged = new Emitter<void>();
  private readonly resourceUpdated = new Emitter<string>();
  private readonly logMessage = new Emitter<LoggingMessageParams>();

  // In the modern era the first listener opens the subscriptions/listen stream.
  readonly onToolsListChanged: Event<void> = this.listening(this.toolsChanged.event);
  readonly onResourcesListChanged: Event<void> = this.listening(this.resourcesChanged.event);
  readonly onPromptsListChanged: Event<void> = this.listening(this.promptsChanged.event);
  readonly onResourceUpdated: Event<string> = this.listening(this.resourceUpdated.event);
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
    this.modern = new ModernRequests({
      connection: this.connection,
      transport,
      label: options.label,
      clientInfo: options.clientInfo,
      logger: this.logger,
      handlers,
      clientCapabilities: () => this.clientCapabilities,
      onVersion: (version) => {
        if (this.state.kind === 'ready' && this.state.initializeResult.protocolVersion !== version) {
          this.state.initializeResult = { ...this.state.initializeResult, protocolVersion: version };
        }
      },
    });
    this.disposables.push(
      this.connection.onClose((info) => {
        this.state = { kind: 'closed', info };
      }),
      this.connection.onNotification('notifications/tools/list_changed', (params) => this.fromStream(params) && this.toolsChanged.fire()),
      this.connection.onNotification('notifications/resources/list_changed', (params) => this.fromStream(params) && this.resourcesChanged.fire()),
      this.connection.onNotification('notifications/prompts/list_changed', (params) => this.fromStream(params) && this.promptsChanged.fire()),
      this.connection.onNotification('notifications/resources/updated', (params) => {
        if (!this.fromStream(params)) return;
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
    this.disposables.push(...installClientHandlers(this.connection, handlers));
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

  /** The era in use once connected: 'modern' (2026-07-28 on) or 'legacy' (initialize). */
  get era(): ProtocolEra | undefined {
    return this.state.kind === 'ready' ? this.state.era : undefined;
  }

  /** The server/discover result, in the modern era. */
  get discoverResult(): DiscoverResult | undefined {
    return this.state.kind === 'ready' ? this.state.discoverResult : undefined;
  }

  /**
   * The caching hints of the last complete list of `method` (e.g. 'tools/list'): the smallest
   * `ttlMs` of its pages and 'private' if any page said so, with when it arrived
   * (performance.now()). Undefined when the server sent none (legacy servers never do).
   */
  cacheHints(method: string): ReceivedCacheHints | undefined {
    return this.listHints.get(method);
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
    const extensions = this.options.extensions;
    if (extensions && Object.keys(extensions).length > 0) capabilities.extensions = extensions;
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
    const ctx: HandshakeContext = {
      connection: this.connection,
      transport: this.transport,
      options: this.options,
      logger: this.logger,
      clientCapabilities: () => this.clientCapabilities,
      useModernVersion: (version) => this.modern.useVersion(version),
      modernMeta: () => this.modern.meta,
      ready: (state) => this.becomeReady(state),
    };
    return handshake(ctx, signal);
  }

  private becomeReady(state: ReadyClientState): void {
    this.state = state;
    if (state.era !== 'modern') return;
    this.modern.useVersion(state.initializeResult.protocolVersion);
    // Listeners that came before the connection get their stream now.
    if ([this.toolsChanged, this.resourcesChanged, this.promptsChanged, this.resourceUpdated].some((e) => e.hasListeners)) this.openListen();
  }

  // --- typed calls ---------------------------------------------------------

  ping(options?: RequestOptions): Promise<void> {
    // The modern era has no ping; server/discover is the cheapest request every server answers.
    if (this.era === 'modern') return this.call('server/discover', undefined, DiscoverResultSchema, options, undefined).then(() => undefined);
    return this.call('ping', undefined, EmptyResultSchema, options, undefined, true).then(() => undefined);
  }

  async listTools(cursor?: string, options?: RequestOptions) {
    const result = await this.call('tools/list', cursorParams(cursor), ListToolsResultSchema, options, 'tools');
    return this.era === 'modern' && this.transport.registerTool ? { ...result, tools: this.keepValidTools(result.tools) } : result;
  }

  /**
   * Modern era over Streamable HTTP: each tool's x-mcp-header annotations go to the transport
   * (for the Mcp-Param-* headers of its calls); a tool whose annotations are invalid is left
   * out, with a warning (transports/streamable-http.mdx, "Custom Headers from Tool Parameters").
   */
  private keepValidTools(tools: Tool[]): Tool[] {
    return tools.filter((tool) => {
      const problem = this.transport.registerTool?.(tool.name, tool.inputSchema);
      if (problem === undefined) return true;
      this.logger.warn(`[${this.options.label}] left out the tool ${JSON.stringify(tool.name)}: its definition is invalid (${problem})`);
      return false;
    });
  }

  listAllTools(options?: RequestOptions): Promise<Tool[]> {
    return collectPages(this.options.label, 'tools/list', (c) => this.listTools(c, options), (r) => r.tools, this.listHints);
  }

  private taskClient: TaskClient | undefined;

  /** Tasks (tasks.ts): getTask, listTasks, cancelTask, and the flags canList / canCancel. */
  get tasks(): TaskClient {
    this.taskClient ??= new TaskClient({
      label: this.options.label,
      // sendRequest: the era's _meta, but resultType ("task") is the task logic's to read.
      request: (method, params, schema, options) => this.sendRequest(method, params, schema, options),
      onNotification: (method, handler) => this.connection.onNotification(method, handler),
      capabilities: () => this.serverCapabilities,
      clientCapabilities: () => this.clientCapabilities,
      handlers: this.handlers,
    });
    return this.taskClient;
  }

  /** Calls a tool as a task and follows it to its result (use tasks.ts's runsAsTask to decide). */
  callToolAsTask(name: string, args: Record<string, unknown> = {}, options?: TaskCallOptions): Promise<CallToolResult> {
    return this.tasks.callTool(name, args, options);
  }

  callTool(name: string, args: Record<string, unknown> = {}, options?: RequestOptions): Promise<CallToolResult> {
    // Performance: the call's own promise, with no async function around it, unless a retry
    // can follow (the modern era over a transport that sends Mcp-Param-* headers). The era is
    // fixed once ready, so a call sent outside it could never be retried: the wrapper would
    // only cost a promise, a closure and a microtask per call.
    if (this.era !== 'modern' || !this.transport.registerTool) {
      try {
        return this.call('tools/call', { name, arguments: args }, CallToolResultSchema, options, 'tools');
      } catch (err) {
        // As from the async function it replaces: a failure is a rejection, never a throw.
        return Promise.reject(err as Error);
      }
    }
    return this.callToolWithRetry(name, args, options);
  }

  private async callToolWithRetry(name: string, args: Record<string, unknown>, options: RequestOptions | undefined): Promise<CallToolResult> {
    const send = () => this.call('tools/call', { name, arguments: args }, CallToolResultSchema, options, 'tools');
    try {
      return await send();
    } catch (err) {
      // -32020: the server wanted Mcp-Param-* headers we did not send (a tool we never listed,
      // or one that changed). Once: list the tools again, then send it again.
      if (!(err instanceof RemoteError && err.code === ModernErrorCode.HeaderMismatch) || this.era !== 'modern' || !this.transport.registerTool) throw err;
      this.logger.debug(`[${this.options.label}] tools/call ${name}: header mismatch (${err.message}); listing the tools again before one retry`);
      await this.listAllTools(options);
      return send();
    }
  }

  listResources(cursor?: string, options?: RequestOptions) {
    return this.call('resources/list', cursorParams(cursor), ListResourcesResultSchema, options, 'resources');
  }

  listAllResources(options?: RequestOptions): Promise<Resource[]> {
    return collectPages(this.options.label, 'resources/list', (c) => this.listResources(c, options), (r) => r.resources, this.listHints);
  }

  listResourceTemplates(cursor?: string, options?: RequestOptions) {
    return this.call('resources/templates/list', cursorParams(cursor), ListResourceTemplatesResultSchema, options, 'resources');
  }

  listAllResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return collectPages(this.options.label, 'resources/templates/list', (c) => this.listResourceTemplates(c, options), (r) => r.resourceTemplates, this.listHints);
  }

  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.call('resources/read', { uri }, ReadResourceResultSchema, options, 'resources');
  }

  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (!this.serverCapabilities?.resources?.subscribe) {
      throw this.missingCapability('resources/subscribe', 'resources.subscribe');
    }
    // Modern: the listen stream is opened again with the URI in its filter.
    if (this.era === 'modern') return this.listenStream().subscribe(uri);
    await this.call('resources/subscribe', { uri }, EmptyResultSchema, options, 'resources');
  }

  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (!this.serverCapabilities?.resources?.subscribe) {
      throw this.missingCapability('resources/unsubscribe', 'resources.subscribe');
    }
    if (this.era === 'modern') return this.listenStream().unsubscribe(uri);
    await this.call('resources/unsubscribe', { uri }, EmptyResultSchema, options, 'resources');
  }

  listPrompts(cursor?: string, options?: RequestOptions) {
    return this.call('prompts/list', cursorParams(cursor), ListPromptsResultSchema, options, 'prompts');
  }

  listAllPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return collectPages(this.options.label, 'prompts/list', (c) => this.listPrompts(c, options), (r) => r.prompts, this.listHints);
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
    if (this.state.kind === 'ready' && this.state.era === 'modern') {
      // Modern: no logging/setLevel; the level goes in every request's _meta from now on.
      if (!this.hasCapability('logging')) throw this.missingCapability('logging/setLevel', 'logging');
      this.modern.setLogLevel(level, this.state.initializeResult.protocolVersion);
      return;
    }
    await this.call('logging/setLevel', { level }, EmptyResultSchema, options, 'logging');
  }

  /** Tells the server the roots changed (it will ask `roots/list` again). */
  async notifyRootsChanged(): Promise<void> {
    // The modern era has no such notification: roots are asked for per request (MRTR).
    if (this.state.kind !== 'ready' || this.state.era === 'modern' || !this.handlers.listRoots) return;
    await this.connection.notify('notifications/roots/list_changed');
  }

  async close(): Promise<void> {
    // Ends the listen stream first (notifications/cancelled on stdio), then the transport.
    this.listen?.close();
    await this.connection.close();
  }

  dispose(): void {
    this.listen?.dispose();
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
      if (state.era === 'modern') return this.modern.call(method, params, schema, options);
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

  /**
   * Sends a request the way this client sends its own (in the modern era: with the era's
   * `_meta`, -32022 and -32021 handled) and validates its result with `schema`, without
   * interpreting `resultType` (for callers that do, such as tasks).
   */
  sendRequest<T>(method: string, params: Record<string, unknown> | undefined, schema: ZodSchema<T>, options?: RequestOptions): Promise<T> {
    if (this.era !== 'modern') return this.connection.request(method, params, schema, options);
    return this.modern.send(method, params, schema, options);
  }

  /** Answers one modern input request (elicitation, sampling, roots) with the installed handlers. */
  answerInput(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    return answerInputRequest(this.handlers, this.options.label, method, { method, params }, { id: method, method, signal, meta: undefined });
  }

  /** An event whose first listener, in the modern era, opens the listen stream. */
  private listening<T>(event: Event<T>): Event<T> {
    return (listener) => {
      const subscription = event(listener);
      if (this.era === 'modern') this.openListen();
      return subscription;
    };
  }

  private listenStream(): ListenSubscriptions {
    if (!this.listen) {
      const capabilities = this.serverCapabilities ?? {};
      const lists: ConstructorParameters<typeof ListenSubscriptions>[1]['lists'] = {};
      if (capabilities.tools?.listChanged) lists.toolsListChanged = true;
      if (capabilities.prompts?.listChanged) lists.promptsListChanged = true;
      if (capabilities.resources?.listChanged) lists.resourcesListChanged = true;
      this.listen = new ListenSubscriptions(this.connection, {
        label: this.options.label,
        logger: this.logger,
        lists,
        meta: () => this.modern.meta ?? {},
        ackTimeoutMs: this.options.requestTimeoutMs ?? 60_000,
      });
    }
    return this.listen;
  }

  private openListen(): void {
    if (this.connection.isClosed) return;
    this.listenStream()
      .ensureOpen()
      .catch((err: unknown) => this.logger.warn(`[${this.options.label}] could not listen for changes: ${errorMessage(err)}`));
  }

  /** Legacy: every change notification counts. Modern: only those of our listen stream. */
  private fromStream(params: Record<string, unknown>): boolean {
    if (this.state.kind !== 'ready' || this.state.era !== 'modern') return true;
    return this.listen?.owns(params) ?? false;
  }

  private missingCapability(method: string, capability: string): McpError {
    return new McpError(
      ErrorCode.MethodNotFound,
      `${this.options.label} does not offer ${method}: it did not declare the '${capability}' capability`,
    );
  }

}
