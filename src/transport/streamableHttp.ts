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
 */
import { Emitter, HotEmitter, type Event } from '../util/event';
import type { EventSourceMessage } from 'eventsource-parser';
import {
  DELETE_TIMEOUT_MS,
  HttpTransportError,
  SseLimitError,
  closedError,
  drain,
  excerptText,
  fetchWithAuth,
  isEventStream,
  isNetworkError,
  manyListenerController,
  readEventStream,
  resolveHttpOptions,
  statusError,
  statusErrorOf,
  streamFailureText,
  tooLargeError,
  type HttpTransportOptions,
  type ResolvedHttpOptions,
  type SseSink,
} from './httpShared';
import type { Transport, TransportCloseInfo, TransportWarning } from './transport';
import { oversizeNotice } from './framing';
import { BodyTooLargeError, ERROR_EXCERPT_BYTES, readTextLimited } from './httpBody';
import { encodeHeaderValue, paramHeaderValues, paramHeadersOf, type ParamHeader } from './paramHeaders';
import { errorMessage } from '../util/errorMessage';

type RequestId = string | number;
type Phase = 'new' | 'open' | 'closing' | 'closed';

/** The JSON-RPC error code given to requests whose answer stream was lost. */
export const STREAM_LOST_ERROR_CODE = -32000;

const JSON_AND_SSE = 'application/json, text/event-stream';
/** Visible ASCII, as the spec requires of session ids (and as HTTP header values allow). */
const SESSION_ID_PATTERN = /^[\x21-\x7E]+$/;

/** One SSE stream (a POST's answer, or the GET stream) across its reconnections. */
interface StreamState {
  readonly kind: 'post' | 'get';
  /** Requests whose answers this stream is to carry (POST streams); emptied as they arrive. */
  readonly waiting: RequestId[];
  readonly signal: AbortSignal;
  /** Aborts this stream alone (the GET stream, when a session is replaced). */
  readonly controller: AbortController | undefined;
  lastEventId: string | undefined;
  /** The server's `retry:` in ms. */
  retryMs: number | undefined;
  /** Consecutive reconnect attempts; reset once a connection delivers an event. */
  attempts: number;
  sawEvent: boolean;
  sink: SseSink;
  /** Consumes a message instead of emitting it (the answer to our own initialize). */
  intercept: ((message: unknown) => boolean) | undefined;
}

interface Sleeper {
  readonly timer: NodeJS.Timeout;
  readonly resolve: (completed: boolean) => void;
}

export class StreamableHttpTransport implements Transport {
  private readonly messageEmitter = new HotEmitter<unknown>();
  private readonly closeEmitter = new Emitter<TransportCloseInfo>();
  private readonly warningEmitter = new Emitter<TransportWarning>();
  private readonly logEmitter = new Emitter<string>();

  readonly onMessage: Event<unknown> = this.messageEmitter.event;
  readonly onClose: Event<TransportCloseInfo> = this.closeEmitter.event;
  readonly onWarning: Event<TransportWarning> = this.warningEmitter.event;
  readonly onLog: Event<string> = this.logEmitter.event;

  private readonly o: ResolvedHttpOptions;
  /** Aborts every fetch and stream at close. */
  private readonly controller = manyListenerController();
  /**
   * One controller per POST (and its SSE answer), aborted at close with the shared one. Passing
   * the shared signal to every fetch costs O(listeners) per request: undici adds an abort
   * listener per fetch that goes only when the request is garbage-collected, and EventTarget
   * scans its listeners on each add (and getMaxListeners throws on setMaxListeners(0) signals).
   */
  private readonly inFlight = new Set<AbortController>();
  private phase: Phase = 'new';
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private modern = false;
  /** The x-mcp-header annotations of the listed tools that have any (registerTool). */
  private readonly toolHeaders = new Map<string, readonly ParamHeader[]>();
  /** Headers of every POST; rebuilt when the session or version changes, shared otherwise. */
  private postHeaders: Record<string, string>;
  /** The client's initialize request, replayed when the session expires. */
  private initializeMessage: Record<string, unknown> | undefined;
  /** notifications/initialized was accepted: the GET stream is opened then. */
  private handshakeDone = false;
  private getStream: StreamState | undefined;
  /** The server answered the GET with 405: it sends nothing on its own. */
  private getUnsupported = false;
  private getConnected = false;
  private lastPostFailedOnNetwork = false;
  /** Requests whose answers are awaited on a POST's SSE stream, and that stream. */
  private readonly streamOf = new Map<RequestId, StreamState>();
  private renewal: Promise<void> | undefined;
  private renewals = 0;
  private readonly sleepers = new Set<Sleeper>();
  private deleteController: AbortController | undefined;
  private resolveDone!: () => void;
  private readonly done = new Promise<void>((resolve) => {
    this.resolveDone = resolve;
  });

  constructor(options: HttpTransportOptions) {
    this.o = resolveHttpOptions(options);
    this.postHeaders = this.buildPostHeaders();
  }

  get isClosed(): boolean {
    return this.phase === 'closing' || this.phase === 'closed';
  }

  /** The session id the server assigned, if any (for tests and diagnostics; never logged). */
  get currentSessionId(): string | undefined {
    return this.sessionId;
  }

  /** Nothing to connect: the first POST (initialize) is the first contact. */
  start(): Promise<void> {
    if (this.phase === 'new') this.phase = 'open';
    if (this.phase !== 'open') return Promise.reject(closedError(this.o));
    return Promise.resolve();
  }

  setProtocolVersion(version: string | undefined): void {
    this.protocolVersion = version;
    // 2026-07-28 and later mirror the method and name into headers and answer errors with 4xx.
    this.modern = version !== undefined && version >= '2026-07-28';
    this.postHeaders = this.buildPostHeaders();
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

  async send(message: unknown): Promise<void> {
    if (this.phase !== 'open') throw this.notOpenError();
    const body = JSON.stringify(message);
    if (!this.handshakeDone && isMethod(message, 'initialize')) this.initializeMessage = message as Record<string, unknown>;
    if (this.streamOf.size > 0 && isMethod(message, 'notifications/cancelled')) this.forget(message);
    if (this.renewal !== undefined) await this.renewal;
    await this.post(message, body, true);
  }

  close(): Promise<void> {
    switch (this.phase) {
      case 'closed':
        return this.done;
      case 'closing':
        // Second close: do not wait for the DELETE.
        this.deleteController?.abort();
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

  private async post(message: unknown, body: string, mayRenew: boolean): Promise<void> {
    const sentSession = this.sessionId;
    const request = new AbortController();
    // Closed while this waited (for a session renewal): fail at once, as the shared signal did.
    if (this.controller.signal.aborted) request.abort();
    this.inFlight.add(request);
    let res: Response;
    try {
      const headers = this.modern ? { ...this.postHeaders, ...mirroredHeaders(message), ...this.paramHeaders(message) } : this.postHeaders;
      res = await fetchWithAuth(this.o, 'POST', this.o.href, headers, body, request.signal);
    } catch (err) {
      this.inFlight.delete(request);
      if (isNetworkError(err)) this.postFailedOnNetwork(err as HttpTransportError);
      throw err;
    }
    let streaming = false;
    try {
      this.lastPostFailedOnNetwork = false;
      const status = res.status;
      if (status >= 200 && status < 300) {
        if (status !== 202 && status !== 204) streaming = await this.acceptAnswer(message, res, request);
        else await drain(res);
        if (!this.handshakeDone && isMethod(message, 'notifications/initialized')) {
          this.handshakeDone = true;
          this.openGetStream();
        }
        return;
      }
      if (status === 404 && sentSession !== undefined && this.initializeMessage !== undefined) {
        if (!mayRenew) {
          throw await statusError(this.o, 'POST', res, describeMessage(message), 'the new session expired at once; the server may be restarting');
        }
        await drain(res);
        await this.renewSession(sentSession);
        return this.post(message, body, false);
      }
      // A modern server answers -32022, -32021, -32020 and unknown methods with 4xx and a JSON-RPC error.
      if (this.modern && status >= 400 && status < 500) {
        const error = await this.deliverErrorAnswer(message, res);
        if (error === undefined) return;
        throw error;
      }
      throw await statusError(this.o, 'POST', res, describeMessage(message));
    } finally {
      if (!streaming) this.inFlight.delete(request);
    }
  }

  /** A 2xx with a body: one JSON value, or an SSE stream read in the background (then true: the stream owns `request`). */
  private async acceptAnswer(message: unknown, res: Response, request: AbortController): Promise<boolean> {
    if (this.initializeMessage === message) this.captureSession(res);
    const type = res.headers.get('content-type');
    if (isEventStream(type)) {
      const state = this.newStream('post', requestIds(message), request.signal, undefined);
      for (const id of state.waiting) this.streamOf.set(id, state);
      this.runStream(state, res).then(
        () => this.inFlight.delete(request),
        (err: unknown) => {
          this.inFlight.delete(request);
          this.internalError(err);
        },
      );
      return true;
    }
    if (type !== null && !/json/i.test(type)) {
      await drain(res);
      throw new HttpTransportError(`the server answered ${describeMessage(message)} with content type ${excerptText(type, 60)}, not JSON or an event stream`, {
        code: 'EPROTO',
        url: this.o.shownUrl,
        label: this.o.label,
      });
    }
    const text = await this.readJsonBody(message, res);
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
    this.messageEmitter.fire(value);
    return false;
  }

  /** A JSON body, read to maxMessageBytes at most (then cancelled, and the request fails with the size seen). */
  private async readJsonBody(message: unknown, res: Response): Promise<string> {
    try {
      return await readTextLimited(res, this.o.maxMessageBytes, `the answer to ${describeMessage(message)}`);
    } catch (err) {
      if (!(err instanceof BodyTooLargeError)) throw err;
      this.warningEmitter.fire({ message: `${err.message}; it was dropped` });
      throw tooLargeError(this.o, err);
    }
  }

  /**
   * A 4xx whose body is the JSON-RPC error answering this request: delivered as that answer.
   * Otherwise the error for the status, with the start of the body read here.
   */
  private async deliverErrorAnswer(message: unknown, res: Response): Promise<HttpTransportError | undefined> {
    const ids = requestIds(message);
    if (ids.length !== 1 || !/json/i.test(res.headers.get('content-type') ?? '')) return statusError(this.o, 'POST', res, describeMessage(message));
    const text = await this.readJsonBody(message, res);
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

  private captureSession(res: Response): void {
    const id = res.headers.get('mcp-session-id');
    if (id === null) return;
    if (!SESSION_ID_PATTERN.test(id)) {
      this.warningEmitter.fire({ message: 'ignored an Mcp-Session-Id header with characters outside visible ASCII' });
      return;
    }
    this.sessionId = id;
    this.postHeaders = this.buildPostHeaders();
  }

  private postFailedOnNetwork(err: HttpTransportError): void {
    this.lastPostFailedOnNetwork = true;
    if (this.getConnected) return;
    // After the caller's rejection is handled, so requests fail with the send error first.
    setImmediate(() => this.lose(err.detail, err));
  }

  // --- session renewal ---------------------------------------------------------------

  private renewSession(expired: string): Promise<void> {
    if (this.renewal !== undefined) return this.renewal;
    // Another request has renewed it already.
    if (this.sessionId !== expired) return Promise.resolve();
    const renewal = this.startNewSession().then(
      () => {
        this.renewal = undefined;
      },
      (err: unknown) => {
        this.renewal = undefined;
        const error = err instanceof Error ? err : new Error(String(err));
        const detail = err instanceof HttpTransportError ? err.detail : error.message;
        setImmediate(() => this.lose(`the session expired and a new one could not be started: ${detail}`, error));
        throw error;
      },
    );
    this.renewal = renewal;
    return renewal;
  }

  /** Replays the client's initialize under an id of our own, then notifications/initialized. */
  private async startNewSession(): Promise<void> {
    this.logEmitter.fire(`${this.o.label}: the session expired (HTTP 404 for its session id); starting a new session`);
    const hadGetStream = this.getStream !== undefined;
    this.stopGetStream();
    const version = this.protocolVersion;
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    this.postHeaders = this.buildPostHeaders();
    const id = `mcp-host-session-${++this.renewals}`;
    const res = await fetchWithAuth(
      this.o,
      'POST',
      this.o.href,
      this.postHeaders,
      JSON.stringify({ ...this.initializeMessage, id }),
      this.controller.signal,
    );
    if (!res.ok) throw await statusError(this.o, 'POST', res, 'initialize for a new session');
    this.captureSession(res);
    const answer = (await this.ownAnswer(res, id)) as { result?: { protocolVersion?: unknown }; error?: { message?: unknown } };
    if (answer.error !== undefined || answer.result === undefined) {
      throw new HttpTransportError(`the server refused a new session: ${excerptText(String(answer.error?.message ?? 'no result'))}`, {
        code: 'EPROTO',
        url: this.o.shownUrl,
        label: this.o.label,
      });
    }
    if (version !== undefined && answer.result.protocolVersion !== version) {
      throw new HttpTransportError(`the new session negotiated protocol version ${String(answer.result.protocolVersion)} instead of ${version}`, {
        code: 'EPROTO',
        url: this.o.shownUrl,
        label: this.o.label,
      });
    }
    this.protocolVersion = version;
    this.postHeaders = this.buildPostHeaders();
    const ack = await fetchWithAuth(
      this.o,
      'POST',
      this.o.href,
      this.postHeaders,
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      this.controller.signal,
    );
    if (!ack.ok) throw await statusError(this.o, 'POST', ack, 'notifications/initialized for a new session');
    await drain(ack);
    this.logEmitter.fire(`${this.o.label}: started a new session`);
    if (hadGetStream) this.openGetStream();
  }

  /** The answer to our own request `id`, from a JSON body or an SSE stream. */
  private ownAnswer(res: Response, id: string): Promise<unknown> {
    if (!isEventStream(res.headers.get('content-type'))) {
      return readTextLimited(res, this.o.maxMessageBytes, 'the answer to initialize for a new session').then((text) => {
        const value: unknown = JSON.parse(text);
        const answer = Array.isArray(value) ? value.find((m) => isResponseTo(m, id)) : value;
        if (!isResponseTo(answer, id)) throw new Error('the server did not answer initialize');
        return answer;
      });
    }
    return new Promise<unknown>((resolve, reject) => {
      const state = this.newStream('post', [], this.controller.signal, undefined);
      state.intercept = (message) => {
        if (!isResponseTo(message, id)) return false;
        resolve(message);
        return true;
      };
      readEventStream(res.body!, state.sink, this.parserLimit()).then(
        () => reject(new Error('the server ended the stream before answering initialize')),
        reject,
      );
    });
  }

  // --- SSE streams -------------------------------------------------------------------

  private newStream(kind: 'post' | 'get', waiting: RequestId[], signal: AbortSignal, controller: AbortController | undefined): StreamState {
    const state: StreamState = {
      kind,
      waiting,
      signal,
      controller,
      lastEventId: undefined,
      retryMs: undefined,
      attempts: 0,
      sawEvent: false,
      sink: undefined as unknown as SseSink,
      intercept: undefined,
    };
    state.sink = {
      onEvent: (event) => this.handleEvent(event, state),
      onRetry: (ms) => {
        state.retryMs = ms;
      },
    };
    return state;
  }

  private openGetStream(): void {
    if (this.getUnsupported || this.phase !== 'open' || this.getStream !== undefined) return;
    const controller = manyListenerController();
    const state = this.newStream('get', [], controller.signal, controller);
    this.getStream = state;
    this.runStream(state, undefined).then(undefined, (err: unknown) => this.internalError(err));
  }

  private stopGetStream(): void {
    const state = this.getStream;
    if (state === undefined) return;
    this.getStream = undefined;
    this.getConnected = false;
    state.controller?.abort();
  }

  private stopped(state: StreamState): boolean {
    return this.phase !== 'open' || state.signal.aborted;
  }

  /**
   * Reads a stream (starting with `first`, a POST's answer, or by connecting a GET) and
   * reconnects it with Last-Event-ID as long as it owes answers (POST) or the transport is open
   * (GET), waiting `retry:` or a doubling delay, until the attempts run out.
   */
  private async runStream(state: StreamState, first: Response | undefined): Promise<void> {
    let res = first;
    let connectNow = state.kind === 'get';
    let problem = 'the server ended the stream';
    let network = false;
    for (;;) {
      if (res !== undefined) {
        state.sawEvent = false;
        if (state.kind === 'get') this.getConnected = true;
        let failure: unknown;
        try {
          await readEventStream(res.body!, state.sink, this.parserLimit());
        } catch (err) {
          failure = err;
        }
        res = undefined;
        if (state.kind === 'get' && this.getStream === state) this.getConnected = false;
        if (this.stopped(state)) return;
        if (failure instanceof SseLimitError) {
          this.warningEmitter.fire({ message: `${failure.message}; the stream was dropped` });
          this.giveUp(state, failure.message, false);
          return;
        }
        if (state.kind === 'post' && state.waiting.length === 0) return;
        if (state.sawEvent) state.attempts = 0;
        problem = failure === undefined ? 'the server ended the stream' : `the stream broke (${streamFailureText(failure)})`;
        network = failure !== undefined;
      }
      if (state.kind === 'post' && state.lastEventId === undefined) {
        this.giveUp(state, `${problem} before the answer arrived, and sent no event id to resume from`, network);
        return;
      }
      if (!connectNow) {
        if (state.attempts >= this.o.maxAttempts) {
          this.giveUp(state, `${problem}; ${state.attempts} attempts to reconnect failed`, network);
          return;
        }
        const delay = state.retryMs ?? Math.min(this.o.initialDelayMs * 2 ** state.attempts, this.o.maxDelayMs);
        state.attempts++;
        if (!(await this.sleep(delay)) || this.stopped(state)) return;
      }
      connectNow = false;
      try {
        res = await fetchWithAuth(this.o, 'GET', this.o.href, this.getHeaders(state.lastEventId), undefined, state.signal);
      } catch (err) {
        if (this.stopped(state)) return;
        problem = `GET failed: ${err instanceof HttpTransportError ? err.detail : errorMessage(err)}`;
        network = isNetworkError(err);
        if (!(err instanceof HttpTransportError)) {
          // Authorization that needs a person: no point retrying on our own.
          this.giveUp(state, problem, false);
          return;
        }
        continue;
      }
      if (res.status === 405 && state.kind === 'get') {
        await drain(res);
        this.getUnsupported = true;
        this.getStream = undefined;
        this.logEmitter.fire(`${this.o.label}: the server offers no event stream for messages of its own (GET answered 405)`);
        return;
      }
      const type = res.headers.get('content-type');
      if (!res.ok || !isEventStream(type)) {
        problem = res.ok ? `GET answered ${type ?? 'no content type'} instead of an event stream` : `GET answered HTTP ${res.status}`;
        network = false;
        await drain(res);
        res = undefined;
      }
    }
  }

  private handleEvent(event: EventSourceMessage, state: StreamState): void {
    if (event.id !== undefined) state.lastEventId = event.id === '' ? undefined : event.id;
    state.sawEvent = true;
    if (event.event !== undefined && event.event !== 'message') return;
    const data = event.data;
    // The priming event (an id and empty data) carries no message.
    if (data === '' || data.trim() === '') return;
    if (data.length > this.o.maxMessageBytes && Buffer.byteLength(data) > this.o.maxMessageBytes) {
      const text = `an SSE message is larger than the limit of ${this.o.maxMessageBytes} bytes`;
      // On a POST's stream it is most likely the answer: fail its requests rather than let them hang.
      if (state.waiting.length > 0) throw new SseLimitError(text);
      // oversize: the request it answers (if any) fails now, not at its timeout.
      this.warningEmitter.fire({ message: `${text}; it was dropped`, oversize: oversizeNotice(data, this.o.maxMessageBytes) });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      this.warningEmitter.fire({ message: 'ignored an SSE event whose data is not valid JSON', excerpt: excerptText(data) });
      return;
    }
    if (state.waiting.length > 0) {
      if (Array.isArray(value)) for (const member of value) this.markAnswered(state, member);
      else this.markAnswered(state, value);
    }
    if (state.intercept !== undefined && state.intercept(value)) return;
    this.messageEmitter.fire(value);
  }

  /** A stream cannot be resumed: its requests fail now rather than at their timeout. */
  private giveUp(state: StreamState, reason: string, network: boolean): void {
    if (state.kind === 'post') {
      const ids = state.waiting.splice(0, state.waiting.length);
      for (const id of ids) {
        this.streamOf.delete(id);
        this.messageEmitter.fire({
          jsonrpc: '2.0',
          id,
          error: { code: STREAM_LOST_ERROR_CODE, message: `${this.o.label}: the event stream carrying the answer was lost (${reason})` },
        });
      }
      return;
    }
    if (this.getStream !== state) return;
    this.getStream = undefined;
    this.logEmitter.fire(`${this.o.label}: the server's event stream (GET) is gone (${reason}); messages the server sends on its own will not arrive`);
    if (network || this.lastPostFailedOnNetwork) this.lose(`cannot reach ${this.o.shownUrl}: ${reason}`);
  }

  private markAnswered(state: StreamState, message: unknown): void {
    if (typeof message !== 'object' || message === null || 'method' in message) return;
    const id = (message as { id?: unknown }).id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const index = state.waiting.indexOf(id);
    if (index < 0) return;
    state.waiting.splice(index, 1);
    this.streamOf.delete(id);
  }

  /**
   * The client cancelled a request (or gave up on it): the server may end its stream without an
   * answer, and that stream must then not be resumed for it.
   */
  private forget(message: unknown): void {
    const id = (message as { params?: { requestId?: unknown } }).params?.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const state = this.streamOf.get(id);
    if (state === undefined) return;
    this.streamOf.delete(id);
    const index = state.waiting.indexOf(id);
    if (index >= 0) state.waiting.splice(index, 1);
  }

  private parserLimit(): number {
    // Room for the field names and line breaks around one message.
    return this.o.maxMessageBytes + 4096;
  }

  /** Resolves true after `ms`, or false at once when the transport closes. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      if (this.phase !== 'open') {
        resolve(false);
        return;
      }
      const sleeper: Sleeper = {
        timer: setTimeout(() => {
          this.sleepers.delete(sleeper);
          resolve(true);
        }, ms),
        resolve,
      };
      this.sleepers.add(sleeper);
    });
  }

  // --- close ------------------------------------------------------------------------

  private stopEverything(): void {
    this.controller.abort();
    for (const request of this.inFlight) request.abort();
    this.inFlight.clear();
    this.stopGetStream();
    for (const sleeper of this.sleepers) {
      clearTimeout(sleeper.timer);
      sleeper.resolve(false);
    }
    this.sleepers.clear();
  }

  /** DELETE the session (405 means the server keeps it; fine), then report the close. */
  private async finishClose(): Promise<void> {
    const session = this.sessionId;
    if (session !== undefined) {
      const controller = (this.deleteController = new AbortController());
      const timer = setTimeout(() => controller.abort(), DELETE_TIMEOUT_MS);
      try {
        const headers: Record<string, string> = { ...this.o.headers, 'mcp-session-id': session };
        if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion;
        const res = await fetchWithAuth(this.o, 'DELETE', this.o.href, headers, undefined, controller.signal, false);
        await drain(res);
        if (!res.ok && res.status !== 405) this.logEmitter.fire(`${this.o.label}: ending the session: DELETE answered HTTP ${res.status}`);
      } catch (err) {
        if (!controller.signal.aborted) this.logEmitter.fire(`${this.o.label}: could not end the session: ${errorMessage(err)}`);
      } finally {
        clearTimeout(timer);
      }
    }
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

  // --- headers ----------------------------------------------------------------------

  private buildPostHeaders(): Record<string, string> {
    const headers: Record<string, string> = { ...this.o.headers, accept: JSON_AND_SSE, 'content-type': 'application/json' };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion;
    return headers;
  }

  private getHeaders(lastEventId: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { ...this.o.headers, accept: 'text/event-stream' };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion;
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    return headers;
  }
}

// --- message helpers ------------------------------------------------------------------

function isMethod(message: unknown, method: string): boolean {
  return typeof message === 'object' && message !== null && (message as { method?: unknown }).method === method;
}

/** Mcp-Method and Mcp-Name (transports/streamable-http.mdx, Standard Request Headers). */
function mirroredHeaders(message: unknown): Record<string, string> {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return {};
  const { method, params } = message as { method?: unknown; params?: { name?: unknown; uri?: unknown } };
  if (typeof method !== 'string') return {};
  const headers: Record<string, string> = { 'mcp-method': method };
  const name = method === 'resources/read' ? params?.uri : method === 'tools/call' || method === 'prompts/get' ? params?.name : undefined;
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}

/** The ids of the requests in a message (one request, or a batch). */
function requestIds(message: unknown): RequestId[] {
  const ids: RequestId[] = [];
  const add = (m: unknown): void => {
    if (typeof m !== 'object' || m === null) return;
    const { id, method } = m as { id?: unknown; method?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) ids.push(id);
  };
  if (Array.isArray(message)) for (const m of message) add(m);
  else add(message);
  return ids;
}

function isResponseTo(message: unknown, id: RequestId): boolean {
  return (
    typeof message === 'object' &&
    message !== null &&
    !('method' in message) &&
    (message as { id?: unknown }).id === id &&
    ('result' in message || 'error' in message)
  );
}

/** "tools/call request", "notifications/initialized", "response": for errors, never the params. */
function describeMessage(message: unknown): string {
  if (Array.isArray(message)) return `a batch of ${message.length}`;
  if (typeof message !== 'object' || message === null) return 'the message';
  const { method, id } = message as { method?: unknown; id?: unknown };
  if (typeof method === 'string') return id === undefined ? method : `${method} request`;
  return 'a response';
}

