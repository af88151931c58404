// The SSE streams of the Streamable HTTP transport: a POST's answer stream and the GET stream the
// server sends on by itself. Each is read, and resumed with Last-Event-ID after a break, as long
// as it owes answers (POST) or the transport is open (GET), waiting the server's `retry:` or a
// doubling delay until the attempts run out; a POST stream that cannot be resumed fails its
// requests at once with STREAM_LOST_ERROR_CODE rather than leaving them to their timeout.

import type { EventSourceMessage } from 'eventsource-parser';
// Reading an event stream, and connecting one again:
import { NO_SSE_MESSAGE, OVERSIZE_SSE_MESSAGE, SseLimitError, readArrivedEventStream, readEventStream, sseMessageValue, type SseSink } from './sseStream';
import { HttpTransportError, drain, excerptText, fetchWithAuth, isEventStream, isNetworkError, manyListenerController, streamFailureText, type ResolvedHttpOptions } from './httpShared';
import { oversizeNotice } from './framing';
import { isResponseTo, type RequestId } from './streamableHttpMessages';
import type { TransportWarning } from './transport';
import { errorMessage } from '../util/errorMessage';
import { getStreamMemory, type GetStreamOutcome } from './endpointMemory';
import { arrivedBodyOf } from './nodeResponse';

/** The JSON-RPC error code given to requests whose answer stream was lost. */
export const STREAM_LOST_ERROR_CODE = -32000;

/** What the streams need of the transport that owns them. */
export interface StreamOwner {
  readonly o: ResolvedHttpOptions;
  /** The transport is open: streams stop reconnecting once it is not. */
  isOpen(): boolean;
  /** `textLength`: the length of the JSON text it was parsed from (the connection skips its nesting walk for a short one). */
  deliver(message: unknown, textLength?: number): void;
  warn(warning: TransportWarning): void;
  log(line: string): void;
  internalError(err: unknown): void;
  /** The headers of a GET (session, version, and Last-Event-ID to resume from). */
  getHeaders(lastEventId: string | undefined): Record<string, string>;
  /** Whether the last POST failed at the network level (with the GET gone, the server is lost). */
  lastPostFailedOnNetwork(): boolean;
  /** The server is gone (its GET stream ended for good after a network failure). */
  lose(reason: string): void;
  /** What this process remembers the endpoint by (endpointMemory.ts), computed once by the transport. */
  endpointKey(): string;
}

/** One SSE stream (a POST's answer, or the GET stream) across its reconnections. */
interface StreamState {
  readonly kind: 'post' | 'get';
  /** Requests whose answers this stream is to carry (POST streams); emptied as they arrive. */
  readonly waiting: RequestId[];
  readonly signal: AbortSignal;
  /** Aborts this stream alone (the GET stream, when a session is replaced). */
  readonly controller: AbortController | undefined;
  /** The last event id, as Last-Event-ID sends it (lastEventIdValue). */
  lastEventId: string | undefined;
  /** The server sent an id that cannot be sent back (warned once). */
  idRefused: boolean;
  /** The server's `retry:` in ms, within MIN_RETRY_MS and the transport's maxDelayMs. */
  retryMs: number | undefined;
  /** Consecutive reconnect attempts; reset once a connection delivers an event. */
  attempts: number;
  sawEvent: boolean;
  sink: SseSink;
  /** The stream owes nothing more: reading stops (a POST's stream, once its answers arrived; a server may keep it open). */
  done: (() => boolean) | undefined;
  /** Consumes a message instead of emitting it (the answer to our own initialize). */
  intercept: ((message: unknown) => boolean) | undefined;
}

/** Why a read of a stream ended while it still owed answers (or, the GET, while the transport is open). */
interface StreamBreak {
  readonly problem: string;
  /** It broke at the network level (the server may be gone). */
  readonly network: boolean;
}

/** How long a new session waits for another to learn whether the endpoint offers the GET stream (a server may hold its headers). */
const GET_FINDING_WAIT_MS = 5_000;

function untilKnown(known: Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, GET_FINDING_WAIT_MS);
    // The wait keeps no process alive.
    timer.unref();
    void known.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The shortest reconnect delay a server's `retry:` may ask for. */
export const MIN_RETRY_MS = 100;

/** Longest event id kept to resume from (in UTF-8 bytes): it goes back to the server in a header. */
export const MAX_EVENT_ID_LENGTH = 1024;
const PLAIN_ID = /^[\t\x20-\x7e]*$/;
/** What no header value may hold (CR, LF and NUL cannot reach an id). */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/**
 * An SSE event id as the Last-Event-ID value: its UTF-8 bytes, as a browser sends it, one
 * character per byte as header values are written (node:http, and fetch's byte strings). A
 * server's id is kept only when a header can carry it: otherwise the request fails in the
 * client (ERR_INVALID_CHAR), every resume of the stream with it.
 */
function lastEventIdValue(id: string): string | undefined {
  if (id.length <= MAX_EVENT_ID_LENGTH && PLAIN_ID.test(id)) return id;
  if (CONTROL.test(id)) return undefined;
  const bytes = Buffer.from(id, 'utf8').toString('latin1');
  return bytes.length <= MAX_EVENT_ID_LENGTH ? bytes : undefined;
}

interface Sleeper {
  readonly timer: NodeJS.Timeout;
  readonly resolve: (completed: boolean) => void;
}

export class ResumableStreams {
  /** Requests whose answers are awaited on a POST's SSE stream, and that stream. */
  private readonly streamOf = new Map<RequestId, StreamState>();
  private getStream: StreamState | undefined;
  /** The server answered the GET with 405: it sends nothing on its own. */
  private getUnsupported = false;
  /** Waiting for another session of the endpoint to find out whether it offers the GET stream. */
  private getWaiting = false;
  /** This session is finding out for the others (endpointMemory.ts). */
  private getFinding: { settle(outcome: GetStreamOutcome): void } | undefined;
  private getConnected = false;
  private readonly sleepers = new Set<Sleeper>();

  constructor(private readonly owner: StreamOwner) {}

  /** A GET stream is connected: the server is there even if a POST fails on the network. */
  get isGetConnected(): boolean {
    return this.getConnected;
  }

  get hasGetStream(): boolean {
    return this.getStream !== undefined;
  }

  /** Some request's answer is awaited on a POST's stream. */
  get awaitingAnswers(): boolean {
    return this.streamOf.size > 0;
  }

  /**
   * Reads a POST's answer stream (and resumes it) until it has carried the answers to `ids`, or
   * the request or transport stopped; undefined when that was settled at once (a body that had
   * arrived whole and was read in one step).
   */
  readPostAnswer(ids: RequestId[], res: Response, signal: AbortSignal): Promise<void> | undefined {
    const state = this.newStream('post', ids, signal, undefined);
    for (const id of state.waiting) this.streamOf.set(id, state);
    const whole = arrivedBodyOf(res);
    if (whole !== undefined) return this.readArrivedPostAnswer(state, whole);
    // Performance (#21): most answer streams carry their answers and end; the reconnecting loop
    // (an async function, costly per request) is entered only when the stream still owes answers
    // (to resume it, or to fail them when it cannot be resumed).
    return this.resumeAfter(state, readEventStream(res, state.sink, this.parserLimit(), state.done));
  }

  /** Performance (#21): the usual answer, read without a promise of its own (sseStream.ts readArrivedEventStream). */
  private readArrivedPostAnswer(state: StreamState, whole: Buffer): Promise<void> | undefined {
    let failure: unknown;
    try {
      const reading = readArrivedEventStream(whole, state.sink, this.parserLimit(), state.done);
      if (reading !== undefined) return this.resumeAfter(state, reading);
    } catch (err) {
      failure = err;
    }
    try {
      return this.resumeIfOwing(state, failure);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private resumeAfter(state: StreamState, reading: Promise<void>): Promise<void> {
    return reading.then(
      () => this.resumeIfOwing(state, undefined),
      (err: unknown) => this.resumeIfOwing(state, err),
    );
  }

  private resumeIfOwing(state: StreamState, failure: unknown): Promise<void> | undefined {
    const broke = this.afterRead(state, failure);
    return broke === undefined ? undefined : this.runStream(state, broke);
  }

  /** The answer to our own request `id` on an SSE stream; everything else on it is delivered. */
  readOwnAnswer(res: Response, id: RequestId, signal: AbortSignal): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      const state = this.newStream('post', [], signal, undefined);
      let answered = false;
      state.intercept = (message) => {
        if (!isResponseTo(message, id)) return false;
        answered = true;
        resolve(message);
        return true;
      };
      readEventStream(res, state.sink, this.parserLimit(), () => answered).then(
        () => reject(new Error('the server ended the stream before answering initialize')),
        reject,
      );
    });
  }

  /**
   * Opens the optional GET stream, unless this endpoint answered a GET with 405 lately (any
   * session of this process: endpointMemory.ts). While another new session of the endpoint is
   * finding out, this one waits for its answer (asking once more only if it taught nothing).
   * Nobody waits for the GET: the session is ready without it.
   */
  openGetStream(afterWaiting = false): void {
    if (this.getUnsupported || this.getWaiting || !this.owner.isOpen() || this.getStream !== undefined) return;
    const decision = getStreamMemory.decide(this.endpointKey);
    if (decision.kind === 'skip') {
      this.getUnsupported = true;
      return;
    }
    if (decision.kind === 'wait' && !afterWaiting) {
      this.getWaiting = true;
      untilKnown(decision.known).then(() => {
        this.getWaiting = false;
        this.openGetStream(true);
      }, (err: unknown) => this.owner.internalError(err));
      return;
    }
    this.getFinding = decision.kind === 'find-out' ? decision : undefined;
    const controller = manyListenerController();
    const state = this.newStream('get', [], controller.signal, controller);
    this.getStream = state;
    this.runStream(state, undefined).then(
      () => this.settleGetFinding('unknown'),
      (err: unknown) => {
        this.settleGetFinding('unknown');
        this.owner.internalError(err);
      },
    );
  }

  /** A new session (the server may have been deployed anew): ask for the GET stream again, even after a 405. */
  reconsiderGetStream(): void {
    getStreamMemory.forgetUnsupported(this.endpointKey);
    this.getUnsupported = false;
    this.openGetStream();
  }

  private settleGetFinding(outcome: GetStreamOutcome): void {
    const finding = this.getFinding;
    this.getFinding = undefined;
    finding?.settle(outcome);
  }

  private get endpointKey(): string {
    return this.owner.endpointKey();
  }

  stopGetStream(): void {
    const state = this.getStream;
    if (state === undefined) return;
    this.getStream = undefined;
    this.getConnected = false;
    state.controller?.abort();
  }

  /** The transport closes: the GET stream stops and no reconnect waits any longer. */
  stop(): void {
    this.stopGetStream();
    for (const sleeper of this.sleepers) {
      clearTimeout(sleeper.timer);
      sleeper.resolve(false);
    }
    this.sleepers.clear();
  }

  /**
   * The client cancelled a request (or gave up on it): the server may end its stream without an
   * answer, and that stream must then not be resumed for it.
   */
  forget(message: unknown): void {
    const id = (message as { params?: { requestId?: unknown } }).params?.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const state = this.streamOf.get(id);
    if (state === undefined) return;
    this.streamOf.delete(id);
    const index = state.waiting.indexOf(id);
    if (index >= 0) state.waiting.splice(index, 1);
  }

  private newStream(kind: 'post' | 'get', waiting: RequestId[], signal: AbortSignal, controller: AbortController | undefined): StreamState {
    const state: StreamState = {
      kind,
      waiting,
      signal,
      controller,
      lastEventId: undefined,
      idRefused: false,
      retryMs: undefined,
      attempts: 0,
      sawEvent: false,
      sink: undefined as unknown as SseSink,
      done: undefined,
      intercept: undefined,
    };
    if (kind === 'post') state.done = () => state.waiting.length === 0;
    state.sink = {
      onEvent: (event) => this.handleEvent(event, state),
      onRetry: (ms) => {
        // Any decimal passes the parser: a timer clamps more than 2^31-1 ms to 1 ms, and 0 would spin.
        state.retryMs = Math.min(Math.max(ms, MIN_RETRY_MS), this.owner.o.maxDelayMs);
      },
    };
    return state;
  }

  private stopped(state: StreamState): boolean {
    return !this.owner.isOpen() || state.signal.aborted;
  }

  /**
   * Connects a stream (a GET at once; a POST's answer stream, whose first read ended as `broke`
   * says, after the wait) and reconnects it with Last-Event-ID as long as it owes answers (POST)
   * or the transport is open (GET), waiting `retry:` or a doubling delay, until the attempts run
   * out.
   */
  private async runStream(state: StreamState, broke: StreamBreak | undefined): Promise<void> {
    const o = this.owner.o;
    let res: Response | undefined;
    let connectNow = broke === undefined;
    let problem = broke?.problem ?? 'the server ended the stream';
    let network = broke?.network ?? false;
    for (;;) {
      if (res !== undefined) {
        if (state.kind === 'get') this.getConnected = true;
        let failure: unknown;
        try {
          await readEventStream(res, state.sink, this.parserLimit(), state.done);
        } catch (err) {
          failure = err;
        }
        res = undefined;
        const readBroke = this.afterRead(state, failure);
        if (readBroke === undefined) return;
        ({ problem, network } = readBroke);
      }
      if (state.kind === 'post' && state.lastEventId === undefined) {
        this.giveUp(state, `${problem} before the answer arrived, and sent no event id to resume from`, network);
        return;
      }
      if (!connectNow) {
        if (state.attempts >= o.maxAttempts) {
          this.giveUp(state, `${problem}; ${state.attempts} attempts to reconnect failed`, network);
          return;
        }
        const delay = state.retryMs ?? Math.min(o.initialDelayMs * 2 ** state.attempts, o.maxDelayMs);
        state.attempts++;
        if (!(await this.sleep(delay)) || this.stopped(state)) return;
      }
      connectNow = false;
      try {
        res = await fetchWithAuth(o, 'GET', o.href, this.owner.getHeaders(state.lastEventId), undefined, state.signal);
      } catch (err) {
        if (this.stopped(state)) return;
        problem = `GET failed: ${err instanceof HttpTransportError ? err.detail : errorMessage(err)}`;
        network = isNetworkError(err);
        if (state.kind === 'get') this.settleGetFinding('unknown');
        if (!(err instanceof HttpTransportError)) {
          // Authorization that needs a person: no point retrying on our own.
          this.giveUp(state, problem, false);
          return;
        }
        continue;
      }
      if (state.kind === 'get') this.learnGetSupport(res.status, res.headers.get('content-type'));
      if (res.status === 405 && state.kind === 'get') {
        await drain(res);
        this.getUnsupported = true;
        this.getStream = undefined;
        this.owner.log(`${o.label}: the server offers no event stream for messages of its own (GET answered 405)`);
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

  /**
   * A read of the stream has ended (`failure`: how it broke, if it did): undefined when the stream
   * is over (stopped, dropped for its size, or owing nothing more), else why it broke, for the
   * reconnect.
   */
  private afterRead(state: StreamState, failure: unknown): StreamBreak | undefined {
    if (state.kind === 'get' && this.getStream === state) this.getConnected = false;
    if (this.stopped(state)) return undefined;
    if (failure instanceof SseLimitError) {
      this.owner.warn({ message: `${failure.message}; the stream was dropped` });
      this.giveUp(state, failure.message, false);
      return undefined;
    }
    if (state.kind === 'post' && state.waiting.length === 0) return undefined;
    if (state.sawEvent) state.attempts = 0;
    state.sawEvent = false;
    return failure === undefined
      ? { problem: 'the server ended the stream', network: false }
      : { problem: `the stream broke (${streamFailureText(failure)})`, network: true };
  }

  /** What a GET's answer tells the other sessions of the endpoint: 405, or a stream. */
  private learnGetSupport(status: number, contentType: string | null): void {
    if (status === 405) {
      if (this.getFinding === undefined) getStreamMemory.rememberUnsupported(this.endpointKey);
      this.settleGetFinding('unsupported');
    } else if (status >= 200 && status < 300 && isEventStream(contentType)) this.settleGetFinding('supported');
    // Anything else (5xx, a wrong type) says nothing either way: the others need not wait for the retries.
    else this.settleGetFinding('unknown');
  }

  private handleEvent(event: EventSourceMessage, state: StreamState): void {
    const o = this.owner.o;
    if (event.id !== undefined) state.lastEventId = event.id === '' ? undefined : this.resumableId(event.id, state);
    state.sawEvent = true;
    const value = sseMessageValue(event, o.maxMessageBytes, this.owner.warn);
    if (value === NO_SSE_MESSAGE) return;
    if (value === OVERSIZE_SSE_MESSAGE) {
      const text = `an SSE message is larger than the limit of ${o.maxMessageBytes} bytes`;
      // On a POST's stream it is most likely the answer: fail its requests rather than let them hang.
      if (state.waiting.length > 0) throw new SseLimitError(text);
      // oversize: the request it answers (if any) fails now, not at its timeout.
      this.owner.warn({ message: `${text}; it was dropped`, oversize: oversizeNotice(event.data, o.maxMessageBytes) });
      return;
    }
    if (state.waiting.length > 0) {
      if (Array.isArray(value)) for (const member of value) this.markAnswered(state, member);
      else this.markAnswered(state, value);
    }
    if (state.intercept !== undefined && state.intercept(value)) return;
    this.owner.deliver(value, event.data.length);
  }

  /** `id` as Last-Event-ID will carry it, or undefined (warned once per stream) when a header cannot. */
  private resumableId(id: string, state: StreamState): string | undefined {
    const value = lastEventIdValue(id);
    if (value === undefined && !state.idRefused) {
      state.idRefused = true;
      this.owner.warn({
        message: `the server's event id cannot be sent back (it has control characters or is longer than ${MAX_EVENT_ID_LENGTH} bytes): its event stream cannot be resumed after a break`,
        excerpt: excerptText(id.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)),
      });
    }
    return value;
  }

  /** A stream cannot be resumed: its requests fail now rather than at their timeout. */
  private giveUp(state: StreamState, reason: string, network: boolean): void {
    const o = this.owner.o;
    if (state.kind === 'post') {
      const ids = state.waiting.splice(0, state.waiting.length);
      for (const id of ids) {
        this.streamOf.delete(id);
        this.owner.deliver({
          jsonrpc: '2.0',
          id,
          error: { code: STREAM_LOST_ERROR_CODE, message: `${o.label}: the event stream carrying the answer was lost (${reason})` },
        });
      }
      return;
    }
    if (this.getStream !== state) return;
    this.getStream = undefined;
    this.owner.log(`${o.label}: the server's event stream (GET) is gone (${reason}); messages the server sends on its own will not arrive`);
    if (network || this.owner.lastPostFailedOnNetwork()) this.owner.lose(`cannot reach ${o.shownUrl}: ${reason}`);
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

  private parserLimit(): number {
    // Room for the field names and line breaks around one message.
    return this.owner.o.maxMessageBytes + 4096;
  }

  /** Resolves true after `ms`, or false at once when the transport closes. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      if (!this.owner.isOpen()) {
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
}
