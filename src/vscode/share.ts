// Sharing with the editor's chat: the servers a person chose (mcpHost.share) are offered to VS Code's
// MCP layer through a definition provider whose definitions point at this window's gateway. VS Code
// then connects over HTTP to the server MCP Host already runs, instead of starting a second copy.
import * as vscode from 'vscode';
import type { ClientRequestHandlers } from '../protocol/client';
import { Gateway } from '../host/gateway/gateway';
import { isToolDisabled, readShareSetting, shareDecision, type ShareDecision } from '../host/gateway/sharing';
import type { ServerConnection } from '../host/serverConnection';
import { Commands } from './commandIds';
import { startSetting } from './configLoader';
import type { HostController } from './hostController';

/** The provider id, also in package.json's contributes.mcpServerDefinitionProviders. */
export const MCP_PROVIDER_ID = 'mcpHost.sharedServers';

// The API exists since VS Code 1.101; our engine and @types/vscode are 1.100, so its shape is
// declared here and looked up at run time.
interface McpServerDefinitionProviderLike {
  readonly onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[] | Promise<unknown[]>;
}
interface LmWithMcp {
  registerMcpServerDefinitionProvider(id: string, provider: McpServerDefinitionProviderLike): vscode.Disposable;
}
type McpHttpServerDefinitionCtor = new (label: string, uri: vscode.Uri, headers?: Record<string, string>, version?: string) => unknown;

/** The API is final from 1.101; 1.100 has a proposed one of the same name that throws for us. */
function atLeast1101(version: string): boolean {
  const [major, minor] = version.split('.').map((n) => Number.parseInt(n, 10));
  return major > 1 || (major === 1 && minor >= 101);
}

function mcpApi(): { lm: LmWithMcp; Http: McpHttpServerDefinitionCtor } | undefined {
  if (!atLeast1101(vscode.version)) return undefined;
  const api = vscode as unknown as { lm?: Partial<LmWithMcp>; McpHttpServerDefinition?: McpHttpServerDefinitionCtor };
  if (typeof api.lm?.registerMcpServerDefinitionProvider !== 'function' || typeof api.McpHttpServerDefinition !== 'function') return undefined;
  return { lm: api.lm as LmWithMcp, Http: api.McpHttpServerDefinition };
}

/** Whether this VS Code can be offered servers (1.101 and later). */
export function canShareWithChat(): boolean {
  return mcpApi() !== undefined;
}

/** What the tree shows about a server's sharing. In an untrusted workspace, the user's setting alone decides. */
export function shareState(server: Pick<ServerConnection, 'name' | 'source'>): ShareDecision {
  return shareDecision(readShareSetting(startSetting<unknown>('share', undefined)), server);
}

/**
 * mcpHost.tools.disabled as it applies: in an untrusted workspace the user's list alone (a cloned
 * repository's settings must not give the chat a tool the user turned off; VS Code hides a
 * restricted setting's workspace value there anyway).
 */
export function disabledToolsSetting(): unknown {
  return startSetting<unknown>('tools.disabled', []);
}

/** Where a change of the share list or the disabled tools goes: the workspace, unless it is untrusted (its value would not count). */
function settingTarget(): vscode.ConfigurationTarget {
  return vscode.workspace.isTrusted ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
}

/** The tree's note on a server: shared, or left out because VS Code runs its own copy. */
export function shareNote(server: Pick<ServerConnection, 'name' | 'source'>): string | undefined {
  if (!canShareWithChat()) return undefined;
  const state = shareState(server);
  if (state === 'shared') return vscode.l10n.t('shared with chat');
  if (state === 'defined-by-vscode') return vscode.l10n.t('not shared: VS Code runs its own copy');
  return undefined;
}

/** Shares a server (as a name in mcpHost.share) or stops sharing it; "all" becomes the list it meant. */
async function toggleShare(controller: HostController, server: ServerConnection): Promise<void> {
  const config = vscode.workspace.getConfiguration('mcpHost');
  const shared = controller.registry.servers.filter((s) => shareState(s) === 'shared').map((s) => s.name);
  const next = shared.includes(server.name) ? shared.filter((n) => n !== server.name) : [...shared, server.name];
  await config.update('share', next.length > 0 ? next : 'none', settingTarget());
}

/** Adds or removes `server/tool` in mcpHost.tools.disabled. */
async function toggleTool(serverName: string, toolName: string): Promise<void> {
  const config = vscode.workspace.getConfiguration('mcpHost');
  const target = settingTarget();
  const current = target === vscode.ConfigurationTarget.Global ? config.inspect<unknown[]>('tools.disabled')?.globalValue : config.get<unknown[]>('tools.disabled');
  const disabled = (Array.isArray(current) ? current : []).filter((v): v is string => typeof v === 'string');
  const key = `${serverName}/${toolName}`;
  const next = disabled.includes(key) ? disabled.filter((v) => v !== key) : [...disabled, key];
  await config.update('tools.disabled', next, target);
}

export class SharedServers implements vscode.Disposable {
  readonly gateway: Gateway;
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  private listening: Promise<number> | undefined;
  /** What VS Code was last given (labels and URLs, no token): for the integration test and the tree. */
  lastProvided: Array<{ label: string; url: string }> = [];

  constructor(private readonly controller: HostController) {
    this.gateway = new Gateway({
      isToolDisabled: (server, tool) => isToolDisabled(disabledToolsSetting(), server, tool),
    });
  }

  /** Registers the provider when this VS Code has the API; otherwise nothing is shared. */
  register(refreshTree: () => void): vscode.Disposable[] {
    const commands = [
      vscode.commands.registerCommand(Commands.toggleShareWithChat, (node?: { server?: ServerConnection }) => {
        if (!canShareWithChat()) return vscode.window.showInformationMessage(vscode.l10n.t('Sharing with the chat needs VS Code 1.101 or later.'));
        return node?.server ? toggleShare(this.controller, node.server) : undefined;
      }),
      vscode.commands.registerCommand(Commands.toggleToolForChat, (node?: { server?: ServerConnection; tool?: { name: string } }) =>
        node?.server && node.tool ? toggleTool(node.server.name, node.tool.name) : undefined,
      ),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('mcpHost.share') || e.affectsConfiguration('mcpHost.tools.disabled')) refreshTree();
      }),
    ];
    const api = mcpApi();
    if (!api) return [this, ...commands];
    const provider: McpServerDefinitionProviderLike = {
      onDidChangeMcpServerDefinitions: this.changed.event,
      provideMcpServerDefinitions: () => this.definitions(api.Http),
    };
    let registration: vscode.Disposable;
    try {
      registration = api.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider);
    } catch {
      // A VS Code whose API differs from the one declared above: nothing is shared.
      return [this, ...commands];
    }
    this.disposables.push(
      registration,
      this.controller.registry.onDidChangeState(() => this.update()),
      this.controller.registry.onDidChangeServers(() => this.update()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('mcpHost.share')) this.update();
        // An Allow for Chat toggle: VS Code lists the tools again and drops (or gets back) the tool.
        if (e.affectsConfiguration('mcpHost.tools.disabled')) for (const server of this.sharedServers()) this.gateway.toolsChanged(server.name);
      }),
    );
    this.update();
    return [this, ...commands];
  }

  /** A gateway client's sampling or elicitation goes back to it; the person's own to the editor. */
  handlers(server: { readonly name: string }, editor: ClientRequestHandlers): ClientRequestHandlers {
    return this.gateway.serverRequestHandlers(server.name, editor);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.changed.dispose();
    void this.gateway.close();
  }

  private sharedServers(): ServerConnection[] {
    return this.controller.registry.servers.filter((s) => shareState(s) === 'shared');
  }

  private update(): void {
    const shared = this.sharedServers();
    const names = new Set(shared.map((s) => s.name));
    for (const server of this.controller.registry.servers) if (!names.has(server.name)) this.gateway.unshare(server.name);
    if (shared.length > 0 && !this.listening) this.listening = this.gateway.listen();
    for (const server of shared) this.gateway.share(server);
    this.changed.fire();
  }

  private async definitions(Http: McpHttpServerDefinitionCtor): Promise<unknown[]> {
    if (!this.listening) return [];
    await this.listening;
    // The token travels in the definition's headers only: never in the URL, a log or the tree.
    const headers = { Authorization: `Bearer ${this.gateway.token}` };
    const running = this.sharedServers().filter((s) => s.state.kind === 'running');
    this.lastProvided = running.map((s) => ({ label: `${s.name} (MCP Host)`, url: this.gateway.urlOf(s.name) }));
    return running.map((s) => new Http(`${s.name} (MCP Host)`, vscode.Uri.parse(this.gateway.urlOf(s.name)), headers, s.state.kind === 'running' ? s.state.serverInfo.version : undefined));
  }
}
