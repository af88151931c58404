import type * as vscode from 'vscode';
import { whenRemoteLoads } from '../host/loadRemote';
import { httpEraCache } from '../protocol/eraCache';
import type { FactStore } from '../util/persistedFacts';

/** globalState keys; each holds digests of endpoint keys, never a URL. */
export const ERA_STATE_KEY = 'mcpHost.endpointEras';
export const LEGACY_SSE_STATE_KEY = 'mcpHost.legacySseEndpoints';

/** A store of facts in globalState: shared by the windows of this profile, written whole. */
function mementoStore<T>(state: vscode.Memento, key: string): FactStore<T> {
  return {
    read: () => state.get<unknown>(key),
    // A failed write costs a later window one round trip (a probe, a refused POST), nothing more.
    write: (facts) => void state.update(key, facts).then(undefined, () => undefined),
  };
}

/**
 * What remote endpoints taught this window, kept for the next ones: the era of each (no
 * server/discover probe to a server already known) and the URLs that speak only HTTP+SSE (no POST
 * that only fails again before the event stream). The second lives in the remote part, so it is
 * wired when that part loads; until then nothing is read.
 */
export function rememberEndpointsAcrossWindows(state: vscode.Memento): vscode.Disposable {
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
