// MCP Host: Show Traffic — one webview panel with the timeline of every server's protocol messages
// (requests paired with their responses), live while open, filterable, with a message's JSON on
// selection, Copy and Export to JSONL. It listens to the servers' recorders only while it is open.
import * as vscode from 'vscode';
import type { ServerRegistry } from '../../host/registry';
import type { ServerConnection } from '../../host/serverConnection';
import { WatchedPanel } from '../webview/watchedPanel';
import type { TrafficFilter, TrafficFromWebview, TrafficSnapshot, TrafficToWebview } from '../webview/trafficProtocol';
import { buildTrafficModel, exportLines, rowCopyText, rowDetail, type TrafficModel } from './trafficRows';

/** Live updates are batched: at most one repaint per this many milliseconds. */
const REPAINT_MS = 200;

/** What tests can see of the open traffic view. */
export interface TrafficViewHandle {
  readonly model: TrafficModel | undefined;
  readonly filter: TrafficFilter;
  /** Resolves once the page shows the model as it is now. */
  painted(): Promise<void>;
  snapshot(): Promise<TrafficSnapshot>;
  /** Acts as if the person did something on the page. */
  simulate(message: TrafficFromWebview): Promise<void>;
}

export class TrafficView implements vscode.Disposable, TrafficViewHandle {
  /** The open panel, if one is open. */
  private view: WatchedPanel | undefined;
  private panelScope: vscode.Disposable[] = [];
  private recorderListeners: vscode.Disposable[] = [];
  private ready = false;
  private filterValue: TrafficFilter = {};
  private modelValue: TrafficModel | undefined;
  private repaintTimer: NodeJS.Timeout | undefined;
  private paintedVersion = 0;
  private version = 0;
  private paintWaiters: Array<{ version: number; resolve: () => void }> = [];
  private readonly snapshotWaiters = new Map<number, (s: TrafficSnapshot) => void>();
  private nextRequest = 1;

  constructor(
    private readonly registry: ServerRegistry,
    private readonly capacity: () => number,
  ) {}

  get model(): TrafficModel | undefined {
    return this.modelValue;
  }

  get filter(): TrafficFilter {
    return this.filterValue;
  }

  /** Opens (or reveals) the view: filtered to a server, or (from the palette) showing every server. */
  show(server?: ServerConnection): void {
    this.filterValue = { ...this.filterValue, server: server?.id };
    if (this.panel) {
      this.panel.reveal(undefined, false);
      this.repaint();
      return;
    }
    this.ready = false;
    const view = new WatchedPanel({
      viewType: 'mcpHost.traffic',
      title: vscode.l10n.t('MCP Traffic'),
      viewColumn: vscode.ViewColumn.Active,
      page: () => ({ title: vscode.l10n.t('MCP Traffic'), script: 'traffic.js', styles: ['webview.css', 'traffic.css'] }),
      isReady: () => this.ready,
    });
    this.view = view;
    this.panelScope = [
      view,
      view.onDidClose(() => this.closed()),
      view.onDidReceiveMessage((m) => void this.handle(m as TrafficFromWebview)),
      view.onDidChangeViewState(() => {
        if (view.panel.visible) this.scheduleRepaint();
      }),
      this.registry.onDidChangeServers(() => {
        this.listenToRecorders();
        this.scheduleRepaint();
      }),
    ];
    this.listenToRecorders();
  }

  painted(): Promise<void> {
    if (this.paintedVersion >= this.version && this.ready) return Promise.resolve();
    return new Promise((resolve) => this.paintWaiters.push({ version: this.version, resolve }));
  }

  snapshot(): Promise<TrafficSnapshot> {
    const requestId = this.nextRequest++;
    return new Promise((resolve) => {
      this.snapshotWaiters.set(requestId, resolve);
      void this.post({ type: 'snapshot', requestId });
    });
  }

  async simulate(message: TrafficFromWebview): Promise<void> {
    if (message.type === 'select') {
      await this.post({ type: 'select', key: message.key });
      return;
    }
    await this.handle(message);
  }

  dispose(): void {
    this.view?.dispose();
    this.closed();
  }

  private get panel(): vscode.WebviewPanel | undefined {
    return this.view?.panel;
  }

  // --- the page ----------------------------------------------------------------

  private async handle(message: TrafficFromWebview): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.repaint();
        return;
      case 'filter':
        this.filterValue = sanitiseFilter(message.filter);
        this.repaint();
        return;
      case 'select': {
        const item = this.modelValue?.index.get(message.key);
        if (item) await this.post({ type: 'detail', detail: rowDetail(message.key, item) });
        return;
      }
      case 'copy': {
        const item = this.modelValue?.index.get(message.key);
        if (!item) return;
        await vscode.env.clipboard.writeText(rowCopyText(item));
        void vscode.window.setStatusBarMessage(vscode.l10n.t('MCP Host: message copied (secrets redacted)'), 3000);
        return;
      }
      case 'export':
        await this.exportShown();
        return;
      case 'clear':
        for (const server of this.registry.servers) server.traffic.clear();
        return;
      case 'openSettings':
        await vscode.commands.executeCommand('workbench.action.openSettings', 'mcpHost.traffic.maxMessages');
        return;
      case 'snapshot':
        this.snapshotWaiters.get(message.requestId)?.(message.snapshot);
        this.snapshotWaiters.delete(message.requestId);
        return;
    }
  }

  /** Writes the rows the view shows (its filter applied) as JSONL, redacted as the logs are. */
  private async exportShown(): Promise<void> {
    const model = this.modelValue ?? buildTrafficModel(this.registry.servers, this.filterValue);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const name = `mcp-traffic-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`;
    const target = await vscode.window.showSaveDialog({
      title: vscode.l10n.t('Export MCP traffic'),
      defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
      filters: { [vscode.l10n.t('JSON Lines')]: ['jsonl'] },
    });
    if (!target) return;
    const lines = exportLines(model.index.values());
    await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(lines.map((l) => `${l}\n`).join('')));
    void vscode.window.showInformationMessage(vscode.l10n.t('MCP Host: exported {0} messages to {1}.', lines.length, target.fsPath));
  }

  private listenToRecorders(): void {
    for (const d of this.recorderListeners) d.dispose();
    this.recorderListeners = this.registry.servers.map((server) => server.traffic.onDidRecord(() => this.scheduleRepaint()));
  }

  private scheduleRepaint(): void {
    this.version++;
    if (this.repaintTimer || !this.panel) return;
    this.repaintTimer = setTimeout(() => {
      this.repaintTimer = undefined;
      if (this.panel?.visible) this.repaint();
    }, REPAINT_MS);
  }

  private repaint(): void {
    if (!this.panel || !this.ready) return;
    const version = ++this.version;
    const servers = this.registry.servers;
    if (this.filterValue.server && !servers.some((s) => s.id === this.filterValue.server)) this.filterValue = { ...this.filterValue, server: undefined };
    const model = buildTrafficModel(servers, this.filterValue);
    this.modelValue = model;
    void this.post({
      type: 'rows',
      rows: model.rows,
      servers: servers.map((s) => ({ id: s.id, name: s.name, recording: s.traffic.enabled })),
      methods: model.methods,
      filter: this.filterValue,
      capacity: this.capacity(),
      total: model.total,
    }).then((delivered) => {
      if (!delivered) return;
      this.paintedVersion = Math.max(this.paintedVersion, version);
      const waiting = this.paintWaiters.filter((w) => w.version <= this.paintedVersion);
      this.paintWaiters = this.paintWaiters.filter((w) => w.version > this.paintedVersion);
      for (const w of waiting) w.resolve();
    });
  }

  private async post(message: TrafficToWebview): Promise<boolean> {
    if (!this.panel) return false;
    try {
      return await this.panel.webview.postMessage(message);
    } catch {
      return false; // the panel closed meanwhile
    }
  }

  private closed(): void {
    if (this.repaintTimer) clearTimeout(this.repaintTimer);
    this.repaintTimer = undefined;
    for (const d of [...this.panelScope, ...this.recorderListeners]) d.dispose();
    this.panelScope = [];
    this.recorderListeners = [];
    this.view = undefined;
    this.modelValue = undefined;
    this.filterValue = {};
    this.ready = false;
    for (const w of this.paintWaiters) w.resolve();
    this.paintWaiters = [];
  }
}

/** The page is not trusted to send well-formed filters: only strings of sane length pass. */
function sanitiseFilter(filter: unknown): TrafficFilter {
  const value = typeof filter === 'object' && filter !== null ? (filter as Record<string, unknown>) : {};
  const text = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 1000 ? v : undefined);
  const via = value.via === 'host' || value.via === 'gateway' ? value.via : undefined;
  return { server: text(value.server), method: text(value.method), text: text(value.text), via };
}
