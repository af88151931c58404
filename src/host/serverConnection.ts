import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { McpClient, type ClientRequestHandlers } from '../protocol/client';
import { McpError, RequestTimeoutError, UnsupportedProtocolVersionError, ConnectionClosedError, describeClose } from '../protocol/errors';
import type { Implementation, LoggingLevel, Prompt, Resource, ResourceTemplate, ServerCapabilities, Tool } from '../protocol/schemas';
import { StdioTransport, TransportStartError } from '../transport/stdio';
import type { TransportCloseInfo } from '../transport/transport';
import { DisposableStore, type Disposable } from '../util/disposable';
import { Emitter, type Event } from '../util/event';
import type { Logger } from '../util/logger';
import type { ConfigSource, InputDefinition, ServerDefinition } from './config';
import { RestartPolicy, type RestartPolicyOptions } from './restartPolicy';
import { Redactor, looksSecret, redactingLogger } from './redact';
import { resolveInputs, secretValues, substitute, VariableError, type InputResolver } from './variables';

/** A server's whole life, one value. The tree renders it; nobody asks the process. */
export type ServerState =
  | { kind: 'stopped'; reason?: string }
  | { kind: 'starting' }
  | {
      kind: 'running';
      client: McpClient;
      serverInfo: Implementation;
      protocolVersion: string;
      capabilities: ServerCapabilities;
      instructions?: string;
      pid?: number;
    }
  | { kind: 'stopping' }
  | { kind: 'error'; message: string; detail?: string; retryAt?: number; crashLoop?: boolean };

export interface ServerLists {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  /** A list that failed to load, with why (shown instead of silently empty). */
  errors: Partial<Record<'tools' | 'resources' | 'resourceTemplates' | 'prompts', string>>;
}

const emptyLists = (): ServerLists => ({ tools: [], resources: [], resourceTemplates: [], prompts: [], errors: {} });

/** What the host gives every connection. The editor floor implements it with VS Code APIs. */
export interface ConnectionEnvironment {
  clientInfo: Implementation;
  /** The server's own log (a LogOutputChannel in the editor). */
  logger: Logger;
  /** True when the log is at trace level: every protocol message is then logged. */
  traceEnabled(): boolean;
  requestTimeoutMs(): number;
  /** Level requested with logging/setLevel after the handshake, if any. */
  serverLogLevel(): LoggingLevel | undefined;
  inputs(): readonly InputDefinition[];
  inputResolver?: InputResolver;
  handlers: ClientRequestHandlers;
  processEnv: NodeJS.ProcessEnv;
  restartPolicy?: RestartPolicyOptions;
  shutdown?: { closeStdinGraceMs?: number; sigtermGraceMs?: number };
  maxMessageBytes?: number;
  /** A start-time check that can veto a launch (e.g. an untrusted workspace). */
  canStart?(): string | undefined;
  schedule?: (fn: () => void, ms: number) => Disposable;
}

interface LaunchSpec {
  command: string;
  args: string[];
  env: Record<string, string | null>;
  cwd?: string;
}

/** A stable identity of a server: its source file and name. */
export function serverId(def: { name: string; source: ConfigSource }): string {
  return `${def.source.file}#${def.name}`;
}

/**
 * One configured server: start/stop/restart, the state union, the cached lists,
 * crash restarts with backoff and a breaker. Each launch has its own disposable
 * scope; results that arrive after their launch was disposed are dropped.
 */
export class ServerConnection implements Disposable {
  private stateValue: ServerState = { kind: 'stopped' };
  private listsValue: ServerLists = emptyLists();
  private launch: DisposableStore | undefined;
  private launchPromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private transport: StdioTransport | undefined;
  /** The transport being closed by stop(), so a second stop() can force it. */
  private closingTransport: StdioTransport | undefined;
  private retryTimer: Disposable | undefined;
  private readonly restartPolicy: RestartPolicy;
  private readonly redactor = new Redactor();
  private readonly log: Logger;
  private disposed = false;

  private readonly stateEmitter = new Emitter<ServerState>();
  private readonly listsEmitter = new Emitter<ServerLists>();
  readonly onDidChangeState: Event<ServerState> = this.stateEmitter.event;
  readonly onDidChangeLists: Event<ServerLists> = this.listsEmitter.event;

  constructor(
    private definitionValue: ServerDefinition | undefined,
    readonly id: string,
    readonly name: string,
    readonly source: ConfigSource,
    private readonly env: ConnectionEnvironment,
    /** A configuration problem that keeps this server from starting. */
    private configProblem?: string,
  ) {
    this.restartPolicy = new RestartPolicy(env.restartPolicy);
    this.log = redactingLogger(env.logger, this.redactor);
  }

  get state(): ServerState {
    return this.stateValue;
  }

  get lists(): ServerLists {
    return this.listsValue;
  }

  get definition(): ServerDefinition | undefined {
    return this.definitionValue;
  }

  get problem(): string | undefined {
    return this.configProblem;
  }

  /** The client while running, else undefined. */
  get client(): McpClient | undefined {
    return this.stateValue.kind === 'running' ? this.stateValue.client : undefined;
  }

  get logger(): Logger {
    return this.log;
  }

  /** Starts the server; resolves when it runs or has failed. Idempotent. */
  start(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    if (this.launchPromise) return this.launchPromise;
    if (this.stateValue.kind === 'running') return Promise.resolve();
    this.cancelRetry();
    this.launchPromise = this.launchOnce()
      .catch((err: unknown) => {
        // A bug on our side must not leave the server looking "starting" forever.
        const launch = this.launch;
        if (launch) this.disposeLaunch(launch);
        this.setState({ kind: 'error', message: `Server "${this.name}" could not be started because of an internal error: ${errorMessage(err)}` });
      })
      .finally(() => {
        this.launchPromise = undefined;
      });
    return this.launchPromise;
  }

  /** Stops the server and its process tree. Idempotent; a second call while stopping forces. */
  stop(reason = 'stopped by the user'): Promise<void> {
    this.cancelRetry();
    if (this.stopPromise) {
      // Second stop: force (the transport's second close() kills the process group).
      void this.closingTransport?.close();
      return this.stopPromise;
    }
    if (!this.launch) {
      if (this.stateValue.kind === 'error' || this.stateValue.kind === 'stopped') {
        if (this.stateValue.kind === 'error' && this.stateValue.retryAt !== undefined) this.setState({ kind: 'stopped', reason });
      }
      return Promise.resolve();
    }
    this.stopPromise = this.stopLaunch(reason).finally(() => {
      this.stopPromise = undefined;
    });
    return this.stopPromise;
  }

  /** Stops (if needed) and starts again, resetting the crash-loop breaker. */
  async restart(): Promise<void> {
    this.restartPolicy.reset();
    await this.stop('restarting');
    await this.start();
  }

  /** Replaces the definition (hot reload); the caller restarts if it was running. */
  updateDefinition(definition: ServerDefinition | undefined, problem?: string): void {
    this.definitionValue = definition;
    this.configProblem = problem;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.cancelRetry();
    void this.stop('the extension is shutting down');
    this.stateEmitter.dispose();
    this.listsEmitter.dispose();
  }

  // --- the launch ------------------------------------------------------------

  private async launchOnce(): Promise<void> {
    const veto = this.env.canStart?.();
    if (veto) {
      this.setState({ kind: 'stopped', reason: veto });
      return;
    }
    if (this.configProblem || !this.definitionValue) {
      this.setState({ kind: 'error', message: this.configProblem ?? 'no definition' });
      return;
    }
    const definition = this.definitionValue;
    if (definition.type !== 'stdio') {
      this.setState({
        kind: 'error',
        message: `Server "${this.name}" uses the "${definition.type}" transport, which this version of MCP Host does not support yet; only "stdio" servers start.`,
      });
      return;
    }
    const launch = new DisposableStore();
    this.launch = launch;
    this.setState({ kind: 'starting' });
    this.log.info(`Starting ${this.name} (from ${this.source.file})`);

    let spec: LaunchSpec;
    try {
      spec = await this.prepare(definition);
    } catch (err) {
      if (launch.isDisposed) return;
      this.failLaunch(launch, err instanceof VariableError ? `Configuration of "${this.name}": ${err.message}` : errorMessage(err));
      return;
    }
    if (launch.isDisposed) return;
    this.log.info(`Command: ${[spec.command, ...spec.args].map(quoteForLog).join(' ')}${spec.cwd ? ` (cwd ${spec.cwd})` : ''}`);

    const transport = new StdioTransport({
      command: spec.command,
      args: spec.args,
      env: spec.env,
      cwd: spec.cwd,
      label: this.name,
      maxMessageBytes: this.env.maxMessageBytes,
      shutdown: this.env.shutdown,
    });
    this.transport = transport;
    launch.add({ dispose: () => void transport.close() });
    launch.add(transport.onLog((line) => this.log.info(`[stderr] ${line}`)));

    const client = new McpClient(
      transport,
      {
        label: `server '${this.name}'`,
        clientInfo: this.env.clientInfo,
        logger: this.log,
        requestTimeoutMs: this.env.requestTimeoutMs(),
        onTrace: this.env.traceEnabled() ? (direction, message) => this.traceMessage(direction, message) : undefined,
      },
      this.env.handlers,
    );
    launch.add(client);
    launch.add(client.onClose((info) => this.handleClose(launch, info)));
    launch.add(client.onLogMessage((m) => this.logServerMessage(m.level, m.logger, m.data)));

    let result;
    try {
      result = await client.connect();
    } catch (err) {
      if (launch.isDisposed) return;
      this.failLaunch(launch, this.explainStartFailure(err, spec), err);
      return;
    }
    if (launch.isDisposed) return;
    this.log.info(
      `Running: ${result.serverInfo.name} ${result.serverInfo.version}, protocol ${result.protocolVersion}, pid ${transport.pid ?? '?'}`,
    );
    this.setState({
      kind: 'running',
      client,
      serverInfo: result.serverInfo,
      protocolVersion: result.protocolVersion,
      capabilities: result.capabilities,
      instructions: result.instructions,
      pid: transport.pid,
    });

    const level = this.env.serverLogLevel();
    if (level && client.hasCapability('logging')) {
      client.setLoggingLevel(level).catch((err: unknown) => this.log.warn(`logging/setLevel ${level} failed: ${errorMessage(err)}`));
    }
    launch.add(client.onToolsListChanged(() => void this.refreshList(launch, client, 'tools')));
    launch.add(client.onResourcesListChanged(() => void this.refreshList(launch, client, 'resources')));
    launch.add(client.onPromptsListChanged(() => void this.refreshList(launch, client, 'prompts')));
    await this.refreshAllLists(launch, client);
  }

  /** Resolves variables, inputs and envFile into what is spawned. */
  private async prepare(def: Extract<ServerDefinition, { type: 'stdio' }>): Promise<LaunchSpec> {
    const ctx = {
      workspaceFolder: def.source.workspaceFolder,
      env: this.env.processEnv,
      inputs: this.env.inputs(),
      inputResolver: this.env.inputResolver,
    };
    const inputValues = await resolveInputs(def, ctx);
    this.redactor.add(secretValues(inputValues));
    const sub = (value: string) => substitute(value, ctx, inputValues);
    const baseDir = def.source.workspaceFolder ?? path.dirname(def.source.file);
    const cwd = def.cwd ? path.resolve(baseDir, sub(def.cwd)) : def.source.workspaceFolder;
    const env: Record<string, string | null> = {};
    if (def.envFile) {
      const file = path.resolve(baseDir, sub(def.envFile));
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (err) {
        throw new VariableError(`envFile ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)})`);
      }
      Object.assign(env, parseDotenv(text));
    }
    for (const [key, value] of Object.entries(def.env)) env[key] = value === null ? null : sub(value);
    // Values of secret-looking variables never reach the log.
    this.redactor.add(Object.entries(env).filter(([k, v]) => v !== null && looksSecret(k)).map(([, v]) => v as string));
    return { command: sub(def.command), args: def.args.map(sub), env, cwd };
  }

  private failLaunch(launch: DisposableStore, message: string, cause?: unknown): void {
    this.log.error(message);
    if (cause instanceof McpError && cause.data) this.log.debug(`details: ${JSON.stringify(cause.data)}`);
    this.disposeLaunch(launch);
    // Only a process that ran and then died is worth retrying; a missing command is not.
    const retryable = cause instanceof ConnectionClosedError;
    if (retryable) {
      this.crashed(message);
    } else {
      this.setState({ kind: 'error', message });
    }
  }

  private handleClose(launch: DisposableStore, info: TransportCloseInfo): void {
    if (launch.isDisposed || launch !== this.launch) return;
    if (this.stateValue.kind !== 'running') return; // failures during start are reported by launchOnce
    this.disposeLaunch(launch);
    if (info.expected) {
      this.log.info(`Stopped (${info.reason})`);
      this.setState({ kind: 'stopped' });
      return;
    }
    if (info.exitCode === 0) {
      this.log.info(`The server exited by itself (${info.reason}); not restarting`);
      this.setState({ kind: 'stopped', reason: 'the server exited by itself (exit code 0)' });
      return;
    }
    const message = `Server "${this.name}" ${describeClose(info)}`;
    this.log.error(message);
    this.crashed(message);
  }

  private crashed(message: string): void {
    const decision = this.restartPolicy.recordCrash();
    if (!decision.restart) {
      const text = `${message}. It ${decision.reason}. Fix the cause, then use Restart.`;
      this.log.error(text);
      this.setState({ kind: 'error', message: text, crashLoop: true });
      return;
    }
    const retryAt = Date.now() + decision.delayMs;
    this.log.warn(`Restarting in ${Math.round(decision.delayMs / 100) / 10} s (crash ${decision.crashesInWindow} of ${this.restartPolicy.maxCrashes} allowed)`);
    this.setState({ kind: 'error', message, retryAt });
    const schedule = this.env.schedule ?? defaultSchedule;
    this.retryTimer = schedule(() => {
      this.retryTimer = undefined;
      void this.start();
    }, decision.delayMs);
  }

  private async stopLaunch(reason: string): Promise<void> {
    const launch = this.launch;
    const transport = this.transport;
    if (!launch) return;
    this.setState({ kind: 'stopping' });
    this.log.info(`Stopping (${reason})`);
    // Mark the launch as over first, so its late results and close event are dropped.
    this.launch = undefined;
    this.transport = undefined;
    this.closingTransport = transport;
    try {
      await transport?.close();
    } finally {
      this.closingTransport = undefined;
      launch.dispose();
      this.listsValue = emptyLists();
      this.listsEmitter.fire(this.listsValue);
      this.log.info('Stopped');
      if (!this.disposed) this.setState({ kind: 'stopped', reason: reason === 'stopped by the user' ? undefined : reason });
    }
  }

  private disposeLaunch(launch: DisposableStore): void {
    if (this.launch === launch) {
      this.launch = undefined;
      this.transport = undefined;
    }
    launch.dispose();
    if (this.listsValue.tools.length + this.listsValue.resources.length + this.listsValue.prompts.length + this.listsValue.resourceTemplates.length > 0) {
      this.listsValue = emptyLists();
      this.listsEmitter.fire(this.listsValue);
    }
  }

  private cancelRetry(): void {
    this.retryTimer?.dispose();
    this.retryTimer = undefined;
  }

  // --- lists -------------------------------------------------------------------

  private async refreshAllLists(launch: DisposableStore, client: McpClient): Promise<void> {
    await Promise.all([this.refreshList(launch, client, 'tools'), this.refreshList(launch, client, 'resources'), this.refreshList(launch, client, 'prompts')]);
  }

  private async refreshList(launch: DisposableStore, client: McpClient, kind: 'tools' | 'resources' | 'prompts'): Promise<void> {
    const capability = kind;
    if (!client.hasCapability(capability)) return;
    const next: Partial<ServerLists> = {};
    const errors = { ...this.listsValue.errors };
    const load = async <K extends 'tools' | 'resources' | 'resourceTemplates' | 'prompts'>(key: K, fetch: () => Promise<ServerLists[K]>) => {
      try {
        next[key] = await fetch();
        delete errors[key];
      } catch (err) {
        errors[key] = errorMessage(err);
        this.log.warn(`Could not list ${key}: ${errorMessage(err)}`);
      }
    };
    if (kind === 'tools') await load('tools', () => client.listAllTools());
    if (kind === 'prompts') await load('prompts', () => client.listAllPrompts());
    if (kind === 'resources') {
      await Promise.all([load('resources', () => client.listAllResources()), load('resourceTemplates', () => client.listAllResourceTemplates())]);
    }
    if (launch.isDisposed) return; // a late answer for a launch that has ended
    this.listsValue = { ...this.listsValue, ...next, errors };
    this.listsEmitter.fire(this.listsValue);
  }

  // --- logging -----------------------------------------------------------------

  private logServerMessage(level: LoggingLevel, loggerName: string | undefined, data: unknown): void {
    const text = `${loggerName ? `[${loggerName}] ` : ''}${typeof data === 'string' ? data : JSON.stringify(data)}`;
    switch (level) {
      case 'debug':
        this.log.debug(text);
        break;
      case 'info':
      case 'notice':
        this.log.info(text);
        break;
      case 'warning':
        this.log.warn(text);
        break;
      default:
        this.log.error(text);
    }
  }

  private traceMessage(direction: 'send' | 'receive', message: unknown): void {
    if (!this.env.traceEnabled()) return;
    let text = JSON.stringify(message) ?? String(message);
    if (text.length > 4000) text = `${text.slice(0, 4000)}… (${text.length} chars)`;
    this.log.trace(`${direction === 'send' ? '→' : '←'} ${text}`);
  }

  private explainStartFailure(err: unknown, spec: LaunchSpec): string {
    if (err instanceof TransportStartError) {
      let hint = '';
      if (err.code === 'ENOENT' && !spec.command.includes('/') && !spec.command.includes('\\')) {
        hint =
          ' VS Code may have been started without your shell profile: programs installed with nvm, volta, asdf or Homebrew are then not on its PATH. Use an absolute path in "command", or start VS Code from a terminal.' +
          (process.platform === 'win32' ? ' On Windows, use "npx.cmd" or the full path of npx.' : '');
      }
      return `Could not start "${this.name}": ${err.message}.${hint}`;
    }
    if (err instanceof UnsupportedProtocolVersionError) return `Server "${this.name}": ${err.message}`;
    if (err instanceof RequestTimeoutError) {
      return `Server "${this.name}" started but did not answer initialize within ${err.timeoutMs} ms. Check its log; it may be waiting for input or printing to stdout.`;
    }
    if (err instanceof ConnectionClosedError) {
      const info = err.closeInfo;
      return `Server "${this.name}" exited before answering initialize: ${info ? describeClose(info) : err.message}`;
    }
    return `Server "${this.name}" failed to start: ${errorMessage(err)}`;
  }

  private setState(state: ServerState): void {
    this.stateValue = state;
    this.stateEmitter.fire(state);
  }
}

function defaultSchedule(fn: () => void, ms: number): Disposable {
  const timer = setTimeout(fn, ms);
  return { dispose: () => clearTimeout(timer) };
}

function quoteForLog(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
