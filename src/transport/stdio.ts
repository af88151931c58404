/**
 * The stdio transport: runs an MCP server as a child process (no shell), exchanges
 * newline-delimited JSON over its stdin/stdout, turns stderr into log lines, and shuts the
 * whole process tree down the way the MCP lifecycle describes (close stdin, SIGTERM, SIGKILL).
 * The parts: the options and timings (stdioOptions.ts), the stop and kill sequence
 * (stdioShutdown.ts), why a start failed (stdioStartError.ts), the exit details (stdioExit.ts),
 * the pipes' hookup to the framing (stdioPipes.ts); spawning, sending and closing are here.
 */
import { TransportError } from './transport';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { errorMessage } from '../util/errorMessage';
import { Emitter, HotEmitter, type Event } from '../util/event';
import { escapeLineSeparators, stringifyMessage } from './framing';
import { buildChildEnv, planSpawn, type SpawnPlan } from './spawn-plan';
import {
  DEFAULT_CLOSE_STDIN_GRACE_MS,
  DEFAULT_SIGTERM_GRACE_MS,
  DEFAULT_STDERR_TAIL_LINES,
  EXIT_DETAILS_WAIT_MS,
  STDIO_DRAIN_TIMEOUT_MS,
  nonNegative,
  type StdioTransportOptions,
} from './stdioOptions';
import { ServerExitDetails } from './stdioExit';
import { wirePipes } from './stdioPipes';
import { newSendBatch, type SendBatch } from './stdioSendBatch';
import { ProcessTreeKiller, forgetAtHostExit, killAtHostExit, scheduleEscalation, type ShutdownGraces } from './stdioShutdown';
import { TransportStartError, errnoCode, isFile, startError } from './stdioStartError';
import type { MessageListener, SendOptions, Transport, TransportCloseInfo, TransportWarning } from './transport';
import type { Disposable } from '../util/disposable';

export { TransportError, TransportStartError };
export {
  DEFAULT_CLOSE_STDIN_GRACE_MS,
  DEFAULT_SIGTERM_GRACE_MS,
  DEFAULT_STDERR_TAIL_LINES,
  EXIT_DETAILS_WAIT_MS,
  STDIO_DRAIN_TIMEOUT_MS,
  type StdioShutdownOptions,
  type StdioTransportOptions,
} from './stdioOptions';

type Phase = 'new' | 'starting' | 'running' | 'done';

const isWindows = process.platform === 'win32';

/**
 * A batch's lines as they go out: the messages' JSON with U+2028/U+2029 escaped (encodeMessage's
 * rule), checked once for the whole write instead of once per message (see escapeLineSeparators).
 */
function wireText(batch: SendBatch): string {
  return escapeLineSeparators(batch.data);
}

export class StdioTransport implements Transport {
  private readonly messageEmitter = new HotEmitter<unknown>();
  private readonly closeEmitter = new Emitter<TransportCloseInfo>();
  private readonly warningEmitter = new Emitter<TransportWarning>();
  private readonly logEmitter = new Emitter<string>();

  readonly onMessage: (listener: MessageListener) => Disposable = this.messageEmitter.event;
  readonly onClose: Event<TransportCloseInfo> = this.closeEmitter.event;
  readonly onWarning: Event<TransportWarning> = this.warningEmitter.event;
  readonly onLog: Event<string> = this.logEmitter.event;

  private readonly options: StdioTransportOptions;
  private readonly graces: ShutdownGraces;

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
  private stdoutClosed = false;
  private stderrClosed = false;
  private stdinError: Error | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private killer: ProcessTreeKiller | undefined;
  private readonly details: ServerExitDetails;

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
    this.graces = {
      closeStdinGraceMs: nonNegative(options.shutdown?.closeStdinGraceMs, DEFAULT_CLOSE_STDIN_GRACE_MS),
      sigtermGraceMs: nonNegative(options.shutdown?.sigtermGraceMs, DEFAULT_SIGTERM_GRACE_MS),
    };
    this.details = new ServerExitDetails(nonNegative(options.stderrTailLines, DEFAULT_STDERR_TAIL_LINES));
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

  send(message: unknown, options?: SendOptions): Promise<void> {
    if (!this.started || this.isClosed) {
      return Promise.reject(
        new TransportError(
          `Cannot send to ${this.name()}: ${this.started ? 'the transport is closed' : 'the transport is not started'}`,
          this.started ? 'ECLOSED' : 'ENOTSTARTED',
          { label: this.options.label },
        ),
      );
    }
    let json: string;
    try {
      json = stringifyMessage(message);
    } catch (err) {
      return Promise.reject(err);
    }
    // Performance: a message with nothing to gather it with (SendOptions.alone: a sequential
    // caller's request) is written at once, if nothing is queued before it; the pipe takes it whole within write()
    // (no tick, batch, promise resolver or pump of its own: about 5% of 5,000 sequential calls).
    if (options?.alone && this.queue.length === 0) {
      const stdin = this.child?.stdin;
      if (stdin && stdin.writableLength === 0 && !this.stdinError && !stdin.errored && !stdin.destroyed && !stdin.writableEnded) return this.writeAlone(stdin, json);
    }
    // Messages sent in the same tick (e.g. the requests that the answers in one chunk of stdout
    // trigger) leave in one write, not one write (syscall, wake-up of the server) each.
    // process.nextTick runs after the current microtasks have drained.
    const batch = this.openBatch ?? this.openNewBatch();
    // U+2028/U+2029 are escaped when the batch is written (see wireText()).
    batch.data += `${json}\n`;
    return batch.promise;
  }

  /**
   * The batch of this tick's messages, and its write scheduled. Performance: a method of its own,
   * called once per batch, so that V8 does not compile it into send() and its callers.
   */
  private openNewBatch(): SendBatch {
    const batch = (this.openBatch = newSendBatch());
    this.queue.push(batch);
    if (!this.pumpScheduled) {
      this.pumpScheduled = true;
      process.nextTick(this.scheduledPump);
    }
    return batch;
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
    this.killer = new ProcessTreeKiller(child, () => this.exit !== undefined);
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
      killAtHostExit(this);
      resolve();
    });
    child.on('error', (err) => {
      if (!settled) {
        fail(this.startError(err));
        return;
      }
      // After spawn (e.g. a signal could not be delivered): reported with the close.
      this.details.noteLateError(err);
    });
    child.once('exit', (code, signal) => this.onExit(code, signal));
  }

  private wireStreams(child: ChildProcessWithoutNullStreams): void {
    wirePipes(child, {
      maxMessageBytes: this.options.maxMessageBytes,
      maxMessageBytesHint: this.options.maxMessageBytesHint,
      onMessage: (value, textBytes) => this.messageEmitter.fire(value, textBytes),
      onWarning: (warning) => this.warningEmitter.fire(warning),
      onStderrLine: (line) => this.onStderrLine(line),
      onOutputError: (err) => this.details.noteLateError(err),
      onStdoutClosed: () => {
        this.stdoutClosed = true;
        this.maybeFinish();
      },
      onStderrClosed: () => {
        this.stderrClosed = true;
        this.maybeFinish();
      },
      onStdinError: (err) => {
        this.stdinError ??= err;
        this.rejectQueueWhenGone(err);
      },
      onStdinClosed: () => this.rejectQueueWhenGone(this.stdinError),
    });
  }

  private onStderrLine(line: string): void {
    this.details.noteStderrLine(line);
    this.logEmitter.fire(line);
  }

  private startError(err: unknown): TransportStartError {
    const opts = this.options;
    return startError(err, { command: opts.command, cwd: opts.cwd, label: opts.label, childEnv: this.childEnv, plan: this.plan });
  }

  // --- send --------------------------------------------------------------------

  private pump(): void {
    const child = this.child;
    // What is sent from now on starts a new batch.
    this.openBatch = undefined;
    while (this.queue.length > 0) {
      // Checked before the wait for 'drain': a failed write also returns false, and no 'drain'
      // follows it; what is sent later must reject, not wait for ever.
      if (!child || this.stdinError || child.stdin.destroyed || child.stdin.writableEnded) {
        this.rejectQueueWhenGone(this.stdinError);
        return;
      }
      if (this.waitingForDrain) return;
      const batch = this.queue.shift()!;
      const ok = this.writeBatch(child.stdin, batch);
      if (!ok) {
        this.waitingForDrain = true;
        child.stdin.once('drain', () => {
          this.waitingForDrain = false;
          this.pump();
        });
      }
    }
  }

  /**
   * Writes one batch; its promise settles once the write has completed or failed. Performance:
   * the usual write, to a pipe with room and nothing queued before it, completes within write()
   * (libuv writes it at once). Written without a callback, Node then schedules nothing for it
   * (a callback costs a closure, a tick and a call per write, i.e. per call of a sequential
   * client), and the batch resolves here. Only a write still pending (queued behind another,
   * or only partly taken by the pipe) or failed is followed up by callback.
   */
  private writeBatch(stdin: ChildProcessWithoutNullStreams['stdin'], batch: SendBatch): boolean {
    // Something still queued: this write waits behind it; its callback tells when it is done.
    if (stdin.writableLength > 0) return stdin.write(wireText(batch), this.batchWritten(batch));
    const ok = stdin.write(wireText(batch));
    if (stdin.writableLength === 0 && !stdin.errored) {
      batch.resolve();
    } else {
      // Pending or failed: an empty write queued behind it calls back once it has completed, or
      // with its error (the buffered writes of a failed stream are called back with it).
      stdin.write('', this.batchWritten(batch));
    }
    return ok;
  }

  /** One message written at once (see send()); as writeBatch, settled within write() when the pipe took it. */
  private writeAlone(stdin: ChildProcessWithoutNullStreams['stdin'], json: string): Promise<void> {
    stdin.write(escapeLineSeparators(`${json}\n`));
    if (stdin.writableLength === 0 && !stdin.errored) return Promise.resolve();
    // Pending or failed: settled by an empty write queued behind it, as in writeBatch.
    const batch = newSendBatch();
    stdin.write('', this.batchWritten(batch));
    return batch.promise;
  }

  private batchWritten(batch: SendBatch): (err?: Error | null) => void {
    return (err) => {
      if (err) this.rejectBatchWhenGone(batch, err);
      else batch.resolve();
    };
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
        ? `the server ${this.details.describeExit(this.exit)}${this.details.lastStderrNote()}`
        : code === 'EPIPE' || code === 'ECONNRESET'
          ? 'the server closed its input (or exited)'
          : 'the transport is closed';
    return new TransportError(`Cannot send to ${this.name()}: ${why}`, code, { cause, label: this.options.label });
  }

  // --- shutdown ----------------------------------------------------------------

  /** Graceful: end stdin, then SIGTERM, then SIGKILL (the whole process group). */
  private beginShutdown(): void {
    const child = this.child!;
    // Found while the server still runs: once it exits, its setsid() children belong to init.
    this.rememberDescendants();
    // Messages still waiting for 'drain' go out ahead of the end of input.
    this.openBatch = undefined;
    if (this.queue.length > 0 && !this.stdinError && !child.stdin.destroyed) {
      for (const batch of this.queue.splice(0, this.queue.length)) {
        child.stdin.write(wireText(batch), (err) => (err ? batch.reject(this.stdinClosedError(err)) : batch.resolve()));
      }
    }
    if (!child.stdin.destroyed) child.stdin.end();
    scheduleEscalation(this.graces, (ms, fn) => this.later(ms, fn), (signal, why) => {
      this.details.escalation = why;
      this.killTree(signal);
    });
  }

  /** Second close(): kill now; if already exited, stop waiting for its output. */
  private force(): void {
    if (this.forced) return;
    this.forced = true;
    this.clearTimers();
    const child = this.child!;
    if (this.exit === undefined) {
      this.details.escalation = 'forced close';
      child.stdin.destroy();
      this.killTree('SIGKILL');
    } else {
      child.stdout.destroy();
      child.stderr.destroy();
    }
  }

  /** Signals the server's process group (POSIX) or terminates its process tree (Windows). */
  private killTree(signal: 'SIGTERM' | 'SIGKILL'): void {
    const error = this.killer?.kill(signal);
    if (error) this.details.noteLateError(error);
  }

  private rememberDescendants(): void {
    this.killer?.rememberDescendants();
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exit !== undefined) return;
    this.exit = { code, signal };
    this.expectedExit = this.closeRequested;
    this.clearTimers();
    this.killer?.killOrphans();
    forgetAtHostExit(this);
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
    forgetAtHostExit(this);
    this.child?.stdin.destroy();
    this.rejectQueue(this.stdinClosedError(this.stdinError));
    if (this.started) {
      this.closeEmitter.fire(this.details.closeInfo(this.exit, this.expectedExit));
    }
    this.resolveDone();
    this.disposeEmitters();
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
    this.killer?.killNowForHostExit();
  }
}
