// The MCP App page: hosts one app's view (HTML from its server) in an iframe and relays JSON-RPC
// between the view and the extension, which runs the protocol (src/host/apps/bridge.ts).
//
// Isolation: the frame is `sandbox="allow-scripts"` without allow-same-origin, so the view has an
// opaque origin: it cannot touch this page's DOM, call acquireVsCodeApi, or read this page's
// storage; it can only postMessage. Its document is a srcdoc, which inherits this page's policy
// (appPageCsp: the view's declared origins, inline scripts, and the extension's files) and carries
// the view's own policy (appViewCsp) as its first <meta>: both apply, so the view gets what it
// declared and no more. This page never puts server markup into itself: only into the frame.
import type { AppPageFromWebview, AppPageToWebview, PageTheme } from '../vscode/webview/mcpAppProtocol';
import { pageLoad, vscodeApi } from './dom';

const post = (message: AppPageFromWebview) => vscodeApi.postMessage(message);
const host = document.getElementById('app') as HTMLElement;
const status = document.getElementById('status') as HTMLElement;
let frame: HTMLIFrameElement | undefined;

window.addEventListener('message', (event: MessageEvent) => {
  // From the view: only its own window counts (not a frame it opened inside itself).
  if (frame && event.source === frame.contentWindow) {
    post({ type: 'app', message: event.data as unknown });
    return;
  }
  // From the extension: VS Code's webview host, which has this page's origin; the view's is opaque.
  if (event.origin !== window.location.origin) return;
  handle(event.data as AppPageToWebview);
});

function handle(message: AppPageToWebview): void {
  switch (message?.type) {
    case 'load':
      load(message.html, message.csp, message.title, message.prefersBorder);
      return;
    case 'app':
      // '*': the view's origin is opaque ("null"), there is no origin to name.
      frame?.contentWindow?.postMessage(message.message, '*');
      return;
    case 'resize':
      if (frame && typeof message.height === 'number') frame.style.height = `${Math.max(80, message.height)}px`;
      return;
  }
}

/** Builds the view's document: its CSP first in <head>, before anything it could load. */
function viewDocument(html: string, csp: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const meta = doc.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = csp;
  doc.head.prepend(meta);
  return `<!DOCTYPE html>\n${doc.documentElement.outerHTML}`;
}

function load(html: string, csp: string, title: string, prefersBorder: boolean | undefined): void {
  const next = document.createElement('iframe');
  next.setAttribute('sandbox', 'allow-scripts');
  next.setAttribute('title', title);
  next.className = prefersBorder === false ? 'view' : 'view bordered';
  next.srcdoc = viewDocument(html, csp);
  frame = next;
  host.replaceChildren(next);
  status.textContent = '';
  post({ type: 'loaded' });
}

/** VS Code theme variables mapped to the MCP Apps style variables (McpUiStyleVariableKey). */
const STYLE_VARIABLES: Array<[string, string[]]> = [
  ['--color-background-primary', ['--vscode-editor-background']],
  ['--color-background-secondary', ['--vscode-sideBar-background', '--vscode-editor-background']],
  ['--color-background-tertiary', ['--vscode-editorWidget-background']],
  ['--color-background-inverse', ['--vscode-editor-foreground']],
  ['--color-background-info', ['--vscode-inputValidation-infoBackground']],
  ['--color-background-danger', ['--vscode-inputValidation-errorBackground']],
  ['--color-background-warning', ['--vscode-inputValidation-warningBackground']],
  ['--color-background-disabled', ['--vscode-input-background']],
  ['--color-text-primary', ['--vscode-editor-foreground', '--vscode-foreground']],
  ['--color-text-secondary', ['--vscode-descriptionForeground']],
  ['--color-text-tertiary', ['--vscode-disabledForeground']],
  ['--color-text-inverse', ['--vscode-editor-background']],
  ['--color-text-info', ['--vscode-editorInfo-foreground']],
  ['--color-text-danger', ['--vscode-errorForeground']],
  ['--color-text-success', ['--vscode-testing-iconPassed']],
  ['--color-text-warning', ['--vscode-editorWarning-foreground']],
  ['--color-text-disabled', ['--vscode-disabledForeground']],
  ['--color-border-primary', ['--vscode-panel-border', '--vscode-widget-border']],
  ['--color-border-secondary', ['--vscode-editorGroup-border', '--vscode-panel-border']],
  ['--color-border-danger', ['--vscode-inputValidation-errorBorder']],
  ['--color-ring-primary', ['--vscode-focusBorder']],
  ['--font-sans', ['--vscode-font-family']],
  ['--font-mono', ['--vscode-editor-font-family']],
  ['--font-weight-normal', ['--vscode-font-weight']],
  ['--font-text-md-size', ['--vscode-font-size']],
];

function readTheme(): PageTheme {
  const style = getComputedStyle(document.documentElement);
  const variables: Record<string, string> = {};
  for (const [name, sources] of STYLE_VARIABLES) {
    for (const source of sources) {
      const value = style.getPropertyValue(source).trim();
      if (value) {
        variables[name] = value;
        break;
      }
    }
  }
  const classes = document.body.classList;
  const light = classes.contains('vscode-light') || classes.contains('vscode-high-contrast-light');
  return { theme: light ? 'light' : 'dark', variables };
}

// VS Code changes the body's classes and variables when the theme changes.
new MutationObserver(() => post({ type: 'theme', theme: readTheme() })).observe(document.body, { attributes: true, attributeFilter: ['class'] });

post({ type: 'ready', load: pageLoad(), theme: readTheme() });
