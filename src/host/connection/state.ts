import type { McpClient } from '../../protocol/client';
import type { ProtocolEra } from '../../protocol/era';
import type { Implementation, ServerCapabilities } from '../../protocol/schemas';
import { Emitter, type Event } from '../../util/event';
import type { ConfigSource } from '../config';
import type { Redactor } from '../redact';
import type { TrafficRecorder } from '../traffic';

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
 * The current state of one server and its changes: every state set is redacted (its texts are
 * shown in the tree, tooltips and notifications), written to the traffic timeline, then fired.
 */
export class ConnectionState {
  private value: ServerState = { kind: 'stopped' };
  private readonly emitter = new Emitter<ServerState>();
  readonly onDidChange: Event<ServerState> = this.emitter.event;

  constructor(
    private readonly redactor: Redactor,
    private readonly traffic: TrafficRecorder,
  ) {}

  get current(): ServerState {
    return this.value;
  }

  set(state: ServerState): void {
    // A state's text is shown in the tree, tooltips and notifications: it carries no secret.
    if ('message' in state) state = { ...state, message: this.redactor.redact(state.message) };
    if ('detail' in state && state.detail !== undefined) state = { ...state, detail: this.redactor.redact(state.detail) };
    if ('reason' in state && state.reason !== undefined) state = { ...state, reason: this.redactor.redact(state.reason) };
    this.value = state;
    this.traffic.recordEvent(describeStateEvent(state));
    this.emitter.fire(state);
  }

  dispose(): void {
    this.emitter.dispose();
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
