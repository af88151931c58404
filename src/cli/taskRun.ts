// `mcp-host call` on a tool that runs as a task: the task is followed to its result, its status
// and progress go to stderr, and Ctrl-C cancels it (tasks/cancel) before the server is stopped.
import type { McpClient } from '../protocol/client';
import type { CallToolResult } from '../protocol/schemas';
import { runsAsTask, taskFlavour, type TaskInfo } from '../protocol/tasks';

/** Shared with the interrupt handler: whether a task is being followed, and how to cancel it. */
export class TaskInterrupt {
  private readonly controller = new AbortController();
  running = false;

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True when there was a task to cancel (the caller then waits for tasks/cancel). */
  cancel(): boolean {
    if (!this.running) return false;
    this.controller.abort('interrupted');
    return true;
  }
}

/** Whether `call` runs this tool as a task: the server offers tool tasks and the tool requires them (or allows them and --task was given). */
export async function callsAsTask(client: McpClient, name: string, preferTask: boolean): Promise<boolean> {
  const capabilities = client.serverCapabilities;
  const flavour = taskFlavour(capabilities);
  if (flavour === undefined) return false;
  if (flavour === 'modern') return true;
  try {
    const tool = (await client.listAllTools()).find((t) => t.name === name);
    return tool !== undefined && runsAsTask(capabilities, tool, preferTask);
  } catch {
    return false;
  }
}

export async function callToolTask(client: McpClient, name: string, args: Record<string, unknown>, stderr: (text: string) => void, interrupt: TaskInterrupt): Promise<CallToolResult> {
  interrupt.running = true;
  try {
    return await client.callToolAsTask(name, args, {
      signal: interrupt.signal,
      onStatus: (task) => stderr(`mcp-host: ${statusLine(task)}\n`),
      onProgress: (p) => stderr(`mcp-host: progress ${p.total ? `${p.progress}/${p.total}` : p.progress}${p.message ? ` ${p.message}` : ''}\n`),
    });
  } finally {
    interrupt.running = false;
  }
}

export function statusLine(task: TaskInfo): string {
  return `task ${task.taskId} ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`;
}
