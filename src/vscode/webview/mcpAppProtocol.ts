// Messages between the extension and the MCP App page (src/webview/mcpApp.ts), which hosts an
// app's view in a sandboxed iframe and relays its JSON-RPC. Types only: no `vscode`, no DOM.

/** What the page reads of the VS Code theme, for the view's host context. */
export interface PageTheme {
  /** 'light' for the light and light high-contrast themes, else 'dark'. */
  theme: 'light' | 'dark';
  /** The MCP Apps style variables (`--color-background-primary`…), made from VS Code's. */
  variables: Record<string, string>;
}

export type AppPageToWebview =
  /** The view's HTML and the policy it declared (a CSP string), to load in the sandboxed frame. */
  | { type: 'load'; html: string; csp: string; title: string; prefersBorder?: boolean }
  /** A JSON-RPC message from the host to the view. */
  | { type: 'app'; message: unknown }
  /** The view asked for this size (ui/notifications/size-changed). */
  | { type: 'resize'; width?: number; height?: number };

export type AppPageFromWebview =
  | { type: 'ready'; load?: string; theme: PageTheme }
  | { type: 'theme'; theme: PageTheme }
  /** A message the view posted (untrusted: the extension validates it). */
  | { type: 'app'; message: unknown }
  /** The frame was created (for tests: the page loaded the view). */
  | { type: 'loaded' };
