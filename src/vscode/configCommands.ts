import * as vscode from 'vscode';
import { applyEdits, modify, parse as parseJsonc } from 'jsonc-parser';
import { firstSyntaxErrorLine, parseConfigText, type ServerDefinition } from '../host/config';
import { OTHER_HOSTS, otherHostFiles } from '../host/otherHosts';
import type { HostController } from './hostController';
import { WORKSPACE_CONFIG_PATH, readIfExists } from './configLoader';
import { usageServices } from './services';
import { splitCommandLine, suggestNameFromCommand } from '../host/commandLine';
import { Commands } from './commandIds';
import { displayConfigUrl } from '../util/displayUrl';
import { errorMessage } from '../util/errorMessage';

/** A server entry as written to mcp.json. */
type ServerJson = Record<string, unknown>;

/**
 * Adds servers to a folder's .vscode/mcp.json, keeping its comments and formatting. Undefined (and
 * the person told why) when the file cannot be read or has a JSON syntax error (readForEdit).
 */
export async function addServersToWorkspaceFile(folder: vscode.Uri, servers: Record<string, ServerJson>, what: string): Promise<vscode.Uri | undefined> {
  const uri = vscode.Uri.joinPath(folder, WORKSPACE_CONFIG_PATH);
  const read = await readForEdit(uri, what);
  if (!read) return undefined;
  let text = read.text ?? '{\n  "servers": {}\n}\n';
  const formattingOptions = { insertSpaces: true, tabSize: 2, eol: '\n' };
  for (const [name, value] of Object.entries(servers)) {
    text = applyEdits(text, modify(text, ['servers', name], value, { formattingOptions }));
  }
  await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(folder, '.vscode'));
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  return uri;
}

/**
 * A configuration file's text before an edit (undefined: it does not exist), or undefined (and the
 * person told why, naming the file) when it cannot be read or has a JSON syntax error: an edit
 * would write over what it holds, or land in it unseen.
 */
export async function readForEdit(uri: vscode.Uri, what: string): Promise<{ text: string | undefined } | undefined> {
  let text: string | undefined;
  try {
    text = await readIfExists(uri.fsPath);
  } catch (err) {
    void vscode.window.showErrorMessage(vscode.l10n.t('MCP Host cannot {0}: {1} cannot be read ({2}). Check that it is a file you may read, then try again.', what, uri.fsPath, errorMessage(err)));
    return undefined;
  }
  return text !== undefined && refusedAsBroken(uri, text, what) ? undefined : { text };
}

/** True when the file still holds `text` (undefined: still no file); otherwise false, and the person told to try again. */
export async function unchangedSinceRead(uri: vscode.Uri, text: string | undefined, what: string): Promise<boolean> {
  const now = await readForEdit(uri, what);
  if (!now) return false;
  if (now.text === text) return true;
  void vscode.window.showWarningMessage(vscode.l10n.t('MCP Host did not {0}: {1} changed while you answered. Nothing was stored or written; try again.', what, uri.fsPath));
  return false;
}

/**
 * True (and an error shown, offering to open the file at the line) when a configuration file's
 * text has a JSON syntax error: while it has one, its servers run as at its last valid save.
 */
function refusedAsBroken(uri: vscode.Uri, text: string, what: string): boolean {
  const line = text.trim() === '' ? undefined : firstSyntaxErrorLine(text);
  if (line === undefined) return false;
  void offerToOpenAt(uri, line, vscode.l10n.t('MCP Host cannot {0}: {1} has a JSON syntax error on line {2}. Fix it first.', what, uri.fsPath, line));
  return true;
}

/** An error message (not awaited by the command: it stays until dismissed) whose button opens the file at `line`. */
async function offerToOpenAt(uri: vscode.Uri, line: number, message: string): Promise<void> {
  const open = vscode.l10n.t('Open File');
  if ((await vscode.window.showErrorMessage(message, open)) !== open) return;
  const position = new vscode.Position(line - 1, 0);
  await vscode.window.showTextDocument(uri, { selection: new vscode.Range(position, position) });
}

/** The names already used in a folder's mcp.json; undefined (the person told why) when servers cannot be added to it. */
async function existingNames(folder: vscode.Uri, what: string): Promise<Set<string> | undefined> {
  const read = await readForEdit(vscode.Uri.joinPath(folder, WORKSPACE_CONFIG_PATH), what);
  if (!read) return undefined;
  const parsed = read.text ? (parseJsonc(read.text) as { servers?: Record<string, unknown> } | undefined) : undefined;
  return new Set(Object.keys(parsed?.servers ?? {}));
}

function toJson(def: ServerDefinition): ServerJson {
  if (def.type === 'stdio') {
    const out: ServerJson = { type: 'stdio', command: def.command };
    if (def.args.length) out.args = [...def.args];
    if (Object.keys(def.env).length) out.env = { ...def.env };
    if (def.envFile) out.envFile = def.envFile;
    if (def.cwd) out.cwd = def.cwd;
    return out;
  }
  const out: ServerJson = { type: def.type, url: def.url };
  if (Object.keys(def.headers).length) out.headers = { ...def.headers };
  return out;
}

function uniqueName(name: string, taken: Set<string>): string {
  if (!taken.has(name)) return name;
  for (let i = 2; ; i++) if (!taken.has(`${name}-${i}`)) return `${name}-${i}`;
}

async function pickFolder(placeHolder: string): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length <= 1) return folders[0];
  const picked = await usageServices.prompter.pick(
    folders.map((f) => ({ label: f.name, description: f.uri.fsPath, folder: f })),
    { key: 'folder.pick', placeHolder },
  );
  return picked?.folder;
}

export function registerConfigCommands(controller: HostController, context: vscode.ExtensionContext): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Commands.addServer, () => addServer(controller)),
    vscode.commands.registerCommand(Commands.importServers, () => importServers(controller, context)),
    vscode.commands.registerCommand(Commands.editInput, () => editInput(controller, context)),
    vscode.commands.registerCommand(Commands.forgetInputs, async () => {
      const count = await controller.forgetInputs();
      void vscode.window.showInformationMessage(
        count === 1
          ? vscode.l10n.t('MCP Host: forgot 1 stored input value. Servers ask again on their next start.')
          : vscode.l10n.t('MCP Host: forgot {0} stored input values. Servers ask again on their next start.', count),
      );
      return count;
    }),
  ];
}

/** A guided flow that writes a new server to mcp.json (or the user settings) and starts it. */
async function addServer(controller: HostController): Promise<string | undefined> {
  const prompter = usageServices.prompter;
  const title = vscode.l10n.t('Add MCP Server');
  const kind = await prompter.pick(
    [
      { label: '$(package) npm package', description: 'started with npx', launcher: 'npm' as const },
      { label: '$(symbol-misc) Python package', description: 'started with uvx', launcher: 'pypi' as const },
      { label: '$(terminal) Command', description: 'any program that speaks MCP on stdin/stdout', launcher: 'command' as const },
    ],
    { key: 'addServer.launcher', title: `${title} (1/4)`, placeHolder: vscode.l10n.t('How is the server started?') },
  );
  if (!kind) return undefined;
  let server: ServerJson;
  let suggestedName: string;
  if (kind.launcher === 'command') {
    const line = await prompter.input({
      key: 'addServer.command',
      title: `${title} (2/4)`,
      prompt: 'The command and its arguments, separated by spaces (use quotes for an argument with spaces). No shell is used.',
      placeHolder: 'node /path/to/server.js --verbose',
      validate: (v) => (splitCommandLine(v).length === 0 ? 'Enter a command' : undefined),
    });
    if (!line) return undefined;
    const [command, ...args] = splitCommandLine(line);
    server = { type: 'stdio', command, args };
    suggestedName = suggestNameFromCommand(command, args);
  } else {
    const pkg = await prompter.input({
      key: 'addServer.package',
      title: `${title} (2/4)`,
      prompt: kind.launcher === 'npm' ? 'The npm package, e.g. @modelcontextprotocol/server-memory' : 'The Python package, e.g. mcp-server-fetch',
      validate: (v) => (/^\S+$/.test(v.trim()) ? undefined : 'Enter a package name without spaces'),
    });
    if (!pkg) return undefined;
    const command = kind.launcher === 'npm' ? (process.platform === 'win32' ? 'npx.cmd' : 'npx') : 'uvx';
    server = { type: 'stdio', command, args: kind.launcher === 'npm' ? ['-y', pkg.trim()] : [pkg.trim()] };
    suggestedName = pkg.trim().replace(/^@[^/]+\//, '').replace(/^(mcp-)?server-/, '').replace(/@.*$/, '');
  }
  const target = await prompter.pick(
    [
      ...(vscode.workspace.workspaceFolders ?? []).map((f) => ({ label: `$(folder) ${f.name}`, description: `${f.name}/${WORKSPACE_CONFIG_PATH}`, folder: f })),
      { label: '$(account) User settings', description: 'mcpHost.servers: in every workspace', folder: undefined },
    ],
    { key: 'addServer.target', title: `${title} (3/4)`, placeHolder: vscode.l10n.t('Where should the server be configured?') },
  );
  if (!target) return undefined;
  const taken = target.folder ? await existingNames(target.folder.uri, vscode.l10n.t('add servers to it')) : new Set(Object.keys(vscode.workspace.getConfiguration('mcpHost').get<object>('servers', {})));
  if (!taken) return undefined;
  const name = await prompter.input({
    key: 'addServer.name',
    title: `${title} (4/4)`,
    prompt: 'A name for the server',
    value: uniqueName(suggestedName || 'server', taken),
    validate: (v) => (!v.trim() ? 'Enter a name' : taken.has(v.trim()) ? `"${v.trim()}" is already configured there` : undefined),
  });
  if (!name) return undefined;
  if (target.folder) {
    const uri = await addServersToWorkspaceFile(target.folder.uri, { [name.trim()]: server }, vscode.l10n.t('add servers to it'));
    if (!uri) return undefined;
    await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: true });
  } else {
    const config = vscode.workspace.getConfiguration('mcpHost');
    await config.update('servers', { ...config.get<object>('servers', {}), [name.trim()]: server }, vscode.ConfigurationTarget.Global);
  }
  await controller.reload();
  return name.trim();
}

/** Copies servers from Claude Desktop, Claude Code, Cursor or Cline files into mcp.json. */
async function importServers(controller: HostController, context: vscode.ExtensionContext): Promise<string[]> {
  const prompter = usageServices.prompter;
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const candidates: Array<vscode.QuickPickItem & { name: string; def: ServerDefinition }> = [];
  const unreadable: string[] = [];
  for (const other of otherHostFiles(OTHER_HOSTS, folders, context.globalStorageUri.fsPath)) {
    const text = await readIfExists(other.file).catch((err: unknown) => {
      // The other hosts' files are still offered.
      controller.mainLog.warn(`Import: cannot read ${other.file}: ${errorMessage(err)}`);
      unreadable.push(other.file);
      return undefined;
    });
    if (text === undefined) continue;
    const parsed = parseConfigText(text, { file: other.file, kind: 'import', workspaceFolder: other.workspaceFolder, label: other.label });
    for (const def of parsed.servers) {
      candidates.push({
        label: def.name,
        description: other.label,
        detail: def.type === 'stdio' ? [def.command, ...def.args].join(' ') : displayConfigUrl(def.url),
        name: def.name,
        def,
      });
    }
    for (const problem of parsed.problems) controller.mainLog.warn(`Import: ${other.file}: ${problem.message}`);
  }
  if (unreadable.length > 0) {
    void vscode.window.showWarningMessage(vscode.l10n.t('MCP Host could not read {0}: check that each is a file you may read (the log of MCP Host says why).', unreadable.join(', ')));
  }
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('MCP Host found no servers to import (looked for Claude Desktop, Claude Code .mcp.json, Cursor .cursor/mcp.json and Cline settings).'),
    );
    return [];
  }
  const picked = await prompter.pickMany(candidates, {
    key: 'import.servers',
    title: vscode.l10n.t('Import MCP Servers'),
    placeHolder: vscode.l10n.t('Servers to copy into .vscode/mcp.json'),
    selected: candidates,
  });
  if (!picked || picked.length === 0) return [];
  const folder = await pickFolder('Import into the mcp.json of which folder?');
  if (!folder) {
    void vscode.window.showWarningMessage(vscode.l10n.t('MCP Host: open a folder to import servers into its .vscode/mcp.json.'));
    return [];
  }
  const taken = await existingNames(folder.uri, vscode.l10n.t('import servers into it'));
  if (!taken) return [];
  const servers: Record<string, ServerJson> = {};
  for (const item of picked) {
    const name = uniqueName(item.name, taken);
    taken.add(name);
    servers[name] = toJson(item.def);
  }
  const uri = await addServersToWorkspaceFile(folder.uri, servers, vscode.l10n.t('import servers into it'));
  if (!uri) return [];
  await controller.reload();
  void vscode.window.showInformationMessage(
    picked.length === 1
      ? vscode.l10n.t('MCP Host imported 1 server into {0}.', vscode.workspace.asRelativePath(uri))
      : vscode.l10n.t('MCP Host imported {0} servers into {1}.', picked.length, vscode.workspace.asRelativePath(uri)),
  );
  return Object.keys(servers);
}

/** Changes a stored ${input:ID} value and restarts the servers that use it. */
async function editInput(controller: HostController, context: vscode.ExtensionContext): Promise<string | undefined> {
  const prompter = usageServices.prompter;
  const declared = controller.declaredInputs;
  if (declared.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('MCP Host: no inputs are declared ("inputs" in mcp.json or mcpHost.inputs).'));
    return undefined;
  }
  const picked = await prompter.pick(
    declared.map((d) => ({ label: d.input.id, description: d.input.description, detail: d.file, entry: d })),
    { key: 'editInput.pick', placeHolder: vscode.l10n.t('Change which input value?') },
  );
  if (!picked) return undefined;
  const { file, input } = picked.entry;
  const value = await prompter.input({ key: `input:${input.id}`, title: `Input "${input.id}"`, prompt: input.description, password: input.password ?? false, ignoreFocusOut: true });
  if (value === undefined) return undefined;
  await context.secrets.store(controller.inputKey(file, input.id), value);
  const users = controller.registry.servers.filter((s) => s.source.file === file && JSON.stringify(s.definition ?? {}).includes(`\${input:${input.id}}`));
  await Promise.allSettled(users.filter((s) => s.state.kind !== 'stopped').map((s) => s.restart()));
  return input.id;
}
