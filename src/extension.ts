import * as vscode from 'vscode';
import { HostController } from './vscode/hostController';
import { ServerTreeProvider } from './vscode/serverTree';
import { registerLifecycleCommands } from './vscode/commands';
import { ServerStatusBar } from './vscode/statusBar';
import { createServerRequestHandlers } from './vscode/serverRequests';
import { registerUsage } from './vscode/usage';
import { TaskList } from './vscode/usage/tools/taskList';
import { registerConfigCommands } from './vscode/configCommands';
import { registerRegistryCommands } from './vscode/registryCommands';
import { registerDoctor } from './vscode/doctor';
import { registerServerReport } from './vscode/serverReport';
import { registerTrafficView } from './vscode/traffic';
import { SharedServers } from './vscode/share';
import { rememberEndpointsAcrossWindows } from './vscode/endpointStores';

/** What the extension exports: used by its integration tests and by other extensions. */
export interface McpHostApi {
  readonly controller: HostController;
  readonly tree: ServerTreeProvider;
  /** Time spent inside activate(), in milliseconds. */
  readonly activationMs: number;
  /** Resolves once the configuration has been read and servers were asked to start. */
  readonly ready: Promise<void>;
  /** This extension's log folder; VS Code writes the servers' log channels beside it. */
  readonly logDirectory: string;
  /** This extension's global storage folder (other extensions', such as Cline's, are its siblings). */
  readonly globalStorageDirectory: string;
  /** What the extension keeps across windows (tests read what a remote server taught it). */
  readonly globalState: vscode.Memento;
  /** The servers shared with the chat, and the gateway they are reached through. */
  readonly sharing: SharedServers;
}

let controller: HostController | undefined;

// Wiring only: build the floors, register, push disposables. Servers start after
// activate() returns, so VS Code's start-up does not wait for them.
export function activate(context: vscode.ExtensionContext): McpHostApi {
  const started = performance.now();
  const mainLog = vscode.window.createOutputChannel('MCP Host', { log: true });
  const diagnostics = vscode.languages.createDiagnosticCollection('mcpHost');
  controller = new HostController(context, mainLog, diagnostics);
  // What a remote server taught (its era; that it speaks only HTTP+SSE) spares later windows a round trip.
  const endpointMemory = rememberEndpointsAcrossWindows(context.globalState);
  // Servers the person shares with the chat (src/vscode/share.ts): a gateway client's sampling or
  // elicitation goes back to that client, the rest to the editor's own handlers.
  const sharing = new SharedServers(controller);
  const editorHandlers = createServerRequestHandlers(context, controller);
  controller.handlersFor = (server) => sharing.handlers(server, editorHandlers(server));
  // The tasks run by hand: listed in the tree, run and cancelled by the tool features.
  const tasks = new TaskList();
  const tree = new ServerTreeProvider(controller.registry, tasks);
  const view = vscode.window.createTreeView('mcpHost.servers', { treeDataProvider: tree, showCollapseAll: true });
  context.subscriptions.push(
    endpointMemory,
    mainLog,
    diagnostics,
    controller,
    tree,
    view,
    view.onDidExpandElement((e) => void tree.expanded(e.element)),
    new ServerStatusBar(controller.registry),
    ...registerLifecycleCommands(controller, () => tree.refresh()),
    ...registerConfigCommands(controller, context),
    ...registerRegistryCommands(controller, context),
    ...registerDoctor(controller, context),
    ...registerServerReport(controller),
    tasks,
    ...registerUsage(context, controller, tasks),
    ...registerTrafficView(controller),
    ...sharing.register(() => tree.refresh()),
  );
  const host = controller;
  const ready = new Promise<void>((resolve) => setImmediate(resolve)).then(() => host.reload());
  const activationMs = performance.now() - started;
  mainLog.info(`Activated in ${activationMs.toFixed(1)} ms`);
  return { controller: host, tree, activationMs, ready, logDirectory: context.logUri.fsPath, globalStorageDirectory: context.globalStorageUri.fsPath, globalState: context.globalState, sharing };
}

export async function deactivate(): Promise<void> {
  // Stop every server and its process tree before the extension host goes away: VS Code waits
  // 5 s at most for this promise (DEACTIVATE_BUDGET_MS), and shutdown() ends within 4.5 s.
  await controller?.shutdown();
  controller = undefined;
}
