import * as vscode from 'vscode';
import { RESOURCE_SCHEME } from './resourceUri';

/** The mcp-host-resource URIs shown in editor tabs (text, custom editors such as the image preview, diffs). */
export function openResourceTabs(): vscode.Uri[] {
  const uris: vscode.Uri[] = [];
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const input = tab.input;
      if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom || input instanceof vscode.TabInputNotebook) uris.push(input.uri);
      else if (input instanceof vscode.TabInputTextDiff) uris.push(input.original, input.modified);
    }
  }
  return uris.filter((u) => u.scheme === RESOURCE_SCHEME);
}

/** Every resource document VS Code holds: in a tab (`tabs`, if already listed), or open as a text document without one. */
export function openResourceDocuments(tabs: readonly vscode.Uri[] = openResourceTabs()): vscode.Uri[] {
  const byKey = new Map<string, vscode.Uri>();
  for (const uri of tabs) byKey.set(uri.toString(), uri);
  for (const doc of vscode.workspace.textDocuments) if (doc.uri.scheme === RESOURCE_SCHEME) byKey.set(doc.uri.toString(), doc.uri);
  return [...byKey.values()];
}
