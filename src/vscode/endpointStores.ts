import type * as vscode from 'vscode';
import { whenRemoteLoads } from '../host/loadRemote';
import { httpEraCache } from '../protocol/eraCache';
import type { FactStore } from '../util/persistedFacts';

/** globalState keys; each holds digests of endpoint keys, never a URL. */
export const ERA_STATE_KEY = 'mcpHost.endpointEras';
export const LEGACY_SSE_STATE_KEY = 'mcpHost.legacySseEndpoints';

/**
 * globalState written one update after another, reads seeing what is still queued. VS Code's
 * memento replaces its whole value when the echo of an earlier update comes back, so an update
 * made while another was on its way could be lost: an endpoint's era and that it speaks HTTP+SSE
 * are learned a round trip apart, and the second was found missing (CI, VS Code 1.139).
 */
class SerialState {
  private readonly queued = new Map<string, unknown>();
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly state: vscode.Memento) {}

  get(key: string): unknown {
    return this.queued.has(key) ? this.queued.get(key) : this.state.get<unknown>(key);
  }

  update(key: string, value: unknown): void {
    this.queued.set(key, value);
    this.tail = this.tail.then(() => this.flush(key));
  }

  private async flush(key: string): Promise<void> {
    if (!this.queued.has(key)) return;
    const value = this.queued.get(key);
    try {
      await this.state.update(key, value);
    } catch {
      // A failed write costs a later window one round trip (a probe, a refused POST), nothing more.
    }
    if (this.queued.get(key) === value) this.queued.delete(key);
  }
}

/** A store of facts in globalState: shared by the windows of this profile, written whole. */
function mementoStore<T>(state: SerialState, key: string): FactStore<T> {
  return { read: () => state.get(key), write: (facts) => state.update(key, facts) };
}

/**
 * What remote endpoints taught this window, kept for the next ones: the era of each (no
 * server/discover probe to a server already known) and the URLs that speak only HTTP+SSE (no POST
 * that only fails again before the event stream). The second lives in the remote part, so it is
 * wired when that part loads; until then nothing is read.
 */
export function rememberEndpointsAcrossWindows(memento: vscode.Memento): vscode.Disposable {
  const state = new SerialState(memento);
  httpEraCache.persistIn(mementoStore(state, ERA_STATE_KEY));
  let stopLegacySse: (() => void) | undefined;
  const wiring = whenRemoteLoads((remote) => {
    remote.legacySseEndpoints.persistIn(mementoStore(state, LEGACY_SSE_STATE_KEY));
    stopLegacySse = () => remote.legacySseEndpoints.persistIn(undefined);
  });
  return {
    dispose: () => {
      wiring.dispose();
      httpEraCache.persistIn(undefined);
      stopLegacySse?.();
    },
  };
}
