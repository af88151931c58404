// The JSON-RPC connection. It stays one file of about 600 lines on purpose: it is the hot path
// of every request (the stdio benchmark sends tens of thousands a second), and a request, its
// shared timeout timer and its answer work on the same pending map and timer fields of this one
// class, so that a call and its result cost no calls through another object. What is off that
// path lives beside it: the shared types (connectionTypes.ts) and the peer's own requests,
// notifications and cancellations (incoming.ts).
import { isRecord } from '../util/isRecord';
import { MAX_MESSAGE_DEPTH, SHORTEST_TOO_DEEP_TEXT, nestsDeeperThan } from '../util/nesting';
import type { ZodSchema } from './zod';
import { fastTest } from './fast-check';
import type { OversizeNotice, SendOptions, Transport, TransportCloseInfo } from '../transport/transport';
import { Emitter, type Event } from '../util/event';
import type { Disposable } from '../util/disposable';
import { nullLogger, type Logger } from '../util/logger';
import {
  ConnectionClosedError,
  InvalidResultError,
  McpError,
  MessageTooLargeError,
  NotAnMcpServerError,
  RemoteError,
  RequestCancelledError,
  RequestTimeoutError,
  describeClose,
} from './errors';
import {
  classifyMessage,
  isResultResponse,
  excerpt,
  formatZodError,
  type JsonRpcErrorResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResultResponse,
} from './jsonrpc';
import { errorMessage } from '../util/errorMessage';
import {
  DEFAULT_MAX_TOTAL_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type ConnectionOptions,
  type NotificationHandler,
  type ProgressUpdate,
  type RequestHandler,
  type RequestOptions,
} from './connectionTypes';
import { IncomingMessages } from './incoming';
import { WarningRate } from '../util/warningRate';
import { shownServerMessage, shownServerValue } from '../util/serverText';

/** Warnings a second about a peer's messages that are dropped (see Connection.protocolWarning). */
export const PROTOCOL_WARNINGS_PER_SECOND = 10;

/** A peer's request id in a log line: a number as it is, anything else quoted, bounded and escaped. */
function shownId(id: unknown): string {
  return typeof id === 'number' ? String(id) : shownServerValue(id, 80);
}

export * from './connectionTypes';

/** What only requests with progress, cancellation or a reset timeout need. */
interface PendingExtras {
  /** When it was sent, on the connection clock (clockMs()). */
  readonly startedAt: number;
  readonly maxTotalTimeoutMs: number;
  readonly resetTimeoutOnProgress: boolean;
  readonly onProgress: ((update: ProgressUpdate) => void) | undefined;
  /** Removes the abort listener. */
  cleanup: (() => void) | undefined;
}

/**
 * Performance: the record of a plain request is small and holds no fractional numbers (which
 * V8 would box in a heap object each); the rest lives in `extras`, made only when needed.
 */
interface PendingRequest {
  readonly id: number;
  readonly method: string;
  readonly timeoutMs: number;
  readonly resultSchema: ZodSchema<unknown> | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  /** When it times out, on the connection clock (clockMs()). */
  deadline: number;
  readonly extras: PendingExtras | undefined;
}

/** The ids of the requests one write carries: first..last, all of them. */
interface SentIds {
  first: number;
  last: number;
}

/** Whole milliseconds on the monotonic clock (performance.now(), rounded up). */
function clockMs(): number {
  return Math.ceil(performance.now());
}

const NO_OPTIONS: RequestOptions = Object.freeze({});
const SEND_ALONE: SendOptions = Object.freeze({ alone: true });

/**
 * A JSON-RPC 2.0 endpoint over a Transport: links responses to requests,
 * enforces timeouts, routes progress and cancellation, and answers the peer's
 * requests through installed handlers.
 */
export class JsonRpcConnection implements Disposable {
  private readonly logger: Logger;
  private readonly pending = new Map<number, PendingRequest>();
  /** The peer's requests and notifications (incoming.ts). */
  private readonly incoming: IncomingMessages;
  private readonly onCloseEmitter = new Emitter<TransportCloseInfo>();
  /** See protocolWarning. */
  private protocolWarnings: WarningRate | undefined;
  private readonly subscriptions: Disposable[] = [];
  private nextId = 1;
  private closeInfo: TransportCloseInfo | undefined;
  /**
   * Performance: one timer per connection, not one per request. It is armed for the earliest
   * deadline among the pending requests; when it fires, expired requests time out and it is
   * re-armed for the next deadline. A request that is answered leaves the timer alone, so a busy
   * connection does not create and clear a timer per call. When none is pending the timer is
   * unref'd (it must not keep the process alive) and ref'd again by the next request.
   */
  private timeoutTimer: NodeJS.Timeout | undefined;
  private timeoutTimerDeadline = Infinity;
  private timeoutTimerIdle = false;
  /** The result schema last validated and its compiled check (see handleResult()). */
  private lastResultSchema: ZodSchema<unknown> | undefined;
  private lastResultTest: ((value: unknown) => boolean) | undefined;
  /** The promise of the last write, the requests it carries and when it began (see request()). */
  private lastSent: Promise<void> | undefined;
  private lastSentIds: SentIds = { first: 0, last: 0 };
  private lastSentAt = 0;
  /** The last message written was a request with no other under way (see write()). */
  private lastWriteSolo = false;

  readonly onClose: Event<TransportCloseInfo> = this.onCloseEmitter.event;

  constructor(
    private readonly transport: Transport,
    private readonly options: ConnectionOptions,
  ) {
    this.logger = options.logger ?? nullLogger;
    this.incoming = new IncomingMessages({
      label: options.label,
      logger: this.logger,
      sendResponse: (message) => this.sendResponse(message),
      failEchoed: (message) => this.failEchoed(message),
    });
    this.subscriptions.push(
      transport.onMessage((value, textLength) => this.handleIncoming(value, textLength)),
      transport.onWarning((warning) => {
        this.logger.warn(`[${options.label}] ${warning.message}${warning.excerpt ? `: ${warning.excerpt}` : ''}`);
        if (warning.oversize) this.failOversized(warning.oversize);
      }),
      transport.onClose((info) => this.handleClose(info)),
    );
    this.setRequestHandler('ping', () => ({}));
  }

  get label(): string {
    return this.options.label;
  }

  get isClosed(): boolean {
    return this.closeInfo !== undefined;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** The id of the request sent last (a subscriptions/listen stream is known by it). */
  get lastRequestId(): number {
    return this.nextId - 1;
  }

  /** Installs the handler for requests the peer sends us. Replaces any previous one. */
  setRequestHandler(method: string, handler: RequestHandler): Disposable {
    return this.incoming.setRequestHandler(method, handler);
  }

  hasRequestHandler(method: string): boolean {
    return this.incoming.hasRequestHandler(method);
  }

  /** Subscribes to one notification method from the peer. */
  onNotification(method: string, handler: NotificationHandler): Disposable {
    return this.incoming.onNotification(method, handler);
  }

  /**
   * Sends a request and resolves with its result, validated by `resultSchema`
   * when given. Rejects with a typed McpError on error, timeout, cancellation or close.
   */
  request<T = Record<string, unknown>>(
    method: string,
    params?: Record<string, unknown>,
    resultSchema?: ZodSchema<T>,
    options: RequestOptions = NO_OPTIONS,
  ): Promise<T> {
    if (this.closeInfo) {
      return Promise.reject(this.closedError(method));
    }
    if (options.signal?.aborted) {
      return Promise.reject(new RequestCancelledError(method, abortReason(options.signal)));
    }
    const id = this.nextId++;
    const timeoutMs = options.timeoutMs ?? this.options.defaultTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const signal = options.signal;

    let outgoingParams = params;
    let extras: PendingExtras | undefined;
    if (options !== NO_OPTIONS && (options.onProgress || options.meta || signal || options.resetTimeoutOnProgress)) {
      if (options.onProgress || options.meta) {
        const meta: Record<string, unknown> = { ...(params?._meta as Record<string, unknown> | undefined), ...options.meta };
        if (options.onProgress) meta.progressToken = id;
        outgoingParams = { ...params, _meta: meta };
      }
      extras = {
        startedAt: clockMs(),
        maxTotalTimeoutMs: Math.max(timeoutMs, options.maxTotalTimeoutMs ?? this.options.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS),
        resetTimeoutOnProgress: options.resetTimeoutOnProgress ?? false,
        onProgress: options.onProgress,
        cleanup: undefined,
      };
    }

    // Performance: a bare executor; the work runs in request() itself rather than in a large
    // closure created per call (one function less for V8 to optimise on a busy connection).
    let resolve!: (value: T) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const pending: PendingRequest = {
      id,
      method,
      timeoutMs,
      resultSchema: resultSchema as ZodSchema<unknown> | undefined,
      resolve: resolve as (value: unknown) => void,
      reject,
      deadline: 0,
      extras,
    };
    try {
      if (signal && extras) {
        const onAbort = () => this.cancelPending(pending, new RequestCancelledError(method, abortReason(signal)), abortReason(signal));
        signal.addEventListener('abort', onAbort, { once: true });
        extras.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      this.pending.set(id, pending);

      const message: Record<string, unknown> =
        outgoingParams !== undefined ? { jsonrpc: '2.0', id, method, params: outgoingParams } : { jsonrpc: '2.0', id, method };
      const sent = this.write(message, this.pending.size === 1);
      // Performance: a transport may return one promise for all the messages it writes together
      // (StdioTransport does, per tick). Then one failure handler serves them all, instead of a
      // handler (and a derived promise) per request; and the clock is read once per write: the
      // timeouts of its requests, all sent in the same tick, count from its first one.
      if (sent !== this.lastSent) {
        this.beginWrite(sent, id);
      } else {
        // Ids of one write are consecutive, each request taking the next one; a request made
        // while another is being written (from a trace callback) comes first, hence min/max.
        const ids = this.lastSentIds;
        if (id < ids.first) ids.first = id;
        if (id > ids.last) ids.last = id;
      }
      // A transport may answer, or close, within send(): then there is nothing left to time.
      if (this.pending.get(id) === pending) this.armTimer(pending, timeoutMs, this.lastSentAt);
    } catch (err) {
      // What a throw in a Promise executor does: the request fails with it.
      this.settle(id);
      reject(err as Error);
    }
    return promise;
  }

  /**
   * The first request of a write (see request()). Performance: a method of its own, called once
   * per write rather than per request, so that V8 does not compile it into request() (a smaller
   * optimised request(), ready sooner, on a connection's first thousands of calls).
   */
  private beginWrite(sent: Promise<void>, id: number): void {
    const ids: SentIds = { first: id, last: id };
    this.lastSent = sent;
    this.lastSentIds = ids;
    this.lastSentAt = clockMs();
    // A promise is one write: a transport returns it only within the tick that made it (see
    // Transport.send), so a request of a later tick never counts its timeout from this clock
    // reading, nor joins a write whose failure has been handled. Performance: no callback at the
    // end of the tick to forget it (a third nextTick per call of a sequential client, and a
    // larger optimised tick loop: about 1.5% of 5,000 sequential stdio calls).
    sent.then(undefined, (err: unknown) => {
      // Failed: a later request never joins it, even should a transport return it again.
      if (this.lastSent === sent) this.lastSent = undefined;
      this.sendFailed(ids, err);
    });
  }

  /** A write failed: the requests it carried fail (those not already settled otherwise). */
  private sendFailed(ids: SentIds, err: unknown): void {
    for (let id = ids.first; id <= ids.last; id++) {
      const pending = this.settle(id);
      if (!pending) continue;
      pending.reject(err instanceof McpError ? err : sendError(pending.method, this.options.label, err));
    }
  }

  /** Sends a notification. Resolves when written; rejects if the connection is closed. */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.closeInfo) throw this.closedError(method);
    const message: Record<string, unknown> = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    await this.write(message);
  }

  /** Closes the transport; pending requests are rejected by the close handler. */
  async close(): Promise<void> {
    await this.transport.close();
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.subscriptions.length = 0;
    if (!this.closeInfo) {
      this.handleClose({ reason: 'the connection was disposed', expected: true });
    }
    this.incoming.dispose();
    this.onCloseEmitter.dispose();
  }

  // --- internals -----------------------------------------------------------

  /**
   * `solo`: a request that is the only one under way. Sent alone (Transport.send) when the
   * message written before it was one too: a caller that waits for each answer before its next
   * request, whose requests have nothing to gather with. Not after a notification, a response or
   * a request sent beside others: so not the first request of a window of concurrent calls whose
   * answers came in one chunk, which written alone would split the window into two waves that the
   * server answers apart from then on. (The first of a burst that follows a lone request does go
   * alone; its waves merge again within a few rounds.)
   */
  private write(message: unknown, solo = false): Promise<void> {
    this.options.onTrace?.('send', message);
    const alone = solo && this.lastWriteSolo;
    this.lastWriteSolo = solo;
    return this.transport.send(message, alone ? SEND_ALONE : undefined);
  }

  /** (Re)starts the request's timeout: it fails `delayMs` after `from` (default: now) unless answered. */
  private armTimer(pending: PendingRequest, delayMs: number, from = clockMs()): void {
    pending.deadline = from + delayMs;
    if (this.timeoutTimerIdle) {
      this.timeoutTimerIdle = false;
      this.timeoutTimer!.ref();
    }
    if (pending.deadline < this.timeoutTimerDeadline) this.scheduleTimeoutCheck(pending.deadline);
  }

  private scheduleTimeoutCheck(deadline: number): void {
    if (this.timeoutTimer) clearTimeout(this.timeoutTimer);
    this.timeoutTimerDeadline = deadline;
    this.timeoutTimerIdle = false;
    this.timeoutTimer = setTimeout(this.checkTimeouts, Math.max(0, Math.ceil(deadline - performance.now())));
  }

  private stopTimeoutTimer(): void {
    if (this.timeoutTimer) clearTimeout(this.timeoutTimer);
    this.timeoutTimer = undefined;
    this.timeoutTimerDeadline = Infinity;
    this.timeoutTimerIdle = false;
  }

  /** Times out every request whose deadline has passed, then re-arms for the next deadline. */
  private readonly checkTimeouts = (): void => {
    this.timeoutTimer = undefined;
    this.timeoutTimerDeadline = Infinity;
    this.timeoutTimerIdle = false;
    // Rounded down (deadlines are rounded up): a request never times out before its time.
    const now = Math.floor(performance.now());
    let next = Infinity;
    const expired: PendingRequest[] = [];
    for (const pending of this.pending.values()) {
      if (pending.deadline <= now) expired.push(pending);
      else if (pending.deadline < next) next = pending.deadline;
    }
    if (next !== Infinity) this.scheduleTimeoutCheck(next);
    for (const pending of expired) this.timeOut(pending);
  };

  private timeOut(pending: PendingRequest): void {
    const extras = pending.extras;
    const elapsed = clockMs() - (extras ? extras.startedAt : pending.deadline - pending.timeoutMs);
    const reason =
      extras?.resetTimeoutOnProgress && elapsed >= extras.maxTotalTimeoutMs
        ? `reached the maximum total time of ${extras.maxTotalTimeoutMs} ms`
        : `no answer from ${this.options.label}`;
    this.cancelPending(
      pending,
      new RequestTimeoutError(pending.method, extras?.resetTimeoutOnProgress ? elapsed : pending.timeoutMs, reason),
      `timed out after ${elapsed} ms`,
    );
  }

  /** A refused message answered one of our requests: it fails now rather than at its timeout. */
  private failOversized(notice: OversizeNotice): void {
    const pending = typeof notice.answers === 'number' ? this.settle(notice.answers) : undefined;
    if (!pending) return;
    pending.reject(new MessageTooLargeError(pending.method, notice.bytes, notice.complete, notice.limit, notice.hint));
  }

  /**
   * A request for a method we do not serve, with the id and method of one of ours still waiting:
   * the peer sent ours back (`cat`). Answering it would only be echoed again; ours fails instead.
   */
  private failEchoed(message: JsonRpcRequest): boolean {
    const pending = typeof message.id === 'number' ? this.pending.get(message.id) : undefined;
    if (!pending || pending.method !== message.method) return false;
    this.settle(pending.id);
    pending.reject(new NotAnMcpServerError(pending.method, this.options.label));
    return true;
  }

  /** Ends a pending request on our side and tells the server to stop working on it. */
  private cancelPending(pending: PendingRequest, error: McpError, reason: string): void {
    if (!this.settle(pending.id)) return;
    pending.reject(error);
    // The spec forbids cancelling initialize; its failure ends the connection instead. Nor is
    // server/discover cancelled: as the era probe, a legacy server must see only initialize next.
    if (pending.method !== 'initialize' && pending.method !== 'server/discover' && !this.closeInfo) {
      this.notify('notifications/cancelled', { requestId: pending.id, reason }).catch((err: unknown) =>
        this.logger.debug(`[${this.options.label}] could not send notifications/cancelled: ${errorMessage(err)}`),
      );
    }
  }

  /** Removes a pending request and its timer/listeners; returns it if it was still pending. */
  private settle(id: number): PendingRequest | undefined {
    const pending = this.pending.get(id);
    if (!pending) return undefined;
    this.pending.delete(id);
    // The shared timer stays armed; with no request left, it no longer keeps the process alive.
    if (this.pending.size === 0 && this.timeoutTimer && !this.timeoutTimerIdle) {
      this.timeoutTimerIdle = true;
      this.timeoutTimer.unref();
    }
    pending.extras?.cleanup?.();
    return pending;
  }

  /**
   * A warning about a message of the peer that is dropped (not JSON-RPC, an answer to no request):
   * at most PROTOCOL_WARNINGS_PER_SECOND a second, the rest counted in one (a server can send them
   * as fast as it likes). The limiter is made at the first such message.
   */
  private protocolWarning(message: () => string): void {
    this.protocolWarnings ??= new WarningRate(PROTOCOL_WARNINGS_PER_SECOND, (skipped) =>
      this.logger.warn(
        `[${this.options.label}] ${skipped} more warning${skipped === 1 ? '' : 's'} of messages dropped or ignored (not JSON-RPC, or answers to no request) not written (at most ${PROTOCOL_WARNINGS_PER_SECOND} a second)`,
      ),
    );
    if (this.protocolWarnings.admit()) this.logger.warn(`[${this.options.label}] ${message()}`);
  }

  private handleIncoming(value: unknown, textLength: number | undefined): void {
    // The count of the warnings not given in a second that is over, with what comes next.
    if (this.protocolWarnings?.pending) this.protocolWarnings.roll();
    // Performance: the usual message's text is too short to nest too deep; no walk then.
    if ((textLength === undefined || textLength >= SHORTEST_TOO_DEEP_TEXT) && nestsDeeperThan(value)) {
      this.refuseTooDeep(value);
      return;
    }
    try {
      this.options.onTrace?.('receive', value);
      // Performance: the usual message, a valid answer, goes straight to handleResult (the same
      // check classifyMessage makes for it, without its dispatch and result object).
      if (isResultResponse(value)) {
        this.handleResult(value);
        return;
      }
      this.handleOther(value);
    } catch (err) {
      // Validation and recording recurse: a message nested deeper than the stack (150,000 levels
      // from a hostile server) is refused here instead of ending the connection or the process.
      if (!(err instanceof RangeError)) throw err;
      this.refuseTooDeep(value);
    }
  }

  private refuseTooDeep(value: unknown): void {
    const id = isRecord(value) ? value.id : undefined;
    const pending = typeof id === 'number' ? this.settle(id) : undefined;
    const what = `a message nested more than ${MAX_MESSAGE_DEPTH} levels deep`;
    this.logger.warn(`[${this.options.label}] dropped ${what}${pending ? `: the answer to ${pending.method}` : ''}`);
    pending?.reject(new Error(`the server's answer to ${pending.method} nests more than ${MAX_MESSAGE_DEPTH} levels deep; it was refused`));
  }

  /** Anything but a valid answer: a batch, an error, a request or notification of the peer, or invalid. */
  private handleOther(value: unknown): void {
    if (Array.isArray(value)) {
      if (value.length === 0) {
        this.protocolWarning(() => 'dropped an empty JSON-RPC batch');
        return;
      }
      for (const member of value) this.handleOne(member);
      return;
    }
    this.handleOne(value);
  }

  private handleOne(value: unknown): void {
    const classified = classifyMessage(value);
    switch (classified.kind) {
      case 'result':
        this.handleResult(classified.message);
        return;
      case 'error':
        this.handleErrorResponse(classified.message);
        return;
      case 'request':
        this.incoming.handleRequest(classified.message);
        return;
      case 'notification':
        this.handleNotification(classified.message);
        return;
      case 'invalid':
        this.protocolWarning(() => `dropped a message that is not valid JSON-RPC (${classified.reason}): ${shownServerMessage(excerpt(value), 260)}`);
        return;
    }
  }

  private handleResult(message: JsonRpcResultResponse): void {
    const pending = typeof message.id === 'number' ? this.settle(message.id) : undefined;
    if (!pending) {
      this.protocolWarning(() => `ignored a response to unknown or already settled request id ${shownId(message.id)}`);
      return;
    }
    if (!pending.resultSchema) {
      pending.resolve(message.result);
      return;
    }
    // Performance: the compiled check (fast-check.ts) vouches for the usual result, which is then
    // used as it is; zod (with its copy, or its error) runs only for the rest.
    const schema = pending.resultSchema;
    if (schema !== this.lastResultSchema) {
      this.lastResultSchema = schema;
      this.lastResultTest = fastTest(schema);
    }
    if (this.lastResultTest!(message.result)) {
      pending.resolve(message.result);
      return;
    }
    const parsed = schema.safeParse(message.result);
    if (parsed.success) {
      pending.resolve(parsed.data);
    } else {
      const error = new InvalidResultError(pending.method, formatZodError(parsed.error));
      this.logger.warn(`[${this.options.label}] ${error.message}`);
      pending.reject(error);
    }
  }

  private handleErrorResponse(message: JsonRpcErrorResponse): void {
    const id = message.id;
    const pending = typeof id === 'number' ? this.settle(id) : undefined;
    if (!pending) {
      this.protocolWarning(() => `error response for unknown or already settled request id ${shownId(id ?? null)}: ${message.error.code} ${shownServerMessage(message.error.message, 200)}`);
      return;
    }
    pending.reject(new RemoteError(pending.method, message.error.code, message.error.message, message.error.data));
  }

  private handleNotification(message: JsonRpcNotification): void {
    const params = message.params ?? {};
    if (message.method === 'notifications/progress') this.routeProgress(params);
    this.incoming.handleNotification(message.method, params);
  }

  private routeProgress(params: Record<string, unknown>): void {
    const token = params.progressToken;
    const pending = typeof token === 'number' ? this.pending.get(token) : undefined;
    if (!pending || typeof params.progress !== 'number') {
      this.logger.debug(`[${this.options.label}] progress for unknown token ${JSON.stringify(token)}`);
      return;
    }
    const extras = pending.extras;
    if (!extras) return;
    if (extras.resetTimeoutOnProgress) {
      const remainingTotal = extras.maxTotalTimeoutMs - (clockMs() - extras.startedAt);
      this.armTimer(pending, Math.max(0, Math.min(pending.timeoutMs, remainingTotal)));
    }
    if (extras.onProgress) {
      try {
        extras.onProgress({
          progress: params.progress,
          total: typeof params.total === 'number' ? params.total : undefined,
          message: typeof params.message === 'string' ? params.message : undefined,
        });
      } catch (err) {
        this.logger.error(`[${this.options.label}] progress listener for ${pending.method} failed: ${errorMessage(err)}`);
      }
    }
  }

  private sendResponse(message: Record<string, unknown>): void {
    if (this.closeInfo) return;
    this.write(message).catch((err: unknown) =>
      this.logger.debug(`[${this.options.label}] could not send a response: ${errorMessage(err)}`),
    );
  }

  private handleClose(info: TransportCloseInfo): void {
    if (this.closeInfo) return;
    this.closeInfo = info;
    this.protocolWarnings?.flush();
    const pending = [...this.pending.values()];
    for (const p of pending) {
      this.settle(p.id);
      p.reject(this.closedError(p.method));
    }
    this.stopTimeoutTimer();
    this.incoming.abortAll();
    this.onCloseEmitter.fire(info);
  }

  private closedError(method: string): ConnectionClosedError {
    const info = this.closeInfo;
    const why = info ? describeClose(info) : 'the connection is closed';
    return new ConnectionClosedError(`${method} failed: connection to ${this.options.label} closed (${why})`, info);
  }
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  if (typeof reason === 'string') return reason;
  return 'cancelled by the caller';
}

/** A write that failed; the transport's error stays reachable as `cause` (e.g. to tell a sign-in from a lost server). */
function sendError(method: string, label: string, err: unknown): ConnectionClosedError {
  const error = new ConnectionClosedError(`Could not send ${method} to ${label}: ${errorMessage(err)}`);
  error.cause = err;
  return error;
}
