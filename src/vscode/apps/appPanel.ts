// One MCP App's view in a webview panel beside the result: the page (src/webview/mcpApp.ts) holds
// the view in a sandboxed frame and relays its messages; the bridge (src/host/apps/bridge.ts) runs
// the protocol against the tool's server.
import * as vscode from 'vscode';
import { McpAppBridge, type AppHostDelegate, type AppServer } from '../../host/apps/bridge';
import { appPageCsp, appViewCsp, type AppCsp, type AppResource } from '../../host/apps/resource';
import type { ServerConnection } from '../../host/serverConnection';
import type { CallToolResult, Resource, ResourceTemplate, Tool } from '../../protocol/schemas';
import { errorMessage } from '../../util/errorMessage';
import { QuestionDeclinedError } from '../../host/questionQueue';
import { usageServices } from '../services';
import { VERSION } from '../../version';
import { escapeHtml, type WebviewPage } from '../webview/html';
import { WatchedPanel } from '../webview/watchedPanel';
import type { AppPageFromWebview, AppPageToWebview, PageTheme } from '../webview/mcpAppProtocol';
import { confirmDestructive } from '../usage/tools/confirm';
import { toolLabel } from '../usage/tools/runner';
import { isDestructive, isTrusted, toolMaxTotalMs, toolTimeoutMs } from '../usage/tools/settings';

/** What the page of a view reports, for tests: that it loaded the view into its frame. */
export interface McpAppPanelHandle {
  readonly panel: vscode.WebviewPanel;
  readonly bridge: McpAppBridge;
  readonly resourceUri: string;
  loaded(): Promise<void>;
}

export class McpAppPanel implements McpAppPanelHandle, vscode.Disposable {
  private bridgeValue: McpAppBridge;
  /** Whether the page said `ready` before: a second one is a reloaded page. */
  private pageReady = false;
  private readonly disposables: vscode.Disposable[] = [];
  private pageLoaded = false;
  private readonly loadWaiters: Array<() => void> = [];
  private closing = false;
  private readonly view: WatchedPanel;

  constructor(
    private readonly server: ServerConnection,
    private readonly tool: Tool,
    private readonly resource: AppResource,
    /** Called once, when closing starts (close()) or the panel is gone, whichever is first. */
    private readonly onClosing: () => void,
  ) {
    // Set again, then put in a new panel, if it does not say `ready` in time (a blank webview in
    // VS Code for the web).
    this.view = new WatchedPanel({
      viewType: 'mcpHost.mcpApp',
      title: vscode.l10n.t('{0} (view) — {1}', toolLabel(tool), server.name),
      viewColumn: vscode.ViewColumn.Beside,
      page: (webview) => appPage(webview, resource.csp, toolLabel(tool)),
      isReady: () => this.pageReady || this.closing,
    });
    this.bridgeValue = new McpAppBridge({
      hostInfo: { name: 'mcp-host-vscode', title: 'MCP Host for VS Code', version: VERSION },
      tool,
      server: appServer(server),
      delegate: this.delegate(),
      send: (message) => void this.post({ type: 'app', message }),
      hostContext: { displayMode: 'inline', availableDisplayModes: ['inline'], platform: 'desktop', locale: vscode.env.language, userAgent: `mcp-host-vscode/${VERSION}` },
      csp: resource.csp,
      logger: server.logger,
    });
    this.disposables.push(
      this.view.onDidClose(() => {
        // Closed by the person: the page is gone already, so the view cannot be asked to clean up.
        this.closing = true;
        this.bridge.dispose();
        for (const d of this.disposables) d.dispose();
        onClosing();
      }),
      this.view.onDidReceiveMessage((m) => this.handle(m as AppPageFromWebview)),
    );
  }

  get panel(): vscode.WebviewPanel {
    return this.view.panel;
  }

  get bridge(): McpAppBridge {
    return this.bridgeValue;
  }

  get resourceUri(): string {
    return this.resource.uri;
  }

  loaded(): Promise<void> {
    if (this.pageLoaded) return Promise.resolve();
    return new Promise((resolve) => this.loadWaiters.push(resolve));
  }

  /** A run of the tool: its arguments and result (or cancellation) go to the view. */
  showRun(args: Record<string, unknown>, outcome: { result: CallToolResult } | { error: string; cancelled?: boolean }): void {
    this.bridge.sendToolInput(args);
    if ('result' in outcome) this.bridge.sendToolResult(outcome.result);
    else if (outcome.cancelled) this.bridge.sendToolCancelled(outcome.error);
    else this.bridge.sendToolResult({ content: [{ type: 'text', text: outcome.error }], isError: true });
    this.panel.reveal(undefined, true);
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /** Closes the view after asking it to clean up (ui/resource-teardown). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.onClosing();
    await this.bridge.teardown();
    this.view.dispose();
  }

  dispose(): void {
    void this.close();
  }

  private post(message: AppPageToWebview): Thenable<boolean> {
    return this.panel.webview.postMessage(message);
  }

  private handle(message: AppPageFromWebview): void {
    switch (message.type) {
      case 'ready':
        // A reloaded page has a new frame: it needs a new session, and the last run again.
        if (this.pageReady) this.bridgeValue = this.bridgeValue.reopen();
        this.pageReady = true;
        this.bridge.updateHostContext(themeContext(message.theme));
        void this.post({
          type: 'load',
          html: this.resource.html,
          csp: appViewCsp(this.resource.csp),
          title: vscode.l10n.t('View of {0}', toolLabel(this.tool)),
          prefersBorder: this.resource.prefersBorder,
        });
        return;
      case 'theme':
        this.bridge.updateHostContext(themeContext(message.theme));
        return;
      case 'app':
        this.bridge.receive(message.message).catch((err: unknown) => this.server.logger.warn(`[view of ${this.tool.name}] a message could not be handled: ${this.server.redact(errorMessage(err))}`));
        return;
      case 'loaded':
        this.pageLoaded = true;
        for (const resolve of this.loadWaiters.splice(0)) resolve();
        return;
    }
  }

  private delegate(): AppHostDelegate {
    const server = this.server;
    return {
      // A view's questions wait their turn with the server's other questions (one at a time, fairly).
      confirmToolCall: (tool, args) =>
        !isDestructive(tool) || isTrusted(server.name, tool.name) ? Promise.resolve(true) : askInTurn(server, () => confirmDestructive(server, tool, args)),
      confirmLink: (url) => askInTurn(server, () => askToOpenLink(server, this.tool, url)),
      openLink: async (url) => {
        const uri = linkUri(url);
        return uri !== undefined && (await vscode.env.openExternal(uri));
      },
      sizeChanged: (size) => void this.post({ type: 'resize', ...size }),
      requestTeardown: () => void this.close(),
      // The bridge made the text: redacted and bounded.
      log: (level, text) => server.logger.info(`[view of ${this.tool.name}] ${level}: ${text}`),
      sendMessage: (text) => openChatWith(text),
    };
  }
}

/**
 * Opens the chat with the view's message in its input, not sent: the person reads it and sends it
 * (a view must not make the agent act on its own). False where this VS Code has no chat.
 */
async function openChatWith(text: string): Promise<boolean> {
  const commands = await vscode.commands.getCommands(true);
  if (!commands.includes('workbench.action.chat.open')) return false;
  await vscode.commands.executeCommand('workbench.action.chat.open', { query: text, isPartialQuery: true });
  return true;
}

function themeContext(theme: PageTheme): Record<string, unknown> {
  return { theme: theme.theme, styles: { variables: theme.variables } };
}

/** What the bridge asks of the server, through its connection (never its client). */
function appServer(server: ServerConnection): AppServer {
  return {
    name: server.name,
    tools: () => server.lists.tools,
    callTool: (name, args, options) =>
      server.callTool(name, args, { signal: options?.signal, timeoutMs: toolTimeoutMs(server.name), maxTotalTimeoutMs: toolMaxTotalMs(server.name), resetTimeoutOnProgress: true }),
    readResource: (uri, options) => server.readResource(uri, { signal: options?.signal }),
    listResources: async () => (await freshResourceLists(server)).resources,
    listResourceTemplates: async () => (await freshResourceLists(server)).resourceTemplates,
    redact: (text) => server.redact(text),
  };
}

/** The connection's cached resource lists (fetched again if stale); a failed list is an error, not empty. */
async function freshResourceLists(server: ServerConnection): Promise<{ resources: Resource[]; resourceTemplates: ResourceTemplate[] }> {
  await server.freshLists(['resources']);
  const { resources, resourceTemplates, errors } = server.lists;
  const failed = errors.resources ?? errors.resourceTemplates;
  if (failed) throw new Error(failed);
  return { resources, resourceTemplates };
}

/** A link a view may open: web and mail addresses only. */
function linkUri(url: string): vscode.Uri | undefined {
  let uri: vscode.Uri;
  try {
    uri = vscode.Uri.parse(url, true);
  } catch {
    return undefined;
  }
  return ['http', 'https', 'mailto'].includes(uri.scheme) ? uri : undefined;
}

/** A view's yes/no question in the servers' question line; no when the person declines all from the server. */
async function askInTurn(server: ServerConnection, ask: () => Promise<boolean>): Promise<boolean> {
  try {
    return await usageServices.questions.ask(server.id, ask);
  } catch (err) {
    if (err instanceof QuestionDeclinedError) return false;
    throw err;
  }
}

/** ui/open-link: a modal question that names the address as it will be opened (decoded). */
async function askToOpenLink(server: ServerConnection, tool: Tool, url: string): Promise<boolean> {
  const uri = linkUri(url);
  if (!uri) {
    server.logger.warn(`The view of ${tool.name} asked to open a link that is not a web or mail address; refused: ${server.redact(url.slice(0, 200))}`);
    return false;
  }
  const open = vscode.l10n.t('Open');
  const declineAll = vscode.l10n.t('Decline All from This Server for Now');
  const answer = await vscode.window.showWarningMessage(
    vscode.l10n.t('The view of "{0}" (server "{1}") wants to open {2}', toolLabel(tool), server.name, uri.toString(true)),
    { modal: true },
    open,
    declineAll,
  );
  if (answer === declineAll) usageServices.questions.declineAll(server.id);
  return answer === open;
}

/**
 * The page that hosts a view: our script, and a policy made from what the view declared, which the
 * view's frame inherits (see appPageCsp).
 */
function appPage(webview: vscode.Webview, csp: AppCsp, title: string): WebviewPage {
  return {
    title,
    script: 'mcpApp.js',
    styles: ['mcpApp.css'],
    body: `<p id="status">${escapeHtml(vscode.l10n.t('Loading the view…'))}</p>\n<main id="app"></main>`,
    csp: appPageCsp(webview.cspSource, csp),
  };
}
