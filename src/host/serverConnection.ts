// One configured server, the class the editor floor, the CLI and the gateway talk to. Its jobs
// live beside it in connection/: the state union (state.ts), launch preparation per transport kind
// (launch.ts), the list cache (lists.ts), the remote sign-in (remoteSession.ts), the traffic hook
// (protocolTrace.ts) and the era learned from the probe (eraMemory.ts). What is left here is the
// lifecycle: one disposable scope per launch, crash restarts, stop.
import { McpClient } from '../protocol/client';
import { McpError, ConnectionClosedError, describeClose } from '../protocol/errors';
import { ClosedOnEraProbeError, type ProtocolEra, type ProtocolEraSetting } from '../protocol/era';
import { HttpTransportError } from '../transport/httpError';
import type { Transport, TransportCloseInfo } from '../transport/transport';
import { AuthorizationRequiredError } from '../auth/types';
import { DisposableStore, type Disposable } from '../util/disposable';
import { Emitter, type Event } from '../util/event';
import { findCause } from '../util/errorCause';
import { errorMessage } from '../util/errorMessage';
import type { Logger } from '../util/logger';
import type { ConfigSource, ServerDefinition } from './config';
import { describeLaunch, shownUrlOf } from './transportFactory';
import { explainStartFailure } from './startFailure';
import { RestartPolicy } from './restartPolicy';
import { Redactor, definitionSecrets, redactLogLine, redactingLogger } from './redact';
import { VariableError } from './variables';
import { TrafficRecorder } from './traffic';
import type { ConnectionEnvironment } from './connection/environment';
import { openAttempt, type AttemptContext } from './connection/attempt';
import { EraMemory } from './connection/eraMemory';
import { prepareLaunch, type PreparedSpec } from './connection/launch';
import { ListCache, type ListKind, type ServerLists } from './connection/lists';
import { ProtocolTrace } from './connection/protocolTrace';
import { RemoteSession, needsSignInMessage } from './connection/remoteSession';
import { RunningServerRequests } from './connection/requests';
import { ConnectionState, type ServerState } from './connection/state';

export type { ConnectionEnvironment } from './connection/environment';
export type { ListKind, ServerLists } from './connection/lists';
export { ServerNotRunningError, serverId, type ServerState } from './connection/state';

/**
 * One configured server: start/stop/restart, the state union, the cached lists,
 * crash restarts with backoff and a breaker. Each launch has its own disposable
 * scope; results that arrive after their launch was disposed are dropped.
 */
export class ServerConnection extends RunningServerRequests implements Disposable {
  private launch: DisposableStore | undefined;
  private launchPromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private transport: Transport | undefined;
  /** The transport being closed by stop(), so a second stop() can force it. */
  private closingTransport: Transport | undefined;
  private retryTimer: Disposable | undefined;
  private readonly restartPolicy: RestartPolicy;
  private readonly redactor = new Redactor();
  private readonly log: Logger;
  private disposed = false;
  private readonly stateMachine: ConnectionState;
  private readonly listCache: ListCache;
  private readonly remote: RemoteSession;
  private readonly protocolTrace: ProtocolTrace;
  private readonly eraMemory = new EraMemory();

  readonly onDidChangeState: Event<ServerState>;
  readonly onDidChangeLists: Event<ServerLists>;
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
    super();
    this.restartPolicy = new RestartPolicy(env.restartPolicy);
    this.traffic = new TrafficRecorder(env.trafficCapacity?.() ?? 0);
    this.log = redactingLogger(env.logger, this.redactor);
    this.stateMachine = new ConnectionState(this.redactor, this.traffic);
    this.listCache = new ListCache(this.log);
    this.remote = new RemoteSession(name, env, this.log);
    this.protocolTrace = new ProtocolTrace(this.traffic, this.log, this.redactor, () => env.traceEnabled());
    this.onDidChangeState = this.stateMachine.onDidChange;
    this.onDidChangeLists = this.listCache.onDidChange;
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

  /** A line of the server's as its log keeps it: cut at LOG_LINE_MAX, then redacted (redactLogLine). */
  redactLogLine(line: string): string {
    return redactLogLine(this.redactor, line);
  }

  get state(): ServerState {
    return this.stateMachine.current;
  }

  get lists(): ServerLists {
    return this.listCache.current;
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
    return this.eraMemory.forDefinition(this.definitionValue);
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
    return this.state.kind === 'running' ? this.runningLaunches : undefined;
  }

  /** Starts the server; resolves when it runs or has failed. Idempotent. */
  start(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    if (this.launchPromise) return this.launchPromise;
    if (this.state.kind === 'running') return Promise.resolve();
    this.cancelRetry();
    this.launchPromise = this.launchOnce()
      .catch((err: unknown) => {
        // A bug on our side must not leave the server looking "starting" forever.
        const launch = this.launch;
        if (launch) this.disposeLaunch(launch);
        this.stateMachine.set({ kind: 'error', message: `Server "${this.name}" could not be started because of an internal error: ${errorMessage(err)}` });
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
      if (this.state.kind === 'needs-sign-in') this.stateMachine.set({ kind: 'stopped', reason });
      if (this.state.kind === 'error' || this.state.kind === 'stopped') {
        if (this.state.kind === 'error' && this.state.retryAt !== undefined) this.stateMachine.set({ kind: 'stopped', reason });
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
    this.stateMachine.dispose();
    this.listCache.dispose();
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
      this.stateMachine.set({ kind: 'stopped', reason: veto });
      return;
    }
    if (this.configProblem || !this.definitionValue) {
      this.stateMachine.set({ kind: 'error', message: this.configProblem ?? 'no definition' });
      return;
    }
    const definition = this.definitionValue;
    const launch = new DisposableStore();
    this.launch = launch;
    this.stateMachine.set({ kind: 'starting' });
    this.log.info(`Starting ${this.name} (from ${this.source.file})`);

    let spec: PreparedSpec;
    try {
      spec = await prepareLaunch(definition, this.env, this.redactor);
    } catch (err) {
      if (launch.isDisposed) return;
      this.failLaunch(launch, err instanceof VariableError ? `Configuration of "${this.name}": ${err.message}` : errorMessage(err));
      return;
    }
    if (launch.isDisposed) return;
    this.log.info(`${spec.type === 'stdio' ? 'Command' : 'Connecting to'}: ${describeLaunch(spec)}`);

    const auth = this.remote.forLaunch(definition, spec);
    // What it said while starting: a server that hangs at start has often said why on stderr.
    const startStderr: string[] = [];
    const attemptContext: AttemptContext = {
      serverName: this.name,
      env: this.env,
      log: this.log,
      trace: this.protocolTrace,
      launch,
      spec,
      auth,
      startStderr,
      isStarting: () => this.state.kind === 'starting',
      onClose: (info) => this.handleClose(launch, info),
      onResourceUpdated: (uri) => this.resourceUpdatedEmitter.fire(uri),
    };
    const learned = this.eraMemory.forDefinition(definition);
    if (learned) this.log.info(`protocolEra '${learned}': this server closed when probed with server/discover before (remembered until its configuration changes)`);
    // A remote server's era is remembered by the client itself, for every session of this process
    // (protocol/eraCache.ts): a restart of a legacy one sends no probe.
    let era: ProtocolEraSetting | undefined = learned ?? definition.protocolEra;

    let client: McpClient;
    let transport: Transport;
    let result;
    for (;;) {
      const attempt = openAttempt(attemptContext, era);
      client = attempt.client;
      transport = attempt.transport;
      this.transport = transport;
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
    if (era === 'legacy' && definition.protocolEra !== 'legacy') this.eraMemory.remember(definition, era);
    if (launch.isDisposed) return;
    auth?.setInteractive(false);
    this.log.info(
      `Running: ${result.serverInfo.name} ${result.serverInfo.version}, protocol ${result.protocolVersion} (${client.era ?? 'legacy'} era)${transport.pid !== undefined ? `, pid ${transport.pid}` : ''}`,
    );
    this.runningLaunches++;
    this.stateMachine.set({
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
    launch.add(client.onToolsListChanged(() => void this.listCache.refresh(launch, client, 'tools')));
    launch.add(client.onResourcesListChanged(() => void this.listCache.refresh(launch, client, 'resources')));
    launch.add(client.onPromptsListChanged(() => void this.listCache.refresh(launch, client, 'prompts')));
    await this.listCache.refreshAll(launch, client);
  }

  // --- sign-in (remote servers) --------------------------------------------------

  /** Whether a sign-in could help: the server is remote and authorization is available. */
  get canSignIn(): boolean {
    return this.remote.canSignIn(this.definitionValue);
  }

  /** Starts (or restarts) the server allowing it to ask the person to sign in. */
  async signIn(): Promise<void> {
    if (!this.canSignIn) return;
    this.remote.requestSignIn();
    this.restartPolicy.reset();
    if (this.launch) await this.stop('signing in');
    await this.start();
  }

  /** Forgets the server's tokens and stops it; it asks to sign in on its next start. */
  async signOut(): Promise<void> {
    const def = this.definitionValue;
    if (!def || def.type === 'stdio') return;
    const auth = this.remote.forSignOut(def);
    await this.stop('signed out');
    await auth?.signOut();
    this.log.info('Signed out: the tokens of this server were forgotten');
    this.stateMachine.set({ kind: 'stopped', reason: 'signed out' });
  }

  private needsSignIn(launch: DisposableStore, err: AuthorizationRequiredError): void {
    const message = needsSignInMessage(this.name, err);
    this.log.warn(message);
    this.disposeLaunch(launch);
    this.stateMachine.set({ kind: 'needs-sign-in', message, scopes: err.scopes });
  }

  // --- failures, crashes and stopping ----------------------------------------------

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
      this.stateMachine.set({ kind: 'error', message });
    }
  }

  private handleClose(launch: DisposableStore, info: TransportCloseInfo): void {
    if (launch.isDisposed || launch !== this.launch) return;
    if (this.state.kind !== 'running') return; // failures during start are reported by launchOnce
    this.disposeLaunch(launch);
    if (info.expected) {
      this.log.info(`Stopped (${info.reason})`);
      this.stateMachine.set({ kind: 'stopped' });
      return;
    }
    if (info.exitCode === 0) {
      this.log.info(`The server exited by itself (${info.reason}); not restarting`);
      this.stateMachine.set({ kind: 'stopped', reason: 'the server exited by itself (exit code 0)' });
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
      this.stateMachine.set({ kind: 'error', message: text, crashLoop: true });
      return;
    }
    const retryAt = Date.now() + decision.delayMs;
    this.log.warn(`Restarting in ${Math.round(decision.delayMs / 100) / 10} s (crash ${decision.crashesInWindow} of ${this.restartPolicy.maxCrashes} allowed)`);
    this.stateMachine.set({ kind: 'error', message, retryAt });
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
    this.stateMachine.set({ kind: 'stopping' });
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
      this.listCache.clear();
      this.log.info('Stopped');
      if (!this.disposed) this.stateMachine.set({ kind: 'stopped', reason: reason === 'stopped by the user' ? undefined : reason });
    }
  }

  private disposeLaunch(launch: DisposableStore): void {
    if (this.launch === launch) {
      this.launch = undefined;
      this.transport = undefined;
    }
    launch.dispose();
    this.listCache.clearIfAny();
  }

  private cancelRetry(): void {
    this.retryTimer?.dispose();
    this.retryTimer = undefined;
  }

  // --- lists -------------------------------------------------------------------

  /**
   * Fetches again the cached lists that are stale (their `ttlMs` has passed), and resolves when
   * they are in; at once when every list is fresh or the server is not running. Never rejects.
   * See ListCache.fresh (connection/lists.ts).
   */
  freshLists(kinds: readonly ListKind[] = ['tools', 'resources', 'prompts']): Promise<void> {
    const launch = this.launch;
    const client = this.client;
    if (!launch || launch.isDisposed || !client) return Promise.resolve();
    return this.listCache.fresh(launch, client, kinds);
  }
}

function defaultSchedule(fn: () => void, ms: number): Disposable {
  const timer = setTimeout(fn, ms);
  return { dispose: () => clearTimeout(timer) };
}
