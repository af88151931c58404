import * as vscode from 'vscode';
import type { ServerConnection } from '../host/serverConnection';
import type { HostController } from './hostController';
import { stateLabel, type TreeNode } from './serverTree';
import { WORKSPACE_CONFIG_PATH } from './configLoader';
import { usageServices } from './services';
import { Commands } from './commandIds';

/** Lets a command take a tree node, a server name (from tests or keybindings), or nothing (then asks). */
export async function pickServer(
  controller: HostController,
  arg: unknown,
  placeHolder: string,
  filter: (s: ServerConnection) => boolean = () => true,
): Promise<ServerConnection | undefined> {
  if (arg && typeof arg === 'object' && 'server' in arg) return (arg as TreeNode).server;
  if (typeof arg === 'string') {
    const byName = controller.registry.findByName(arg) ?? controller.registry.get(arg);
    if (!byName) void vscode.window.showErrorMessage(vscode.l10n.t('MCP Host: no server named "{0}".', String(arg)));
    return byName;
  }
  const candidates = controller.registry.servers.filter(filter);
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(controller.registry.servers.length ? vscode.l10n.t('MCP Host: no server fits this command right now.') : vscode.l10n.t('MCP Host: no servers are configured.'));
    return undefined;
  }
  if (candidates.length === 1) return candidates[0];
  const picked = await usageServices.prompter.pick(
    candidates.map((s) => ({ label: s.name, description: stateLabel(s.state), detail: s.source.file, server: s })),
    { key: 'server.pick', placeHolder },
  );
  return picked?.server;
}

export function registerLifecycleCommands(controller: HostController, treeRefresh: () => void): vscode.Disposable[] {
  const { registry } = controller;
  return [
    vscode.commands.registerCommand(Commands.startServer, async (arg?: unknown) => {
      const server = await pickServer(controller, arg, 'Start which server?', (s) => s.state.kind !== 'running');
      await server?.start();
    }),
    vscode.commands.registerCommand(Commands.stopServer, async (arg?: unknown) => {
      const server = await pickServer(controller, arg, 'Stop which server?', (s) => s.state.kind === 'running' || s.state.kind === 'starting' || s.state.kind === 'stopping' || (s.state.kind === 'error' && !!s.state.retryAt));
      await server?.stop();
    }),
    vscode.commands.registerCommand(Commands.restartServer, async (arg?: unknown) => {
      const server = await pickServer(controller, arg, 'Restart which server?');
      await server?.restart();
    }),
    vscode.commands.registerCommand(Commands.signIn, async (arg?: unknown) => {
      const server = await pickServer(controller, arg, 'Sign in to which server?', (s) => s.canSignIn);
      if (!server) return;
      if (!server.canSignIn) {
        void vscode.window.showInformationMessage(vscode.l10n.t('MCP Host: "{0}" is a local server; only remote (http) servers sign in.', server.name));
        return;
      }
      await server.signIn();
    }),
    vscode.commands.registerCommand(Commands.signOut, async (arg?: unknown) => {
      const server = await pickServer(controller, arg, 'Sign out of which server?', (s) => s.canSignIn);
      if (!server?.canSignIn) return;
      await server.signOut();
      void vscode.window.showInformationMessage(vscode.l10n.t('MCP Host: signed out of "{0}"; its tokens were forgotten.', server.name));
    }),
    vscode.commands.registerCommand(Commands.startAll, () => registry.startAll()),
    vscode.commands.registerCommand(Commands.stopAll, () => registry.stopAll()),
    vscode.commands.registerCommand(Commands.showLogs, async (arg?: unknown) => {
      const server = await pickServer(controller, arg, 'Show the log of which server?');
      if (server) controller.channelFor(server).show(true);
    }),
    vscode.commands.registerCommand(Commands.refresh, async () => {
      await controller.reload();
      // Refresh is also how a person says "try again" after fixing a cause (e.g. installing a command).
      await Promise.allSettled(registry.servers.filter((s) => s.state.kind === 'error' && !s.state.retryAt).map((s) => s.start()));
      treeRefresh();
    }),
    vscode.commands.registerCommand(Commands.openConfiguration, async (arg?: unknown) => {
      const server = arg && typeof arg === 'object' && 'server' in arg ? (arg as TreeNode).server : undefined;
      if (server?.source.kind === 'user') {
        await vscode.commands.executeCommand('workbench.action.openSettingsJson');
        return;
      }
      const folders = vscode.workspace.workspaceFolders ?? [];
      let uri: vscode.Uri | undefined = server ? vscode.Uri.file(server.source.file) : undefined;
      if (!uri) {
        if (folders.length === 0) {
          await vscode.commands.executeCommand('workbench.action.openSettings', 'mcpHost.servers');
          return;
        }
        const folder = folders.length === 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('Open the MCP configuration of which folder?') });
        if (!folder) return;
        uri = vscode.Uri.joinPath(folder.uri, WORKSPACE_CONFIG_PATH);
        try {
          await vscode.workspace.fs.stat(uri);
        } catch {
          await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode('{\n  "servers": {}\n}\n'));
        }
      }
      await vscode.window.showTextDocument(uri);
    }),
  ];
}
