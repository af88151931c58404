import type * as vscode from 'vscode';
import type { EraStore } from '../protocol/eraCache';

const STATE_KEY = 'mcpHost.endpointEras';

/** The eras of remote endpoints kept in globalState, so a restart of VS Code sends no era probe to a server already known. */
export function globalStateEraStore(state: vscode.Memento): EraStore {
  return {
    read: () => state.get<unknown>(STATE_KEY),
    // A failed write costs a later start one probe, nothing more.
    write: (eras) => void state.update(STATE_KEY, eras).then(undefined, () => undefined),
  };
}
