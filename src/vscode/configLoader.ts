import * as vscode from 'vscode';
import { parseConfigText, type ConfigProblem, type ConfigSource, type InputDefinition, type ParsedConfig } from '../host/config';
import type { ServerEntry } from '../host/registry';
import { serverId } from '../host/serverConnection';
import { Emitter, type Event } from '../util/event';
import { errorMessage } from '../util/errorMessage';
import { OTHER_HOSTS, otherHostFiles, type OtherHost } from '../host/otherHosts';

/**
 * A file's text, or undefined when it does not exist. Any other error is thrown: a file that cannot
 * be read is not an empty one (an edit would write over what it holds).
 */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(file)));
  } catch (err) {
    if (err instanceof vscode.FileSystemError && err.code === 'FileNotFound') return undefined;
    throw err;
  }
}

export const WORKSPACE_CONFIG_PATH = '.vscode/mcp.json';

/**
 * A setting that can make servers start, or change which ones (servers, inputs, otherHosts,
 * autoStart). In an untrusted workspace only the user's own value counts: a repository's
 * .vscode/settings.json must not start anything on open, not even the user's other hosts' servers.
 */
export function startSetting<T>(key: string, fallback: T): T {
  const config = vscode.workspace.getConfiguration('mcpHost');
  if (vscode.workspace.isTrusted) return config.get<T>(key, fallback);
  const inspected = config.inspect<T>(key);
  return inspected?.globalValue ?? inspected?.defaultValue ?? fallback;
}

/** Why a server from this source may not start (or be contacted by the doctor) now: an untrusted workspace's. */
export function startVeto(source: { kind: string }): string | undefined {
  return source.kind === 'workspace' && !vscode.workspace.isTrusted
    ? 'the workspace is not trusted; servers defined by the workspace start once you trust it (Manage Workspace Trust)'
    : undefined;
}

export const USER_SETTINGS_SOURCE = 'settings:mcpHost.servers';

/** A source's identity for what it last said: one file can be read as two sources (a workspace folder that is the home directory). */
function sourceKey(source: ConfigSource): string {
  return `${source.kind}\u0000${source.workspaceFolder ?? ''}\u0000${source.file}`;
}

export interface LoadedConfiguration {
  entries: ServerEntry[];
  /** Inputs declared per source file, for ${input:ID}. */
  inputsBySource: Map<string, InputDefinition[]>;
  problems: ConfigProblem[];
  /**
   * The files not applied as they are now (a JSON syntax error, a failed read), each with its
   * first problem: their servers are as at the file's last valid save.
   */
  unapplied: Map<string, ConfigProblem>;
}

/**
 * Reads every configuration source (each workspace folder's .vscode/mcp.json and
 * the user's mcpHost.servers setting), reports problems to the Problems view, and
 * fires when any source changes.
 */
export class ConfigLoader implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changed = new Emitter<void>();
  private debounce: NodeJS.Timeout | undefined;
  readonly onDidChange: Event<void> = this.changed.event;
  /** Per source (see sourceKey), its file's last parse without a syntax error (see parseConfigText). */
  private readonly lastReadable = new Map<string, ParsedConfig>();

  constructor(
    private readonly diagnostics: vscode.DiagnosticCollection,
    private readonly log: vscode.LogOutputChannel,
    private readonly globalStorageDir: string | undefined,
  ) {
    const watcher = vscode.workspace.createFileSystemWatcher(`**/${WORKSPACE_CONFIG_PATH}`);
    const otherWatcher = vscode.workspace.createFileSystemWatcher('**/{.mcp.json,.cursor/mcp.json}');
    this.disposables.push(
      watcher,
      watcher.onDidChange(() => this.scheduleChange()),
      watcher.onDidCreate(() => this.scheduleChange()),
      watcher.onDidDelete(() => this.scheduleChange()),
      otherWatcher,
      otherWatcher.onDidChange(() => this.scheduleChangeIfOtherHosts()),
      otherWatcher.onDidCreate(() => this.scheduleChangeIfOtherHosts()),
      otherWatcher.onDidDelete(() => this.scheduleChangeIfOtherHosts()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.scheduleChange()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('mcpHost.servers') || e.affectsConfiguration('mcpHost.inputs') || e.affectsConfiguration('mcpHost.otherHosts')) this.scheduleChange();
      }),
      // An edit in an open, unsaved mcp.json is not applied; saving is.
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (doc.uri.path.endsWith(`/${WORKSPACE_CONFIG_PATH}`)) this.scheduleChange();
      }),
    );
  }

  async load(): Promise<LoadedConfiguration> {
    const parsedSources: Array<{ source: ConfigSource; parsed: ParsedConfig }> = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const file = vscode.Uri.joinPath(folder.uri, WORKSPACE_CONFIG_PATH).fsPath;
      const source: ConfigSource = { file, kind: 'workspace', workspaceFolder: folder.uri.fsPath };
      const parsed = await this.readSource(source);
      if (parsed) parsedSources.push({ source, parsed });
    }
    const userServers = startSetting<unknown>('servers', undefined);
    if (userServers && typeof userServers === 'object' && Object.keys(userServers).length > 0) {
      const source: ConfigSource = { file: USER_SETTINGS_SOURCE, kind: 'user' };
      const userInputs = startSetting<unknown>('inputs', []);
      parsedSources.push({ source, parsed: parseConfigText(JSON.stringify({ servers: userServers, inputs: userInputs }, null, 2), source) });
    }

    // Other hosts' files are read only when the user asked for them (mcpHost.otherHosts).
    const hosts = startSetting<OtherHost[]>('otherHosts', []).filter((h) => OTHER_HOSTS.includes(h));
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    for (const other of otherHostFiles(hosts, folders, this.globalStorageDir)) {
      const source: ConfigSource = {
        file: other.file,
        kind: other.workspaceFolder ? 'workspace' : 'import',
        workspaceFolder: other.workspaceFolder,
        label: other.label,
      };
      const parsed = await this.readSource(source);
      if (parsed) parsedSources.push({ source, parsed });
    }

    // A file no longer read (deleted, or its host turned off) starts afresh if it comes back.
    for (const key of this.lastReadable.keys()) if (!parsedSources.some((p) => sourceKey(p.source) === key)) this.lastReadable.delete(key);

    const entries: ServerEntry[] = [];
    const inputsBySource = new Map<string, InputDefinition[]>();
    const problems: ConfigProblem[] = [];
    const unapplied = new Map<string, ConfigProblem>();
    for (const { source, parsed } of parsedSources) {
      inputsBySource.set(source.file, parsed.inputs);
      if (parsed.unreadable && parsed.problems.length > 0) unapplied.set(source.file, parsed.problems[0]);
      problems.push(...parsed.problems);
      for (const def of parsed.servers) entries.push({ id: serverId(def), name: def.name, source, definition: def });
      // A server whose entry is broken still appears, in error, so the user sees it (while the
      // file is not applied, as at its last valid save).
      const entryProblems = parsed.unreadable ? (this.lastReadable.get(sourceKey(source))?.problems ?? []) : parsed.problems;
      for (const problem of entryProblems) {
        if (problem.server && !parsed.servers.some((s) => s.name === problem.server)) {
          entries.push({
            id: `${source.file}#${problem.server}`,
            name: problem.server,
            source,
            problem: `${problem.message} (${source.file}${problem.line ? `:${problem.line}` : ''})`,
          });
        }
      }
    }
    this.publishDiagnostics(problems);
    for (const p of problems) this.log.warn(`Configuration problem: ${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`);
    return { entries, inputsBySource, problems, unapplied };
  }

  /**
   * A source's file read and parsed; undefined when it does not exist. One that cannot be read
   * (busy or locked for a moment, another program writing it; no permission; a folder) is a
   * problem, and what it said at its last valid save stands (not for a source that may not start
   * servers now, see parseFile).
   */
  private async readSource(source: ConfigSource): Promise<ParsedConfig | undefined> {
    let text: string | undefined;
    try {
      text = await readIfExists(source.file);
    } catch (err) {
      this.log.warn(`Cannot read ${source.file}: ${errorMessage(err)}`);
      const last = startVeto(source) === undefined ? this.lastReadable.get(sourceKey(source)) : undefined;
      const consequence = last ? 'its servers keep running as configured at its last valid save' : 'no servers are read from it until it can be read';
      const problem = { file: source.file, message: `Cannot read the file: ${errorMessage(err)}. Check that it is a file you may read; ${consequence}.` };
      return { servers: last?.servers ?? [], inputs: last?.inputs ?? [], problems: [problem], unreadable: true };
    }
    return text === undefined ? undefined : this.parseFile(text, source);
  }

  /**
   * A file's text parsed; with a syntax error, its servers and inputs as at its last valid save.
   * Not for a source that may not start servers now (an untrusted workspace's): trusting it later
   * must start what the file says then, not what it once said.
   */
  private parseFile(text: string, source: ConfigSource): ParsedConfig {
    const key = sourceKey(source);
    const usable = startVeto(source) === undefined;
    const parsed = parseConfigText(text, source, usable ? this.lastReadable.get(key) : undefined);
    if (!parsed.unreadable && usable) this.lastReadable.set(key, parsed);
    return parsed;
  }

  private publishDiagnostics(problems: ConfigProblem[]): void {
    this.diagnostics.clear();
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const p of problems) {
      if (p.file.startsWith('settings:')) continue;
      const line = Math.max(0, (p.line ?? 1) - 1);
      const diagnostic = new vscode.Diagnostic(new vscode.Range(line, Math.max(0, (p.column ?? 1) - 1), line, Number.MAX_SAFE_INTEGER), p.message, vscode.DiagnosticSeverity.Error);
      diagnostic.source = 'MCP Host';
      const list = byFile.get(p.file) ?? [];
      list.push(diagnostic);
      byFile.set(p.file, list);
    }
    for (const [file, list] of byFile) this.diagnostics.set(vscode.Uri.file(file), list);
  }

  private scheduleChangeIfOtherHosts(): void {
    if (startSetting<string[]>('otherHosts', []).length > 0) this.scheduleChange();
  }

  private scheduleChange(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.changed.fire();
    }, 150);
  }

  dispose(): void {
    if (this.debounce) clearTimeout(this.debounce);
    for (const d of this.disposables) d.dispose();
    this.changed.dispose();
  }
}
