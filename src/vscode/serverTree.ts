import * as vscode from 'vscode';
import { shareNote } from './share';
import type { ServerRegistry } from '../host/registry';
import type { ServerConnection, ServerState } from '../host/serverConnection';
import { displayConfigUrl } from '../util/displayUrl';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../protocol/schemas';
import { hasAppView, isAppOnly } from '../protocol/apps';
import { Commands } from './commandIds';

export type CategoryKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

/** The nodes of the Servers tree. Each carries what its commands need. */
export type TreeNode =
  | { kind: 'server'; server: ServerConnection }
  | { kind: 'category'; server: ServerConnection; category: CategoryKind }
  | { kind: 'tool'; server: ServerConnection; tool: Tool }
  | { kind: 'resource'; server: ServerConnection; resource: Resource }
  | { kind: 'resourceTemplate'; server: ServerConnection; template: ResourceTemplate }
  | { kind: 'prompt'; server: ServerConnection; prompt: Prompt }
  | { kind: 'message'; server: ServerConnection; message: string }
  | { kind: 'tasks'; server: ServerConnection }
  | { kind: 'task'; server: ServerConnection; task: TaskRow };

/** A task run by hand, as the tree shows it (usage/tools/taskList.ts keeps them). */
export interface TaskRow {
  readonly key: string;
  readonly tool: string;
  taskId?: string;
  /** A task status (working, input_required, completed, failed, cancelled), or starting. */
  status: string;
  statusMessage?: string;
  readonly startedAt: number;
  endedAt?: number;
  running: boolean;
  hasResult: boolean;
}

/** Where the tree finds each server's tasks, and hears that they changed. */
export interface TaskTreeSource {
  readonly onDidChange: vscode.Event<ServerConnection>;
  tasksOf(server: ServerConnection): readonly TaskRow[];
}

/** A function, so the words are looked up in the display language once l10n has loaded. */
const CATEGORY_LABEL: Record<CategoryKind, () => string> = {
  tools: () => vscode.l10n.t('Tools'),
  resources: () => vscode.l10n.t('Resources'),
  resourceTemplates: () => vscode.l10n.t('Resource Templates'),
  prompts: () => vscode.l10n.t('Prompts'),
};

const CATEGORY_ICON: Record<CategoryKind, string> = {
  tools: 'tools',
  resources: 'file',
  resourceTemplates: 'file-code',
  prompts: 'comment-discussion',
};

/** Renders the registry: servers with their state, and under a running one its lists. */
export class ServerTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<TreeNode | TreeNode[] | undefined>();
  private readonly disposables: vscode.Disposable[] = [];
  private pending: NodeJS.Timeout | undefined;
  /** What the pending repaint covers: everything, or these servers' subtrees. */
  private pendingAll = false;
  private readonly pendingServers = new Set<ServerConnection>();
  /**
   * One node object per server, so a change repaints that server's subtree alone: VS Code finds
   * the element to refresh by identity. A repaint disposes the commands of the items it
   * replaces, so a click on a row drawn just before it does nothing; one server's start must
   * not do that to another server's rows.
   */
  private readonly serverNodes = new WeakMap<ServerConnection, Extract<TreeNode, { kind: 'server' }>>();
  readonly onDidChangeTreeData = this.changeEmitter.event;

  constructor(
    private readonly registry: ServerRegistry,
    private readonly tasks?: TaskTreeSource,
  ) {
    if (tasks) this.disposables.push(tasks.onDidChange((server) => this.refresh(server)));
    this.disposables.push(
      registry.onDidChangeServers(() => this.refresh()),
      registry.onDidChangeState(({ server }) => this.refresh(server)),
      registry.onDidChangeLists((server) => this.refresh(server)),
    );
  }

  /**
   * Repaints one server's subtree, or (without a server) the whole tree. Bursts of events (a
   * server start fires several) are coalesced into one repaint.
   */
  refresh(server?: ServerConnection): void {
    if (server) this.pendingServers.add(server);
    else this.pendingAll = true;
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      const all = this.pendingAll;
      const servers = [...this.pendingServers];
      this.pendingAll = false;
      this.pendingServers.clear();
      this.changeEmitter.fire(all ? undefined : servers.map((s) => this.serverNode(s)));
    }, 30);
  }

  private serverNode(server: ServerConnection): Extract<TreeNode, { kind: 'server' }> {
    let node = this.serverNodes.get(server);
    if (!node) {
      node = { kind: 'server', server };
      this.serverNodes.set(server, node);
    }
    return node;
  }

  /**
   * A row was expanded (TreeView.onDidExpandElement): the lists under it that are stale (their
   * ttlMs has passed) are fetched again; the tree repaints when they are in.
   */
  expanded(node: TreeNode): Promise<void> {
    if (node.kind === 'server') return node.server.freshLists();
    if (node.kind === 'category') return node.server.freshLists([node.category === 'resourceTemplates' ? 'resources' : node.category]);
    return Promise.resolve();
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (!node) {
      return this.registry.servers
        .slice()
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((server) => this.serverNode(server));
    }
    const server = node.server;
    if (node.kind === 'server') {
      const state = server.state;
      if (state.kind !== 'running') return [];
      const lists = server.lists;
      const categories: CategoryKind[] = [];
      if (state.capabilities.tools) categories.push('tools');
      if (state.capabilities.resources) categories.push('resources');
      // A refused list is a node with the reason (a server may declare resources and refuse templates).
      if (lists.resourceTemplates.length > 0 || lists.errors.resourceTemplates) categories.push('resourceTemplates');
      if (state.capabilities.prompts && (lists.prompts.length > 0 || lists.errors.prompts)) categories.push('prompts');
      const hasTasks = (this.tasks?.tasksOf(server).length ?? 0) > 0;
      const taskNode: TreeNode[] = hasTasks ? [{ kind: 'tasks', server }] : [];
      if (categories.length === 0) return [{ kind: 'message', server, message: vscode.l10n.t('This server offers no tools, resources or prompts.') }, ...taskNode];
      return [...categories.map((category): TreeNode => ({ kind: 'category', server, category })), ...taskNode];
    }
    if (node.kind === 'tasks') return (this.tasks?.tasksOf(server) ?? []).map((task) => ({ kind: 'task', server, task }));
    if (node.kind === 'category') {
      const lists = server.lists;
      const error = lists.errors[node.category];
      if (error) return [{ kind: 'message', server, message: vscode.l10n.t('Could not load: {0}', error) }];
      switch (node.category) {
        case 'tools':
          return lists.tools.map((tool) => ({ kind: 'tool', server, tool }));
        case 'resources':
          return lists.resources.map((resource) => ({ kind: 'resource', server, resource }));
        case 'resourceTemplates':
          return lists.resourceTemplates.map((template) => ({ kind: 'resourceTemplate', server, template }));
        case 'prompts':
          return lists.prompts.map((prompt) => ({ kind: 'prompt', server, prompt }));
      }
    }
    return [];
  }

  getParent(node: TreeNode): TreeNode | undefined {
    switch (node.kind) {
      case 'server':
        return undefined;
      case 'category':
      case 'message':
      case 'tasks':
        return this.serverNode(node.server);
      case 'task':
        return { kind: 'tasks', server: node.server };
      case 'tool':
        return { kind: 'category', server: node.server, category: 'tools' };
      case 'resource':
        return { kind: 'category', server: node.server, category: 'resources' };
      case 'resourceTemplate':
        return { kind: 'category', server: node.server, category: 'resourceTemplates' };
      case 'prompt':
        return { kind: 'category', server: node.server, category: 'prompts' };
    }
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'server':
        return serverItem(node.server);
      case 'category': {
        const count = node.server.lists[node.category].length;
        const item = new vscode.TreeItem(CATEGORY_LABEL[node.category](), vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `${node.server.id}/${node.category}`;
        item.description = node.server.lists.errors[node.category] ? vscode.l10n.t('not listed') : String(count);
        item.iconPath = new vscode.ThemeIcon(CATEGORY_ICON[node.category]);
        item.contextValue = `mcpHost.category.${node.category}`;
        return item;
      }
      case 'tool': {
        const { tool } = node;
        // The name is what settings, the CLI and the model use; the title, when there is one, follows.
        const item = new vscode.TreeItem(tool.name, vscode.TreeItemCollapsibleState.None);
        item.id = `${node.server.id}/tool/${tool.name}`;
        const title = tool.title ?? tool.annotations?.title;
        item.description = [title && title !== tool.name ? title : '', firstLine(tool.description)].filter(Boolean).join(' — ');
        item.tooltip = markdown([`**${tool.name}**`, tool.description ?? '', schemaSummary(tool.inputSchema), annotationSummary(tool)]);
        item.iconPath = new vscode.ThemeIcon(tool.annotations?.destructiveHint && !tool.annotations?.readOnlyHint ? 'warning' : hasAppView(tool) ? 'window' : 'symbol-method');
        // MCP Apps: the tool shows a view when run; an app-only tool is for its view to call.
        if (hasAppView(tool)) item.description = [vscode.l10n.t('has a view'), item.description].filter(Boolean).join(' · ');
        if (isAppOnly(tool)) item.description = [vscode.l10n.t('app only'), item.description].filter(Boolean).join(' · ');
        item.contextValue = 'mcpHost.tool';
        return item;
      }
      case 'resource': {
        const { resource } = node;
        const item = new vscode.TreeItem(resource.title ?? resource.name, vscode.TreeItemCollapsibleState.None);
        item.id = `${node.server.id}/resource/${resource.uri}`;
        item.description = resource.uri;
        item.tooltip = markdown([`**${resource.name}**`, `\`${resource.uri}\``, resource.mimeType ? `Type: ${resource.mimeType}` : '', resource.description ?? '']);
        item.iconPath = new vscode.ThemeIcon(resource.mimeType?.startsWith('image/') ? 'file-media' : 'file');
        item.contextValue = 'mcpHost.resource';
        item.command = { command: Commands.readResource, title: vscode.l10n.t('Read Resource'), arguments: [node] };
        return item;
      }
      case 'resourceTemplate': {
        const { template } = node;
        const item = new vscode.TreeItem(template.title ?? template.name, vscode.TreeItemCollapsibleState.None);
        item.id = `${node.server.id}/template/${template.uriTemplate}`;
        item.description = template.uriTemplate;
        item.tooltip = markdown([`**${template.name}**`, `\`${template.uriTemplate}\``, template.description ?? '']);
        item.iconPath = new vscode.ThemeIcon('file-code');
        item.contextValue = 'mcpHost.resourceTemplate';
        item.command = { command: Commands.readResource, title: vscode.l10n.t('Read Resource'), arguments: [node] };
        return item;
      }
      case 'prompt': {
        const { prompt } = node;
        const item = new vscode.TreeItem(prompt.title ?? prompt.name, vscode.TreeItemCollapsibleState.None);
        item.id = `${node.server.id}/prompt/${prompt.name}`;
        item.description = firstLine(prompt.description);
        const args = (prompt.arguments ?? []).map((a) => `- \`${a.name}\`${a.required ? ' (required)' : ''}${a.description ? `: ${a.description}` : ''}`);
        item.tooltip = markdown([`**${prompt.name}**`, prompt.description ?? '', args.length ? `Arguments:\n${args.join('\n')}` : '']);
        item.iconPath = new vscode.ThemeIcon('comment-discussion');
        item.contextValue = 'mcpHost.prompt';
        item.command = { command: Commands.getPrompt, title: vscode.l10n.t('Get Prompt'), arguments: [node] };
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.server.redact(node.message), vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('info');
        return item;
      }
      case 'tasks':
        return tasksItem(node.server, this.tasks?.tasksOf(node.server) ?? []);
      case 'task':
        return taskItem(node.server, node.task);
    }
  }

  dispose(): void {
    if (this.pending) clearTimeout(this.pending);
    for (const d of this.disposables) d.dispose();
    this.changeEmitter.dispose();
  }
}

function tasksItem(server: ServerConnection, rows: readonly TaskRow[]): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.l10n.t('Tasks'), vscode.TreeItemCollapsibleState.Expanded);
  item.id = `${server.id}/tasks`;
  const running = rows.filter((r) => r.running).length;
  item.description = running ? vscode.l10n.t('{0} running', running) : String(rows.length);
  item.iconPath = new vscode.ThemeIcon('tasklist');
  item.contextValue = 'mcpHost.tasks';
  return item;
}

const TASK_ICON: Record<string, string> = { working: 'loading~spin', starting: 'loading~spin', input_required: 'bell', completed: 'pass', failed: 'error', cancelled: 'circle-slash' };

/** One task: its tool, status and start time; Cancel while it runs, Show Result once it ended. */
function taskItem(server: ServerConnection, row: TaskRow): vscode.TreeItem {
  const item = new vscode.TreeItem(row.tool, vscode.TreeItemCollapsibleState.None);
  item.id = `${server.id}/task/${row.key}`;
  const started = new Date(row.startedAt).toLocaleTimeString();
  item.description = [row.status.replace('_', ' '), firstLine(row.statusMessage), started].filter(Boolean).join(' · ');
  item.iconPath = new vscode.ThemeIcon(TASK_ICON[row.status] ?? 'circle-outline');
  item.contextValue = row.running ? 'mcpHost.task.running' : 'mcpHost.task.done';
  const lines = [`**${row.tool}** — ${row.status}`, row.statusMessage ?? '', row.taskId ? `Task: \`${row.taskId}\`` : '', `Started: ${new Date(row.startedAt).toLocaleString()}`];
  if (row.endedAt) lines.push(`Ended: ${new Date(row.endedAt).toLocaleString()}`);
  item.tooltip = markdown(lines.map((line) => server.redact(line)));
  if (row.hasResult) item.command = { command: Commands.showTaskResult, title: vscode.l10n.t('Show Result'), arguments: [{ kind: 'task', server, task: row }] };
  return item;
}

/** A short word for a state, used as the item description and in tests. */
export function stateLabel(state: ServerState): string {
  switch (state.kind) {
    case 'running':
      return vscode.l10n.t('running');
    case 'starting':
      return vscode.l10n.t('starting…');
    case 'stopping':
      return vscode.l10n.t('stopping…');
    case 'stopped':
      return state.reason ? vscode.l10n.t('stopped: {0}', state.reason) : vscode.l10n.t('stopped');
    case 'error':
      return state.retryAt ? vscode.l10n.t('error (restarting)') : vscode.l10n.t('error');
    case 'needs-sign-in':
      return vscode.l10n.t('sign-in needed');
  }
}

function serverItem(server: ServerConnection): vscode.TreeItem {
  const state = server.state;
  // VS Code keeps a row's expanded state by id and ignores collapsibleState for a row it knows, so
  // a row first drawn as a leaf (starting) would stay closed once running. A server's row is
  // therefore expandable in every state (it has no children until the server runs) and keeps one
  // id: it opens when its lists arrive, and a row the user closed stays closed across restarts.
  // (An id that changed with the state did open it, but VS Code then no longer repainted the row
  // on its own refresh: it stayed "starting…" while the server ran.)
  const item = new vscode.TreeItem(server.name, vscode.TreeItemCollapsibleState.Expanded);
  item.id = server.id;
  // ".remote" lets the menus offer Sign In and Sign Out on remote servers only.
  item.contextValue = `mcpHost.server.${state.kind}${server.definition && server.definition.type !== 'stdio' ? '.remote' : ''}`;
  switch (state.kind) {
    case 'running': {
      const lists = server.lists;
      const counts = [lists.tools.length && vscode.l10n.t('{0} tools', lists.tools.length), lists.resources.length && vscode.l10n.t('{0} resources', lists.resources.length)]
        .filter(Boolean)
        .join(', ');
      item.description = counts ? `${stateLabel(state)} · ${counts}` : stateLabel(state);
      item.iconPath = new vscode.ThemeIcon('circle-filled', new vscode.ThemeColor('testing.iconPassed'));
      break;
    }
    case 'starting':
    case 'stopping':
      item.description = stateLabel(state);
      item.iconPath = new vscode.ThemeIcon('loading~spin');
      break;
    case 'stopped':
      item.description = stateLabel(state);
      item.iconPath = new vscode.ThemeIcon('circle-outline');
      break;
    case 'error':
      item.description = `${stateLabel(state)}: ${firstLine(state.message)}`;
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
      // One click on a failed server says why and what to do (the doctor).
      item.command = { command: Commands.diagnoseServer, title: vscode.l10n.t('Diagnose'), arguments: [server.id] };
      break;
    case 'needs-sign-in':
      item.description = stateLabel(state);
      item.iconPath = new vscode.ThemeIcon('account', new vscode.ThemeColor('notificationsWarningIcon.foreground'));
      item.command = { command: Commands.signIn, title: vscode.l10n.t('Sign In'), arguments: [server.id] };
      break;
  }
  const shareText = shareNote(server);
  if (shareText) item.description = `${typeof item.description === 'string' ? item.description : ''} · ${shareText}`;
  // The description and tooltip show error text, stderr lines and the command line: never a secret.
  if (typeof item.description === 'string') item.description = server.redact(item.description);
  item.tooltip = serverTooltip(server);
  return item;
}

export function serverTooltip(server: ServerConnection): vscode.MarkdownString {
  const state = server.state;
  const lines: string[] = [`**${server.name}** — ${stateLabel(state)}`];
  if (state.kind === 'running') {
    lines.push(`Server: ${state.serverInfo.title ?? state.serverInfo.name} ${state.serverInfo.version}`);
    lines.push(`Protocol: ${state.protocolVersion} (${state.era === 'modern' ? 'modern era: server/discover' : 'legacy era: initialize'})`);
    const caps = Object.keys(state.capabilities);
    lines.push(`Capabilities: ${caps.length ? caps.join(', ') : 'none'}`);
    if (state.pid) lines.push(`Process: ${state.pid}`);
    if (state.url) lines.push(`Address: ${state.url}`);
    if (state.instructions) lines.push(`Instructions:\n\n${state.instructions.length > 600 ? `${state.instructions.slice(0, 600)}…` : state.instructions}`);
  }
  if (state.kind === 'error') {
    lines.push(`Error: ${state.message}`);
    if (state.retryAt) lines.push(`Restarting at ${new Date(state.retryAt).toLocaleTimeString()}`);
    lines.push(vscode.l10n.t('Click the server (or Diagnose Server… in its menu) for a checklist of what is wrong and what to do.'));
  }
  if (state.kind === 'stopped' && state.reason) lines.push(state.reason);
  if (state.kind === 'needs-sign-in') lines.push(`${state.message} Click the server, or use Sign In from its menu.`);
  const def = server.definition;
  if (def?.type === 'stdio') lines.push(`Command: \`${[def.command, ...def.args].join(' ')}\``);
  else if (def) lines.push(`${def.type === 'sse' ? 'HTTP+SSE' : 'Streamable HTTP'}: ${displayConfigUrl(def.url)}`);
  const origin = server.source.kind === 'user' ? 'user settings (mcpHost.servers)' : server.source.label ? `${server.source.label}: ${server.source.file}` : server.source.file;
  lines.push(`Origin: ${origin}`);
  if (def?.registry) lines.push(`Registry: \`${def.registry.name}@${def.registry.version}\` (${def.registry.registry})`);
  return markdown(lines.map((line) => server.redact(line)));
}

function markdown(parts: string[]): vscode.MarkdownString {
  const md = new vscode.MarkdownString(parts.filter((p) => p.trim() !== '').join('\n\n'));
  md.supportThemeIcons = true;
  return md;
}

function firstLine(text: string | undefined): string {
  if (!text) return '';
  const line = text.trim().split('\n')[0];
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}

function schemaSummary(schema: Record<string, unknown>): string {
  const properties = schema.properties as Record<string, { type?: unknown; description?: string }> | undefined;
  if (!properties || Object.keys(properties).length === 0) return 'No arguments.';
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const lines = Object.entries(properties).map(([name, prop]) => {
    const type = Array.isArray(prop?.type) ? prop.type.join(' | ') : typeof prop?.type === 'string' ? prop.type : 'any';
    return `- \`${name}\`: ${type}${required.has(name) ? ' (required)' : ''}${prop?.description ? ` — ${prop.description}` : ''}`;
  });
  return `Arguments:\n${lines.join('\n')}`;
}

function annotationSummary(tool: Tool): string {
  const a = tool.annotations;
  if (!a) return '';
  const hints = [a.readOnlyHint && 'read-only', a.destructiveHint && 'destructive', a.idempotentHint && 'idempotent', a.openWorldHint && 'open world'].filter(Boolean);
  return hints.length ? `Hints: ${hints.join(', ')}` : '';
}
