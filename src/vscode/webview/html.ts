import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

/** The extension's own folder: webview assets live in its media/ and dist/webview/. */
export function extensionUri(): vscode.Uri {
  const ext = vscode.extensions.getExtension('mcp-host.mcp-host');
  if (!ext) throw new Error('MCP Host: cannot find its own extension folder');
  return ext.extensionUri;
}

/** Webview options every MCP Host webview uses: scripts on, files only from media/ and dist/webview/. */
export function webviewOptions(root: vscode.Uri = extensionUri()): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    localResourceRoots: [vscode.Uri.joinPath(root, 'media'), vscode.Uri.joinPath(root, 'dist', 'webview')],
  };
}

/** A page of ours: its script (in dist/webview/), styles (in media/), body markup and, rarely, its own policy. */
export interface WebviewPage {
  title: string;
  script: string;
  styles?: string[];
  /** Trusted markup written by us (default: an empty <main id="app">). */
  body?: string;
  /** A Content Security Policy instead of the default one. */
  csp?: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/**
 * A page with a strict Content Security Policy: nothing by default, scripts only with this page's
 * nonce, styles and images only from the extension (images also as data: URIs, which is how MCP
 * sends them), audio only as data: URIs. `body` is trusted markup written by us; anything from a
 * server is rendered by the page's script with textContent, never as HTML. `csp` replaces that
 * policy (an MCP App's page: see apps/appPanel.ts).
 */
export function webviewHtml(webview: vscode.Webview, options: WebviewPage & { root?: vscode.Uri; load?: string }): string {
  const root = options.root ?? extensionUri();
  const nonce = randomBytes(16).toString('base64');
  const csp = options.csp ?? [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    'media-src data:',
    `font-src ${webview.cspSource}`,
  ].join('; ');
  const styles = (options.styles ?? ['webview.css'])
    .map((file) => `<link rel="stylesheet" href="${webview.asWebviewUri(vscode.Uri.joinPath(root, 'media', file)).toString()}">`)
    .join('\n');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(root, 'dist', 'webview', options.script)).toString();
  return `<!DOCTYPE html>
<html lang="en"${options.load ? ` data-load="${escapeHtml(options.load)}"` : ''}>
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(options.title)}</title>
${styles}
</head>
<body>
${options.body ?? '<main id="app" aria-busy="true"></main>'}
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}

/** A page set by loadWebview: disposing it stops the watchdog. */
export interface LoadedPage extends vscode.Disposable {
  /**
   * Whether a "ready" comes from the document set last. A reload replaces the document, and a
   * "ready" the one before it sent may still be on its way: taken for the new one, the panel would
   * talk to a page that is not listening yet and then set up the new one a second time.
   */
  isCurrent(load: string | undefined): boolean;
}

/** How long a page has to say "ready" before the watchdog steps in (loadWebview, WatchedPanel). */
export const PAGE_READY_WAIT_MS = 5000;

/**
 * Sets a panel's page and watches for its "ready". In VS Code for the web (code-server,
 * vscode.dev) a webview created right after another one was disposed can stay blank, its frame
 * waiting for a service worker that never takes control. A page silent for `retryAfterMs` is set
 * again (a new document), which sometimes starts it; silent as long again, it is handed to
 * `replacePanel` (WatchedPanel puts a new panel in its place). A page that was only slow is
 * replaced too, so a panel takes "ready" only from the current document (isCurrent).
 */
export function loadWebview(
  panel: vscode.WebviewPanel,
  page: WebviewPage,
  isReady: () => boolean,
  options: {
    retryAfterMs?: number;
    /**
     * Called when setting the page again has not helped: the owner puts a new panel in its
     * place. A frame stuck waiting for the service worker stays stuck whatever page it is given;
     * a new frame registers the worker anew, and that also frees the stuck ones.
     */
    replacePanel: () => void;
  },
): LoadedPage {
  const retryAfterMs = options.retryAfterMs ?? PAGE_READY_WAIT_MS;
  let timer: NodeJS.Timeout | undefined;
  let current = '';
  let setAgain = false;
  loadingPages.set(isReady, Date.now());
  const load = () => {
    current = randomBytes(8).toString('hex');
    panel.webview.html = webviewHtml(panel.webview, { ...page, load: current });
    timer = setTimeout(() => {
      timer = undefined;
      if (isReady()) return;
      if (setAgain) {
        options.replacePanel();
        return;
      }
      setAgain = true;
      load();
    }, retryAfterMs);
  };
  load();
  return {
    isCurrent: (load) => load === current,
    dispose: () => {
      loadingPages.delete(isReady);
      if (timer) clearTimeout(timer);
    },
  };
}

/** The readiness checks of pages set by loadWebview that have not said "ready" yet, and when each was set. */
const loadingPages = new Map<() => boolean, number>();

/**
 * Resolves when every page set by loadWebview has said "ready" (or after `maxWaitMs`). In VS Code
 * for the web, a webview whose frame starts while the first webview of the browser profile is
 * installing the webview service worker can miss the worker taking control and stay blank for good
 * (setting its page again does not help: the frame waits for the worker before any page). Opening
 * a second webview only once the first one runs avoids that; seen with Run Tool's result and an
 * MCP App's view opened together.
 */
export async function webviewsLoaded(maxWaitMs = 5000): Promise<void> {
  for (;;) {
    // A page set long ago and still not ready is in a tab never shown: not worth waiting for.
    const waitFor = [...loadingPages].filter(([isReady, since]) => !isReady() && Date.now() - since < maxWaitMs);
    if (waitFor.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
