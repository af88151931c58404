import * as vscode from 'vscode';
import type { ServerRegistry } from '../../../host/registry';
import type { ServerConnection } from '../../../host/serverConnection';
import type { Tool } from '../../../protocol/schemas';
import { hasAppView, isAppOnly } from '../../../protocol/apps';
import type { ArgumentHistory } from './history';
import { isDestructive } from './settings';
import { freshListsOf } from '../../freshLists';
import { runQuickInput } from '../../quickInput';

/** A tool picked by a person; `args` when they chose "Run Again with the Last Arguments". */
export interface PickedTool {
  server: ServerConnection;
  tool: Tool;
  args?: Record<string, unknown>;
}

interface ToolItem extends vscode.QuickPickItem {
  server?: ServerConnection;
  tool?: Tool;
}

const historyButton = (): vscode.QuickInputButton => ({ iconPath: new vscode.ThemeIcon('history'), tooltip: vscode.l10n.t('Run Again with the Last Arguments') });

/** "Run Tool…" without a tool: every tool of the running servers, grouped by server. */
export async function pickTool(registry: ServerRegistry, history: ArgumentHistory): Promise<PickedTool | undefined> {
  const servers = registry.servers.filter((s) => s.state.kind === 'running').sort((a, b) => a.name.localeCompare(b.name));
  await freshListsOf(servers, ['tools']);
  const items = toolItems(servers, history);
  if (items.length === 0) {
    void vscode.window.showInformationMessage(noToolsMessage(registry.servers.length, registry.servers.length - servers.length));
    return undefined;
  }
  return showToolPick(items, history);
}

function toolItems(servers: readonly ServerConnection[], history: ArgumentHistory): ToolItem[] {
  const items: ToolItem[] = [];
  for (const server of servers) {
    // Tools only their MCP App may call (visibility ["app"]) are not for people to run.
    const tools = server.lists.tools.filter((tool) => !isAppOnly(tool));
    if (tools.length === 0) continue;
    items.push({ label: server.name, kind: vscode.QuickPickItemKind.Separator });
    for (const tool of tools) {
      const title = tool.title ?? tool.annotations?.title;
      items.push({
        label: `${isDestructive(tool) ? '$(warning) ' : hasAppView(tool) ? '$(window) ' : ''}${title ?? tool.name}`,
        description: `${title && title !== tool.name ? `${tool.name} · ` : ''}${server.name}`,
        detail: tool.description?.trim().split('\n')[0],
        buttons: history.last(server.name, tool.name) ? [historyButton()] : [],
        server,
        tool,
      });
    }
  }
  return items;
}

function noToolsMessage(configured: number, notRunning: number): string {
  if (configured === 0) return vscode.l10n.t('MCP Host: no servers are configured.');
  return notRunning
    ? vscode.l10n.t('MCP Host: no running server offers tools ({0} not running).', notRunning)
    : vscode.l10n.t('MCP Host: no running server offers tools.');
}

function showToolPick(items: ToolItem[], history: ArgumentHistory): Promise<PickedTool | undefined> {
  const pick = vscode.window.createQuickPick<ToolItem>();
  pick.title = vscode.l10n.t('Run Tool');
  pick.placeholder = vscode.l10n.t('Pick a tool to run (type to filter by name, server or description)');
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.items = items;
  return runQuickInput<PickedTool | undefined>(pick, undefined, ({ finish }) => [
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0] ?? pick.activeItems[0];
      if (item?.server && item.tool) finish({ server: item.server, tool: item.tool });
    }),
    pick.onDidTriggerItemButton((e) => {
      const { server, tool } = e.item;
      if (server && tool) finish({ server, tool, args: history.last(server.name, tool.name) });
    }),
  ]);
}
