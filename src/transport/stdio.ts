/**
 * The stdio transport: runs an MCP server as a child process (no shell), exchanges
 * newline-delimited JSON over its stdin/stdout, turns stderr into log lines, and shuts the
 * whole process tree down the way the MCP lifecycle describes (close stdin, SIGTERM, SIGKILL).
 */
import { TransportError } from './transport';

export { TransportError };
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../util/errorMessage';
import { Emitter, HotEmitter, type Event } from '../util/event';
import { LineDecoder, TextLineDecoder, encodeMessage } from './framing';
import { buildChildEnv, getEnv, planSpawn, type EnvOverrides, type SpawnPlan } from './spawn-plan';
import type { Transport, TransportCloseInfo, TransportWarning } from './transport';

export interface StdioShutdownOptions {
  /** After closing stdin, how long the server may take to exit by itself. Default 1000. */
  readonly closeStdinGraceMs?: number;
  /** After SIGTERM, how long before SIGKILL. Default 1500. */
  readonly sigtermGraceMs?: number;
}

export interface StdioTransportOptions {
  /** Program to run: a name looked up on PATH, or a path (relative paths are relative to `cwd`). */
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to this process's environment; `null` removes a variable, `undefined` is ignored. */
  readonly env?: EnvOverrides;
  readonly cwd?: string;
  /** Longest accepted incoming message in bytes (default 64 MiB). */
  readonly maxMessageBytes?: number;
  /** Shown in the oversize warning: how the user raises the limit (e.g. the setting name). */
  readonly maxMessageBytesHint?: string;
  /** How many stderr lines TransportCloseInfo.stderrTail keeps (default 20). */
  readonly stderrTailLines?: number;
  readonly shutdown?: StdioShutdownOptions;
  /** Names the server in errors (e.g. the configured server name). */
  readonly label?: string;
}

/**
 * The whole sequence (stdin closed, SIGTERM, SIGKILL at 2.5 s) must end well inside the 5 s
 * VS Code gives deactivate(); ServerRegistry.shutdown() forces what is left at 3.5 s.
 */
export const DEFAULT_CLOSE_STDIN_GRACE_MS = 1000;
export const DEFAULT_SIGTERM_GRACE_MS = 1500;
export const DEFAULT_STDERR_TAIL_LINES = 20;
/**
 * After the server exits, how long its stdout/stderr may stay open (a leftover process that
 * escaped the process group may hold them) before they are destroyed and the close completes.
 */
export const STDIO_DRAIN_TIMEOUT_MS = 2000;
/**
 * A write that failed because the server went away waits this long for its exit and the end of
 * its stderr, so the error names the exit code and what it said (stdout or stdin may close
 * before the exit event arrives and before stderr is read to its end).
 */
export const EXIT_DETAILS_WAIT_MS = 500;

/** start() failed: the process could not be spawned. */
export class TransportStartError extends TransportError {
  readonly command: string;
  constructor(message: string, code: string, command: string, options?: { cause?: unknown; label?: string }) {
    super(message, code, options);
    this.name = 'TransportStartError';
    this.command = command;
  }
}

/**
 * The messages sent in one tick, written together. Every send() of the batch returns the
 * batch's promise: it resolves when the write completes, or rejects when it fails, for all of
 * them alike (they share one write anyway). One promise per batch rather than per message keeps
 * a busy connection from allocating a promise, its resolvers and a queue entry per message.
 */
interface SendBatch {
  data: string;
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

function newSendBatch(): SendBatch {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { data: '', promise, resolve, reject };
}

type Phase = 'new' | 'starting' | 'running' | 'done';

const isWindows = process.platform === 'win32';

export class StdioTransport implements Transport {
  private readonly messageEmitter = new HotEmitter<unknown>();
  private readonly closeEmitter = new Emitter<TransportCloseInfo>();
  private readonly warningEmitter = new Emitter<TransportWarning>();
  private readonly logEmitter = new Emitter<string>();

  readonly onMessage: Event<unknown> = this.messageEmitter.event;
  readonly onClose: Event<TransportCloseInfo> = this.closeEmitter.event;
  readonly onWarning: Event<TransportWarning> = this.warningEmitter.event;
  readonly onLog: Event<string> = this.logEmitter.event;

  private readonly options: StdioTransportOptions;
  private readonly closeStdinGraceMs: number;
  private readonly sigtermGraceMs: number;
  private readonly tailSize: number;

  private phase: Phase = 'new';
  private child: ChildProcessWithoutNullStreams | undefined;
  private plan: SpawnPlan | undefined;
  private childEnv: Record<string, string> = {};
  private startPromise: Promise<void> | undefined;
  /** start() resolved: onClose will fire exactly once. */
  private started = false;
  private closeRequested = false;
  private forced = false;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Set once the process has exited: whether close() had been called by then. */
  private expectedExit = false;
  /** What we last did to make it exit, for the close reason. */
  private escalation: string | undefined;
  private stdoutClosed = false;
  private stderrClosed = false;
  private lateError: Error | undefined;
  private stdinError: Error | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly stderrTail: string[] = [];

  /** Batches not yet written, oldest first; `openBatch`, if any, is the last and still filling. */
  private readonly queue: SendBatch[] = [];
  private openBatch: SendBatch | undefined;
  private waitingForDrain = false;
  /** A pump() is scheduled for the end of this tick (see send()). */
  private pumpScheduled = false;
  private readonly scheduledPump = (): void => {
    this.pumpScheduled = false;
    this.pump();
  };

  private resolveDone!: () => void;
  private readonly done = new Promise<void>((resolve) => {
    this.resolveDone = resolve;
  });

  constructor(options: StdioTransportOptions) {
    if (typeof options.command !== 'string' || options.command.trim() === '') {
      throw new TypeError('StdioTransport: command must be a non-empty string');
    }
    this.options = options;
    this.closeStdinGraceMs = nonNegative(options.shutdown?.closeStdinGraceMs, DEFAULT_CLOSE_STDIN_GRACE_MS);
    this.sigtermGraceMs = nonNegative(options.shutdown?.sigtermGraceMs, DEFAULT_SIGTERM_GRACE_MS);
    this.tailSize = nonNegative(options.stderrTailLines, DEFAULT_STDERR_TAIL_LINES);
  }

  /** True once no more messages can be sent: close() was called, or the process is gone. */
  get isClosed(): boolean {
    return this.closeRequested || this.exit !== undefined || this.phase === 'done';
  }

  /** The server's process id while it runs (the process group id on POSIX). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.startPromise) return this.startPromise;
    if (this.closeRequested || this.phase === 'done') {
      this.startPromise = Promise.reject(this.closedStartError());
      return this.startPromise;
    }
    this.phase = 'starting';
    this.startPromise = new Promise<void>((resolve, reject) => this.spawnChild(resolve, reject));
    return this.startPromise;
  }

  send(message: unknown): Promise<void> {
    if (!this.started || this.isClosed) {
      return Promise.reject(
        new TransportError(
          `Cannot send to ${this.name()}: ${this.started ? 'the transport is closed' : 'the transport is not started'}`,
          this.started ? 'ECLOSED' : 'ENOTSTARTED',
          { label: this.options.label },
        ),
      );
    }
    let data: string;
    try {
      data = encodeMessage(message);
    } catch (err) {
      return Promise.reject(err);
    }
    // Performance: messages sent in the same tick (e.g. the requests that the answers in one
    // chunk of stdout trigger) leave in one write, not one write (syscall, wake-up of the
    // server) each. process.nextTick runs after the current microtasks have drained.
    let batch = this.openBatch;
    if (batch === undefined) {
      batch = this.openBatch = newSendBatch();
      this.queue.push(batch);
      if (!this.pumpScheduled) {
        this.pumpScheduled = true;
        process.nextTick(this.scheduledPump);
      }
    }
    batch.data += data;
    return batch.promise;
  }

  close(): Promise<void> {
    if (this.phase === 'done') return Promise.resolve();
    if (!this.child) {
      // Never started (or start() failed synchronously): nothing to stop.
      this.closeRequested = true;
      this.phase = 'done';
      this.resolveDone();
      this.disposeEmitters();
      return Promise.resolve();
    }
    if (this.closeRequested) {
      this.force();
      return this.done;
    }
    this.closeRequested = true;
    if (this.exit === undefined) this.beginShutdown();
    return this.done;
  }

  // --- start -------------------------------------------------------------------

  private spawnChild(resolve: () => void, reject: (err: Error) => void): void {
    const opts = this.options;
    const cwd = opts.cwd ?? process.cwd();
    const args = [...(opts.args ?? [])];
    let settled = false;
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      this.phase = 'done';
      this.closeRequested = true;
      this.clearTimers();
      this.rejectQueue(err);
      this.child?.stdin.destroy();
      this.child?.stdout.destroy();
      this.child?.stderr.destroy();
      this.resolveDone();
      this.disposeEmitters();
      reject(err);
    };

    try {
      this.childEnv = buildChildEnv(process.env, opts.env);
      this.plan = planSpawn({ command: opts.command, args, env: this.childEnv, cwd, platform: process.platform, isFile });
    } catch (err) {
      fail(new TransportStartError(`Cannot start ${this.name()}: ${errorMessage(err)}`, 'EINVAL', opts.command, { cause: err, label: opts.label }));
      return;
    }

    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(this.plan.file, [...this.plan.args], {
        cwd: opts.cwd,
        env: this.childEnv,
        shell: false,
        // POSIX: its own process group, so the whole tree can be signalled at once.
        detached: !isWindows,
        windowsHide: true,
        windowsVerbatimArguments: this.plan.windowsVerbatimArguments,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (err) {
      // Synchronous failures: invalid arguments (e.g. a NUL byte), EMFILE, ...
      fail(this.startError(err));
      return;
    }
    this.child = child;
    this.wireStreams(child);

    child.once('spawn', () => {
      if (settled) return;
      settled = true;
      if (this.closeRequested) {
        // close() was called while starting; it is shutting the process down.
        reject(this.closedStartError());
        return;
      }
      this.phase = 'running';
      this.started = true;
      liveTransports.add(this);
      installExitHook();
      resolve();
    });
    child.on('error', (err) => {
      if (!settled) {
        fail(this.startError(err));
        return;
      }
      // After spawn (e.g. a signal could not be delivered): reported with the close.
      this.lateError ??= err;
    });
    child.once('exit', (code, signal) => this.onExit(code, signal));
  }

  private wireStreams(child: ChildProcessWithoutNullStreams): void {
    const decoder = new LineDecoder({
      maxMessageBytes: this.options.maxMessageBytes,
      limitHint: this.options.maxMessageBytesHint,
      onMessage: (value) => this.messageEmitter.fire(value),
      onWarning: (warning) => this.warningEmitter.fire(warning),
    });
    child.stdout.on('data', (chunk: Buffer) => decoder.push(chunk));
    child.stdout.on('end', () => decoder.end());
    child.stdout.on('error', (err) => {
      this.lateError ??= err;
    });
    child.stdout.on('close', () => {
      this.stdoutClosed = true;
      this.maybeFinish();
    });

    const stderrLines = new TextLineDecoder({ onLine: (line) => this.onStderrLine(line) });
    child.stderr.on('data', (chunk: Buffer) => stderrLines.push(chunk));
    child.stderr.on('end', () => stderrLines.end());
    child.stderr.on('error', (err) => {
      this.lateError ??= err;
    });
    child.stderr.on('close', () => {
      this.stderrClosed = true;
      this.maybeFinish();
    });

    // EPIPE / ECONNRESET when the server has gone or closed its stdin. Without this
    // listener the error would be thrown as an uncaught exception.
    child.stdin.on('error', (err) => {
      this.stdinError ??= err;
      this.rejectQueueWhenGone(err);
    });
    child.stdin.on('close', () => {
      this.rejectQueueWhenGone(this.stdinError);
    });
  }

  private onStderrLine(line: string): void {
    if (line.trim() !== '' && this.tailSize > 0) {
      this.stderrTail.push(line);
      if (this.stderrTail.length > this.tailSize) this.stderrTail.shift();
    }
    this.logEmitter.fire(line);
  }

  private startError(err: unknown): TransportStartError {
    const opts = this.options;
    const code = errnoCode(err) ?? 'EUNKNOWN';
    const command = opts.command;
    const pathValue = getEnv(this.childEnv, 'PATH') ?? '';
    let message: string;
    if (code === 'ENOENT') {
      const found = this.findExecutable(command);
      if (opts.cwd !== undefined && !isDirectory(opts.cwd)) {
        message = `working directory does not exist: ${opts.cwd} (while starting ${command})`;
      } else if (found && !isWindows) {
        message =
          `cannot run ${command} (${found}): its interpreter was not found. ` +
          'Check the "#!" line at the top of the file, or run it through its interpreter (e.g. command "node" with the script as an argument).';
      } else if (hasDirPart(command)) {
        message = `command not found: ${command} (no such file: ${path.resolve(opts.cwd ?? process.cwd(), command)})`;
      } else {
        message = `command not found: ${command} (searched PATH: ${pathValue || '(empty)'})`;
      }
    } else if (code === 'EACCES' || code === 'EPERM') {
      const found = this.findExecutable(command);
      message =
        `permission denied: cannot execute ${command}${found && found !== command ? ` (${found})` : ''}. ` +
        'Make sure it is an executable file (chmod +x) and not a directory.';
    } else if (code === 'ENOTDIR') {
      message = `cannot start ${command}: a path component is not a directory${opts.cwd !== undefined ? ` (working directory: ${opts.cwd})` : ''}`;
    } else {
      message = `could not start ${command}: ${errorMessage(err)}`;
    }
    if (opts.label) message = `${opts.label}: ${message}`;
    return new TransportStartError(message, code, command, { cause: err, label: opts.label });
  }

  /** Where the command would be found, for error messages (POSIX lookup; Windows plan). */
  private findExecutable(command: string): string | undefined {
    if (this.plan?.resolved) return this.plan.resolved;
    const base = this.options.cwd ?? process.cwd();
    if (hasDirPart(command)) {
      const full = path.resolve(base, command);
      return isFile(full) ? full : undefined;
    }
    const pathValue = getEnv(this.childEnv, 'PATH') ?? '';
    for (const dir of pathValue.split(path.delimiter)) {
      if (dir === '') continue;
      const full = path.resolve(base, dir, command);
      if (isFile(full)) return full;
    }
    return undefined;
  }

  // --- send --------------------------------------------------------------------

  private pump(): void {
    const child = this.child;
    // What is sent from now on starts a new batch.
    this.openBatch = undefined;
    while (!this.waitingForDrain && this.queue.length > 0) {
      if (!child || this.stdinError || child.stdin.destroyed || child.stdin.writableEnded) {
        this.rejectQueueWhenGone(this.stdinError);
        return;
      }
      const batch = this.queue.shift()!;
      const ok = child.stdin.write(batch.data, (err) => {
        if (err) this.rejectBatchWhenGone(batch, err);
        else batch.resolve();
      });
      if (!ok) {
        this.waitingForDrain = true;
        child.stdin.once('drain', () => {
          this.waitingForDrain = false;
          this.pump();
        });
      }
    }
  }

  private rejectQueue(err: Error): void {
    this.openBatch = undefined;
    const batches = this.queue.splice(0, this.queue.length);
    for (const batch of batches) batch.reject(err);
  }

  /** Rejects the waiting writes once the server's exit is known (see rejectBatchWhenGone). */
  private rejectQueueWhenGone(cause: Error | undefined): void {
    this.openBatch = undefined;
    const batches = this.queue.splice(0, this.queue.length);
    for (const batch of batches) this.rejectBatchWhenGone(batch, cause);
  }

  /**
   * A write failed because the server's input closed: usually the server has exited, but its
   * exit event and the rest of its stderr may still be on their way. The rejection waits for them
   * (bounded by EXIT_DETAILS_WAIT_MS): by then the transport has closed with the exit code and
   * the stderr tail, which the connection reports to the request, and this error names them too.
   */
  private rejectBatchWhenGone(batch: SendBatch, cause: Error | undefined): void {
    if (this.phase === 'done' || this.closeRequested) {
      batch.reject(this.stdinClosedError(cause));
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, EXIT_DETAILS_WAIT_MS);
      timer.unref();
    });
    void Promise.race([this.done, waited]).then(() => {
      clearTimeout(timer);
      batch.reject(this.stdinClosedError(cause));
    });
  }

  private stdinClosedError(cause: Error | undefined): TransportError {
    const code = errnoCode(cause) ?? 'ECLOSED';
    const why =
      this.exit !== undefined
        ? `the server ${this.describeExit(this.exit.code, this.exit.signal)}${this.lastStderrNote()}`
        : code === 'EPIPE' || code === 'ECONNRESET'
          ? 'the server closed its input (or exited)'
          : 'the transport is closed';
    return new TransportError(`Cannot send to ${this.name()}: ${why}`, code, { cause, label: this.options.label });
  }

  /** The server's last stderr line, cut short, for an error about its exit. */
  private lastStderrNote(): string {
    const last = this.stderrTail.at(-1)?.trim();
    if (!last) return '';
    return `; its last stderr line: ${last.length > 300 ? `${last.slice(0, 300)}…` : last}`;
  }

  // --- shutdown ----------------------------------------------------------------

  /** Graceful: end stdin, then SIGTERM, then SIGKILL (the whole process group). */
  private beginShutdown(): void {
    const child = this.child!;
    // Messages still waiting for 'drain' go out ahead of the end of input.
    this.openBatch = undefined;
    if (this.queue.length > 0 && !this.stdinError && !child.stdin.destroyed) {
      for (const batch of this.queue.splice(0, this.queue.length)) {
        child.stdin.write(batch.data, (err) => (err ? batch.reject(this.stdinClosedError(err)) : batch.resolve()));
      }
    }
    if (!child.stdin.destroyed) child.stdin.end();
    this.later(this.closeStdinGraceMs, () => {
      if (isWindows) {
        // No SIGTERM on Windows: terminate the tree.
        this.escalation = `it did not exit within ${this.closeStdinGraceMs} ms of its input closing, so its process tree was terminated`;
        this.killTree('SIGKILL');
        return;
      }
      this.escalation = `it did not exit within ${this.closeStdinGraceMs} ms of its input closing, so SIGTERM was sent`;
      this.killTree('SIGTERM');
      this.later(this.sigtermGraceMs, () => {
        this.escalation = `it did not exit within ${this.sigtermGraceMs} ms of SIGTERM, so SIGKILL was sent`;
        this.killTree('SIGKILL');
      });
    });
  }

  /** Second close(): kill now; if already exited, stop waiting for its output. */
  private force(): void {
    if (this.forced) return;
    this.forced = true;
    this.clearTimers();
    const child = this.child!;
    if (this.exit === undefined) {
      this.escalation = 'forced close';
      child.stdin.destroy();
      this.killTree('SIGKILL');
    } else {
      child.stdout.destroy();
      child.stderr.destroy();
    }
  }

  /** Signals the server's process group (POSIX) or terminates its process tree (Windows). */
  private killTree(signal: 'SIGTERM' | 'SIGKILL'): void {
    const child = this.child;
    const pid = child?.pid;
    if (!child || pid === undefined) return;
    if (isWindows) {
      killWindowsTree(pid, child);
      return;
    }
    try {
      process.kill(-pid, signal);
    } catch (err) {
      // ESRCH: no such group (the server may have moved itself out of it); EPERM: not ours.
      // Signal the process itself while it still runs.
      if (this.exit === undefined) {
        try {
          child.kill(signal);
        } catch {
          // It exited meanwhile.
        }
      } else if (errnoCode(err) !== 'ESRCH') {
        this.lateError ??= err instanceof Error ? err : new Error(String(err));
      }
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exit !== undefined) return;
    this.exit = { code, signal };
    this.expectedExit = this.closeRequested;
    this.clearTimers();
    // The server is gone; whatever is left in its process group are orphans we started.
    if (!isWindows) {
      const pid = this.child?.pid;
      if (pid !== undefined) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // ESRCH: the group is already empty.
        }
      }
    }
    liveTransports.delete(this);
    this.rejectQueueWhenGone(this.stdinError);
    // stdout may still hold messages; they are delivered before onClose. Do not wait forever
    // if something outside the group keeps the pipes open.
    this.later(STDIO_DRAIN_TIMEOUT_MS, () => {
      this.child?.stdout.destroy();
      this.child?.stderr.destroy();
    });
    this.maybeFinish();
  }

  private maybeFinish(): void {
    if (this.phase === 'done' || this.exit === undefined || !this.stdoutClosed || !this.stderrClosed) return;
    this.phase = 'done';
    this.clearTimers();
    liveTransports.delete(this);
    this.child?.stdin.destroy();
    this.rejectQueue(this.stdinClosedError(this.stdinError));
    if (this.started) {
      const { code, signal } = this.exit;
      const error = this.lateError;
      const info: TransportCloseInfo = {
        reason: this.describeExit(code, signal),
        expected: this.expectedExit,
        exitCode: code,
        signal,
        stderrTail: [...this.stderrTail],
        ...(error ? { error } : {}),
      };
      this.closeEmitter.fire(info);
    }
    this.resolveDone();
    this.disposeEmitters();
  }

  private describeExit(code: number | null, signal: NodeJS.Signals | null): string {
    let text = signal ? `killed by ${signal}` : code !== null ? `exited with code ${code}` : 'exited';
    if (this.escalation) text += ` (${this.escalation})`;
    if (this.lateError) text += `; ${errorMessage(this.lateError)}`;
    return text;
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  private clearTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private disposeEmitters(): void {
    this.messageEmitter.dispose();
    this.closeEmitter.dispose();
    this.warningEmitter.dispose();
    this.logEmitter.dispose();
  }

  private closedStartError(): TransportStartError {
    return new TransportStartError(`${this.name()} was closed before it finished starting`, 'ECLOSED', this.options.command, {
      label: this.options.label,
    });
  }

  private name(): string {
    return this.options.label ? `${this.options.label} (${this.options.command})` : this.options.command;
  }

  /** Synchronous last resort when this Node process exits with servers still running. */
  killNowForHostExit(): void {
    const pid = this.child?.pid;
    if (pid === undefined || this.exit !== undefined) return;
    try {
      if (isWindows) {
        spawnSync('taskkill', ['/T', '/F', '/PID', String(pid)], { windowsHide: true, stdio: 'ignore' });
      } else {
        process.kill(-pid, 'SIGKILL');
      }
    } catch {
      // Nothing more can be done while exiting.
    }
  }
}

// --- helpers -----------------------------------------------------------------------

/** Transports with a running process; killed synchronously if this process exits first. */
const liveTransports = new Set<StdioTransport>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const t of liveTransports) t.killNowForHostExit();
  });
}

function killWindowsTree(pid: number, child: ChildProcessWithoutNullStreams): void {
  const killer = spawn('taskkill', ['/T', '/F', '/PID', String(pid)], { windowsHide: true, stdio: 'ignore' });
  killer.on('error', () => {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  });
}

function nonNegative(value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`expected a non-negative number, got ${value}`);
  return value;
}

function errnoCode(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'code' in err && typeof (err as { code: unknown }).code === 'string') {
    return (err as { code: string }).code;
  }
  return undefined;
}

function hasDirPart(command: string): boolean {
  return command.includes('/') || (isWindows && command.includes('\\'));
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
