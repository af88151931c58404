// Running tools by hand: "Run Tool…" (palette and tree), arguments from the input schema (quick
// inputs for flat schemas, the schema form otherwise), validation before sending, confirmation of
// destructive tools, progress with Cancel (notifications/cancelled), timeouts, and the result view.
//
// This file only wires the commands; the parts live beside it (split from one long closure, #12):
// picker.ts (pick a tool), arguments.ts (ask and check arguments), confirm.ts (destructive tools),
// runner.ts (the call with progress, cancel and timeouts), results.ts (result views and their
// links), history.ts (last arguments), request.ts (what the commands accept).
import * as vscode from 'vscode';
import type { CallToolResult } from '../../../protocol/schemas';
import { Commands, InternalCommands } from '../../commandIds';
import type { HostController } from '../../hostController';
import { openSchemaForms, type SchemaFormHandle } from '../../webview/schemaForm';
import { askArguments, checkArguments } from './arguments';
import { confirmDestructive } from './confirm';
import { ArgumentHistory } from './history';
import { pickTool } from './picker';
import { isRunToolRequest, isToolNode, targetOfRequest, type RunTarget, type RunToolRequest } from './request';
import { createResultViews, showCallResult } from './results';
import type { ResultViews, ResultViewHandle } from './resultView';
import { ToolCalls } from './runner';
import type { TaskList } from './taskList';
import { isTaskTool, registerTaskCommands, runToolTask } from './taskRuns';
import { McpAppViews } from '../../apps';
import type { McpAppPanelHandle } from '../../apps/appPanel';

export { ToolArgumentsError } from './arguments';
export type { RunToolRequest } from './request';

/** Test hook: what tests need to check and drive the real UI (see test/integration/tools.test.ts). */
export interface ToolsTestHook {
  resultViews(): ResultViewHandle[];
  latestResultView(): ResultViewHandle | undefined;
  forms(): SchemaFormHandle[];
  /** Presses Cancel on every running call (as the progress notification's Cancel button does). */
  cancelRunning(): number;
  runningCalls(): number;
  /** The open MCP App views (src/vscode/apps/). */
  appViews(): McpAppPanelHandle[];
}

/** What one run of the command needs, built once at registration. */
interface ToolFeatures {
  controller: HostController;
  history: ArgumentHistory;
  calls: ToolCalls;
  views: ResultViews;
  tasks: TaskList;
  apps: McpAppViews;
}

export function registerToolFeatures(context: vscode.ExtensionContext, controller: HostController, tasks: TaskList): vscode.Disposable[] {
  const history = new ArgumentHistory(context.globalState);
  const calls = new ToolCalls();
  const views = createResultViews((name) => findServer(controller, name), calls);
  const apps = new McpAppViews();
  const features: ToolFeatures = { controller, history, calls, views, tasks, apps };
  return [
    views,
    apps,
    ...registerTaskCommands(tasks, views),
    vscode.commands.registerCommand(Commands.runTool, (arg?: unknown) => runTool(features, arg)),
    vscode.commands.registerCommand(Commands.runToolWithForm, (arg?: unknown) => runToolWithForm(features, arg)),
    // Not contributed to the palette: the integration tests reach the UI through it.
    vscode.commands.registerCommand(InternalCommands.toolsTestHook, () => testHook(features)),
  ];
}

function findServer(controller: HostController, name: string) {
  return controller.registry.findByName(name) ?? controller.registry.get(name);
}

/** "Run Tool…": from a tree node, a caller's request, or the picker; asks, checks, confirms, calls. */
async function runTool(features: ToolFeatures, arg?: unknown): Promise<CallToolResult | undefined> {
  const target = await runTarget(features, arg);
  if (!target) return undefined;
  const { server, tool } = target;
  if (server.state.kind !== 'running') {
    void vscode.window.showErrorMessage(vscode.l10n.t('MCP Host: server "{0}" is not running.', server.name));
    return undefined;
  }
  let args = target.args;
  if (!target.programmatic) {
    args = await askArguments(server, tool, args ?? features.history.last(server.name, tool.name), target.forceForm);
    if (args === undefined) return undefined;
  }
  args ??= {};
  await checkArguments(server, tool, args);
  if (!(await confirmDestructive(server, tool, args))) return undefined;
  await features.history.remember(server.name, tool.name, args);
  // A tool that runs as a task is followed to its end (tasks.ts); the run is listed under the server.
  const finished = isTaskTool(server, tool) ? await runToolTask(features.tasks, features.calls, server, tool, args) : await features.calls.call(server, tool, args);
  await showCallResult(features.views, server, tool, finished);
  // MCP Apps: a tool with a view shows it beside the result, fed with this run.
  await features.apps.showRun(server, tool, args, finished.outcome);
  return 'result' in finished.outcome ? finished.outcome.result : undefined;
}

/** Which tool to run, from the command's argument; undefined when the person cancelled the picker. */
async function runTarget(features: ToolFeatures, arg: unknown): Promise<RunTarget | undefined> {
  if (isToolNode(arg)) return { server: arg.server, tool: arg.tool, programmatic: false, forceForm: false };
  if (isRunToolRequest(arg)) return targetOfRequest(arg, (name) => findServer(features.controller, name));
  const picked = await pickTool(features.controller.registry, features.history);
  if (!picked) return undefined;
  // "Run Again with the Last Arguments" opens the form with them, to be looked at before running.
  return { server: picked.server, tool: picked.tool, args: picked.args, programmatic: false, forceForm: picked.args !== undefined };
}

/** "Run Tool with Form…" on a tree node: the form, filled with the last arguments. */
function runToolWithForm(features: ToolFeatures, arg?: unknown): Promise<CallToolResult | undefined> {
  if (isToolNode(arg)) {
    const request: RunToolRequest = { server: arg.server.name, tool: arg.tool.name, arguments: features.history.last(arg.server.name, arg.tool.name), form: true };
    return runTool(features, request);
  }
  return runTool(features, arg);
}

function testHook(features: ToolFeatures): ToolsTestHook {
  return {
    resultViews: () => features.views.all,
    latestResultView: () => features.views.latest,
    forms: () => openSchemaForms(),
    cancelRunning: () => features.calls.cancelAll() + cancelTasks(features.tasks),
    runningCalls: () => features.calls.runningCount + features.tasks.running.length,
    appViews: () => features.apps.all,
  };
}

function cancelTasks(tasks: TaskList): number {
  const running = tasks.running;
  for (const run of running) run.abort.abort('cancelled by the user');
  return running.length;
}
