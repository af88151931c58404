// The result view: one webview panel per server and tool ("<tool> — <server>"), reused by the next
// run of the same tool. It keeps the full result, so "show all", "copy", "save" and "open in
// editor" work on the data the server sent, not on the size-limited copy the page shows.
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { CallToolResult, ReadResourceResult } from '../../../protocol/schemas';
import { WatchedPanel } from '../../webview/watchedPanel';
import type { ResultFromWebview, ResultSnapshot, ResultToWebview, ResultViewModel } from '../../webview/protocol';

export interface ResultPayload {
  model: ResultViewModel;
  /** What the server sent, complete. */
  result?: CallToolResult | ReadResourceResult;
  args?: Record<string, unknown>;
}

export interface ResultViewActions {
  openLink(serverName: string, uri: string): Promise<void>;
  runAgain(serverName: string, toolName: string, args: Record<string, unknown>): Promise<void>;
}

/** What tests can see of a result view: its model and what its page really shows. */
export interface ResultViewHandle {
  readonly key: string;
  readonly title: string;
  readonly panel: vscode.WebviewPanel;
  readonly model: ResultViewModel | undefined;
  /** Resolves when the page has rendered the run with this id. */
  rendered(runId: number): Promise<void>;
  snapshot(): Promise<ResultSnapshot>;
  /** Acts as if the person clicked something on the page. */
  simulate(message: ResultFromWebview): Promise<void>;
}

class ResultPanel implements ResultViewHandle {
  private payload: ResultPayload | undefined;
  private ready = false;
  private renderedRun = -1;
  private readonly renderWaiters: Array<{ runId: number; resolve: () => void }> = [];
  private readonly snapshotWaiters = new Map<number, (s: ResultSnapshot) => void>();
  private nextRequest = 1;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly view: WatchedPanel;

  constructor(
    readonly key: string,
    public title: string,
    private readonly actions: ResultViewActions,
    onDispose: () => void,
  ) {
    this.view = new WatchedPanel({
      viewType: 'mcpHost.toolResult',
      title,
      viewColumn: vscode.ViewColumn.Active,
      page: () => ({ title: this.title, script: 'toolResult.js' }),
      isReady: () => this.ready,
    });
    this.disposables.push(
      this.view.onDidClose(() => {
        for (const d of this.disposables) d.dispose();
        onDispose();
      }),
      this.view.onDidReceiveMessage((m) => void this.handle(m as ResultFromWebview)),
    );
  }

  get panel(): vscode.WebviewPanel {
    return this.view.panel;
  }

  get model(): ResultViewModel | undefined {
    return this.payload?.model;
  }

  show(payload: ResultPayload, title: string): void {
    this.payload = payload;
    this.title = title;
    this.panel.title = title;
    if (this.ready) void this.post({ type: 'show', model: payload.model });
    this.panel.reveal(undefined, false);
  }

  rendered(runId: number): Promise<void> {
    if (this.renderedRun >= runId) return Promise.resolve();
    return new Promise((resolve) => this.renderWaiters.push({ runId, resolve }));
  }

  snapshot(): Promise<ResultSnapshot> {
    const requestId = this.nextRequest++;
    return new Promise((resolve) => {
      this.snapshotWaiters.set(requestId, resolve);
      void this.post({ type: 'snapshot', requestId });
    });
  }

  simulate(message: ResultFromWebview): Promise<void> {
    return this.handle(message);
  }

  private post(message: ResultToWebview): Thenable<boolean> {
    return this.panel.webview.postMessage(message);
  }

  private async handle(message: ResultFromWebview): Promise<void> {
    const payload = this.payload;
    switch (message.type) {
      case 'ready':
        this.ready = true;
        if (payload) void this.post({ type: 'show', model: payload.model });
        return;
      case 'rendered': {
        this.renderedRun = Math.max(this.renderedRun, message.runId);
        for (const w of this.renderWaiters.splice(0)) {
          if (w.runId <= this.renderedRun) w.resolve();
          else this.renderWaiters.push(w);
        }
        return;
      }
      case 'snapshot': {
        const waiter = this.snapshotWaiters.get(message.requestId);
        this.snapshotWaiters.delete(message.requestId);
        waiter?.(message.snapshot);
        return;
      }
      case 'openLink':
        if (payload) await this.actions.openLink(payload.model.server, message.uri);
        return;
      case 'runAgain':
        if (payload && !payload.model.resourceUri) await this.actions.runAgain(payload.model.server, payload.model.tool, payload.args ?? {});
        return;
      case 'copy': {
        const text = this.textOf(message.what);
        if (text !== undefined) {
          await vscode.env.clipboard.writeText(text);
          void vscode.window.setStatusBarMessage('$(check) Copied', 2000);
        }
        return;
      }
      case 'showAll':
      case 'openInEditor': {
        const which = message.blockIndex;
        const text = this.textOf(which);
        if (text === undefined) return;
        const language = which === 'raw' || which === 'structured' ? 'json' : this.languageOf(which);
        const doc = await vscode.workspace.openTextDocument({ content: text, language });
        await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
        return;
      }
      case 'save':
        await this.save(message.blockIndex);
        return;
    }
  }

  private blocks(): Array<Record<string, unknown>> {
    const result = this.payload?.result;
    if (!result) return [];
    if ('contents' in result) return (result as ReadResourceResult).contents.map((c) => ({ type: 'resource', resource: c }));
    return (result as CallToolResult).content as unknown as Array<Record<string, unknown>>;
  }

  private textOf(what: number | 'structured' | 'raw' | 'arguments'): string | undefined {
    const payload = this.payload;
    if (!payload) return undefined;
    if (what === 'raw') return JSON.stringify(payload.result ?? null, null, 2);
    if (what === 'arguments') return JSON.stringify(payload.args ?? {}, null, 2);
    if (what === 'structured') return JSON.stringify((payload.result as CallToolResult | undefined)?.structuredContent ?? null, null, 2);
    const block = this.blocks()[what];
    if (!block) return undefined;
    if (typeof block.text === 'string') return block.text;
    const resource = block.resource as { text?: unknown } | undefined;
    if (resource && typeof resource.text === 'string') return resource.text;
    return JSON.stringify(block, null, 2);
  }

  private languageOf(index: number): string {
    const model = this.payload?.model.blocks[index];
    const format = model && 'format' in model ? model.format : undefined;
    return format === 'markdown' ? 'markdown' : format === 'json' ? 'json' : 'plaintext';
  }

  private async save(index: number): Promise<void> {
    const block = this.blocks()[index];
    if (!block) return;
    const resource = block.resource as { blob?: string; text?: string; uri?: string; mimeType?: string } | undefined;
    const data = typeof block.data === 'string' ? block.data : resource?.blob;
    const mime = (typeof block.mimeType === 'string' ? block.mimeType : resource?.mimeType) ?? 'application/octet-stream';
    const bytes = data !== undefined ? Buffer.from(data, 'base64') : Buffer.from(resource?.text ?? '', 'utf8');
    const ext = mime.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin';
    const base = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir());
    const target = await vscode.window.showSaveDialog({ defaultUri: vscode.Uri.joinPath(base, `${this.payload?.model.tool ?? 'result'}-${index + 1}.${ext}`), title: vscode.l10n.t('Save Tool Output') });
    if (!target) return;
    await vscode.workspace.fs.writeFile(target, bytes);
  }

  dispose(): void {
    this.view.dispose();
  }
}

export class ResultViews implements vscode.Disposable {
  private readonly panels = new Map<string, ResultPanel>();
  private last: ResultPanel | undefined;

  constructor(private readonly actions: ResultViewActions) {}

  /** Shows a result in the panel of its server and tool (or resource), creating it if needed. */
  show(key: string, title: string, payload: ResultPayload): ResultViewHandle {
    let panel = this.panels.get(key);
    if (!panel) {
      const created = new ResultPanel(key, title, this.actions, () => {
        if (this.panels.get(key) === created) this.panels.delete(key);
        if (this.last === created) this.last = undefined;
      });
      panel = created;
      this.panels.set(key, panel);
    }
    panel.show(payload, title);
    this.last = panel;
    return panel;
  }

  get all(): ResultViewHandle[] {
    return [...this.panels.values()];
  }

  get latest(): ResultViewHandle | undefined {
    return this.last;
  }

  dispose(): void {
    for (const p of [...this.panels.values()]) p.dispose();
    this.panels.clear();
  }
}
