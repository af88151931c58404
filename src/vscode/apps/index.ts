// MCP Apps in the editor: running a tool whose _meta.ui names a view opens that view beside the
// result, one panel per server and tool; running it again sends the new input and result to the
// open view (no reload).
import * as vscode from 'vscode';
import { toolUi } from '../../protocol/apps';
import { AppResourceError, loadAppResource } from '../../host/apps/resource';
import type { ServerConnection } from '../../host/serverConnection';
import type { CallToolResult, Tool } from '../../protocol/schemas';
import { errorMessage } from '../../util/errorMessage';
import { zoneOfUrl, type NetworkZone } from '../../util/networkZone';
import { McpAppPanel, type McpAppPanelHandle } from './appPanel';
import { webviewsLoaded } from '../webview/html';

type Outcome = { result: CallToolResult } | { error: string; cancelled?: boolean };

export class McpAppViews implements vscode.Disposable {
  private readonly panels = new Map<string, McpAppPanel>();
  /** The last showRun of each view: runs of one tool are shown one after the other. */
  private readonly queues = new Map<string, Promise<unknown>>();

  /**
   * Shows a finished run in its tool's view, opening the view first if needed. Two runs of one
   * tool that finish close together are shown in turn: both opening a panel would orphan one.
   */
  showRun(server: ServerConnection, tool: Tool, args: Record<string, unknown>, outcome: Outcome): Promise<McpAppPanelHandle | undefined> {
    const uri = toolUi(tool).resourceUri;
    if (!uri) return Promise.resolve(undefined);
    const key = `${server.id}\u0000${tool.name}`;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const shown = previous.then(() => this.showRunNow(key, server, tool, uri, args, outcome));
    const settled = shown.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return shown;
  }

  private async showRunNow(key: string, server: ServerConnection, tool: Tool, uri: string, args: Record<string, unknown>, outcome: Outcome): Promise<McpAppPanelHandle | undefined> {
    let panel = this.panels.get(key);
    if (panel?.isClosing) panel = undefined;
    if (panel && panel.resourceUri !== uri) {
      await panel.close();
      panel = undefined;
    }
    if (!panel) {
      panel = await this.open(key, server, tool, uri);
      if (!panel) return undefined;
    }
    panel.showRun(args, outcome);
    return panel;
  }

  get all(): McpAppPanelHandle[] {
    return [...this.panels.values()];
  }

  private async open(key: string, server: ServerConnection, tool: Tool, uri: string): Promise<McpAppPanel | undefined> {
    let resource;
    try {
      const listed = server.lists.resources.find((r) => r.uri === uri);
      resource = await loadAppResource((u) => server.readResource(u), uri, listed, serverZone(server));
    } catch (err) {
      const why = err instanceof AppResourceError ? err.message : errorMessage(err);
      void vscode.window.showErrorMessage(vscode.l10n.t('MCP Host: the view of "{0}" on "{1}" could not be loaded: {2}', tool.name, server.name, server.redact(why)));
      return undefined;
    }
    if (resource.rejectedDomains.length > 0) {
      server.logger.warn(`The view ${uri} declared origins that are not plain origins; left out of its policy: ${resource.rejectedDomains.join(', ')}`);
    }
    if (resource.refusedNetworkDomains.length > 0) {
      const refused = resource.refusedNetworkDomains.join(', ');
      server.logger.warn(`The view ${uri} of a remote server declared origins on this machine or the private network; left out of its policy: ${refused}`);
      void vscode.window.showWarningMessage(
        vscode.l10n.t('MCP Host: the view of "{0}" on the remote server "{1}" may not reach this machine or your private network; left out: {2}', tool.name, server.name, server.redact(refused)),
      );
    }
    // Run Tool's result view opens just before: let its page start first (see webviewsLoaded).
    await webviewsLoaded();
    // Removed when closing starts: a run meanwhile opens a new panel rather than a closing one.
    const panel: McpAppPanel = new McpAppPanel(server, tool, resource, () => {
      if (this.panels.get(key) === panel) this.panels.delete(key);
    });
    this.panels.set(key, panel);
    return panel;
  }

  dispose(): void {
    for (const panel of [...this.panels.values()]) panel.dispose();
    this.panels.clear();
  }
}

/** Where the server runs: a stdio server runs here (its app may name anything); a remote one, its URL's zone. */
function serverZone(server: ServerConnection): NetworkZone {
  const definition = server.definition;
  if (!definition || definition.type === 'stdio') return 'loopback';
  try {
    return zoneOfUrl(new URL(definition.url));
  } catch {
    return 'public';
  }
}
