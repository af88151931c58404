import { AsyncLocalStorage } from 'node:async_hooks';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { McpClient, type ClientRequestHandlers } from '../protocol/client';
import { McpError, ConnectionClosedError, describeClose } from '../protocol/errors';
import type { RequestOptions } from '../protocol/connection';
import * as z from '../protocol/zod';
import { ClosedOnEraProbeError, type ProtocolEra, type ProtocolEraSetting } from '../protocol/era';
import type { TaskCallOptions, TaskInfo } from '../protocol/tasks';
import type {
  CallToolResult,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '../protocol/schemas';
import { HttpTransportError } from '../transport/httpError';
import type { Transport, TransportCloseInfo } from '../transport/transport';
import { AuthorizationRequiredError, type ServerAuthorization, type StaticClientConfig } from '../auth/types';
import { DisposableStore, type Disposable } from '../util/disposable';
import { Emitter, type Event } from '../util/event';
import { findCause } from '../util/errorCause';
import { errorMessage } from '../util/errorMessage';
import type { Logger } from '../util/logger';
import type { ConfigSource, HttpServerDefinition, InputDefinition, ServerDefinition, StdioServerDefinition } from './config';
import { createTransport, describeLaunch, shownUrlOf, type HttpLaunchSpec, type StdioLaunchSpec } from './transportFactory';
import { explainStartFailure } from './startFailure';
import { RestartPolicy, type RestartPolicyOptions } from './restartPolicy';
import { Redactor, definitionSecrets, headerSecretValues, isCredentialHeader, looksSecret, redactingLogger, tokenArgumentValues } from './redact';
import { resolveInputs, secretValues, substitute, VariableError, type InputResolver } from './variables';
import { TrafficRecorder, type TrafficDirection, type TrafficOrigin } from './traffic';
import { displayConfigUrl } from '../util/displayUrl';

/** The gateway client a relayed request is sent for, across the awaits of sending it. */
const relayOrigin = new AsyncLocalStorage<TrafficOrigin | undefined>();

/** A server's whole life, one value. The tree renders it; nobody asks the process. */
export type ServerState =
  | { kind: 'stopped'; reason?: string }
  | { kind: 'starting' }
  /** A remote server that wants a sign-in the person has not given yet. */
  | { kind: 'needs-sign-in'; message: string; scopes: readonly string[] }
  | {
      kind: 'running';
      client: McpClient;
      serverInfo: Implementation;
      protocolVersion: string;
      /** 'modern' (2026-07-28: server/discover, per-request _meta) or 'legacy' (initialize). */
      era: ProtocolEra;
      capabilities: ServerCapabilities;
      instructions?: string;
      pid?: number;
      /** For remote servers: the address connected to, as shown (the config's url as written, util/displayUrl.ts). */
      url?: string;
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
  /** Extensions advertised in our capabilities (the editor: MCP Apps; the CLI: none). */
  clientExtensions?: Record<string, Record<string, unknown>>;
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
  /** How many protocol messages of each server the traffic view keeps (0 or absent: none are recorded). */
  trafficCapacity?(): number;
  /** Longest accepted message; read at each start. */
  maxMessageBytes?: number;
  /** How a person raises it (e.g. "raise the setting …"), shown when a message is refused. */
  maxMessageBytesHint?: string;
  /**
   * Authorization for one remote server (OAuth with its tokens in SecretStorage or a file).
   * Without it, a server that asks for authorization fails with an error saying so.
   */
  authorization?(server: { name: string; url: string; staticClient?: StaticClientConfig; /** The server's redacting log. */ log?: Logger }): ServerAuthorization;
  /** A start-time check that can veto a launch (e.g. an untrusted workspace). */
  canStart?(): string | undefined;
  schedule?: (fn: () => void, ms: number) => Disposable;
}

/** A cached list of a connection (resources: with its templates). */
export type ListKind = 'tools' | 'resources' | 'prompts';

/** The methods behind each cached list, whose caching hints say whether it is still fresh. */
const LIST_METHODS: Record<ListKind, readonly string[]> = {
  tools: ['tools/list'],
  resources: ['resources/list', 'resources/templates/list'],
  prompts: ['prompts/list'],
};

/** A list's fetch in flight for one launch, and whether a change signal came since it began. */
interface ListFetch {
  readonly launch: DisposableStore;
  again: boolean;
  done?: Promise<void>;
}

/** How many stderr lines of a start are kept for its failure message. */
const START_STDERR_LINES = 20;

/** A launch spec, and for remote servers the resolved OAuth client secret (which is not the transport's). */
type PreparedHttpSpec = HttpLaunchSpec & { clientSecret?: string };
type PreparedSpec = StdioLaunchSpec | PreparedHttpSpec;

/** A request for a server that is not running: nothing was sent. */
export class ServerNotRunningError extends Error {
  constructor(
    readonly server: string,
    readonly state: ServerState['kind'],
  ) {
    super(`Server "${server}" is not running.`);
    this.name = 'ServerNotRunningError';
  }
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
  private transport: Transport | undefined;
  /** The transport being closed by stop(), so a second stop() can force it. */
  private closingTransport: Transport | undefined;
  /** The authorization of a remote server, kept across launches (its refresh and sign-in state). */
  private authorizationValue: { key: string; auth: ServerAuthorization } | undefined;
  /** Set by signIn(): the next launch may ask the person to sign in. */
  private signInRequested = false;
  private retryTimer: Disposable | undefined;
  private readonly restartPolicy: RestartPolicy;
  private readonly redactor = new Redactor();
  private readonly log: Logger;
  private disposed = false;
  /**
   * The era learned for one definition: a server that closed on the server/discover probe and then
   * ran as legacy is started as legacy again, until its configuration changes (versioning.mdx).
   */
  private learnedEra: { definitionKey: string; era: ProtocolEra } | undefined;
  /** The fetch in flight of each list (see refreshList). */
  private readonly listFetches = new Map<ListKind, ListFetch>();

  private readonly stateEmitter = new Emitter<ServerState>();
  private readonly listsEmitter = new Emitter<ServerLists>();
  readonly onDidChangeState: Event<ServerState> = this.stateEmitter.event;
  readonly onDidChangeLists: Event<ServerLists> = this.listsEmitter.event;
  private readonly resourceUpdatedEmitter = new Emitter<string>();
  /** `notifications/resources/updated` from the running server: the URI that changed. */
  readonly onResourceUpdated: Event<string> = this.resourceUpdatedEmitter.event;
  /** How many launches reached running (see sessionNumber). */
  private runningLaunches = 0;
  /** Every protocol message of this server, both directions, across its launches (the traffic view). */
  readonly traffic: TrafficRecorder;

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
    this.traffic = new TrafficRecorder(env.trafficCapacity?.() ?? 0);
    this.log = redactingLogger(env.logger, this.redactor);
    if (definitionValue) this.redactor.add(definitionSecrets(definitionValue, env.processEnv));
  }

  /**
   * Hides this server's secrets in a text shown to a person (tooltips, notifications): every value
   * known to be secret (inputs, secret env values, credential headers, token arguments) and every
   * credential recognisable by its form.
   */
  redact(text: string): string {
    return this.redactor.redact(text);
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

  /**
   * 'legacy' when this configuration ended its process on the era probe and was started again
   * as legacy (the doctor suggests setting protocolEra); undefined otherwise.
   */
  get learnedProtocolEra(): ProtocolEra | undefined {
    const definition = this.definitionValue;
    if (!definition || this.learnedEra?.definitionKey !== JSON.stringify(definition)) return undefined;
    return this.learnedEra.era;
  }

  /** The client while running, else undefined. */
  get client(): McpClient | undefined {
    return this.stateValue.kind === 'running' ? this.stateValue.client : undefined;
  }

  get logger(): Logger {
    return this.log;
  }

  // --- what the editor asks of the running server ------------------------------
  // The editor floor talks to the connection, never to the client behind it.

  /**
   * Tells one running session from another: changes each time the server is running again after a
   * restart (undefined when not running), so per-session work (subscriptions) can be redone.
   */
  get sessionNumber(): number | undefined {
    return this.stateValue.kind === 'running' ? this.runningLaunches : undefined;
  }

  /** Whether the running server declared a capability (false when it is not running). */
  hasCapability(capability: keyof ServerCapabilities): boolean {
    return this.client?.hasCapability(capability) ?? false;
  }

  callTool(name: string, args: Record<string, unknown>, options?: RequestOptions): Promise<CallToolResult> {
    return this.runningClient().callTool(name, args, options);
  }

  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.runningClient().readResource(uri, options);
  }

  /** A tool call that runs as a task, followed to its result (protocol/tasks.ts). */
  callToolAsTask(name: string, args: Record<string, unknown>, options?: TaskCallOptions): Promise<CallToolResult> {
    return this.runningClient().callToolAsTask(name, args, options);
  }

  getTask(taskId: string, options?: RequestOptions): Promise<TaskInfo> {
    return this.runningClient().tasks.getTask(taskId, options);
  }

  subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    return this.runningClient().subscribeResource(uri, options);
  }

  unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    return this.runningClient().unsubscribeResource(uri, options);
  }

  getPrompt(name: string, args: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult> {
    return this.runningClient().getPrompt(name, args, options);
  }

  complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options?: RequestOptions,
  ): Promise<CompleteResult> {
    return this.runningClient().complete(ref, argument, context, options);
  }

  /**
   * Sends any request of another client (the gateway) the way our own go, era rules included, and
   * returns its result unchecked: the other client validates it.
   */
  relayRequest(method: string, params: Record<string, unknown> | undefined, options?: RequestOptions, origin?: TrafficOrigin): Promise<Record<string, unknown>> {
    const client = this.runningClient();
    // The traffic ring marks what is sent on this call's behalf with who asked.
    return relayOrigin.run(origin, () => client.sendRequest(method, params, z.record(z.string(), z.unknown()), options));
  }

  /** Tells the running server the workspace roots changed; nothing to tell when it is not running. */
  async notifyRootsChanged(): Promise<void> {
    await this.client?.notifyRootsChanged();
  }

  /** The client of the running server, or a rejection a person can read (nothing was sent). */
  private runningClient(): McpClient {
    const client = this.client;
    if (!client) throw new ServerNotRunningError(this.name, this.stateValue.kind);
    return client;
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
      if (this.stateValue.kind === 'needs-sign-in') this.setState({ kind: 'stopped', reason });
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
    if (definition) this.redactor.add(definitionSecrets(definition, this.env.processEnv));
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.cancelRetry();
    void this.stop('the extension is shutting down');
    this.stateEmitter.dispose();
    this.listsEmitter.dispose();
    this.resourceUpdatedEmitter.dispose();
    this.traffic.dispose();
  }

  /** Applies a changed traffic setting at once (the ring keeps what still fits). */
  updateTrafficCapacity(): void {
    this.traffic.setCapacity(this.env.trafficCapacity?.() ?? 0);
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
    const launch = new DisposableStore();
    this.launch = launch;
    this.setState({ kind: 'starting' });
    this.log.info(`Starting ${this.name} (from ${this.source.file})`);

    let spec: PreparedSpec;
    try {
      spec = await this.prepare(definition);
    } catch (err) {
      if (launch.isDisposed) return;
      this.failLaunch(launch, err instanceof VariableError ? `Configuration of "${this.name}": ${err.message}` : errorMessage(err));
      return;
    }
    if (launch.isDisposed) return;
    this.log.info(`${spec.type === 'stdio' ? 'Command' : 'Connecting to'}: ${describeLaunch(spec)}`);

    const auth = spec.type === 'stdio' || definition.type === 'stdio' ? undefined : this.authorizationFor(definition, spec.clientSecret);
    const interactive = this.signInRequested;
    this.signInRequested = false;
    auth?.setInteractive(interactive);
    // What it said while starting: a server that hangs at start has often said why on stderr.
    const startStderr: string[] = [];
    const definitionKey = JSON.stringify(definition);
    const learned = this.learnedEra?.definitionKey === definitionKey ? this.learnedEra.era : undefined;
    if (learned) this.log.info(`protocolEra '${learned}': this server closed when probed with server/discover before (remembered until its configuration changes)`);
    let era: ProtocolEraSetting | undefined = learned ?? definition.protocolEra;

    let client: McpClient;
    let transport: Transport;
    let result;
    for (;;) {
      const attempt = this.connectAttempt(launch, spec, era, auth, startStderr);
      client = attempt.client;
      transport = attempt.transport;
      try {
        result = await client.connect();
        break;
      } catch (err) {
        if (launch.isDisposed) return;
        if (err instanceof ClosedOnEraProbeError && era !== err.retryEra) {
          // Some legacy servers exit on any method they do not know; the probe cannot be taken back
          // on that connection, so a new process is started, once, in the era the error names.
          this.log.warn(
            `The server closed when probed with server/discover, the 2026-07-28 era probe${err.closeInfo ? ` (${describeClose(err.closeInfo)})` : ''}; ` +
              `starting it again with protocolEra '${err.retryEra}' (remembered for this server until its configuration changes)`,
          );
          // A row of its own in the traffic view: the next `initialize` (id 1 again) is a new process.
          this.traffic.recordEvent(
            this.redactor.redact(`restarted as ${err.retryEra} after server/discover ended the process (the 2026-07-28 era probe)${err.closeInfo ? `: ${describeClose(err.closeInfo)}` : ''}`),
          );
          era = err.retryEra;
          client.dispose();
          continue;
        }
        const signIn = findCause(err, AuthorizationRequiredError);
        if (signIn) {
          this.needsSignIn(launch, signIn);
          return;
        }
        this.failLaunch(launch, explainStartFailure(this.name, err, spec, startStderr), err);
        return;
      }
    }
    if (era === 'legacy' && definition.protocolEra !== 'legacy') this.learnedEra = { definitionKey, era };
    if (launch.isDisposed) return;
    auth?.setInteractive(false);
    this.log.info(
      `Running: ${result.serverInfo.name} ${result.serverInfo.version}, protocol ${result.protocolVersion} (${client.era ?? 'legacy'} era)${transport.pid !== undefined ? `, pid ${transport.pid}` : ''}`,
    );
    this.runningLaunches++;
    this.setState({
      kind: 'running',
      client,
      serverInfo: result.serverInfo,
      protocolVersion: result.protocolVersion,
      era: client.era ?? 'legacy',
      capabilities: result.capabilities,
      instructions: result.instructions,
      pid: transport.pid,
      url: spec.type === 'stdio' ? undefined : shownUrlOf(spec),
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

  /** One transport and client for a launch (a launch has two when the era probe closed the first). */
  private connectAttempt(
    launch: DisposableStore,
    spec: PreparedSpec,
    era: ProtocolEraSetting | undefined,
    auth: ServerAuthorization | undefined,
    startStderr: string[],
  ): { transport: Transport; client: McpClient } {
    const transport = createTransport(spec, {
      label: this.name,
      maxMessageBytes: this.env.maxMessageBytes,
      maxMessageBytesHint: this.env.maxMessageBytesHint,
      shutdown: this.env.shutdown,
      auth,
    });
    this.transport = transport;
    launch.add({ dispose: () => void transport.close() });
    const logPrefix = spec.type === 'stdio' ? '[stderr] ' : '';
    launch.add(
      transport.onLog((line) => {
        this.log.info(`${logPrefix}${line}`);
        if (this.stateValue.kind === 'starting' && startStderr.push(line) > START_STDERR_LINES) startStderr.shift();
      }),
    );
    const client = new McpClient(
      transport,
      {
        label: `server '${this.name}'`,
        protocolEra: era,
        clientInfo: this.env.clientInfo,
        extensions: this.env.clientExtensions,
        logger: this.log,
        requestTimeoutMs: this.env.requestTimeoutMs(),
        onTrace: (direction, message) => this.onProtocolMessage(direction, message),
      },
      this.env.handlers,
    );
    launch.add(client);
    launch.add(client.onClose((info) => this.handleClose(launch, info)));
    launch.add(client.onLogMessage((m) => this.logServerMessage(m.level, m.logger, m.data)));
    launch.add(client.onResourceUpdated((uri) => this.resourceUpdatedEmitter.fire(uri)));
    return { transport, client };
  }

  /** Resolves variables, inputs and envFile into what the transport is built from. */
  private async prepare(def: ServerDefinition): Promise<PreparedSpec> {
    const ctx = {
      workspaceFolder: def.source.workspaceFolder,
      env: this.env.processEnv,
      inputs: this.env.inputs(),
      inputResolver: this.env.inputResolver,
    };
    const inputValues = await resolveInputs(def, ctx);
    this.redactor.add(secretValues(inputValues));
    const sub = (value: string) => substitute(value, ctx, inputValues);
    return def.type === 'stdio' ? this.prepareStdio(def, sub) : this.prepareHttp(def, sub);
  }

  private prepareStdio(def: StdioServerDefinition, sub: (value: string) => string): StdioLaunchSpec {
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
    const args = def.args.map(sub);
    this.redactor.add(tokenArgumentValues(args));
    return { type: 'stdio', command: sub(def.command), args, env, cwd };
  }

  private prepareHttp(def: HttpServerDefinition, sub: (value: string) => string): PreparedHttpSpec {
    const url = sub(def.url);
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
    } catch {
      throw new VariableError(`"url" is not an http:// or https:// URL after its variables were filled in`);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(def.headers)) {
      headers[name] = sub(value);
      // Credentials in headers never reach a log, whatever the header is called.
      if (isCredentialHeader(name)) this.redactor.add(headerSecretValues(headers[name]));
    }
    const clientSecret = def.oauth?.clientSecret ? sub(def.oauth.clientSecret) : undefined;
    if (clientSecret) this.redactor.add([clientSecret]);
    return { type: def.type, url, shownUrl: displayConfigUrl(def.url), headers, clientSecret };
  }

  /** The authorization of a remote server; a new one when its address or client changed. */
  private authorizationFor(def: HttpServerDefinition, clientSecret?: string): ServerAuthorization | undefined {
    if (!this.env.authorization) return undefined;
    const key = JSON.stringify([def.url, def.oauth?.clientId, def.oauth?.scopes, clientSecret !== undefined]);
    if (this.authorizationValue?.key !== key) {
      const staticClient: StaticClientConfig | undefined = def.oauth ? { clientId: def.oauth.clientId, clientSecret, scopes: def.oauth.scopes } : undefined;
      this.authorizationValue = { key, auth: this.env.authorization({ name: this.name, url: def.url, staticClient, log: this.log }) };
    }
    return this.authorizationValue.auth;
  }

  /** Whether a sign-in could help: the server is remote and authorization is available. */
  get canSignIn(): boolean {
    return this.definitionValue !== undefined && this.definitionValue.type !== 'stdio' && this.env.authorization !== undefined;
  }

  /** Starts (or restarts) the server allowing it to ask the person to sign in. */
  async signIn(): Promise<void> {
    if (!this.canSignIn) return;
    this.signInRequested = true;
    this.restartPolicy.reset();
    if (this.launch) await this.stop('signing in');
    await this.start();
  }

  /** Forgets the server's tokens and stops it; it asks to sign in on its next start. */
  async signOut(): Promise<void> {
    const def = this.definitionValue;
    if (!def || def.type === 'stdio') return;
    const auth = this.authorizationValue?.auth ?? this.authorizationFor(def);
    await this.stop('signed out');
    await auth?.signOut();
    this.log.info('Signed out: the tokens of this server were forgotten');
    this.setState({ kind: 'stopped', reason: 'signed out' });
  }

  private needsSignIn(launch: DisposableStore, err: AuthorizationRequiredError): void {
    const scopes = err.scopes.length > 0 ? ` (scopes: ${err.scopes.join(' ')})` : '';
    const message = `Server "${this.name}" needs you to sign in${scopes}. Use Sign In.`;
    this.log.warn(message);
    this.disposeLaunch(launch);
    this.setState({ kind: 'needs-sign-in', message, scopes: err.scopes });
  }

  private failLaunch(launch: DisposableStore, message: string, cause?: unknown): void {
    this.log.error(message);
    if (cause instanceof McpError && cause.data) this.log.debug(`details: ${JSON.stringify(cause.data)}`);
    this.disposeLaunch(launch);
    // Only a process that ran and then died, or a server we could not reach, is worth retrying;
    // a missing command, or an HTTP answer that says the request itself is wrong, is not.
    const http: HttpTransportError | undefined = findCause(cause, HttpTransportError);
    const retryable = cause instanceof ConnectionClosedError && !(http?.status !== undefined && http.status >= 400 && http.status < 500);
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

  /**
   * Fetches again the cached lists that are stale, and resolves when they are in (at once when
   * every list is fresh). In the 2026-07-28 era a list says how long it may be served from a cache
   * (`ttlMs`, server/utilities/caching.mdx): a stale list is fetched again when it is next needed,
   * not by polling, so the editor calls this where it needs lists (pickers opening, the tree
   * expanding a server). A list without hints (every legacy list) stays cached until a change
   * signal. `cacheScope` needs nothing more: the lists belong to one connection (one authorization
   * context), are never shared, and are dropped when it stops. Never rejects.
   */
  freshLists(kinds: readonly ListKind[] = ['tools', 'resources', 'prompts']): Promise<void> {
    const launch = this.launch;
    const client = this.client;
    if (!launch || launch.isDisposed || !client) return Promise.resolve();
    const now = performance.now();
    const work: Array<Promise<void>> = [];
    for (const kind of kinds) {
      if (!client.hasCapability(kind)) continue;
      const current = this.listFetches.get(kind);
      if (current?.launch === launch && current.done) {
        work.push(current.done); // a fetch in flight is as fresh as it gets
        continue;
      }
      const stale = LIST_METHODS[kind].some((method) => {
        const hints = client.cacheHints(method);
        return hints !== undefined && now >= hints.receivedAt + (hints.ttlMs ?? 0);
      });
      if (stale) {
        this.log.debug(`The ${kind} list is stale (its ttlMs has passed): fetching it again`);
        work.push(this.refreshList(launch, client, kind));
      }
    }
    return Promise.all(work).then(() => undefined);
  }

  private async refreshAllLists(launch: DisposableStore, client: McpClient): Promise<void> {
    await Promise.all([this.refreshList(launch, client, 'tools'), this.refreshList(launch, client, 'resources'), this.refreshList(launch, client, 'prompts')]);
  }

  /**
   * Fetches one list. Change signals that come while its fetch is in flight ask for one more
   * fetch after it, however many they are: fetches of a list never overlap (where the slowest
   * answer would win) and the last one starts after the last signal.
   */
  private refreshList(launch: DisposableStore, client: McpClient, kind: ListKind): Promise<void> {
    const current = this.listFetches.get(kind);
    if (current?.launch === launch && current.done) {
      current.again = true;
      return current.done;
    }
    const fetch: ListFetch = { launch, again: false };
    this.listFetches.set(kind, fetch);
    fetch.done = (async () => {
      do {
        fetch.again = false;
        await this.fetchList(launch, client, kind);
      } while (fetch.again && !launch.isDisposed);
    })().finally(() => {
      if (this.listFetches.get(kind) === fetch) this.listFetches.delete(kind);
    });
    return fetch.done;
  }

  private async fetchList(launch: DisposableStore, client: McpClient, kind: ListKind): Promise<void> {
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

  /** Every message in and out: into the traffic ring, and into the log at trace level. */
  private onProtocolMessage(direction: TrafficDirection, message: unknown): void {
    this.traffic.recordMessage(direction, message, direction === 'send' ? relayOrigin.getStore() : undefined);
    if (this.env.traceEnabled()) this.traceMessage(direction, message);
  }

  private traceMessage(direction: TrafficDirection, message: unknown): void {
    // Redacted before it is cut, so a secret across the cut cannot leave its first half behind.
    let text = this.redactor.redact(JSON.stringify(message) ?? String(message));
    if (text.length > 4000) text = `${text.slice(0, 4000)}… (${text.length} chars)`;
    this.log.trace(`${direction === 'send' ? '→' : '←'} ${text}`);
  }

  private setState(state: ServerState): void {
    // A state's text is shown in the tree, tooltips and notifications: it carries no secret.
    if ('message' in state) state = { ...state, message: this.redactor.redact(state.message) };
    if ('detail' in state && state.detail !== undefined) state = { ...state, detail: this.redactor.redact(state.detail) };
    if ('reason' in state && state.reason !== undefined) state = { ...state, reason: this.redactor.redact(state.reason) };
    this.stateValue = state;
    this.traffic.recordEvent(describeStateEvent(state));
    this.stateEmitter.fire(state);
  }
}

/** A state as a line of the traffic timeline (its texts are redacted already). */
function describeStateEvent(state: ServerState): string {
  switch (state.kind) {
    case 'running':
      return `running: ${state.serverInfo.name} ${state.serverInfo.version}, protocol ${state.protocolVersion} (${state.era} era)${state.pid !== undefined ? `, pid ${state.pid}` : ''}`;
    case 'error':
      return `error: ${state.message}`;
    case 'needs-sign-in':
      return `needs sign-in: ${state.message}`;
    case 'stopped':
      return state.reason ? `stopped: ${state.reason}` : 'stopped';
    default:
      return state.kind;
  }
}

function defaultSchedule(fn: () => void, ms: number): Disposable {
  const timer = setTimeout(fn, ms);
  return { dispose: () => clearTimeout(timer) };
}

