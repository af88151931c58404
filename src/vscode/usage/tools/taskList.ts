// The tasks run by hand, per server: running ones (with their Cancel) and recent ones (with their
// result). The tree lists them under each server (serverTree.ts's TaskTreeSource); a run lives
// here, not in its result view or progress notification, so closing those does not end it.
import * as vscode from 'vscode';
import type { ServerConnection } from '../../../host/serverConnection';
import type { TaskInfo } from '../../../protocol/tasks';
import type { Tool } from '../../../protocol/schemas';
import type { TaskRow, TaskTreeSource } from '../../serverTree';
import type { FinishedCall } from './runner';

/** Finished tasks kept per server (the oldest go first). */
const RECENT_PER_SERVER = 20;

export interface TaskRun extends TaskRow {
  readonly server: ServerConnection;
  readonly toolInfo: Tool;
  readonly abort: AbortController;
  finished?: FinishedCall;
}

let rowCounter = 0;

export class TaskList implements TaskTreeSource, vscode.Disposable {
  private readonly runs = new Map<ServerConnection, TaskRun[]>();
  private readonly changed = new vscode.EventEmitter<ServerConnection>();
  readonly onDidChange = this.changed.event;

  tasksOf(server: ServerConnection): readonly TaskRun[] {
    return this.runs.get(server) ?? [];
  }

  get all(): TaskRun[] {
    return [...this.runs.values()].flat();
  }

  get running(): TaskRun[] {
    return this.all.filter((r) => r.running);
  }

  start(server: ServerConnection, tool: Tool): TaskRun {
    const run: TaskRun = {
      key: `task-${++rowCounter}`,
      server,
      tool: tool.name,
      toolInfo: tool,
      status: 'starting',
      startedAt: Date.now(),
      running: true,
      hasResult: false,
      abort: new AbortController(),
    };
    // Newest first, as the tree shows them.
    this.runs.set(server, [run, ...this.tasksOf(server)]);
    this.changed.fire(server);
    return run;
  }

  status(run: TaskRun, task: TaskInfo): void {
    run.taskId = task.taskId;
    run.status = task.status;
    run.statusMessage = task.statusMessage;
    this.changed.fire(run.server);
  }

  finish(run: TaskRun, finished: FinishedCall): void {
    run.running = false;
    run.finished = finished;
    run.hasResult = true;
    const outcome = finished.outcome;
    if ('error' in outcome) run.status = outcome.cancelled ? 'cancelled' : 'failed';
    else if (run.status === 'starting') run.status = outcome.result.isError ? 'failed' : 'completed';
    run.endedAt = Date.now();
    this.prune(run.server);
    this.changed.fire(run.server);
  }

  find(key: string): TaskRun | undefined {
    return this.all.find((r) => r.key === key);
  }

  private prune(server: ServerConnection): void {
    const runs = this.tasksOf(server);
    const done = runs.filter((r) => !r.running);
    if (done.length <= RECENT_PER_SERVER) return;
    const dropped = new Set(done.slice(RECENT_PER_SERVER));
    this.runs.set(server, runs.filter((r) => !dropped.has(r)));
  }

  dispose(): void {
    for (const run of this.running) run.abort.abort('the extension is shutting down');
    this.changed.dispose();
  }
}
