import * as vscode from 'vscode';
import type { ServerRegistry } from '../../../host/registry';
import { errorMessage } from '../../../util/errorMessage';
import type { ResourceFileSystem } from './fileSystem';
import { openResourceDocuments, openResourceTabs } from './openDocuments';
import { RESOURCE_SCHEME, parseResourceDocumentUri } from './resourceUri';

interface Session {
  /** The server's running session these subscriptions belong to (ServerConnection.sessionNumber). */
  sessionNumber: number;
  /** Resource URIs this session is subscribed to (or a subscribe is on its way). */
  subscribed: Set<string>;
  listener: vscode.Disposable;
}

/**
 * Keeps `resources/subscribe` in line with the open resource documents: a resource shown in a
 * tab is subscribed (where the server supports it), closing its last tab unsubscribes, and
 * `notifications/resources/updated` makes its documents read it again. A restarted server is
 * subscribed again and its documents are refreshed.
 */
export class ResourceSubscriptions implements vscode.Disposable {
  private readonly sessions = new Map<string, Session>();
  private readonly disposables: vscode.Disposable[] = [];
  private scheduled: NodeJS.Timeout | undefined;
  private work: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly registry: ServerRegistry,
    private readonly fs: ResourceFileSystem,
  ) {
    this.disposables.push(
      vscode.window.tabGroups.onDidChangeTabs(() => this.schedule()),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === RESOURCE_SCHEME) this.schedule();
      }),
      registry.onDidChangeState(() => this.schedule()),
      registry.onDidChangeServers(() => this.schedule()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('mcpHost.resources.subscribe')) this.schedule();
      }),
    );
  }

  /** Resource URIs subscribed on a server now (for tests and the log). */
  subscribedOn(serverId: string): string[] {
    return [...(this.sessions.get(serverId)?.subscribed ?? [])];
  }

  /** Resolves once the subscribe/unsubscribe requests sent so far have been answered. */
  async settled(): Promise<void> {
    if (this.scheduled) {
      clearTimeout(this.scheduled);
      this.scheduled = undefined;
      this.sync();
    }
    await this.work;
  }

  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = setTimeout(() => {
      this.scheduled = undefined;
      this.sync();
    }, 50);
  }

  private sync(): void {
    const enabled = vscode.workspace.getConfiguration('mcpHost').get<boolean>('resources.subscribe', true);
    const open = openResourceTabs();
    const wanted = new Map<string, Set<string>>();
    for (const uri of open) {
      const address = parseResourceDocumentUri(uri);
      if (!address) continue;
      let set = wanted.get(address.serverName);
      if (!set) wanted.set(address.serverName, (set = new Set()));
      set.add(address.resourceUri);
    }
    this.fs.forgetExcept(new Set(openResourceDocuments(open).map((u) => u.toString())));

    const live = new Set<string>();
    const ops: Promise<unknown>[] = [];
    for (const server of this.registry.servers) {
      const sessionNumber = server.sessionNumber;
      let session = this.sessions.get(server.id);
      if (session && session.sessionNumber !== sessionNumber) {
        session.listener.dispose();
        this.sessions.delete(server.id);
        session = undefined;
      }
      if (sessionNumber === undefined || server.state.kind !== 'running') continue;
      live.add(server.id);
      if (!session) {
        const name = server.name;
        session = {
          sessionNumber,
          subscribed: new Set(),
          listener: server.onResourceUpdated((uri) => {
            const documents = this.fs.resourceUpdated(name, uri);
            server.logger.debug(`Resource updated: ${uri} (${documents} open document${documents === 1 ? '' : 's'} refreshed)`);
          }),
        };
        this.sessions.set(server.id, session);
        // A new connection: what its documents show may have changed while it was away.
        this.fs.serverChanged(name);
      }
      if (!server.state.capabilities.resources?.subscribe) continue;
      const desired = enabled ? (wanted.get(server.name) ?? new Set<string>()) : new Set<string>();
      const s = session;
      for (const uri of desired) {
        if (s.subscribed.has(uri)) continue;
        s.subscribed.add(uri);
        ops.push(
          server.subscribeResource(uri).then(
            () => server.logger.info(`Subscribed to ${uri}`),
            (err: unknown) => {
              s.subscribed.delete(uri);
              server.logger.warn(`resources/subscribe ${uri} failed: ${errorMessage(err)}`);
            },
          ),
        );
      }
      for (const uri of [...s.subscribed]) {
        if (desired.has(uri)) continue;
        s.subscribed.delete(uri);
        ops.push(
          server.unsubscribeResource(uri).then(
            () => server.logger.info(`Unsubscribed from ${uri}`),
            (err: unknown) => server.logger.warn(`resources/unsubscribe ${uri} failed: ${errorMessage(err)}`),
          ),
        );
      }
    }
    for (const [id, session] of this.sessions) {
      if (live.has(id)) continue;
      session.listener.dispose();
      this.sessions.delete(id);
    }
    if (ops.length) this.work = Promise.all([this.work, ...ops]);
  }

  dispose(): void {
    if (this.scheduled) clearTimeout(this.scheduled);
    for (const d of this.disposables) d.dispose();
    for (const s of this.sessions.values()) s.listener.dispose();
    this.sessions.clear();
  }
}
