import * as vscode from 'vscode';
import { PAGE_READY_WAIT_MS, loadWebview, webviewOptions, type LoadedPage, type WebviewPage } from './html';

/** How many times a panel whose page never starts is put in a new panel. */
const MAX_PANEL_REPLACEMENTS = 2;

export interface WatchedPanelSpec {
  viewType: string;
  title: string;
  viewColumn: vscode.ViewColumn;
  /** The page, for the panel's webview (its CSP source and resource URIs). */
  page: (webview: vscode.Webview) => WebviewPage;
  /** Whether the current page has said "ready" (or the owner no longer waits for it). */
  isReady: () => boolean;
  /** How long each try of the page waits for its "ready" (loadWebview's retryAfterMs). */
  retryAfterMs?: number;
}

/**
 * One of our webview panels, its page watched by loadWebview. In VS Code for the web a new
 * webview's frame can wait for good for the service worker to take control; setting its page again
 * cannot start it, a new frame can (it registers the worker anew, which frees the stuck frames
 * too). So when the page still has not started after being set again, the panel is replaced by a
 * new one where it was, with its title. The owner keeps this one object, and hears the messages and
 * view states of the current panel only (and a "ready" only from its current document), and a close
 * only when the person (or the owner) closes it.
 */
export class WatchedPanel implements vscode.Disposable {
  private current!: vscode.WebviewPanel;
  private page!: LoadedPage;
  private scope: vscode.Disposable[] = [];
  private replacementsLeft = MAX_PANEL_REPLACEMENTS;
  private disposed = false;
  /** The page had its time while its tab was not shown: it gets it again once shown. */
  private retryWhenShown = false;
  private shownTimer: NodeJS.Timeout | undefined;
  private readonly messageEmitter = new vscode.EventEmitter<unknown>();
  private readonly viewStateEmitter = new vscode.EventEmitter<void>();
  private readonly closeEmitter = new vscode.EventEmitter<void>();
  readonly onDidReceiveMessage = this.messageEmitter.event;
  readonly onDidChangeViewState = this.viewStateEmitter.event;
  readonly onDidClose = this.closeEmitter.event;

  constructor(private readonly spec: WatchedPanelSpec) {
    this.open(spec.viewColumn, spec.title);
  }

  get panel(): vscode.WebviewPanel {
    return this.current;
  }

  /** Whether a "ready" comes from the page now in the panel (see LoadedPage). */
  isCurrent(load: string | undefined): boolean {
    return this.page.isCurrent(load);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.shownTimer) clearTimeout(this.shownTimer);
    for (const d of this.scope) d.dispose();
    this.current.dispose();
    this.closeEmitter.fire();
    this.messageEmitter.dispose();
    this.viewStateEmitter.dispose();
    this.closeEmitter.dispose();
  }

  private open(viewColumn: vscode.ViewColumn, title: string, preserveFocus = false): void {
    const panel = vscode.window.createWebviewPanel(this.spec.viewType, title, { viewColumn, preserveFocus }, { ...webviewOptions(), retainContextWhenHidden: true });
    this.current = panel;
    this.page = loadWebview(panel, this.spec.page(panel.webview), this.spec.isReady, { retryAfterMs: this.spec.retryAfterMs, replacePanel: () => this.replace() });
    this.scope = [
      this.page,
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((message: unknown) => {
        if (!this.isStaleReady(message)) this.messageEmitter.fire(message);
      }),
      panel.onDidChangeViewState(() => {
        this.viewStateEmitter.fire();
        if (this.retryWhenShown && panel.visible) this.giveTimeAgain();
      }),
    ];
  }

  /** A "ready" from a document the page was replaced by (see LoadedPage.isCurrent): not passed on. */
  private isStaleReady(message: unknown): boolean {
    const { type, load } = (message ?? {}) as { type?: unknown; load?: unknown };
    return type === 'ready' && !this.page.isCurrent(typeof load === 'string' ? load : undefined);
  }

  private replace(): void {
    if (this.disposed || this.spec.isReady() || this.replacementsLeft <= 0) return;
    const old = this.current;
    // A tab behind another one does not load its page: not stuck, and a new panel would jump to
    // the front.
    if (!old.visible) {
      this.retryWhenShown = true;
      return;
    }
    this.replacementsLeft--;
    // The old panel's listeners go first: its close is not the person's, and the watchdog's
    // record of the page is the new one's.
    for (const d of this.scope) d.dispose();
    this.open(old.viewColumn ?? this.spec.viewColumn, old.title, !old.active);
    old.dispose();
  }

  /** A page first shown late (its tab was behind another) has the usual time to start. */
  private giveTimeAgain(): void {
    this.retryWhenShown = false;
    if (this.shownTimer) clearTimeout(this.shownTimer);
    this.shownTimer = setTimeout(() => {
      this.shownTimer = undefined;
      this.replace();
    }, this.spec.retryAfterMs ?? PAGE_READY_WAIT_MS);
  }
}
