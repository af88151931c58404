import * as vscode from 'vscode';
import type { ServerConnection } from '../../../host/serverConnection';
import { ErrorCode, McpError } from '../../../protocol/errors';
import type { ResourceContents } from '../../../protocol/schemas';
import { errorMessage } from '../../../util/errorMessage';
import { parseResourceDocumentUri, type ResourceAddress } from './resourceUri';

/** One read of a resource, as the document sees it. */
export interface ResourceEntry {
  uri: vscode.Uri;
  address: ResourceAddress;
  /** text: the server sent `text` (opened as a text document); blob: base64 `blob` (opened as binary). */
  kind: 'text' | 'blob';
  mimeType?: string;
  bytes: Uint8Array;
  /** Changes only when the content changes, so VS Code reloads exactly then. */
  mtime: number;
  ctime: number;
  fetchedAt: number;
  stale: boolean;
}

/** stat() then readFile() come in pairs: one read serves both. */
const FRESH_MS = 2000;

/** A resources/read on its way; `address` lets an invalidation drop it (its answer may predate the change). */
interface PendingRead {
  uri: vscode.Uri;
  address: ResourceAddress | undefined;
  promise: Promise<ResourceEntry>;
}

/**
 * `mcp-host-resource:` documents: a read-only file system whose files are resources/read answers.
 * Text arrives as UTF-8, blobs as their bytes, so VS Code's text editor, image preview and
 * binary editors all work. `resourceUpdated` makes VS Code read a document again.
 */
export class ResourceFileSystem implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;
  private readonly entries = new Map<string, ResourceEntry>();
  private readonly inflight = new Map<string, PendingRead>();

  constructor(
    private readonly findServer: (name: string) => ServerConnection | undefined,
    /** The resource documents VS Code holds now (they are told of changes even without a read of ours on record). */
    private readonly openDocuments: () => readonly vscode.Uri[] = () => [],
  ) {}

  /** Reads the resource behind a document URI (a recent read is reused unless `fresh`). */
  load(uri: vscode.Uri, options: { fresh?: boolean } = {}): Promise<ResourceEntry> {
    const key = uri.toString();
    const cached = this.entries.get(key);
    if (!options.fresh && cached && !cached.stale && Date.now() - cached.fetchedAt < FRESH_MS) return Promise.resolve(cached);
    const running = this.inflight.get(key);
    if (running && !options.fresh) return running.promise;
    const address = parseResourceDocumentUri(uri);
    const pending: PendingRead = { uri, address, promise: Promise.resolve(undefined as never) };
    // Only the newest read of a key, not invalidated since it began, is kept as the document's text.
    const isCurrent = () => this.inflight.get(key) === pending;
    pending.promise = this.fetch(uri, address, cached, isCurrent).finally(() => {
      if (isCurrent()) this.inflight.delete(key);
    });
    this.inflight.set(key, pending);
    return pending.promise;
  }

  /** The last read of a document, if any. */
  peek(uri: vscode.Uri): ResourceEntry | undefined {
    return this.entries.get(uri.toString());
  }

  /** The server said a resource changed: documents showing it are read again. */
  resourceUpdated(serverName: string, resourceUri: string): number {
    return this.invalidate((a) => a.serverName === serverName && a.resourceUri === resourceUri);
  }

  /** A server (re)started or stopped: its documents are read again (or show why they cannot be). */
  serverChanged(serverName: string): number {
    return this.invalidate((a) => a.serverName === serverName);
  }

  private invalidate(match: (a: ResourceAddress) => boolean): number {
    const changed = new Map<string, vscode.Uri>();
    for (const entry of this.entries.values()) {
      if (!match(entry.address)) continue;
      entry.stale = true;
      changed.set(entry.uri.toString(), entry.uri);
    }
    // An open document whose read was forgotten (it was briefly neither in a tab nor a text
    // document while VS Code reopened it) must still be told, or it never refreshes.
    for (const uri of this.openDocuments()) {
      const address = parseResourceDocumentUri(uri);
      if (address && match(address)) changed.set(uri.toString(), uri);
    }
    // A read already on its way may carry the text from before the change: the next load starts
    // anew, and its document (maybe being opened, so in no list yet) is told to load.
    for (const [key, pending] of this.inflight) {
      if (!pending.address || !match(pending.address)) continue;
      this.inflight.delete(key);
      changed.set(key, pending.uri);
    }
    if (changed.size) this.emitter.fire([...changed.values()].map((uri) => ({ type: vscode.FileChangeType.Changed, uri })));
    return changed.size;
  }

  private async fetch(uri: vscode.Uri, address: ResourceAddress | undefined, previous: ResourceEntry | undefined, isCurrent: () => boolean): Promise<ResourceEntry> {
    if (!address) throw vscode.FileSystemError.FileNotFound(uri);
    const server = this.findServer(address.serverName);
    if (!server) throw vscode.FileSystemError.Unavailable(`MCP Host: no server named "${address.serverName}" is configured`);
    if (server.state.kind !== 'running') {
      throw vscode.FileSystemError.Unavailable(`MCP Host: the server "${server.name}" is ${server.state.kind}; start it to read ${address.resourceUri}`);
    }
    let contents: ResourceContents[];
    try {
      contents = (await server.readResource(address.resourceUri)).contents;
    } catch (err) {
      const message = `MCP Host: "${server.name}" could not read ${address.resourceUri}: ${errorMessage(err)}`;
      if (err instanceof McpError && err.code === ErrorCode.ResourceNotFound) throw vscode.FileSystemError.FileNotFound(message);
      throw vscode.FileSystemError.Unavailable(message);
    }
    const content = contentsToBytes(contents, address.resourceUri);
    const now = Date.now();
    const same = previous !== undefined && sameBytes(previous.bytes, content.bytes);
    const entry: ResourceEntry = {
      uri,
      address,
      ...content,
      ctime: previous?.ctime ?? now,
      mtime: same ? previous.mtime : Math.max(now, (previous?.mtime ?? 0) + 1),
      fetchedAt: now,
      stale: false,
    };
    if (isCurrent()) this.entries.set(uri.toString(), entry);
    return entry;
  }

  /**
   * Forgets documents that are no longer open (keeps memory bounded). A read of the last moments
   * stays: VS Code may be opening its document, which is then in neither list yet.
   */
  forgetExcept(keep: ReadonlySet<string>): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) if (!keep.has(key) && now - entry.fetchedAt >= FRESH_MS) this.entries.delete(key);
  }

  // --- vscode.FileSystemProvider ----------------------------------------------------

  watch(): vscode.Disposable {
    // Changes are pushed by the servers (notifications/resources/updated) through resourceUpdated.
    return new vscode.Disposable(() => undefined);
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const entry = await this.load(uri);
    return { type: vscode.FileType.File, ctime: entry.ctime, mtime: entry.mtime, size: entry.bytes.byteLength, permissions: vscode.FilePermission.Readonly };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    return (await this.load(uri)).bytes;
  }

  readDirectory(): never {
    throw vscode.FileSystemError.FileNotADirectory('MCP resources are single documents');
  }

  createDirectory(): never {
    throw readOnly();
  }

  writeFile(): never {
    throw readOnly();
  }

  delete(): never {
    throw readOnly();
  }

  rename(): never {
    throw readOnly();
  }

  dispose(): void {
    this.emitter.dispose();
    this.entries.clear();
    this.inflight.clear();
  }
}

function readOnly(): vscode.FileSystemError {
  return vscode.FileSystemError.NoPermissions('MCP resources are read-only');
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The bytes of a resources/read answer. One item is the document; several are reduced to the
 * one whose URI was asked for, or (all text) joined with a header line per item.
 */
export function contentsToBytes(contents: readonly ResourceContents[], requested: string): { kind: 'text' | 'blob'; mimeType?: string; bytes: Uint8Array } {
  const one = (c: ResourceContents) =>
    'text' in c && typeof c.text === 'string'
      ? { kind: 'text' as const, mimeType: c.mimeType, bytes: new TextEncoder().encode(c.text) }
      : { kind: 'blob' as const, mimeType: c.mimeType, bytes: new Uint8Array(Buffer.from((c as { blob: string }).blob, 'base64')) };
  if (contents.length === 0) return { kind: 'text', bytes: new Uint8Array() };
  if (contents.length === 1) return one(contents[0]);
  const exact = contents.filter((c) => c.uri === requested);
  if (exact.length === 1) return one(exact[0]);
  if (contents.every((c) => 'text' in c && typeof c.text === 'string')) {
    const text = contents.map((c) => `──── ${c.uri}${c.mimeType ? ` (${c.mimeType})` : ''} ────\n${(c as { text: string }).text}`).join('\n\n');
    return { kind: 'text', mimeType: contents[0].mimeType, bytes: new TextEncoder().encode(text) };
  }
  return one(contents[0]);
}
