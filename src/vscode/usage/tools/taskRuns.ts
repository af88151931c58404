// Run Tool on a tool that runs as a task (tasks.ts decides): a progress notification shows the
// task's status and progress and its Cancel sends tasks/cancel; the run is kept in the TaskList,
// whose rows in the tree offer Cancel while it runs and Show Result after.
import * as vscode from 'vscode';
import { ServerNotRunningError, type ServerConnection } from '../../../host/serverConnection';
import { RequestCancelledError } from '../../../protocol/errors';
import type { CallToolResult, Tool } from '../../../protocol/schemas';
import { runsAsTask } from '../../../protocol/tasks';
import { errorMessage } from '../../../util/errorMessage';
import { Commands } from '../../commandIds';
import type { TreeNode } from '../../serverTree';
import type { ResultViews } from './resultView';
import { showCallResult } from './results';
import { toolLabel, type CallOutcome, type FinishedCall, type ToolCalls } from './runner';
import type { TaskList, TaskRun } from './taskList';
import { toolTimeoutMs } from './settings';
import { displayText } from '../../../util/serverText';
import { usageServices } from '../../services';

/** Whether Run Tool runs this tool as a task on this server. */
export function isTaskTool(server: ServerConnection, tool: Tool): boolean {
  return server.state.kind === 'running' && runsAsTask(server.state.capabilities, tool);
}

/** Runs the tool as a task and follows it to the end; the returned call is what the result view shows. */
export async function runToolTask(tasks: TaskList, calls: ToolCalls, server: ServerConnection, tool: Tool, args: Record<string, unknown>): Promise<FinishedCall> {
  if (server.state.kind !== 'running') throw new ServerNotRunningError(server.name, server.state.kind);
  const runId = calls.nextRunId();
  const run = tasks.start(server, tool);
  const t0 = performance.now();
  server.logger.info(`Tool call ${tool.name} as a task (by hand)`);
  let outcome: CallOutcome;
  try {
    const result = await withTaskProgress(run, (report) =>
      server.callToolAsTask(tool.name, args, {
        signal: run.abort.signal,
        timeoutMs: toolTimeoutMs(server.name),
        onStatus: (task) => {
          tasks.status(run, task);
          server.logger.info(`Task ${task.taskId} (${tool.name}): ${task.status}${task.statusMessage ? ` — ${task.statusMessage}` : ''}`);
          report(task.statusMessage ?? task.status.replace('_', ' '));
        },
        onProgress: (p) => report(p.message ?? (p.total ? `${p.progress}/${p.total}` : String(p.progress))),
      }),
    );
    outcome = { result };
  } catch (err) {
    const cancelled = err instanceof RequestCancelledError;
    outcome = { error: cancelled ? vscode.l10n.t('Cancelled: {0}', errorMessage(err)) : errorMessage(err), cancelled };
    server.logger.warn(`Task of ${tool.name}: ${cancelled ? 'cancelled' : `failed: ${errorMessage(err)}`}`);
  }
  const finished: FinishedCall = { record: { runId, server: server.name, tool, args, startedAt: run.startedAt, durationMs: performance.now() - t0 }, outcome };
  tasks.finish(run, finished);
  return finished;
}

/** The notification while the task runs; its Cancel cancels the task (hiding it does not). */
function withTaskProgress(run: TaskRun, work: (report: (message: string) => void) => Promise<CallToolResult>): Thenable<CallToolResult> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('{0} — {1} (task)', toolLabel(run.toolInfo), run.server.name), cancellable: true },
    (progress, token) => {
      token.onCancellationRequested(() => run.abort.abort('cancelled by the user'));
      progress.report({ message: vscode.l10n.t('starting…') });
      return work((message) => progress.report({ message }));
    },
  );
}

/** Cancel and Show Result on the tree's task rows. */
export function registerTaskCommands(tasks: TaskList, views: ResultViews): vscode.Disposable[] {
  const runOf = (arg: unknown): TaskRun | undefined => {
    const node = arg as TreeNode | undefined;
    return node?.kind === 'task' ? tasks.find(node.task.key) : undefined;
  };
  return [
    vscode.commands.registerCommand(Commands.cancelTask, async (arg?: unknown) => {
      const run = runOf(arg) ?? (await pickRunning(tasks));
      if (run?.running) run.abort.abort('cancelled by the user');
    }),
    vscode.commands.registerCommand(Commands.showTaskResult, async (arg?: unknown) => {
      const run = runOf(arg);
      if (!run?.finished) return;
      await showCallResult(views, run.server, run.toolInfo, run.finished);
    }),
  ];
}

/** From the palette: the one running task, or the one picked among several. */
async function pickRunning(tasks: TaskList): Promise<TaskRun | undefined> {
  const running = tasks.running;
  if (running.length <= 1) {
    if (running.length === 0) void vscode.window.showInformationMessage(vscode.l10n.t('MCP Host: no task is running.'));
    return running[0];
  }
  // The server's words, on one line; through the prompter, whose picker reopens if the focus is taken.
  const items = running.map((run) => ({
    label: displayText(run.tool, 120),
    description: `${run.server.name} · ${run.status}${run.statusMessage ? ` · ${displayText(run.statusMessage, 160)}` : ''}`,
    run,
  }));
  return (await usageServices.prompter.pick(items, { key: 'task.cancel', title: vscode.l10n.t('Cancel Task'), placeHolder: vscode.l10n.t('Pick the task to cancel') }))?.run;
}
