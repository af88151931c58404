// Tasks: tool calls that answer with a task handle and are followed to their result.
// Two wire forms: the 2025-11-25 experimental tasks (a `task` member on the request, tasks/get
// polling, the blocking tasks/result, tasks/list) and the 2026-07-28 extension
// `io.modelcontextprotocol/tasks` (the server decides; tasks/get carries the result, the error or
// the input requests; tasks/update answers them). Callers see one shape: TaskInfo and a CallToolResult.
import * as z from './zod';
import type { ZodSchema } from './zod';
import type { Disposable } from '../util/disposable';
import type { NotificationHandler, ProgressUpdate, RequestOptions } from './connection';
import type { ClientRequestHandlers } from './handlers';
import { ErrorCode, McpError, RemoteError, RequestCancelledError } from './errors';
import { MetaKey } from './era';
import { answerInputRequest, runMrtr } from './mrtr';
import { CallToolResultSchema, type CallToolResult, type ServerCapabilities, type Tool } from './schemas';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
export type TaskSupport = 'required' | 'optional' | 'forbidden';

/** A task as both eras describe it, in one shape (milliseconds throughout). */
export interface TaskInfo {
  taskId: string;
  /** One of TaskStatus; kept as a string so a newer server's status is shown, not refused. */
  status: string;
  statusMessage?: string;
  createdAt?: string;
  lastUpdatedAt?: string;
  /** How long the server keeps the task after its creation; null: unlimited. */
  ttlMs?: number | null;
  pollIntervalMs?: number;
}

const opt = z.optional;
const TaskWireSchema = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  statusMessage: opt(z.string()),
  createdAt: opt(z.string()),
  lastUpdatedAt: opt(z.string()),
  // 2025-11-25
  ttl: opt(z.nullable(z.number())),
  pollInterval: opt(z.number()),
  // 2026-07-28 extension
  ttlSeconds: opt(z.nullable(z.number())),
  pollIntervalMilliseconds: opt(z.number()),
  requestState: opt(z.string()),
  result: opt(z.record(z.string(), z.unknown())),
  error: opt(z.looseObject({ code: z.number(), message: z.string(), data: opt(z.unknown()) })),
  inputRequests: opt(z.record(z.string(), z.looseObject({ method: z.string(), params: opt(z.record(z.string(), z.unknown())) }))),
});
type TaskWire = z.infer<typeof TaskWireSchema>;

const CreateTaskResultSchema = z.looseObject({ task: TaskWireSchema });
const ListTasksResultSchema = z.looseObject({ tasks: z.array(TaskWireSchema), nextCursor: opt(z.string()) });
/** A modern tools/call answer: a CallToolResult, or (resultType "task") the task's seed state. */
const ModernCallResultSchema = z.looseObject({ resultType: opt(z.string()) });
const EmptySchema = z.looseObject({});

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
export function isTerminalStatus(status: string): boolean {
  return TERMINAL.has(status);
}

export function toTaskInfo(wire: TaskWire): TaskInfo {
  const info: TaskInfo = { taskId: wire.taskId, status: wire.status };
  if (wire.statusMessage !== undefined) info.statusMessage = wire.statusMessage;
  if (wire.createdAt !== undefined) info.createdAt = wire.createdAt;
  if (wire.lastUpdatedAt !== undefined) info.lastUpdatedAt = wire.lastUpdatedAt;
  if (wire.ttlSeconds !== undefined) info.ttlMs = wire.ttlSeconds === null ? null : wire.ttlSeconds * 1000;
  else if (wire.ttl !== undefined) info.ttlMs = wire.ttl;
  const poll = wire.pollIntervalMilliseconds ?? wire.pollInterval;
  if (poll !== undefined) info.pollIntervalMs = poll;
  return info;
}

/** The tool's `execution.taskSupport` (absent means forbidden). */
export function toolTaskSupport(tool: Pick<Tool, 'name'> & { execution?: unknown }): TaskSupport {
  const support = (tool.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
  return support === 'required' || support === 'optional' ? support : 'forbidden';
}

/** Whether the server offers tasks at all, and in which form. */
export function taskFlavour(capabilities: ServerCapabilities | undefined): 'legacy' | 'modern' | undefined {
  if (!capabilities) return undefined;
  const extensions = (capabilities as { extensions?: Record<string, unknown> }).extensions;
  if (extensions && extensions[TASKS_EXTENSION] !== undefined) return 'modern';
  const requests = (capabilities.tasks as { requests?: { tools?: { call?: unknown } } } | undefined)?.requests;
  return requests?.tools?.call !== undefined ? 'legacy' : undefined;
}

/**
 * Whether a call of this tool goes through callToolAsTask. 2025-11-25: the server accepts tool
 * tasks and the tool requires them (or allows them and the caller asked). The modern extension:
 * whenever the server offers it, since the server decides and may answer directly anyway.
 */
export function runsAsTask(capabilities: ServerCapabilities | undefined, tool: Pick<Tool, 'name'> & { execution?: unknown }, preferTask = false): boolean {
  const flavour = taskFlavour(capabilities);
  if (flavour === 'modern') return true;
  if (flavour !== 'legacy') return false;
  const support = toolTaskSupport(tool);
  return support === 'required' || (support === 'optional' && preferTask);
}

export interface TaskCallOptions {
  /** Aborting cancels the task (tasks/cancel) and rejects with TaskCancelledError. */
  signal?: AbortSignal;
  /** Every status change, the created state first. */
  onStatus?: (task: TaskInfo) => void;
  /** notifications/progress for the call's token, for as long as the task lives. */
  onProgress?: (update: ProgressUpdate) => void;
  /** The lifetime asked for (2025-11-25 `task.ttl`); the server may choose another. */
  ttlMs?: number;
  /** Timeout of each request (tools/call, tasks/get); default: the connection's. */
  timeoutMs?: number;
  /** Used when the server suggests no poll interval. */
  defaultPollIntervalMs?: number;
}

/** The task was cancelled: by the caller (then tasks/cancel was sent) or by the server. */
export class TaskCancelledError extends RequestCancelledError {
  override name = 'TaskCancelledError';
  constructor(
    readonly task: TaskInfo | undefined,
    reason: string,
  ) {
    super('tools/call', reason);
  }
}

/** What the task logic needs from the client; McpClient provides it (tasks.ts knows no client). */
export interface TaskPort {
  readonly label: string;
  /** Sends a request the way the client sends its own (the era's _meta included). */
  request<T>(method: string, params: Record<string, unknown> | undefined, schema: ZodSchema<T>, options?: RequestOptions): Promise<T>;
  onNotification(method: string, handler: NotificationHandler): Disposable;
  capabilities(): ServerCapabilities | undefined;
  /** The capabilities this client declares (the modern call adds the extension to them). */
  clientCapabilities(): Record<string, unknown>;
  /** What answers a modern task's input requests (elicitation, sampling, roots), as for MRTR. */
  readonly handlers: ClientRequestHandlers;
}

const DEFAULT_POLL_MS = 1000;
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 60_000;
/** tasks/result blocks until the task ends: its own timeout must outlast the task. */
const RESULT_WAIT_MS = 24 * 60 * 60_000;

let progressCounter = 0;

/** Task-augmented tool calls and the tasks/* methods, over a TaskPort. */
export class TaskClient {
  constructor(private readonly port: TaskPort) {}

  /** Calls the tool as a task and follows it to its CallToolResult. */
  async callTool(name: string, args: Record<string, unknown>, options: TaskCallOptions = {}): Promise<CallToolResult> {
    const flavour = taskFlavour(this.port.capabilities());
    if (!flavour) {
      throw new McpError(ErrorCode.MethodNotFound, `${this.port.label} does not offer tasks: it declared neither 'tasks.requests.tools.call' nor the ${TASKS_EXTENSION} extension`);
    }
    if (options.signal?.aborted) throw new TaskCancelledError(undefined, 'cancelled before it was sent');
    return flavour === 'legacy' ? this.callLegacy(name, args, options) : this.callModern(name, args, options);
  }

  async getTask(taskId: string, options?: RequestOptions): Promise<TaskInfo> {
    this.requireTasks('tasks/get');
    return toTaskInfo(await this.port.request('tasks/get', { taskId }, TaskWireSchema, options));
  }

  /** tasks/list (2025-11-25 only; the extension has none). */
  async listTasks(cursor?: string, options?: RequestOptions): Promise<{ tasks: TaskInfo[]; nextCursor?: string }> {
    if (!this.canList) throw this.missing('tasks/list', 'tasks.list');
    const page = await this.port.request('tasks/list', cursor === undefined ? {} : { cursor }, ListTasksResultSchema, options);
    return { tasks: page.tasks.map(toTaskInfo), nextCursor: page.nextCursor };
  }

  get canList(): boolean {
    return taskFlavour(this.port.capabilities()) === 'legacy' && this.port.capabilities()?.tasks?.list !== undefined;
  }

  get canCancel(): boolean {
    const flavour = taskFlavour(this.port.capabilities());
    return flavour === 'modern' || (flavour === 'legacy' && this.port.capabilities()?.tasks?.cancel !== undefined);
  }

  /** tasks/cancel; the task's state after it (2025-11-25), or undefined (the extension only acknowledges). */
  async cancelTask(taskId: string, options?: RequestOptions): Promise<TaskInfo | undefined> {
    const wire = await this.cancelWire(taskId, options);
    return wire && toTaskInfo(wire);
  }

  /** @internal */
  async cancelWire(taskId: string, options?: RequestOptions, requestState?: string): Promise<TaskWire | undefined> {
    if (!this.canCancel) throw this.missing('tasks/cancel', 'tasks.cancel');
    const params: Record<string, unknown> = { taskId };
    if (requestState !== undefined) params.requestState = requestState;
    if (taskFlavour(this.port.capabilities()) === 'modern') {
      await this.port.request('tasks/cancel', params, EmptySchema, options);
      return undefined;
    }
    return this.port.request('tasks/cancel', params, TaskWireSchema, options);
  }

  // --- 2025-11-25 -----------------------------------------------------------

  private async callLegacy(name: string, args: Record<string, unknown>, options: TaskCallOptions): Promise<CallToolResult> {
    const params: Record<string, unknown> = { name, arguments: args, task: options.ttlMs === undefined ? {} : { ttl: options.ttlMs } };
    const follow = new TaskFollower(this.port, options);
    // The token stays valid for the task's whole life, longer than this request: we route it ourselves.
    const meta = options.onProgress ? { progressToken: `mcp-host-task-${++progressCounter}` } : undefined;
    if (meta) follow.routeProgress(meta.progressToken);
    try {
      const created = await this.port.request('tools/call', params, CreateTaskResultSchema, { signal: options.signal, timeoutMs: options.timeoutMs, meta });
      follow.update(created.task);
      return await follow.run(async (task, inner) => {
        if (task.status === 'input_required' || isTerminalStatus(task.status)) {
          // Blocks until the task ends; meanwhile the server may send its requests (elicitation) on it.
          follow.awaitResult(() => this.port.request('tasks/result', { taskId: task.taskId }, CallToolResultSchema, { signal: inner, timeoutMs: RESULT_WAIT_MS }));
        }
        if (task.status === 'cancelled') throw new TaskCancelledError(task, `the server cancelled task ${task.taskId}${task.statusMessage ? ` (${task.statusMessage})` : ''}`);
        if (isTerminalStatus(task.status)) return 'stop-polling';
        return 'poll';
      });
    } finally {
      follow.dispose();
    }
  }

  // --- 2026-07-28 extension -------------------------------------------------

  private async callModern(name: string, args: Record<string, unknown>, options: TaskCallOptions): Promise<CallToolResult> {
    const capabilities = this.port.clientCapabilities();
    const extensions = { ...(capabilities.extensions as Record<string, unknown> | undefined), [TASKS_EXTENSION]: {} };
    const meta: Record<string, unknown> = { [MetaKey.clientCapabilities]: { ...capabilities, extensions } };
    const follow = new TaskFollower(this.port, options);
    if (options.onProgress) {
      meta.progressToken = `mcp-host-task-${++progressCounter}`;
      follow.routeProgress(meta.progressToken as string);
    }
    try {
      // The first answer may ask for input (MRTR) before it is a result or a task.
      const first = await runMrtr({
        method: 'tools/call',
        label: this.port.label,
        params: { name, arguments: args },
        handlers: this.port.handlers,
        signal: options.signal,
        send: (params) => this.port.request('tools/call', params, ModernCallResultSchema, { signal: options.signal, timeoutMs: options.timeoutMs, meta }),
      });
      if (first.resultType !== 'task') return parseToolResult(first, this.port.label);
      const seed = TaskWireSchema.safeParse(first);
      if (!seed.success) throw new McpError(ErrorCode.InvalidResult, `${this.port.label} answered tools/call with a task without a taskId or status`);
      follow.update(seed.data);
      const answered = new Set<string>();
      return await follow.run(async (task, inner, wire) => {
        switch (task.status) {
          case 'completed':
            follow.resolve(parseToolResult(wire?.result ?? {}, this.port.label));
            return 'stop-polling';
          case 'failed': {
            const error = wire?.error;
            throw new RemoteError('tools/call', error?.code ?? ErrorCode.InternalError, error?.message ?? task.statusMessage ?? `task ${task.taskId} failed`, error?.data);
          }
          case 'cancelled':
            throw new TaskCancelledError(task, `the server cancelled task ${task.taskId}${task.statusMessage ? ` (${task.statusMessage})` : ''}`);
          case 'input_required':
            await this.answerInputs(task, wire, answered, inner, follow.requestState);
            return 'poll';
          default:
            return 'poll';
        }
      });
    } finally {
      follow.dispose();
    }
  }

  /** Answers the input requests not answered yet (a key is asked once per task), then tasks/update. */
  private async answerInputs(task: TaskInfo, wire: TaskWire | undefined, answered: Set<string>, signal: AbortSignal, requestState: string | undefined): Promise<void> {
    const requests = Object.entries(wire?.inputRequests ?? {}).filter(([key]) => !answered.has(key));
    if (requests.length === 0) return;
    const inputResponses: Record<string, unknown> = {};
    for (const [key, request] of requests) {
      answered.add(key);
      // The same handlers, and the same refusal, as a multi-round tools/call.
      inputResponses[key] = await answerInputRequest(this.port.handlers, this.port.label, 'tools/call', request, { id: key, method: request.method, signal, meta: undefined });
    }
    const params: Record<string, unknown> = { taskId: task.taskId, inputResponses };
    if (requestState !== undefined) params.requestState = requestState;
    await this.port.request('tasks/update', params, EmptySchema, { signal });
  }

  private requireTasks(method: string): void {
    if (!taskFlavour(this.port.capabilities()) && this.port.capabilities()?.tasks === undefined) throw this.missing(method, 'tasks');
  }

  private missing(method: string, capability: string): McpError {
    return new McpError(ErrorCode.MethodNotFound, `${this.port.label} does not offer ${method}: it did not declare the '${capability}' capability`);
  }
}

type Step = (task: TaskInfo, signal: AbortSignal, wire: TaskWire | undefined) => Promise<'poll' | 'stop-polling'>;

/**
 * Follows one task: status notifications and tasks/get polling at the server's interval, a
 * result that may arrive on its own request (tasks/result) or inside a status, and cancellation.
 */
class TaskFollower {
  private task: TaskInfo | undefined;
  private wire: TaskWire | undefined;
  private lastShown = '';
  private readonly disposables: Disposable[] = [];
  /** Aborts what is in flight (polls, tasks/result) when the caller cancels or the run ends. */
  private readonly inner = new AbortController();
  private wake: (() => void) | undefined;
  private settled: { result: CallToolResult } | { error: unknown } | undefined;
  private resultRequest: Promise<CallToolResult> | undefined;
  requestState: string | undefined;

  constructor(
    private readonly port: TaskPort,
    private readonly options: TaskCallOptions,
  ) {
    this.disposables.push(
      port.onNotification('notifications/tasks/status', (params) => {
        const parsed = TaskWireSchema.safeParse(params);
        if (!parsed.success || parsed.data.taskId !== this.task?.taskId) return;
        this.update(parsed.data);
        this.wake?.();
      }),
    );
  }

  routeProgress(token: string): void {
    const onProgress = this.options.onProgress!;
    this.disposables.push(
      this.port.onNotification('notifications/progress', (params) => {
        if (params.progressToken !== token || typeof params.progress !== 'number') return;
        onProgress({ progress: params.progress, total: typeof params.total === 'number' ? params.total : undefined, message: typeof params.message === 'string' ? params.message : undefined });
      }),
    );
  }

  update(wire: TaskWire): void {
    this.wire = wire;
    this.task = toTaskInfo(wire);
    // The most recent requestState is echoed; a message without one means none is sent next.
    this.requestState = wire.requestState;
    const shown = `${this.task.status}\u0000${this.task.statusMessage ?? ''}`;
    if (shown === this.lastShown) return;
    this.lastShown = shown;
    this.options.onStatus?.(this.task);
  }

  /** The legacy result request: started once, it ends the run when it settles. */
  awaitResult(send: () => Promise<CallToolResult>): void {
    if (this.resultRequest) return;
    const request = send();
    this.resultRequest = request;
    request.then(
      (result) => this.finish({ result }),
      (error: unknown) => this.finish({ error }),
    );
  }

  resolve(result: CallToolResult): void {
    this.finish({ result });
  }

  private finish(outcome: { result: CallToolResult } | { error: unknown }): void {
    if (this.settled) return;
    this.settled = outcome;
    this.wake?.();
  }

  async run(step: Step): Promise<CallToolResult> {
    const signal = this.options.signal;
    // What is in flight (a poll, tasks/result, an input being answered) stops at once on cancel.
    const onAbort = () => {
      this.inner.abort(new Error('the task was cancelled'));
      this.wake?.();
    };
    signal?.addEventListener('abort', onAbort);
    try {
      let polling = true;
      for (;;) {
        try {
          if (signal?.aborted) return await this.cancel();
          if (this.settled) return this.outcome();
          if (polling) polling = (await step(this.task!, this.inner.signal, this.wire)) === 'poll';
          if (this.settled) return this.outcome();
          const notified = await this.sleep(polling ? this.pollInterval() : RESULT_WAIT_MS);
          if (signal?.aborted) return await this.cancel();
          if (this.settled) return this.outcome();
          if (polling && !notified) this.update(await this.poll());
        } catch (err) {
          if (signal?.aborted && !(err instanceof TaskCancelledError)) return await this.cancel();
          throw err;
        }
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private outcome(): CallToolResult {
    const settled = this.settled!;
    if (!('result' in settled)) throw settled.error;
    // The result may come before the status that says so: the last status shown is the final one.
    if (this.wire && !isTerminalStatus(this.wire.status)) this.update({ ...this.wire, status: settled.result.isError ? 'failed' : 'completed' });
    return settled.result;
  }

  private poll(): Promise<TaskWire> {
    const params: Record<string, unknown> = { taskId: this.task!.taskId };
    if (this.requestState !== undefined) params.requestState = this.requestState;
    return this.port.request('tasks/get', params, TaskWireSchema, { signal: this.inner.signal, timeoutMs: this.options.timeoutMs });
  }

  private pollInterval(): number {
    const suggested = this.task?.pollIntervalMs ?? this.options.defaultPollIntervalMs ?? DEFAULT_POLL_MS;
    return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, suggested));
  }

  /** Waits `ms`, or less when a status arrives, the result settles or the caller cancels; true if woken. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve(false);
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve(true);
      };
    });
  }

  /** The caller cancelled: tasks/cancel where the server offers it, then the run ends as cancelled. */
  private async cancel(): Promise<never> {
    const task = this.task!;
    if (!this.inner.signal.aborted) this.inner.abort(new Error('the task was cancelled'));
    const client = new TaskClient(this.port);
    let note = 'the server offers no tasks/cancel; it may still run';
    if (client.canCancel && !isTerminalStatus(task.status)) {
      try {
        const after = await client.cancelWire(task.taskId, { timeoutMs: this.options.timeoutMs }, this.requestState);
        this.update(after ?? { ...this.wire!, status: 'cancelled' });
        note = 'the server was sent tasks/cancel';
      } catch (err) {
        note = `tasks/cancel failed: ${err instanceof Error ? err.message : String(err)}`;
      }
    } else if (isTerminalStatus(task.status)) {
      note = `it had already ended (${task.status})`;
    }
    throw new TaskCancelledError(this.task, `task ${task.taskId} cancelled by the caller; ${note}`);
  }

  dispose(): void {
    if (!this.inner.signal.aborted) this.inner.abort(new Error('the task run ended'));
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
  }
}

function parseToolResult(value: unknown, label: string): CallToolResult {
  const parsed = CallToolResultSchema.safeParse(value);
  if (!parsed.success) throw new McpError(ErrorCode.InvalidResult, `${label} ended a task with a result that is not a CallToolResult`);
  return parsed.data;
}
