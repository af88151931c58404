// Browse Servers… and Check for Updates: find a server in the configured MCP registries
// (mcpHost.registries), see what it needs, add it to .vscode/mcp.json or the user settings with its
// secrets in SecretStorage, and later move its pinned version forward. The registry API and the
// server.json -> entry conversion live on the host floor (src/host/catalog).
import * as vscode from 'vscode';
import { parse as parseJsonc } from 'jsonc-parser';
import type { CatalogEntry, RegistryClient, RegistrySetting } from '../host/catalog';
import type { BuiltEntry, InstallOption, ValuePrompter } from '../host/catalog/toEntry';
import { loadCatalog as catalog } from '../host/loadCatalog';
import { displayText } from '../util/serverText';
import { repinEntry, repinProblem } from '../host/catalog/provenance';
import type { ServerDetail } from '../host/catalog/serverJson';
import { errorMessage } from '../util/errorMessage';
import { isRecord } from '../util/isRecord';
import type { HostController } from './hostController';
import { USER_SETTINGS_SOURCE, WORKSPACE_CONFIG_PATH } from './configLoader';
import { readForEdit, unchangedSinceRead } from './configCommands';
import { usageServices } from './services';
import { Commands } from './commandIds';
import type { PickItem } from './prompter';
import { runQuickInput } from './quickInput';

/** How long typing pauses before the registry is asked. */
const SEARCH_DEBOUNCE_MS = 300;

/** One search result as a quick-pick row. */
interface ServerPick extends vscode.QuickPickItem {
  readonly result?: { readonly server: ServerDetail; readonly registry: RegistrySetting; readonly deprecated: boolean };
}

const REPOSITORY_BUTTON: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('repo'), tooltip: 'Open the repository' };

export function registerRegistryCommands(controller: HostController, context: vscode.ExtensionContext): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Commands.browseServers, (args?: { query?: string }) => browseServers(controller, context, args?.query)),
    vscode.commands.registerCommand(Commands.checkForUpdates, () => checkForUpdates(controller, context)),
  ];
}

/** The configured registries, with header values resolved (`${input:}` from SecretStorage, `${env:}`). */
async function registries(controller: HostController, context: vscode.ExtensionContext): Promise<RegistrySetting[]> {
  const { registries: list, problems } = catalog().readRegistrySettings(vscode.workspace.getConfiguration('mcpHost').get('registries'));
  for (const p of problems) controller.mainLog.warn(p);
  const resolved: RegistrySetting[] = [];
  for (const r of list) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(r.headers)) headers[name] = await resolveHeaderValue(value, r.url, context);
    resolved.push({ url: r.url, headers });
  }
  return resolved;
}

/** `${env:NAME}` from the environment; `${input:ID}` asked once (password) and kept in SecretStorage. */
async function resolveHeaderValue(value: string, registry: string, context: vscode.ExtensionContext): Promise<string> {
  let out = '';
  let at = 0;
  for (;;) {
    const open = value.indexOf('${', at);
    const close = open === -1 ? -1 : value.indexOf('}', open);
    if (open === -1 || close === -1) break;
    out += value.slice(at, open);
    const name = value.slice(open + 2, close);
    if (name.startsWith('env:')) out += process.env[name.slice(4)] ?? '';
    else if (name.startsWith('input:')) {
      const key = `mcpHost.registryInput:${registry}:${name.slice(6)}`;
      let stored = await context.secrets.get(key);
      if (stored === undefined) {
        stored = await usageServices.prompter.input({ key: `registry.input:${name.slice(6)}`, title: `Registry ${registry}`, prompt: `Value of \${${name}} for the registry's header`, password: true, ignoreFocusOut: true });
        if (stored !== undefined) await context.secrets.store(key, stored);
      }
      out += stored ?? '';
    } else out += value.slice(open, close + 1);
    at = close + 1;
  }
  return out + value.slice(at);
}

/** What is configured already (any file, the user settings), to mark it in the list. */
interface Configured {
  /** Registry name -> `entry@version`, for entries added from a registry. */
  readonly byRegistryName: Map<string, string>;
  /** Each stdio entry's name and its arguments, to recognise a package configured by hand. */
  readonly commands: Array<{ readonly name: string; readonly args: readonly string[] }>;
}

function configuredServers(controller: HostController): Configured {
  const byRegistryName = new Map<string, string>();
  const commands: Configured['commands'] = [];
  for (const s of controller.registry.servers) {
    const def = s.definition;
    if (def?.registry) byRegistryName.set(def.registry.name, `${s.name}@${def.registry.version}`);
    if (def?.type === 'stdio') commands.push({ name: s.name, args: def.args });
  }
  return { byRegistryName, commands };
}

/** The entry that already runs one of the server's npm/PyPI packages (`pkg`, `pkg@v`, `pkg==v`), if any. */
function configuredAs(server: ServerDetail, configured: Configured): string | undefined {
  const fromRegistry = configured.byRegistryName.get(server.name);
  if (fromRegistry) return fromRegistry;
  const ids = (server.packages ?? []).filter((p) => p.registryType === 'npm' || p.registryType === 'pypi').map((p) => p.identifier);
  const runs = (arg: string) => ids.some((id) => arg === id || arg.startsWith(`${id}@`) || arg.startsWith(`${id}==`));
  return configured.commands.find((c) => c.args.some(runs))?.name;
}

function pickOf(entry: CatalogEntry, registry: RegistrySetting, configured: Configured): ServerPick {
  if (entry.kind === 'malformed') {
    return { label: `$(warning) ${displayText(entry.name ?? '(no name)', 120)}`, description: 'malformed', detail: displayText(entry.reason, 200) };
  }
  const { server, meta } = entry;
  const options = catalog().installOptions(server);
  const preferred = options.find((o) => !o.unsupported);
  const needs = preferred ? catalog().needsOf(preferred) : undefined;
  const needText = needs && (needs.secrets.length || needs.values.length) ? `needs ${[...needs.secrets.map((s) => `${s} (secret)`), ...needs.values].join(', ')}` : '';
  const deprecated = meta.status === 'deprecated';
  const already = configuredAs(server, configured);
  return {
    label: `${deprecated ? '$(warning) ' : already ? '$(check) ' : ''}${displayText(server.title ?? server.name, 100)}`,
    description: [displayText(server.version, 40), deprecated ? 'deprecated' : '', already ? `configured as ${displayText(already, 80)}` : ''].filter(Boolean).join(' · '),
    // What it runs on and needs first: the description is the part a narrow list may cut.
    detail: [[displayText(catalog().transportsOf(server), 80), preferred ? needText : 'nothing MCP Host can install'].filter(Boolean).join(' · '), displayText(server.description, 160), displayText(server.name, 120)].join(' — '),
    ...(server.repository?.url?.startsWith('https://') ? { buttons: [REPOSITORY_BUTTON] } : {}),
    result: { server, registry, deprecated },
  };
}

async function searchAll(query: string, list: readonly RegistrySetting[], configured: Configured, log: (m: string) => void): Promise<ServerPick[]> {
  const picks: ServerPick[] = [];
  const results = await Promise.allSettled(list.map((r) => catalog().registryClient(r.url, r.headers).search(query, { limit: 50 })));
  results.forEach((result, i) => {
    const registry = list[i];
    if (list.length > 1) picks.push({ label: registry.url, kind: vscode.QuickPickItemKind.Separator });
    if (result.status === 'fulfilled') {
      const entries = result.value.entries.filter((e) => e.kind === 'malformed' || e.meta.status !== 'deleted');
      picks.push(...entries.map((e) => pickOf(e, registry, configured)));
      if (result.value.nextCursor) picks.push({ label: '$(ellipsis) More results: type more of the name', alwaysShow: true });
    } else {
      const message = result.reason instanceof catalog().RegistryError ? result.reason.message : `Registry ${registry.url}: ${errorMessage(result.reason)}`;
      log(message);
      picks.push({ label: `$(error) ${message}`, alwaysShow: true });
    }
  });
  return picks;
}

/**
 * Browse Servers…: a quick pick that searches as one types (debounced). With a `query` (a link, or
 * the integration tests), that query's results are offered through the prompter instead.
 */
async function browseServers(controller: HostController, context: vscode.ExtensionContext, query?: string): Promise<string | undefined> {
  const list = await registries(controller, context);
  const configured = configuredServers(controller);
  const log = (m: string) => controller.mainLog.warn(m);
  let chosen: ServerPick | undefined;
  if (query !== undefined) {
    const picks = await searchAll(query, list, configured, log);
    chosen = await usageServices.prompter.pick(picks as Array<ServerPick & PickItem>, { key: 'browse.server', title: 'Browse MCP Servers', placeHolder: 'Add which server?', matchOnDescription: true, matchOnDetail: true });
  } else {
    chosen = await livePick(list, configured, log);
  }
  if (!chosen?.result) return undefined;
  return addFromRegistry(controller, context, chosen.result.server, chosen.result.registry, chosen.result.deprecated);
}

function livePick(list: readonly RegistrySetting[], configured: Configured, log: (m: string) => void): Promise<ServerPick | undefined> {
  const qp = vscode.window.createQuickPick<ServerPick>();
  qp.title = 'Browse MCP Servers';
  qp.placeholder = `Search ${list.map((r) => new URL(r.url).host).join(', ')} by name`;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  let timer: NodeJS.Timeout | undefined;
  let generation = 0;
  const search = (value: string): void => {
    const mine = ++generation;
    qp.busy = true;
    searchAll(value, list, configured, log).then(
      (picks) => {
        if (mine !== generation) return; // an older answer than what is typed now
        qp.items = picks;
        qp.busy = false;
      },
      (err: unknown) => {
        log(`Browse Servers: ${errorMessage(err)}`);
        qp.busy = false;
      },
    );
  };
  return runQuickInput<ServerPick | undefined>(qp, undefined, ({ finish }) => {
    search('');
    return [
      qp.onDidChangeValue((value) => {
        clearTimeout(timer);
        timer = setTimeout(() => search(value), SEARCH_DEBOUNCE_MS);
      }),
      qp.onDidTriggerItemButton((e) => {
        const url = e.item.result?.server.repository?.url;
        if (url) void usageServices.prompter.openExternal(vscode.Uri.parse(url));
      }),
      qp.onDidAccept(() => {
        const item = qp.selectedItems[0];
        if (item?.result) finish(item);
      }),
      // A search still under way when the pick closes has no list to fill.
      {
        dispose: () => {
          clearTimeout(timer);
          generation++;
        },
      },
    ];
  });
}

/** The questions of server.json, asked with the prompter: choices as a list, the rest as text. */
function editorValuePrompter(title: string): ValuePrompter {
  const prompter = usageServices.prompter;
  return {
    ask: async (q) => {
      if (q.choices?.length) {
        const items = q.choices.map((c) => ({ label: c, description: c === q.default ? 'default' : undefined }));
        const picked = await prompter.pick(items, { key: `browse.value:${q.key}`, title, placeHolder: `${q.label}${q.description ? `: ${q.description}` : ''}`, active: items.find((i) => i.label === q.default), ignoreFocusOut: true });
        return picked?.label;
      }
      return prompter.input({
        key: `browse.value:${q.key}`,
        title,
        prompt: `${q.label}${q.description ? `: ${q.description}` : ''}`,
        placeHolder: q.placeholder,
        value: q.default,
        ignoreFocusOut: true,
        validate: (v) => (v.trim() ? undefined : `Enter ${q.label}`),
      });
    },
  };
}

/** Add: which package or remote, where, which name; the values; the secrets into SecretStorage; write; start. */
async function addFromRegistry(controller: HostController, context: vscode.ExtensionContext, listed: ServerDetail, registry: RegistrySetting, deprecated: boolean): Promise<string | undefined> {
  const prompter = usageServices.prompter;
  const title = `Add ${displayText(listed.title ?? listed.name, 80)}`;
  // The list holds the latest version; read it again by name and version, as the registry serves it.
  const fetched = await catalog().registryClient(registry.url, registry.headers).get(listed.name, listed.version);
  if (fetched.kind === 'malformed') {
    void vscode.window.showErrorMessage(`MCP Host: ${listed.name}'s server.json is malformed: ${displayText(fetched.reason, 200)}`);
    return undefined;
  }
  const server = fetched.server;
  if (deprecated) {
    const go = await prompter.message('warning', `${server.name} is deprecated in ${registry.url}.`, { key: 'browse.deprecated', modal: true }, 'Add Anyway');
    if (go !== 'Add Anyway') return undefined;
  }
  const offered = catalog().installOptions(server);
  const options = offered.filter((o) => !o.unsupported);
  if (options.length === 0) {
    const why = offered.map((o) => o.unsupported).filter(Boolean).join('; ');
    void vscode.window.showErrorMessage(`MCP Host cannot install ${server.name}: ${displayText(why || 'it has no package or remote', 300)}`);
    return undefined;
  }
  let option: InstallOption | undefined = options[0];
  if (options.length > 1) {
    const picked = await prompter.pick(
      options.map((o) => ({ label: o.kind === 'remote' ? `$(globe) ${displayText(o.label, 120)}` : `$(package) ${displayText(o.label, 120)}`, option: o })),
      { key: 'browse.option', title, placeHolder: 'Run it how?' },
    );
    option = picked?.option;
  }
  if (!option) return undefined;
  const target = await prompter.pick(
    [
      ...(vscode.workspace.workspaceFolders ?? []).map((f) => ({ label: `$(folder) ${f.name}`, description: `${f.name}/${WORKSPACE_CONFIG_PATH}`, folder: f })),
      { label: '$(account) User settings', description: 'mcpHost.servers: in every workspace', folder: undefined },
    ],
    { key: 'browse.target', title, placeHolder: 'Where should the server be configured?' },
  );
  if (!target) return undefined;
  const file = target.folder ? vscode.Uri.joinPath(target.folder.uri, WORKSPACE_CONFIG_PATH).fsPath : USER_SETTINGS_SOURCE;
  const what = vscode.l10n.t('add {0}', displayText(server.name, 120));
  // Before any question (and any secret stored): the entry could not be written into it.
  const read = target.folder ? await readForEdit(vscode.Uri.file(file), what) : { text: undefined };
  if (!read) return undefined;
  const text = read.text;
  const taken = target.folder ? catalog().configuredNames(text) : new Set(Object.keys(vscode.workspace.getConfiguration('mcpHost').get<object>('servers', {})));
  let name = catalog().suggestEntryName(server.name);
  if (taken.has(name) || catalog().entryNameProblem(name)) {
    const typed = await prompter.input({
      key: 'browse.name',
      title,
      prompt: `${catalog().entryNameProblem(name) ?? `"${name}" is already configured there`}. A name for this server:`,
      value: uniqueName(name, taken),
      validate: (v) => (!v.trim() ? 'Enter a name' : taken.has(v.trim()) ? `"${v.trim()}" is already configured there` : catalog().entryNameProblem(v.trim())),
    });
    if (!typed) return undefined;
    name = typed.trim();
  }
  let built;
  try {
    built = await catalog().buildEntry(server, option, { registry: registry.url, name: server.name, version: server.version }, name, editorValuePrompter(title));
  } catch (err) {
    if (err instanceof catalog().AddCancelled) return undefined;
    void vscode.window.showErrorMessage(`MCP Host cannot add ${server.name}: ${errorMessage(err)}`);
    return undefined;
  }
  if (!(await acceptLaunchRequests(server.name, built))) return undefined;
  // Input ids another server of the file uses already are its stored secrets: this entry gets its own.
  const config = vscode.workspace.getConfiguration('mcpHost');
  const { entry, inputs } = target.folder
    ? catalog().distinctInputsInText(text, name, built)
    : catalog().distinctInputs({ servers: config.get('servers', {}), inputs: config.get('inputs', []) }, name, built);
  // Secrets go to SecretStorage under the same key the server's start reads; the file gets ${input:}.
  const values: string[] = [];
  for (const [index, input] of inputs.entries()) {
    const value = await prompter.input({ key: `input:${input.id}`, title, prompt: `${built.secrets[index]}: ${input.description}`, password: true, ignoreFocusOut: true });
    if (value === undefined) return undefined;
    values.push(value);
  }
  // The file as it was read, or nothing is stored or written: an edit made meanwhile would be lost.
  if (target.folder && !(await unchangedSinceRead(vscode.Uri.file(file), text, what))) return undefined;
  for (const [index, input] of inputs.entries()) await context.secrets.store(controller.inputKey(file, input.id), values[index]);
  if (target.folder) {
    const uri = vscode.Uri.joinPath(target.folder.uri, WORKSPACE_CONFIG_PATH);
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(target.folder.uri, '.vscode'));
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(catalog().addEntryToText(text, name, entry, inputs)));
  } else {
    const current = vscode.workspace.getConfiguration('mcpHost');
    const declared = current.get<Array<{ id?: unknown }>>('inputs', []);
    const fresh = inputs.filter((i) => !declared.some((d) => d.id === i.id));
    // Inputs first: a server must not be read before the inputs it uses are declared.
    if (fresh.length) await current.update('inputs', [...declared, ...fresh], vscode.ConfigurationTarget.Global);
    await current.update('servers', { ...current.get<object>('servers', {}), [name]: entry }, vscode.ConfigurationTarget.Global);
  }
  await controller.reload();
  void vscode.window.showInformationMessage(`MCP Host added "${name}" (${server.name}@${server.version}).`);
  return name;
}

/**
 * What the entry asks of its launcher beyond running its package (`--network host`, a mount, a
 * forwarded variable, another package source) is shown before anything is stored or written,
 * and the server starts right after: the person accepts it or nothing is added.
 */
async function acceptLaunchRequests(serverName: string, built: BuiltEntry): Promise<boolean> {
  if (built.launcherRequests.length === 0) return true;
  const { launcherRequestsHeadline, LAUNCHER_REQUESTS_RISK } = catalog();
  // Each request is shown whole enough to judge (launcherRequests: escaped, both ends of a long one).
  const answer = await usageServices.prompter.message(
    'warning',
    `${launcherRequestsHeadline(serverName, built.entry.command)}: ${built.launcherRequests.join('; ')}.`,
    { key: 'browse.launcher', modal: true, detail: `${LAUNCHER_REQUESTS_RISK}. Add it only if you expect them.` },
    'Add Anyway',
  );
  return answer === 'Add Anyway';
}

function uniqueName(name: string, taken: Set<string>): string {
  if (!taken.has(name) && !catalog().entryNameProblem(name)) return name;
  for (let i = 2; ; i++) if (!taken.has(`${name}-${i}`)) return `${name}-${i}`;
}

/** Check for Updates: the entries added from a registry whose registry has published another latest version. */
async function checkForUpdates(controller: HostController, context: vscode.ExtensionContext): Promise<string[]> {
  // An untrusted workspace's file names its own "gallery" address: it is not asked.
  const candidates = controller.registry.servers.filter((s) => s.definition?.registry && (vscode.workspace.isTrusted || s.source.kind === 'user'));
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage('MCP Host: no server was added from a registry (Browse Servers… adds one).');
    return [];
  }
  const updates: Array<PickItem & { server: (typeof candidates)[number]; latest: string }> = [];
  const refused: string[] = [];
  // A private registry's headers come from mcpHost.registries; a fresh client, so "latest" is not
  // an answer cached earlier in the session.
  const configured = await registries(controller, context);
  const clients = new Map<string, RegistryClient>();
  for (const s of candidates) {
    const reg = s.definition!.registry!;
    try {
      let client = clients.get(reg.registry);
      if (!client) {
        client = new (catalog().RegistryClient)(reg.registry, { headers: configured.find((r) => r.url === reg.registry)?.headers ?? {} });
        clients.set(reg.registry, client);
      }
      const latest = await client.get(reg.name, 'latest');
      if (latest.kind === 'server' && latest.server.version !== reg.version) {
        // The registry's text goes on the command line: a version that is not plain is not offered.
        const problem = repinProblem(latest.server.version);
        if (problem) refused.push(`${s.name} (${displayText(reg.name, 120)}): ${displayText(problem, 200)}`);
        else updates.push({ label: s.name, description: `${reg.version} → ${displayText(latest.server.version, 40)}`, detail: reg.name, server: s, latest: latest.server.version });
      }
    } catch (err) {
      controller.mainLog.warn(`Check for Updates: ${reg.name}: ${errorMessage(err)}`);
    }
  }
  for (const r of refused) controller.mainLog.warn(`Check for Updates: ${r}; not offered`);
  if (refused.length) void vscode.window.showWarningMessage(`MCP Host: not offered as an update: ${refused.join('; ')}.`);
  if (updates.length === 0) {
    if (!refused.length) void vscode.window.showInformationMessage('MCP Host: every server added from a registry is at its latest version.');
    return [];
  }
  const picked = await usageServices.prompter.pickMany(updates, { key: 'updates.pick', title: 'Check for Updates', placeHolder: 'Update the pinned version of which servers?', selected: updates });
  if (!picked?.length) return [];
  for (const u of picked) await repin(u.server.name, u.server.source.file, u.server.definition!.registry!.version, u.latest);
  await controller.reload();
  return picked.map((u) => u.server.name);
}

/** Moves one entry's pin, in its mcp.json (comments kept) or in the user settings. */
async function repin(name: string, file: string, from: string, to: string): Promise<void> {
  if (file === USER_SETTINGS_SOURCE) {
    const config = vscode.workspace.getConfiguration('mcpHost');
    const servers = config.get<Record<string, unknown>>('servers', {});
    const entry = servers[name];
    if (isRecord(entry)) await config.update('servers', { ...servers, [name]: repinEntry(entry, from, to) }, vscode.ConfigurationTarget.Global);
    return;
  }
  const text = (await readForEdit(vscode.Uri.file(file), vscode.l10n.t('update {0}', name)))?.text;
  if (text === undefined) return;
  const root: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  const servers = isRecord(root) ? (isRecord(root.servers) ? root.servers : root.mcpServers) : undefined;
  const entry = isRecord(servers) ? servers[name] : undefined;
  if (!isRecord(entry)) return;
  await vscode.workspace.fs.writeFile(vscode.Uri.file(file), new TextEncoder().encode(catalog().replaceEntryInText(text, name, repinEntry(entry, from, to))));
}
