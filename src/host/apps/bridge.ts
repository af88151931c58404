// The host side of the MCP Apps protocol (SEP-1865, ext-apps specification 2026-01-26): JSON-RPC
// between one view and the host, whatever carries it (a webview's postMessage in the editor, a
// message pair in tests). Written from the specification rather than on ext-apps' AppBridge,
// which needs the official SDK's Protocol and Client in the bundle.
//
// Life: 'initializing' (the view has not said ui/notifications/initialized; notifications for it
// are held) -> 'ready' -> 'closed' (after ui/resource-teardown, or dispose). Nothing from the view
// is trusted: every message is validated, tool calls go only to this server's tools that are
// visible to apps, and destructive ones are confirmed by the delegate.
import * as z from '../../protocol/zod';
import { classifyMessage, formatZodError, type RequestId } from '../../protocol/jsonrpc';
import { ErrorCode } from '../../protocol/errors';
import { isVisibleToApp } from '../../protocol/apps';
import type { CallToolResult, Implementation, ReadResourceResult, Resource, ResourceTemplate, Tool } from '../../protocol/schemas';
import { errorMessage } from '../../util/errorMessage';
import { nullLogger, type Logger } from '../../util/logger';
import type { AppCsp } from './resource';

/** The protocol versions of the extension this host speaks, newest first. */
export const APP_PROTOCOL_VERSIONS: readonly string[] = ['2026-01-26'];

/** How much of one log message from a view is kept. */
export const LOG_TEXT_LIMIT = 4000;

export type AppBridgeState = 'initializing' | 'ready' | 'closed';

/** What the bridge needs of the tool's server (a ServerConnection in the editor). */
export interface AppServer {
  readonly name: string;
  /** The server's current tool list (the bridge looks up what the view asks for in it). */
  tools(): readonly Tool[];
  callTool(name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<CallToolResult>;
  readResource(uri: string, options?: { signal?: AbortSignal }): Promise<ReadResourceResult>;
  /** The server's resources (resources/list from the view; the connection's cached list is fine). */
  listResources(): Promise<readonly Resource[]>;
  listResourceTemplates(): Promise<readonly ResourceTemplate[]>;
  /** Hides the server's secrets in text that goes to the view (error messages). */
  redact(text: string): string;
}

/** What the host decides for the view: confirmations, links, its size, logs. */
export interface AppHostDelegate {
  /** Asks before a tool call the view wants (destructive tools); false = refused. */
  confirmToolCall(tool: Tool, args: Record<string, unknown>): Promise<boolean>;
  /** Asks the person whether to open a link the view wants (and whether it may be opened at all). */
  confirmLink(url: string): Promise<boolean>;
  /** Opens a link the person agreed to; false = not opened. */
  openLink(url: string): Promise<boolean>;
  sizeChanged(size: { width?: number; height?: number }): void;
  /** The view asks to be closed. */
  requestTeardown(): void;
  /** A log line from the view: its data as text, redacted and cut to LOG_TEXT_LIMIT characters. */
  log(level: string, text: string): void;
  /**
   * ui/message: puts the view's text into the editor's chat for the person to send (absent: the
   * editor has no chat, and the view is told so). False: it could not be opened.
   */
  sendMessage?(text: string): Promise<boolean>;
}

/** The longest ui/message text put into the chat input. */
export const MESSAGE_TEXT_LIMIT = 8000;

/** McpUiHostContext: what the view is told about where it runs (theme, styles, size…). */
export type AppHostContext = Record<string, unknown>;

export interface AppBridgeOptions {
  hostInfo: Implementation;
  tool: Tool;
  server: AppServer;
  delegate: AppHostDelegate;
  /** Sends one JSON-RPC message to the view. */
  send(message: Record<string, unknown>): void;
  hostContext: AppHostContext;
  /** The policy the view runs under, told to it as hostCapabilities.sandbox.csp. */
  csp?: AppCsp;
  logger?: Logger;
  /** How long teardown waits for the view's answer (default 3 s). */
  teardownTimeoutMs?: number;
}

const Obj = z.record(z.string(), z.unknown());
const InitializeParams = z.looseObject({
  appInfo: z.looseObject({ name: z.string(), version: z.string() }),
  appCapabilities: z.optional(Obj),
  protocolVersion: z.string(),
});
const CallToolParams = z.looseObject({ name: z.string(), arguments: z.optional(Obj) });
const ReadResourceParams = z.looseObject({ uri: z.string() });
const OpenLinkParams = z.looseObject({ url: z.string() });
const SizeParams = z.looseObject({ width: z.optional(z.number()), height: z.optional(z.number()) });
const LogParams = z.looseObject({ level: z.string(), data: z.optional(z.unknown()) });
const DisplayModeParams = z.looseObject({ mode: z.string() });

type HostNotification = { jsonrpc: string; method: string; params: Record<string, unknown> };

/** A JSON-RPC error answered to the view. */
class ViewError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export class McpAppBridge {
  private stateValue: AppBridgeState = 'initializing';
  /** Whether ui/initialize was answered (tool calls are allowed from then on). */
  private initializeAnswered = false;
  private context: AppHostContext;
  private readonly held: Array<Record<string, unknown>> = [];
  private readonly pending = new Map<RequestId, (ok: boolean) => void>();
  private readonly inFlight = new Set<AbortController>();
  private nextId = 1;
  private readonly logger: Logger;
  private readonly readyWaiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  /** The last run's notifications (input, then result or cancellation), for a reloaded page. */
  private lastRun: HostNotification[] = [];
  private teardownTimer: ReturnType<typeof setTimeout> | undefined;
  private linkQuestionPending = false;

  constructor(private readonly options: AppBridgeOptions) {
    this.context = { ...options.hostContext, toolInfo: { tool: options.tool } };
    this.logger = options.logger ?? nullLogger;
  }

  get state(): AppBridgeState {
    return this.stateValue;
  }

  /** Resolves when the view said ui/notifications/initialized; rejects if it closes before. */
  whenReady(): Promise<void> {
    if (this.stateValue === 'ready') return Promise.resolve();
    if (this.stateValue === 'closed') return Promise.reject(closedError());
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  // --- host -> view ------------------------------------------------------------------------

  /** The complete arguments of the call that made the view (held until the view is ready). */
  sendToolInput(args: Record<string, unknown>): void {
    this.lastRun = [this.notify('ui/notifications/tool-input', { arguments: args })];
  }

  /** The call's result; a later one (the tool ran again) replaces it in the view. */
  sendToolResult(result: CallToolResult): void {
    this.keepOutcome(this.notify('ui/notifications/tool-result', result as Record<string, unknown>));
  }

  sendToolCancelled(reason: string): void {
    this.keepOutcome(this.notify('ui/notifications/tool-cancelled', { reason }));
  }

  /** A later outcome replaces the earlier one (a reloaded page needs only the latest). */
  private keepOutcome(message: HostNotification): void {
    this.lastRun = [...this.lastRun.filter((m) => m.method === 'ui/notifications/tool-input'), message];
  }

  /**
   * The page was loaded again (a reloaded webview): its new frame knows nothing, so this bridge is
   * closed and a new one, with the same host context, holds the last run's input and outcome for it.
   */
  reopen(): McpAppBridge {
    this.dispose();
    const next = new McpAppBridge({ ...this.options, hostContext: this.context });
    for (const message of this.lastRun) next.notify(message.method, message.params);
    next.lastRun = [...this.lastRun];
    return next;
  }

  /** Changes to the host context (a theme change); before ui/initialize they go in its answer. */
  updateHostContext(changes: AppHostContext): void {
    this.context = { ...this.context, ...changes };
    if (this.initializeAnswered) this.notify('ui/notifications/host-context-changed', changes);
  }

  /**
   * Asks the view to clean up (ui/resource-teardown) and waits for its answer, at most
   * teardownTimeoutMs; then the bridge is closed. A view that is not ready (it has not said
   * ui/notifications/initialized) must not get host requests yet, so it is just closed.
   */
  async teardown(): Promise<void> {
    if (this.stateValue !== 'ready') {
      this.dispose();
      return;
    }
    const answered = this.request('ui/resource-teardown', {});
    const timeout = new Promise<boolean>((resolve) => {
      this.teardownTimer = setTimeout(() => resolve(false), this.options.teardownTimeoutMs ?? 3000);
    });
    const ok = await Promise.race([answered, timeout]);
    if (!ok) this.logger.debug(`[${this.options.server.name}] the view did not answer ui/resource-teardown in time`);
    this.dispose();
  }

  /** Closes the bridge at once: in-flight tool calls are cancelled, later messages ignored. */
  dispose(): void {
    if (this.stateValue === 'closed') return;
    this.stateValue = 'closed';
    clearTimeout(this.teardownTimer);
    for (const waiter of this.readyWaiters.splice(0)) waiter.reject(closedError());
    for (const abort of this.inFlight) abort.abort('the view was closed');
    this.inFlight.clear();
    for (const resolve of this.pending.values()) resolve(false);
    this.pending.clear();
    this.held.length = 0;
  }

  private notify(method: string, params: Record<string, unknown>): HostNotification {
    const message = { jsonrpc: '2.0', method, params };
    if (this.stateValue === 'initializing') this.held.push(message);
    else if (this.stateValue === 'ready') this.options.send(message);
    return message;
  }

  private request(method: string, params: Record<string, unknown>): Promise<boolean> {
    const id = `host-${this.nextId++}`;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.options.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  // --- view -> host ------------------------------------------------------------------------

  /** One message from the view, as it came (untrusted). */
  async receive(raw: unknown): Promise<void> {
    if (this.stateValue === 'closed') return;
    const classified = classifyMessage(raw);
    switch (classified.kind) {
      case 'invalid':
        this.logger.warn(`[${this.options.server.name}] ignored an invalid message from an app view: ${classified.reason}`);
        if (classified.id !== undefined) this.answerError(classified.id, ErrorCode.InvalidRequest, classified.reason);
        return;
      case 'result':
      case 'error': {
        const id = classified.message.id;
        const resolve = id === undefined || id === null ? undefined : this.pending.get(id);
        if (resolve && id !== undefined && id !== null) {
          this.pending.delete(id);
          resolve(classified.kind === 'result');
        }
        return;
      }
      case 'notification':
        this.handleNotification(classified.message.method, classified.message.params ?? {});
        return;
      case 'request': {
        const { id, method, params } = classified.message;
        try {
          const result = await this.handleRequest(method, params ?? {});
          if (!this.isClosed()) this.options.send({ jsonrpc: '2.0', id, result });
        } catch (err) {
          if (err instanceof ViewError) this.answerError(id, err.code, err.message);
          else this.answerError(id, ErrorCode.InternalError, this.options.server.redact(errorMessage(err)));
        }
        return;
      }
    }
  }

  /** A method, not a field read: the state changes across the awaits above. */
  private isClosed(): boolean {
    return this.stateValue === 'closed';
  }

  private answerError(id: RequestId | null, code: number, message: string): void {
    if (this.isClosed()) return;
    this.options.send({ jsonrpc: '2.0', id, error: { code, message } });
  }

  private handleNotification(method: string, params: Record<string, unknown>): void {
    switch (method) {
      case 'ui/notifications/initialized':
        this.becomeReady();
        return;
      case 'ui/notifications/size-changed': {
        const size = SizeParams.safeParse(params);
        if (size.success) this.options.delegate.sizeChanged(clampSize(size.data));
        return;
      }
      case 'ui/notifications/request-teardown':
        this.options.delegate.requestTeardown();
        return;
      case 'notifications/message': {
        const log = LogParams.safeParse(params);
        if (log.success) this.options.delegate.log(log.data.level, this.logText(log.data.data));
        return;
      }
      default:
        // Unknown notifications are ignored, as JSON-RPC wants.
        return;
    }
  }

  /** Any value as a line of text: JSON.stringify(undefined) is undefined, and views send anything. */
  private logText(data: unknown): string {
    const text = typeof data === 'string' ? data : (JSON.stringify(data) ?? String(data));
    // Redacted before it is cut, so that a cut cannot leave half a secret unrecognised.
    const redacted = this.options.server.redact(text);
    return redacted.length > LOG_TEXT_LIMIT ? `${redacted.slice(0, LOG_TEXT_LIMIT)}…` : redacted;
  }

  private becomeReady(): void {
    if (this.stateValue !== 'initializing' || !this.initializeAnswered) return;
    this.stateValue = 'ready';
    for (const message of this.held.splice(0)) this.options.send(message);
    for (const waiter of this.readyWaiters.splice(0)) waiter.resolve();
  }

  private async handleRequest(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    switch (method) {
      case 'ui/initialize':
        return this.initialize(params);
      case 'ping':
        return {};
      case 'tools/call':
        return this.callTool(params);
      case 'resources/read':
        return this.readResource(params);
      case 'resources/list':
        this.requireInitialized(method);
        return { resources: await this.options.server.listResources() };
      case 'resources/templates/list':
        this.requireInitialized(method);
        return { resourceTemplates: await this.options.server.listResourceTemplates() };
      case 'ui/open-link':
        return this.openLink(params);
      case 'ui/request-display-mode':
        parsed(DisplayModeParams, params, method);
        // One mode here: the view lives in its own editor tab.
        return { mode: 'inline' };
      case 'ui/message':
        return this.message(params);
      default:
        // ui/update-model-context, ui/download-file…: there is no model context here.
        throw new ViewError(ErrorCode.MethodNotFound, `MCP Host does not support ${method}`);
    }
  }

  private initialize(params: Record<string, unknown>): Record<string, unknown> {
    const request = parsed(InitializeParams, params, 'ui/initialize');
    const protocolVersion = APP_PROTOCOL_VERSIONS.includes(request.protocolVersion) ? request.protocolVersion : APP_PROTOCOL_VERSIONS[0];
    this.initializeAnswered = true;
    const sandbox: Record<string, unknown> = {};
    if (this.options.csp) sandbox.csp = this.options.csp;
    return {
      protocolVersion,
      hostInfo: this.options.hostInfo,
      hostCapabilities: { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, sandbox },
      hostContext: this.context,
    };
  }

  private async callTool(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.requireInitialized('tools/call');
    const request = parsed(CallToolParams, params, 'tools/call');
    const tool = this.options.server.tools().find((t) => t.name === request.name);
    if (!tool) throw new ViewError(ErrorCode.InvalidParams, `Server "${this.options.server.name}" has no tool "${request.name}"`);
    if (!isVisibleToApp(tool)) throw new ViewError(ErrorCode.InvalidParams, `The tool "${request.name}" is not visible to apps`);
    const args = request.arguments ?? {};
    if (!(await this.options.delegate.confirmToolCall(tool, args))) {
      throw new ViewError(ErrorCode.InvalidRequest, `The call of "${request.name}" was declined`);
    }
    // The view may have been closed while the person was asked: its calls were cancelled then.
    if (this.isClosed()) throw closedError();
    return (await this.withAbort((signal) => this.options.server.callTool(tool.name, args, { signal }))) as Record<string, unknown>;
  }

  private async readResource(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.requireInitialized('resources/read');
    const { uri } = parsed(ReadResourceParams, params, 'resources/read');
    return (await this.withAbort((signal) => this.options.server.readResource(uri, { signal }))) as Record<string, unknown>;
  }

  /**
   * ui/open-link: one question at a time (a view must not stack dialogs), and a view closed while
   * the person was asked opens nothing.
   */
  private async openLink(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { url } = parsed(OpenLinkParams, params, 'ui/open-link');
    if (this.linkQuestionPending) throw new ViewError(ErrorCode.InvalidRequest, 'Another link is waiting for the person’s answer');
    this.linkQuestionPending = true;
    let agreed: boolean;
    try {
      agreed = await this.options.delegate.confirmLink(url);
    } finally {
      this.linkQuestionPending = false;
    }
    if (this.isClosed()) throw closedError();
    const opened = agreed && (await this.options.delegate.openLink(url));
    return opened ? {} : { isError: true };
  }

  /** ui/message: its text blocks, joined and bounded, into the chat input (the person sends it). */
  private async message(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.requireInitialized('ui/message');
    const sendMessage = this.options.delegate.sendMessage;
    if (!sendMessage) throw new ViewError(ErrorCode.MethodNotFound, 'MCP Host does not support ui/message here (no chat in this editor)');
    const blocks = Array.isArray(params.content) ? params.content : [params.content];
    let text = '';
    for (const block of blocks) {
      if (text.length >= MESSAGE_TEXT_LIMIT) break;
      if (typeof block === 'object' && block !== null && (block as Record<string, unknown>).type === 'text') {
        const part = (block as Record<string, unknown>).text;
        if (typeof part === 'string') text += (text ? '\n' : '') + part.slice(0, MESSAGE_TEXT_LIMIT);
      }
    }
    if (!text) throw new ViewError(ErrorCode.InvalidParams, 'ui/message needs text content');
    const sent = await sendMessage(text.slice(0, MESSAGE_TEXT_LIMIT));
    return sent ? {} : { isError: true };
  }

  private requireInitialized(method: string): void {
    if (!this.initializeAnswered) throw new ViewError(ErrorCode.InvalidRequest, `${method} before ui/initialize`);
  }

  private async withAbort<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    // dispose() cancels what is in flight; nothing may start after it.
    if (this.isClosed()) throw closedError();
    const abort = new AbortController();
    this.inFlight.add(abort);
    try {
      return await run(abort.signal);
    } finally {
      this.inFlight.delete(abort);
    }
  }
}

function closedError(): ViewError {
  return new ViewError(ErrorCode.InvalidRequest, 'The view was closed');
}

function parsed<T>(schema: z.ZodSchema<T>, params: Record<string, unknown>, method: string): T {
  const result = schema.safeParse(params);
  if (!result.success) throw new ViewError(ErrorCode.InvalidParams, `Invalid ${method} params: ${formatZodError(result.error)}`);
  return result.data;
}

/** Sizes from the view, kept sane (a view must not make its frame a million pixels high). */
function clampSize(size: { width?: number; height?: number }): { width?: number; height?: number } {
  const clamp = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? undefined : Math.min(20_000, Math.max(0, Math.round(n))));
  const out: { width?: number; height?: number } = {};
  const width = clamp(size.width);
  const height = clamp(size.height);
  if (width !== undefined) out.width = width;
  if (height !== undefined) out.height = height;
  return out;
}
