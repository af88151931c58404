// One MCP App's view in a webview panel beside the result: the page (src/webview/mcpApp.ts) holds
// the view in a sandboxed frame and relays its messages; the bridge (src/host/apps/bridge.ts) runs
// the protocol against the tool's server.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { McpAppBridge, type AppHostDelegate } from '../../host/apps/bridge';
import { appCspDirectives, formatCsp, type AppCsp, type AppResource } from '../../host/apps/resource';
import type { ServerConnection } from '../../host/serverConnection';
import type { CallToolResult, Tool } from '../../protocol/schemas';
import { VERSION } from '../../version';
import { escapeHtml, extensionUri } from '../webview/html';
import type { AppPageFromWebview, AppPageToWebview, PageTheme } from '../webview/mcpAppProtocol';
import { confirmDestructive } from '../usage/tools/confirm';
import { toolLabel } from '../usage/tools/runner';
import { toolMaxTotalMs, toolTimeoutMs } from '../usage/tools/settings';

/** What the page of a view reports, for tests: that it loaded the view into its frame. */
export interface McpAppPanelHandle {
  readonly panel: vscode.WebviewPanel;
  readonly bridge: McpAppBridge;
  readonly resourceUri: string;
  loaded(): Promise<void>;
}

export class McpAppPanel implements McpAppPanelHandle, vscode.Disposable {
  readonly panel: vscode.WebviewPanel;
  readonly bridge: McpAppBridge;
  private readonly disposables: vscode.Disposable[] = [];
  private pageLoaded = false;
  private readonly loadWaiters: Array<() => void> = [];
  private closing = false;

  constructor(
    private readonly server: ServerConnection,
    private readonly tool: Tool,
    private readonly resource: AppResource,
    onDispose: () => void,
  ) {
    const root = extensionUri();
    this.panel = vscode.window.createWebviewPanel(
      'mcpHost.mcpApp',
      vscode.l10n.t('{0} (view) — {1}', toolLabel(tool), server.name),
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      {
        enableScripts: true,
        enableCommandUris: false,
        retainContextWhenHidden: true,
        localResourceRoots: [vscode.Uri.joinPath(root, 'media'), vscode.Uri.joinPath(root, 'dist', 'webview')],
      },
    );
    this.bridge = new McpAppBridge({
      hostInfo: { name: 'mcp-host-vscode', title: 'MCP Host for VS Code', version: VERSION },
      tool,
      server: {
        name: server.name,
        tools: () => server.lists.tools,
        callTool: (name, args, options) =>
          server.callTool(name, args, { signal: options?.signal, timeoutMs: toolTimeoutMs(server.name), maxTotalTimeoutMs: toolMaxTotalMs(server.name), resetTimeoutOnProgress: true }),
        readResource: (uri, options) => server.readResource(uri, { signal: options?.signal }),
      },
      delegate: this.delegate(),
      send: (message) => void this.post({ type: 'app', message }),
      hostContext: { displayMode: 'inline', availableDisplayModes: ['inline'], platform: 'desktop', locale: vscode.env.language, userAgent: `mcp-host-vscode/${VERSION}` },
      csp: resource.csp,
      logger: server.logger,
    });
    this.disposables.push(
      this.panel.onDidDispose(() => {
        // Closed by the person: the page is gone already, so the view cannot be asked to clean up.
        this.bridge.dispose();
        for (const d of this.disposables) d.dispose();
        onDispose();
      }),
      this.panel.webview.onDidReceiveMessage((m: AppPageFromWebview) => this.handle(m)),
    );
    this.panel.webview.html = pageHtml(this.panel.webview, root, resource.csp, toolLabel(tool));
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

  /** Closes the view after asking it to clean up (ui/resource-teardown). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.bridge.teardown();
    this.panel.dispose();
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
        this.bridge.updateHostContext(themeContext(message.theme));
        void this.post({
          type: 'load',
          html: this.resource.html,
          csp: formatCsp(appCspDirectives(this.resource.csp)),
          title: vscode.l10n.t('View of {0}', toolLabel(this.tool)),
          prefersBorder: this.resource.prefersBorder,
        });
        return;
      case 'theme':
        this.bridge.updateHostContext(themeContext(message.theme));
        return;
      case 'app':
        void this.bridge.receive(message.message);
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
      confirmToolCall: (tool, args) => confirmDestructive(server, tool, args),
      openLink: (url) => openLinkWithConsent(server, this.tool, url),
      sizeChanged: (size) => void this.post({ type: 'resize', ...size }),
      requestTeardown: () => void this.close(),
      log: (level, data) => server.logger.info(`[view of ${this.tool.name}] ${level}: ${server.redact(typeof data === 'string' ? data : JSON.stringify(data))}`),
    };
  }
}

function themeContext(theme: PageTheme): Record<string, unknown> {
  return { theme: theme.theme, styles: { variables: theme.variables } };
}

/** ui/open-link: web and mail addresses only, after a modal question that names the address. */
async function openLinkWithConsent(server: ServerConnection, tool: Tool, url: string): Promise<boolean> {
  let uri: vscode.Uri;
  try {
    uri = vscode.Uri.parse(url, true);
  } catch {
    return false;
  }
  if (!['http', 'https', 'mailto'].includes(uri.scheme)) {
    server.logger.warn(`The view of ${tool.name} asked to open a ${uri.scheme}: link; refused`);
    return false;
  }
  const open = vscode.l10n.t('Open');
  const answer = await vscode.window.showWarningMessage(
    vscode.l10n.t('The view of "{0}" (server "{1}") wants to open {2}', toolLabel(tool), server.name, url),
    { modal: true },
    open,
  );
  if (answer !== open) return false;
  return vscode.env.openExternal(uri);
}

/**
 * The page's own policy: this page's script by nonce, its stylesheet from the extension, and, so
 * that the view's frame (a srcdoc, which inherits this policy) can use them, exactly the origins
 * the view declared. The page itself loads nothing from them.
 */
function pageCsp(webview: vscode.Webview, nonce: string, csp: AppCsp): string {
  const directives = appCspDirectives(csp).map(([name, sources]): [string, string[]] => {
    switch (name) {
      case 'script-src':
        return [name, [`'nonce-${nonce}'`, ...sources.filter((s) => s !== "'unsafe-inline'")]];
      case 'style-src':
      case 'img-src':
      case 'font-src':
        return [name, [webview.cspSource, ...sources]];
      default:
        return [name, sources];
    }
  });
  return formatCsp(directives);
}

function pageHtml(webview: vscode.Webview, root: vscode.Uri, csp: AppCsp, title: string): string {
  const nonce = randomBytes(16).toString('base64');
  const style = webview.asWebviewUri(vscode.Uri.joinPath(root, 'media', 'mcpApp.css')).toString();
  const script = webview.asWebviewUri(vscode.Uri.joinPath(root, 'dist', 'webview', 'mcpApp.js')).toString();
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(pageCsp(webview, nonce, csp))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${style}">
</head>
<body>
<p id="status">${escapeHtml(vscode.l10n.t('Loading the view…'))}</p>
<main id="app"></main>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
