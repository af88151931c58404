import type { ZodSchema } from './zod';
import type { Transport, TransportCloseInfo } from '../transport/transport';
import { Emitter, type Event } from '../util/event';
import type { Disposable } from '../util/disposable';
import { nullLogger, type Logger } from '../util/logger';
import { errorMessage } from '../util/errorMessage';
import type { ClientRequestHandlers } from './handlers';
import { JsonRpcConnection, type MessageDirection, type RequestOptions } from './connection';
import { McpError, ErrorCode, UnsupportedProtocolVersionError, ConnectionClosedError, InvalidResultError, RemoteError } from './errors';
import { fastSafeParse } from './fast-check';
import { formatZodError } from './jsonrpc';
import {
  ClosedOnEraProbeError,
  LATEST_MODERN_PROTOCOL_VERSION,
  MetaKey,
  MissingClientCapabilityError,
  ModernErrorCode,
  isRecognisedModernError,
  pickVersion,
  supportedVersionsOf,
  type ProtocolEra,
  type ProtocolEraSetting,
} from './era';
import { MRTR_METHODS, answerInputRequest, runMrtr } from './mrtr';
import { ListenSubscriptions } from './subscriptions';
import { TaskClient, type TaskCallOptions } from './tasks';
import {
  CallToolResultSchema,
  CompleteResultSchema,
  DiscoverResultSchema,
  EmptyResultSchema,
  ImplementationSchema,
  GetPromptResultSchema,
  InitializeResultSchema,
  ListPromptsResultSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
  LoggingMessageParamsSchema,
  ReadResourceResultSchema,
  ResourceUpdatedParamsSchema,
  type CacheHints,
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

/** The probe waits this long at most; a legacy server that stays silent on it costs no more. */
export type { ClientRequestHandlers };

export const DEFAULT_ERA_PROBE_TIMEOUT_MS = 5_000;


export type McpClientState =
  | { kind: 'new' }
  | { kind: 'connecting' }
  | {
      kind: 'ready';
      /** In the modern era, made from server/discover (serverInfo from its _meta). */
      initializeResult: InitializeResult;
      era: ProtocolEra;
      discoverResult?: DiscoverResult;
    }
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
  /** The modern era's listen stream, made on first need. */
  private listen: ListenSubscriptions | undefined;
  /** The modern era's log level, sent in every request's _meta (logging/setLevel is gone). */
  private logLevel: LoggingLevel | undefined;
  private modernMeta: Record<string, unknown> | undefined;
  /** ttlMs / cacheScope of the last complete list per method (see cacheHints()). */
  private readonly listHints = new Map<string, CacheHints & { receivedAt: number }>();

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
  cacheHints(method: string): (CacheHints & { receivedAt: number }) | undefined {
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
    const setting = this.options.protocolEra ?? 'auto';
    if (setting === 'legacy') return this.initialize(this.legacyOffer(), signal);
    return this.discover(setting, signal);
  }

  /** The legacy handshake: `initialize`, a version check, then `notifications/initialized`. */
  private async initialize(offered: string, signal: AbortSignal | undefined): Promise<InitializeResult> {
    // The probe may have set a modern version; initialize goes out without one.
    this.transport.setProtocolVersion?.(undefined);
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
    this.state = { kind: 'ready', initializeResult: result, era: 'legacy' };
    // HTTP transports send the negotiated version as a header on every later request.
    this.transport.setProtocolVersion?.(result.protocolVersion);
    await this.connection.notify('notifications/initialized');
    return result;
  }

  /**
   * The modern opening (basic/versioning.mdx, transports/stdio.mdx "Backward Compatibility"):
   * `server/discover` with our version in `_meta`. A DiscoverResult or a recognised modern error
   * means modern (-32022 is answered with a version both speak); in 'auto', anything else (any
   * other error, no answer within the probe timeout) means legacy: `initialize` follows.
   */
  private async discover(setting: 'auto' | 'modern', signal: AbortSignal | undefined): Promise<InitializeResult> {
    const handshakeTimeout = this.options.initializeTimeoutMs ?? this.options.requestTimeoutMs;
    const probing = setting === 'auto';
    const timeoutMs = probing
      ? Math.min(this.options.eraProbeTimeoutMs ?? DEFAULT_ERA_PROBE_TIMEOUT_MS, handshakeTimeout ?? Infinity)
      : handshakeTimeout;
    const offered = this.options.protocolVersion;
    let version = offered !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(offered) ? offered : LATEST_MODERN_PROTOCOL_VERSION;
    const tried = new Set<string>();
    /** A server that refuses a version it then names as supported is asked once more. */
    let askedAgain = false;
    for (;;) {
      tried.add(version);
      this.setModernVersion(version);
      let result: DiscoverResult;
      try {
        result = await this.connection.request('server/discover', { _meta: this.modernMeta }, DiscoverResultSchema, { timeoutMs, signal });
      } catch (err) {
        if (isRecognisedModernError(err) && err.code === ModernErrorCode.UnsupportedProtocolVersion) {
          const choice = pickVersion(supportedVersionsOf(err), SUPPORTED_PROTOCOL_VERSIONS);
          if (choice?.era === 'legacy') return this.initialize(choice.version, signal);
          const again = choice?.version === version && !askedAgain;
          if (choice && (!tried.has(choice.version) || again)) {
            if (again) askedAgain = true;
            version = choice.version;
            continue;
          }
          await this.closeQuietly();
          throw new UnsupportedProtocolVersionError(version, supportedVersionsOf(err).join(', '), this.allVersions());
        }
        if (!probing || isRecognisedModernError(err) || signal?.aborted) {
          await this.closeQuietly();
          throw err;
        }
        if (this.connection.isClosed) {
          throw err instanceof ConnectionClosedError ? new ClosedOnEraProbeError(err) : err;
        }
        if (!answeredLikeLegacy(err)) {
          // Not sent, or refused for a reason initialize would meet too (sign-in, network).
          await this.closeQuietly();
          throw err;
        }
        this.logger.debug(`[${this.options.label}] server/discover failed (${errorMessage(err)}): using the legacy initialize handshake`);
        return this.initialize(this.legacyOffer(), signal);
      }
      const choice = pickVersion(result.supportedVersions, SUPPORTED_PROTOCOL_VERSIONS);
      if (!choice) {
        await this.closeQuietly();
        throw new UnsupportedProtocolVersionError(version, result.supportedVersions.join(', '), this.allVersions());
      }
      if (choice.era === 'legacy') return this.initialize(choice.version, signal);
      return this.becomeModern(result, choice.version);
    }
  }

  private becomeModern(result: DiscoverResult, version: string): InitializeResult {
    if (this.connection.isClosed) {
      throw new McpError(ErrorCode.ConnectionClosed, `${this.options.label} closed during server/discover`);
    }
    const info = ImplementationSchema.safeParse(result._meta?.[MetaKey.serverInfo]);
    const initializeResult: InitializeResult = {
      protocolVersion: version,
      capabilities: result.capabilities,
      // serverInfo is only a SHOULD in the modern era.
      serverInfo: info.success ? info.data : { name: 'unnamed server', version: 'unknown' },
    };
    if (result.instructions !== undefined) initializeResult.instructions = result.instructions;
    this.state = { kind: 'ready', initializeResult, era: 'modern', discoverResult: result };
    this.setModernVersion(version);
    // Listeners that came before the connection get their stream now.
    if ([this.toolsChanged, this.resourcesChanged, this.promptsChanged, this.resourceUpdated].some((e) => e.hasListeners)) this.openListen();
    return initializeResult;
  }

  private legacyOffer(): string {
    const offered = this.options.protocolVersion;
    return offered !== undefined && SUPPORTED_PROTOCOL_VERSIONS.includes(offered) ? offered : LATEST_PROTOCOL_VERSION;
  }

  private allVersions(): string[] {
    return [LATEST_MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];
  }

  /** The `_meta` of every modern request: version, identity, capabilities (and log level). */
  private setModernVersion(version: string): void {
    const meta: Record<string, unknown> = {
      [MetaKey.protocolVersion]: version,
      [MetaKey.clientInfo]: this.options.clientInfo,
      [MetaKey.clientCapabilities]: this.clientCapabilities,
    };
    if (this.logLevel !== undefined) meta[MetaKey.logLevel] = this.logLevel;
    this.modernMeta = meta;
    if (this.state.kind === 'ready' && this.state.initializeResult.protocolVersion !== version) {
      this.state.initializeResult = { ...this.state.initializeResult, protocolVersion: version };
    }
    // HTTP sends it as the MCP-Protocol-Version header too.
    this.transport.setProtocolVersion?.(version);
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
    return this.collectPages('tools/list', (c) => this.listTools(c, options), (r) => r.tools);
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

  async callTool(name: string, args: Record<string, unknown> = {}, options?: RequestOptions): Promise<CallToolResult> {
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
    if (this.state.kind === 'ready' && this.state.era === 'modern') {
      // Modern: no logging/setLevel; the level goes in every request's _meta from now on.
      if (!this.hasCapability('logging')) throw this.missingCapability('logging/setLevel', 'logging');
      this.logLevel = level;
      this.setModernVersion(this.state.initializeResult.protocolVersion);
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
      if (state.era === 'modern') return this.modernCall(method, params, schema, options);
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
    return this.requestModern(method, params, options).then((result) => this.validated(method, result, schema));
  }

  /** Answers one modern input request (elicitation, sampling, roots) with the installed handlers. */
  answerInput(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    return answerInputRequest(this.handlers, this.options.label, method, { method, params }, { id: method, method, signal, meta: undefined });
  }

  /** A modern request: `_meta` on every round, MRTR for the methods that allow it, `resultType` checked. */
  private modernCall<T>(method: string, params: Record<string, unknown> | undefined, schema: ZodSchema<T>, options: RequestOptions | undefined): Promise<T> {
    const raw = MRTR_METHODS.has(method)
      ? runMrtr({
          method,
          label: this.options.label,
          params: params ?? {},
          handlers: this.handlers,
          signal: options?.signal,
          send: (p) => this.requestModern(method, p, options),
        })
      : this.requestModern(method, params, options);
    return raw.then((result) => this.completeResult(method, result, schema));
  }

  private async requestModern(method: string, params: Record<string, unknown> | undefined, options: RequestOptions | undefined): Promise<Record<string, unknown>> {
    let retried = false;
    for (;;) {
      // The caller's _meta wins (tasks add to the capabilities); ours fills in the rest.
      const meta = { ...this.modernMeta, ...(params?._meta as Record<string, unknown> | undefined) };
      try {
        return await this.connection.request(method, { ...params, _meta: meta }, undefined, options);
      } catch (err) {
        if (!retried && isRecognisedModernError(err) && err.code === ModernErrorCode.UnsupportedProtocolVersion) {
          // The server changed its mind (a restart behind HTTP): once, with a version both speak.
          const choice = pickVersion(supportedVersionsOf(err), []);
          if (choice && choice.version !== meta[MetaKey.protocolVersion]) {
            retried = true;
            this.setModernVersion(choice.version);
            continue;
          }
        }
        throw this.explained(method, err);
      }
    }
  }

  private explained(method: string, err: unknown): unknown {
    if (err instanceof RemoteError && err.code === ModernErrorCode.MissingRequiredClientCapability) {
      const data = err.data as { requiredCapabilities?: ClientCapabilities } | undefined;
      return new MissingClientCapabilityError(method, this.options.label, data?.requiredCapabilities ?? {}, err.message);
    }
    return err;
  }

  /** Every modern result says what it is: only `complete` (or none, from an older server) is a result. */
  private completeResult<T>(method: string, result: Record<string, unknown>, schema: ZodSchema<T>): T {
    const type = result.resultType;
    if (type !== undefined && type !== 'complete') {
      const why =
        type === 'input_required'
          ? `input_required, which only ${[...MRTR_METHODS].join(', ')} may answer`
          : `resultType ${JSON.stringify(type)}, which this client does not know`;
      throw new McpError(ErrorCode.InvalidResult, `${this.options.label} answered ${method} with ${why}`);
    }
    return this.validated(method, result, schema);
  }

  private validated<T>(method: string, result: Record<string, unknown>, schema: ZodSchema<T>): T {
    const parsed = fastSafeParse(schema, result);
    if (parsed.success) return parsed.data;
    const error = new InvalidResultError(method, formatZodError(parsed.error));
    this.logger.warn(`[${this.options.label}] ${error.message}`);
    throw error;
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
        meta: () => this.modernMeta ?? {},
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

  private async collectPages<R extends { nextCursor?: string }, I>(
    method: string,
    fetchPage: (cursor: string | undefined) => Promise<R>,
    items: (page: R) => I[],
  ): Promise<I[]> {
    const all: I[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let hints: CacheHints | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await fetchPage(cursor);
      const pageItems = items(result);
      for (let i = 0; i < pageItems.length; i++) all.push(pageItems[i]);
      hints = mergeHints(hints, result as CacheHints);
      cursor = result.nextCursor;
      if (cursor === undefined) {
        if (hints) this.listHints.set(method, { ...hints, receivedAt: performance.now() });
        else this.listHints.delete(method);
        return all;
      }
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
      this.logger.debug(`[${this.options.label}] close after a failed handshake: ${errorMessage(err)}`);
    }
  }
}

/**
 * An answer to the probe that says "legacy": a JSON-RPC error or a timeout; or, over HTTP, a
 * 400/404/405 (what legacy servers answer a request outside their session). A send that failed
 * otherwise (401, 5xx, no connection) is no answer about the era.
 */
function answeredLikeLegacy(err: unknown): boolean {
  const cause = (err as { cause?: unknown }).cause;
  if (!(err instanceof ConnectionClosedError) || cause === undefined) return true;
  const status = (cause as { status?: unknown }).status;
  return status === 400 || status === 404 || status === 405;
}

/** The hints of a list of pages: the shortest freshness, and private if any page is (caching.mdx). */
function mergeHints(sofar: CacheHints | undefined, page: CacheHints): CacheHints | undefined {
  if (page.ttlMs === undefined && page.cacheScope === undefined) return sofar;
  const ttl = typeof page.ttlMs === 'number' ? Math.max(0, page.ttlMs) : 0;
  const merged: CacheHints = { ttlMs: sofar?.ttlMs === undefined ? ttl : Math.min(sofar.ttlMs, ttl) };
  const scope = sofar?.cacheScope === 'private' || page.cacheScope === 'private' ? 'private' : (page.cacheScope ?? sofar?.cacheScope);
  if (scope !== undefined) merged.cacheScope = scope;
  return merged;
}

function cursorParams(cursor: string | undefined): Record<string, unknown> | undefined {
  return cursor === undefined ? undefined : { cursor };
}
