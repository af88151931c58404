import * as vscode from 'vscode';
import type { ServerRegistry } from '../host/registry';
import { ViewCommands } from './commandIds';

/** "MCP 3/4" with a warning colour when any server failed; opens the Servers view. */
export class ServerStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('mcpHost.status', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly registry: ServerRegistry) {
    this.item.name = 'MCP Host servers';
    this.item.command = ViewCommands.focusServers;
    this.disposables.push(registry.onDidChangeServers(() => this.update()), registry.onDidChangeState(() => this.update()));
    this.update();
  }

  update(): void {
    const servers = this.registry.servers;
    if (servers.length === 0) {
      this.item.hide();
      return;
    }
    const running = servers.filter((s) => s.state.kind === 'running').length;
    const failed = servers.filter((s) => s.state.kind === 'error');
    const starting = servers.some((s) => s.state.kind === 'starting');
    const signIn = servers.filter((s) => s.state.kind === 'needs-sign-in');
    const icon = failed.length ? '$(warning)' : signIn.length ? '$(account)' : starting ? '$(loading~spin)' : '$(plug)';
    this.item.text = `${icon} MCP ${running}/${servers.length}`;
    const notes = [
      failed.length ? `failed: ${failed.map((s) => s.name).join(', ')}` : '',
      signIn.length ? `sign-in needed: ${signIn.map((s) => s.name).join(', ')}` : '',
    ].filter(Boolean);
    this.item.tooltip = `${running} of ${servers.length} MCP servers running${notes.length ? `; ${notes.join('; ')}` : ''}`;
    this.item.backgroundColor = failed.length ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.item.dispose();
  }
}
