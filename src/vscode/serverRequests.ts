import * as vscode from 'vscode';
import type { Root } from '../protocol/schemas';

/** roots/list: the workspace folders, as file URIs. */
export function createRootsHandler(): () => Root[] {
  return () => (vscode.workspace.workspaceFolders ?? []).map((f) => ({ uri: f.uri.toString(), name: f.name }));
}
