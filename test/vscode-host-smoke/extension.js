// Throwaway extension that proves the harness in scripts/vscode-host: activation on startup, commands,
// two tree views in its own activity bar container (with a title action and an inline item action), a
// status bar item, and child processes from the extension host (see test/smoke.test.js).
'use strict';
const vscode = require('vscode');

/** @typedef {{ label: string, children?: string[] }} Node */

/** @param {vscode.ExtensionContext} context */
function activate(context) {
  const activatedAt = Date.now();
  let hellos = 0;
  let refreshes = 0;
  const changed = new vscode.EventEmitter();

  /** @type {vscode.TreeDataProvider<Node>} */
  const items = {
    onDidChangeTreeData: changed.event,
    getTreeItem: (node) => {
      const item = new vscode.TreeItem(node.label, node.children ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
      item.id = node.label;
      item.tooltip = `Smoke item ${node.label}`;
      item.contextValue = node.children ? 'group' : 'leaf';
      if (node.label === 'Beta') item.command = { command: 'vscodeHostSmoke.hello', title: 'Say Hello' };
      return item;
    },
    getChildren: (node) => {
      if (!node) return [{ label: 'Alpha', children: ['Alpha One', 'Alpha Two'] }, { label: 'Beta' }];
      return (node.children ?? []).map((label) => ({ label }));
    },
  };
  /** @type {vscode.TreeDataProvider<string>} */
  const more = {
    getTreeItem: (label) => new vscode.TreeItem(label),
    getChildren: (label) => (label ? [] : ['Gamma']),
  };

  const status = vscode.window.createStatusBarItem('vscodeHostSmoke.status', vscode.StatusBarAlignment.Left, 100);
  status.name = 'Smoke Status';
  status.text = '$(check) Smoke ready';
  status.command = 'vscodeHostSmoke.hello';
  status.show();

  context.subscriptions.push(
    changed,
    status,
    vscode.window.createTreeView('vscodeHostSmoke.items', { treeDataProvider: items }),
    vscode.window.createTreeView('vscodeHostSmoke.more', { treeDataProvider: more }),
    vscode.commands.registerCommand('vscodeHostSmoke.hello', async () => {
      hellos += 1;
      const text = `Hello from the smoke extension (${hellos})`;
      // Not awaited: the notification stays until dismissed and the promise would not settle.
      void vscode.window.showInformationMessage(text);
      return text;
    }),
    vscode.commands.registerCommand('vscodeHostSmoke.poke', async (/** @type {Node | undefined} */ node) => {
      const text = `Poked ${node?.label ?? 'nothing'}`;
      void vscode.window.showInformationMessage(text);
      return text;
    }),
    vscode.commands.registerCommand('vscodeHostSmoke.refresh', () => {
      refreshes += 1;
      status.text = `$(check) Smoke refreshed ${refreshes}`;
      changed.fire(undefined);
      return refreshes;
    }),
  );

  return {
    activatedAt,
    hellos: () => hellos,
  };
}

function deactivate() {}

module.exports = { activate, deactivate };
