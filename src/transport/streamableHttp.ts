/**
 * The Streamable HTTP transport (MCP 2025-03-26 and later): every message is a POST to the MCP
 * endpoint, answered by JSON, an SSE stream or 202; an optional GET stream carries what the
 * server sends on its own; sessions, resumption with Last-Event-ID, and DELETE on close.
 *
 * What "a lost server" means here. There is no process whose exit says it is gone, and one
 * failed request is not proof: networks blip. We call the server lost, and fire
 * onClose({expected: false}) so the host's restart backoff applies, when
 *  - a POST fails at the network level (no HTTP answer at all: refused, reset, DNS, TLS) while
 *    no GET stream is connected to show the server is still there (there is none before the
 *    handshake, none when the server answers the GET with 405, none while it reconnects); or
 *  - the GET stream is gone for good (its reconnect attempts ran out) and the last of them, or
 *    the last POST, failed at the network level; or
 *  - a session expired and a new one could not be started.
 * A POST answered with an HTTP error status fails only its own requests: the server is there.
 *
 * The parts: the SSE streams and their resumption (resumableStreams.ts), the session
 * (streamableHttpSession.ts), what is read from the messages (streamableHttpMessages.ts); the
 * POST path and the transport's life are here.
 */
import { Emitter, HotEmitter, type Event } from '../util/event';
import {
  HttpTransportError,
  closedError,
  drain,
  excerptText,
  fetchWithAuth,
  isEventStream,
  isNetworkError,
  manyListenerController,
  resolveHttpOptions,
  statusError,
  statusErrorOf,
  streamFailureText,
  takenWithin,
  tooLargeError,
  type HttpTransportOptions,
  type ResolvedHttpOptions,
} from './httpShared';
import type { MessageListener, Transport, TransportCloseInfo, TransportWarning } from './transport';
import type { Disposable } from '../util/disposable';
import { BodyTooLargeError, ERROR_EXCERPT_BYTES, readTextLimited } from './httpBody';
import { paramHeaderValues, paramHeadersOf, type ParamHeader } from './paramHeaders';
import { ResumableStreams } from './resumableStreams';
import { endpointKeyOf } from './endpointMemory';
import { requestAbortFor, type RequestAbort } from './nodeHttp';
import { StreamableHttpSession } from './streamableHttpSession';
import { describeMessage, isMethod, mirroredHeaders, requestIdOf, requestIds, type RequestId } from './streamableHttpMessages';
import { errorMessage } from '../util/errorMessage';

export { STREAM_LOST_ERROR_CODE } from './resumableStreams';

type Phase = 'new' | 'open' | 'closing' | 'closed';

export class StreamableHttpTransport implements Transport {
  private readonly messageEmitter = new HotEmitter<unknown>();
  private readonly closeEmitter = new Emitter<TransportCloseInfo>();
  private readonly warningEmitter = new Emitter<TransportWarning>();
  private readonly logEmitter = new Emitter<string>();

  readonly onMessage: (listener: MessageListener) => Disposable = this.messageEmitter.event;
  readonly onClose: Event<TransportCloseInfo> = this.closeEmitter.event;
  readonly onWarning: Event<TransportWarning> = this.warningEmitter.event;
  readonly onLog: Event<string> = this.logEmitter.event;

  private readonly o: ResolvedHttpOptions;
  /**
   * Aborts what was sent with its signal (a session renewal's requests) at close; made on first
   * need, since most sessions never renew (an AbortController per session cost measurable CPU
   * when many sessions open at once, #21).
   */
  private controller: AbortController | undefined;
  /** stopEverything() ran: what is sent from now on is aborted at once. */
  private stopped = false;
  /**
   * One abort per POST (and its SSE answer), aborted at close with the shared one. Passing
   * the shared signal to every fetch costs O(listeners) per request: undici adds an abort
   * listener per fetch that goes only when the request is garbage-collected, and EventTarget
   * scans its listeners on each add (and getMaxListeners throws on setMaxListeners(0) signals).
   * With our node:http fetch it is a LightAbort (nodeHttp.ts): an AbortSignal per POST costs too.
   * Each with the id of the one request it carries, if it carries one: a request timed out or
   * cancelled gives up its POST (and its socket), as the answer will be dropped anyway.
   */
  private readonly inFlight = new Map<RequestAbort, RequestId | undefined>();
  private phase: Phase = 'new';
  private readonly streams: ResumableStreams;
  private readonly session: StreamableHttpSession;
  /** The x-mcp-header annotations of the listed tools that have any (registerTool). */
  private readonly toolHeaders = new Map<string, readonly ParamHeader[]>();
  /** notifications/initialized was accepted: the GET stream is opened then. */
  private handshakeDone = false;
  private lastPostFailedOnNetwork = false;
  private resolveDone!: () => void;
  private readonly done = new Promise<void>((resolve) => {
    this.resolveDone = resolve;
  });

  /** `resolved`: the options resolved already (the HTTP transport factory resolves them once for both of its transports). */
  constructor(options: HttpTransportOptions, resolved: ResolvedHttpOptions = resolveHttpOptions(options)) {
    const o = (this.o = resolved);
    const warn = (warning: TransportWarning) => this.warningEmitter.fire(warning);
    const log = (line: string) => this.logEmitter.fire(line);
    this.streams = new ResumableStreams({
      o,
      isOpen: () => this.phase === 'open',
      deliver: (message, textLength) => this.messageEmitter.fire(message, textLength),
      warn,
      log,
      internalError: (err) => this.internalError(err),
      getHeaders: (lastEventId) => this.session.getHeaders(lastEventId),
      lastPostFailedOnNetwork: () => this.lastPostFailedOnNetwork,
      lose: (reason) => this.lose(reason),
      endpointKey: () => this.endpointKey,
    });
    this.session = new StreamableHttpSession({
      o,
      closeSignal: () => this.closeSignal,
      streams: this.streams,
      warn,
      log,
      lose: (reason, error) => this.lose(reason, error),
    });
  }

  get isClosed(): boolean {
    return this.phase === 'closing' || this.phase === 'closed';
  }

  get endpointKey(): string {
    return endpointKeyOf(this.o.href);
  }

  /** Aborted at close (made on first need, already aborted if the transport has stopped). */
  private get closeSignal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = manyListenerController();
      if (this.stopped) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** The session id the server assigned, if any (for tests and diagnostics; never logged). */
  get currentSessionId(): string | undefined {
    return this.session.id;
  }

  /** Nothing to connect: the first POST (initialize) is the first contact. */
  start(): Promise<void> {
    if (this.phase === 'new') this.phase = 'open';
    if (this.phase !== 'open') return Promise.reject(closedError(this.o));
    return Promise.resolve();
  }

  setProtocolVersion(version: string | undefined): void {
    // 2026-07-28 and later mirror the method and name into headers and answer errors with 4xx.
    this.session.setProtocolVersion(version);
  }

  registerTool(name: string, inputSchema: unknown): string | undefined {
    const found = paramHeadersOf(inputSchema);
    if ('error' in found) {
      this.toolHeaders.delete(name);
      return found.error;
    }
    if (found.headers.length) this.toolHeaders.set(name, found.headers);
    else this.toolHeaders.delete(name);
    return undefined;
  }

  /** Mcp-Param-* of a tools/call whose tool declared x-mcp-header annotations. */
  private paramHeaders(message: unknown): Record<string, string> {
    if (this.toolHeaders.size === 0 || !isMethod(message, 'tools/call')) return {};
    const params = (message as { params?: { name?: unknown; arguments?: unknown } }).params;
    const headers = typeof params?.name === 'string' ? this.toolHeaders.get(params.name) : undefined;
    return headers ? paramHeaderValues(headers, params?.arguments) : {};
  }

  // Not async, nor post(): an async frame per layer of a small request cost measurable CPU (#21).
  send(message: unknown): Promise<void> {
    try {
      if (this.phase !== 'open') throw this.notOpenError();
      const body = JSON.stringify(message);
      if (!this.handshakeDone && isMethod(message, 'initialize')) this.session.rememberInitialize(message as Record<string, unknown>);
      if (isMethod(message, 'notifications/cancelled')) this.giveUpCancelled(message);
      const renewal = this.session.pendingRenewal;
      if (renewal !== undefined) return renewal.then(() => this.post(message, body, true));
      return this.post(message, body, true);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  close(): Promise<void> {
    switch (this.phase) {
      case 'closed':
        return this.done;
      case 'closing':
        // Second close: do not wait for the DELETE.
        this.session.abortEnd();
        return this.done;
      case 'new':
        this.phase = 'closed';
        this.resolveDone();
        this.disposeEmitters();
        return this.done;
      case 'open':
        this.phase = 'closing';
        this.stopEverything();
        this.finishClose().then(undefined, () => undefined);
        return this.done;
    }
  }
  // --- POST --------------------------------------------------------------------

  private post(message: unknown, body: string, mayRenew: boolean): Promise<void> {
    const sentSession = this.session.id;
    const request = requestAbortFor(this.o.fetch);
    // Closed while this waited (for a session renewal): fail at once, as the shared signal did.
    if (this.stopped) request.abort();
    const carried = requestIdOf(message);
    this.inFlight.set(request, carried);
    let sent: Promise<Response>;
    try {
      const postHeaders = this.session.postHeaders;
      const headers = this.session.modern ? { ...postHeaders, ...mirroredHeaders(message), ...this.paramHeaders(message) } : postHeaders;
      sent = fetchWithAuth(this.o, 'POST', this.o.href, headers, body, request.signal);
    } catch (err) {
      sent = Promise.reject(err);
    }
    const posted = sent.then(
      (res) => this.answered(message, body, mayRenew, sentSession, request, res),
      (err: unknown) => {
        this.inFlight.delete(request);
        if (isNetworkError(err)) this.postFailedOnNetwork(err as HttpTransportError);
        throw err;
      },
    );
    // A POST that carries no request (a notification, our answer to a request of the server's) only
    // waits for the server to take it (202).
    return carried === undefined && !carriesRequests(message) ? takenWithin(this.o, posted, () => request.abort(), describeMessage(message)) : posted;
  }

  /** A request timed out or cancelled: its answer will be dropped, so its POST (and SSE answer) goes too. */
  private giveUpCancelled(message: unknown): void {
    if (this.streams.awaitingAnswers) this.streams.forget(message);
    const id = (message as { params?: { requestId?: unknown } }).params?.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    for (const [request, carried] of this.inFlight) {
      if (carried !== id) continue;
      this.inFlight.delete(request);
      request.abort();
      return;
    }
  }

  /** The answer to a POST: delivered, drained, or the error for its status (a 404 of an expired session renews it first). */
  private async answered(message: unknown, body: string, mayRenew: boolean, sentSession: string | undefined, request: RequestAbort, res: Response): Promise<void> {
    let streaming = false;
    try {
      this.lastPostFailedOnNetwork = false;
      const status = res.status;
      if (status >= 200 && status < 300) {
        if (status !== 202 && status !== 204) streaming = await this.acceptAnswer(message, res, request);
        else await drain(res);
        if (!this.handshakeDone && isMethod(message, 'notifications/initialized')) {
          this.handshakeDone = true;
          this.streams.openGetStream();
        }
        return;
      }
      if (status === 404 && sentSession !== undefined && this.session.renewable) {
        if (!mayRenew) {
          throw await statusError(this.o, 'POST', res, describeMessage(message), 'the new session expired at once; the server may be restarting');
        }
        await drain(res);
        await this.session.renew(sentSession);
        return this.post(message, body, false);
      }
      // A modern server answers -32022, -32021, -32020 and unknown methods with 4xx and a JSON-RPC error.
      if (this.session.modern && status >= 400 && status < 500) {
        const error = await this.deliverErrorAnswer(message, res, request);
        if (error === undefined) return;
        throw error;
      }
      throw await statusError(this.o, 'POST', res, describeMessage(message));
    } finally {
      if (!streaming) this.inFlight.delete(request);
    }
  }

  /** A 2xx with a body: one JSON value, or an SSE stream read in the background (then true: the stream owns `request`). */
  private acceptAnswer(message: unknown, res: Response, request: RequestAbort): Promise<boolean> {
    if (this.session.isInitialize(message)) this.session.capture(res);
    const type = res.headers.get('content-type');
    if (isEventStream(type)) {
      const reading = this.streams.readPostAnswer(requestIds(message), res, request.signal);
      // Read at once (the usual answer, arrived whole): the request does not stream.
      if (reading === undefined) return NOT_STREAMING;
      reading.then(
        () => this.inFlight.delete(request),
        (err: unknown) => {
          this.inFlight.delete(request);
          this.internalError(err);
        },
      );
      return STREAMING;
    }
    if (type !== null && !/json/i.test(type)) return this.refuseContentType(message, res, type);
    // readJsonBody's steps in one `then` (#21: a promise and a microtask fewer per answer).
    return readTextLimited(res, this.o.maxMessageBytes, `the answer to ${describeMessage(message)}`).then(
      (text) => this.deliverJson(message, text),
      (err: unknown) => this.jsonBodyFailed(err, message, request),
    );
  }

  private async refuseContentType(message: unknown, res: Response, type: string): Promise<never> {
    await drain(res);
    throw new HttpTransportError(`the server answered ${describeMessage(message)} with content type ${excerptText(type, 60)}, not JSON or an event stream`, {
      code: 'EPROTO',
      url: this.o.shownUrl,
      label: this.o.label,
    });
  }

  /** A JSON answer's text: its message delivered (false: the request does not stream). */
  private deliverJson(message: unknown, text: string): boolean {
    if (text.length === 0) return false;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.warningEmitter.fire({ message: `the answer to ${describeMessage(message)} is not valid JSON`, excerpt: excerptText(text) });
      throw new HttpTransportError(`the server answered ${describeMessage(message)} with invalid JSON`, {
        code: 'EPROTO',
        url: this.o.shownUrl,
        label: this.o.label,
      });
    }
    // With the text's length: the connection skips its nesting walk for a short answer (#21).
    this.messageEmitter.fire(value, text.length);
    return false;
  }

  /** A JSON body, read to maxMessageBytes at most (then cancelled, and the request fails with the size seen). */
  private readJsonBody(message: unknown, res: Response, request: RequestAbort): Promise<string> {
    return readTextLimited(res, this.o.maxMessageBytes, `the answer to ${describeMessage(message)}`).then(undefined, (err: unknown) => this.jsonBodyFailed(err, message, request));
  }

  /**
   * A JSON body could not be read: past the limit, the warning and the size error; given up
   * (closed, timed out), the closed error; otherwise the server broke its answer off.
   */
  private jsonBodyFailed(err: unknown, message: unknown, request: RequestAbort): never {
    if (err instanceof BodyTooLargeError) {
      this.warningEmitter.fire({ message: `${err.message}; it was dropped` });
      throw tooLargeError(this.o, err);
    }
    if (request.signal.aborted || err instanceof HttpTransportError) throw err;
    throw new HttpTransportError(`the server broke off its answer to ${describeMessage(message)} (POST ${this.o.shownUrl}: ${streamFailureText(err)})`, {
      code: 'EPROTO',
      url: this.o.shownUrl,
      label: this.o.label,
      cause: err,
    });
  }

  /**
   * A 4xx whose body is the JSON-RPC error answering this request: delivered as that answer.
   * Otherwise the error for the status, with the start of the body read here.
   */
  private async deliverErrorAnswer(message: unknown, res: Response, request: RequestAbort): Promise<HttpTransportError | undefined> {
    const ids = requestIds(message);
    if (ids.length !== 1 || !/json/i.test(res.headers.get('content-type') ?? '')) return statusError(this.o, 'POST', res, describeMessage(message));
    const text = await this.readJsonBody(message, res, request);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return statusErrorOf(this.o, 'POST', res, text.slice(0, ERROR_EXCERPT_BYTES), describeMessage(message));
    }
    const answer = value as { id?: unknown; error?: unknown };
    if (answer === null || typeof answer !== 'object' || answer.id !== ids[0] || typeof answer.error !== 'object') {
      return statusErrorOf(this.o, 'POST', res, text.slice(0, ERROR_EXCERPT_BYTES), describeMessage(message));
    }
    this.messageEmitter.fire(value);
    return undefined;
  }

  private postFailedOnNetwork(err: HttpTransportError): void {
    this.lastPostFailedOnNetwork = true;
    if (this.streams.isGetConnected) return;
    // After the caller's rejection is handled, so requests fail with the send error first.
    setImmediate(() => this.lose(err.detail, err));
  }

  // --- close ------------------------------------------------------------------------

  private stopEverything(): void {
    this.stopped = true;
    this.controller?.abort();
    for (const request of this.inFlight.keys()) request.abort();
    this.inFlight.clear();
    this.streams.stop();
  }

  /** DELETE the session (405 means the server keeps it; fine), then report the close. */
  private async finishClose(): Promise<void> {
    await this.session.end();
    this.phase = 'closed';
    this.closeEmitter.fire({ reason: 'closed by the client', expected: true });
    this.resolveDone();
    this.disposeEmitters();
  }

  /** The server is gone (see the comment at the top): close without a DELETE. */
  private lose(reason: string, error?: Error): void {
    if (this.phase !== 'open') return;
    this.phase = 'closed';
    this.stopEverything();
    this.closeEmitter.fire(error ? { reason, expected: false, error } : { reason, expected: false });
    this.resolveDone();
    this.disposeEmitters();
  }

  private internalError(err: unknown): void {
    this.warningEmitter.fire({ message: `internal error in the HTTP transport: ${errorMessage(err)}` });
  }

  private disposeEmitters(): void {
    this.messageEmitter.dispose();
    this.closeEmitter.dispose();
    this.warningEmitter.dispose();
    this.logEmitter.dispose();
  }

  private notOpenError(): HttpTransportError {
    return this.phase === 'new'
      ? new HttpTransportError('the transport is not started', { code: 'ENOTSTARTED', url: this.o.shownUrl, label: this.o.label })
      : closedError(this.o);
  }
}

/** Whether a batch carries a request (whose answer may take long: no acceptance deadline then). */
function carriesRequests(message: unknown): boolean {
  return Array.isArray(message) && requestIds(message).length > 0;
}

/** What acceptAnswer resolves with: whether an SSE stream now owns the request (one promise each, shared: #21). */
const STREAMING = Promise.resolve(true);
const NOT_STREAMING = Promise.resolve(false);
