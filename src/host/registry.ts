import { Emitter, type Event } from '../util/event';
import type { Disposable } from '../util/disposable';
import type { ConfigSource, ServerDefinition } from './config';
import { ServerConnection, type ConnectionEnvironment, type ServerState } from './serverConnection';

/** One server as the configuration describes it: a definition, or a problem that keeps it from starting. */
export interface ServerEntry {
  readonly id: string;
  readonly name: string;
  readonly source: ConfigSource;
  readonly definition?: ServerDefinition;
  readonly problem?: string;
}

export interface ReconcileResult {
  added: string[];
  removed: string[];
  changed: string[];
  unchanged: string[];
}

/**
 * VS Code waits at most 5 s for the deactivate() promises of all extensions before the
 * extension host exits (extHostExtensionService.terminate races them with a 5000 ms timeout).
 */
export const DEACTIVATE_BUDGET_MS = 5000;
/** When shutdown() kills what is still stopping: after the stdio graces (2.5 s), with room left. */
export const SHUTDOWN_FORCE_AFTER_MS = 3500;
/** When shutdown() resolves whatever is left, still inside DEACTIVATE_BUDGET_MS. */
export const SHUTDOWN_GIVE_UP_AFTER_MS = 4500;

/**
 * Holds one ServerConnection per configured server and keeps them in line with
 * the configuration: start added, stop removed, restart changed, leave the rest running.
 */
export class ServerRegistry implements Disposable {
  private readonly connections = new Map<string, ServerConnection>();
  private readonly subscriptions = new Map<string, Disposable[]>();
  private readonly changeEmitter = new Emitter<void>();
  private readonly stateEmitter = new Emitter<{ server: ServerConnection; state: ServerState }>();
  private readonly listsEmitter = new Emitter<ServerConnection>();

  /** Servers were added or removed. */
  readonly onDidChangeServers: Event<void> = this.changeEmitter.event;
  readonly onDidChangeState: Event<{ server: ServerConnection; state: ServerState }> = this.stateEmitter.event;
  readonly onDidChangeLists: Event<ServerConnection> = this.listsEmitter.event;

  constructor(private readonly environmentFor: (entry: ServerEntry) => ConnectionEnvironment) {}

  get servers(): ServerConnection[] {
    return [...this.connections.values()];
  }

  get(id: string): ServerConnection | undefined {
    return this.connections.get(id);
  }

  findByName(name: string): ServerConnection | undefined {
    return this.servers.find((s) => s.name === name);
  }

  /**
   * Applies a new configuration. With `autoStart`, added and changed servers are started
   * (changed ones only if they were running or failed). Never throws for one bad server.
   */
  async reconcile(entries: readonly ServerEntry[], options: { autoStart: boolean }): Promise<ReconcileResult> {
    const result: ReconcileResult = { added: [], removed: [], changed: [], unchanged: [] };
    const wanted = new Map(entries.map((e) => [e.id, e]));
    const work: Promise<void>[] = [];

    for (const [id, connection] of this.connections) {
      if (!wanted.has(id)) {
        result.removed.push(id);
        this.connections.delete(id);
        for (const s of this.subscriptions.get(id) ?? []) s.dispose();
        this.subscriptions.delete(id);
        work.push(connection.stop('removed from the configuration').finally(() => connection.dispose()));
      }
    }
    for (const entry of entries) {
      const existing = this.connections.get(entry.id);
      if (!existing) {
        result.added.push(entry.id);
        const connection = this.create(entry);
        if (options.autoStart) work.push(connection.start());
        continue;
      }
      if (sameEntry(existing, entry)) {
        result.unchanged.push(entry.id);
        continue;
      }
      result.changed.push(entry.id);
      const wasActive = existing.state.kind !== 'stopped';
      existing.updateDefinition(entry.definition, entry.problem);
      work.push(
        (async () => {
          await existing.stop('the configuration changed');
          if (options.autoStart || wasActive) await existing.start();
        })(),
      );
    }
    if (result.added.length > 0 || result.removed.length > 0) this.changeEmitter.fire();
    await Promise.allSettled(work);
    return result;
  }

  startAll(): Promise<void> {
    return settleAll(this.servers.map((s) => s.start()));
  }

  stopAll(): Promise<void> {
    return settleAll(this.servers.map((s) => s.stop()));
  }

  /**
   * Stops every server within VS Code's time for deactivate(): each gets the graceful sequence
   * (stdin closed, SIGTERM after 1 s, SIGKILL 1.5 s later); one still stopping after
   * `forceAfterMs` is killed at once, and after `giveUpAfterMs` this resolves regardless (a
   * process left then is killed synchronously when the extension host exits).
   */
  async shutdown(forceAfterMs = SHUTDOWN_FORCE_AFTER_MS, giveUpAfterMs = SHUTDOWN_GIVE_UP_AFTER_MS): Promise<void> {
    const stopping = this.stopAll();
    const timers: NodeJS.Timeout[] = [];
    const gaveUp = new Promise<void>((resolve) => timers.push(setTimeout(resolve, giveUpAfterMs)));
    timers.push(setTimeout(() => void this.stopAll(), forceAfterMs));
    try {
      await Promise.race([stopping, gaveUp]);
    } finally {
      for (const t of timers) clearTimeout(t);
    }
  }

  dispose(): void {
    for (const subs of this.subscriptions.values()) for (const s of subs) s.dispose();
    this.subscriptions.clear();
    for (const c of this.connections.values()) c.dispose();
    this.connections.clear();
    this.changeEmitter.dispose();
    this.stateEmitter.dispose();
    this.listsEmitter.dispose();
  }

  private create(entry: ServerEntry): ServerConnection {
    const connection = new ServerConnection(entry.definition, entry.id, entry.name, entry.source, this.environmentFor(entry), entry.problem);
    this.connections.set(entry.id, connection);
    this.subscriptions.set(entry.id, [
      connection.onDidChangeState((state) => this.stateEmitter.fire({ server: connection, state })),
      connection.onDidChangeLists(() => this.listsEmitter.fire(connection)),
    ]);
    return connection;
  }
}

function sameEntry(connection: ServerConnection, entry: ServerEntry): boolean {
  return connection.problem === entry.problem && definitionKey(connection.definition) === definitionKey(entry.definition);
}

/** A comparable form of a definition (its source object is compared by file only). */
export function definitionKey(def: ServerDefinition | undefined): string {
  if (!def) return '';
  const { source, ...rest } = def;
  return JSON.stringify({ ...rest, source: source.file, folder: source.workspaceFolder });
}

async function settleAll(promises: Promise<void>[]): Promise<void> {
  await Promise.allSettled(promises);
}
