/**
 * The legacy HTTP+SSE transport (MCP 2024-11-05): a GET opens an event stream whose first
 * event, `endpoint`, names the URL to POST messages to; everything the server says arrives as
 * `message` events on that one stream. The session lives as long as the stream: there is no
 * resumption, so a stream that ends means the server (or its session) is gone.
 */
import type { EventSourceMessage } from 'eventsource-parser';
import { Emitter, HotEmitter, type Event } from '../util/event';
import {
  HttpTransportError,
  closedError,
  displayUrl,
  drain,
  fetchWithAuth,
  takenWithin,
  isEventStream,
  manyListenerController,
  resolveHttpOptions,
  statusError,
  streamFailureText,
  type HttpTransportOptions,
  type ResolvedHttpOptions,
} from './httpShared';
import type { Transport, TransportCloseInfo, TransportWarning } from './transport';
import { NO_SSE_MESSAGE, OVERSIZE_SSE_MESSAGE, SseLimitError, readEventStream, sseMessageValue } from './sseStream';
import { oversizeNotice } from './framing';
import { describeMessage } from './streamableHttpMessages';

/** How long start() waits for the `endpoint` event. */
export const LEGACY_ENDPOINT_TIMEOUT_MS = 30_000;

/** The longest message endpoint taken from an `endpoint` event (servers and proxies refuse longer request lines anyway). */
export const MAX_ENDPOINT_CHARS = 8 * 1024;

type Phase = 'new' | 'starting' | 'open' | 'closed';

export class LegacySseTransport implements Transport {
  private readonly messageEmitter = new HotEmitter<unknown>();
  private readonly closeEmitter = new Emitter<TransportCloseInfo>();
  private readonly warningEmitter = new Emitter<TransportWarning>();
  private readonly logEmitter = new Emitter<string>();

  readonly onMessage: Event<unknown> = this.messageEmitter.event;
  readonly onClose: Event<TransportCloseInfo> = this.closeEmitter.event;
  readonly onWarning: Event<TransportWarning> = this.warningEmitter.event;
  readonly onLog: Event<string> = this.logEmitter.event;
  /** HTTP+SSE exists only in the legacy era: no server behind it answers server/discover. */
  readonly legacyEraOnly = true;

  private readonly o: ResolvedHttpOptions;
  private readonly controller = manyListenerController();
  private phase: Phase = 'new';
  private startPromise: Promise<void> | undefined;
  private endpoint: string | undefined;
  private postHeaders: Record<string, string>;
  /** Settles start() when the endpoint arrives (or the stream fails first). */
  private endpointWaiter: { resolve: () => void; reject: (err: Error) => void } | undefined;

  /** `endpointTimeoutMs`: how long start() waits for the `endpoint` event (a real HTTP+SSE server sends it first, at once). */
  constructor(
    options: HttpTransportOptions,
    private readonly endpointTimeoutMs: number = LEGACY_ENDPOINT_TIMEOUT_MS,
  ) {
    this.o = resolveHttpOptions(options);
    this.postHeaders = { ...this.o.headers, 'content-type': 'application/json' };
  }

  get isClosed(): boolean {
    return this.phase === 'closed';
  }

  /** The POST endpoint the server named (log-safe form), once known. */
  get endpointUrl(): string | undefined {
    return this.endpoint === undefined ? undefined : displayUrl(new URL(this.endpoint));
  }

  start(): Promise<void> {
    if (this.startPromise) return this.startPromise;
    if (this.phase !== 'new') return Promise.reject(closedError(this.o));
    this.phase = 'starting';
    this.startPromise = this.connect();
    return this.startPromise;
  }

  /** The 2024-11-05 protocol has no version header; nothing to do. */
  setProtocolVersion(): void {}

  async send(message: unknown): Promise<void> {
    const endpoint = this.endpoint;
    if (this.phase !== 'open' || endpoint === undefined) {
      throw this.phase === 'closed'
        ? closedError(this.o)
        : new HttpTransportError('the transport is not started', { code: 'ENOTSTARTED', url: this.o.shownUrl, label: this.o.label });
    }
    // Every POST here only waits to be taken (the answer comes on the stream): acceptTimeoutMs at
    // most. Its own abort, tied to the transport's by a listener removed after it (not
    // AbortSignal.any, which Node 20 keeps tied to the long-lived signal).
    const post = new AbortController();
    const closing = this.controller.signal;
    const onClose = () => post.abort();
    closing.addEventListener('abort', onClose, { once: true });
    try {
      await takenWithin(this.o, this.postTaken(endpoint, message, post.signal), () => post.abort(), describeMessage(message));
    } finally {
      closing.removeEventListener('abort', onClose);
    }
  }

  /** One POST to the message endpoint, taken (2xx) or the error for its status. */
  private async postTaken(endpoint: string, message: unknown, signal: AbortSignal): Promise<void> {
    const res = await fetchWithAuth(this.o, 'POST', endpoint, this.postHeaders, JSON.stringify(message), signal);
    if (res.status >= 200 && res.status < 300) {
      // The body ("Accepted") is not needed.
      await drain(res);
      return;
    }
    throw await statusError(this.o, 'POST', res, `message endpoint ${displayUrl(new URL(endpoint))}`);
  }

  close(): Promise<void> {
    if (this.phase === 'closed') return Promise.resolve();
    const wasOpen = this.phase === 'open';
    this.phase = 'closed';
    this.controller.abort();
    this.endpointWaiter?.reject(closedError(this.o));
    if (wasOpen) this.closeEmitter.fire({ reason: 'closed by the client', expected: true });
    this.disposeEmitters();
    return Promise.resolve();
  }

  // --- start -----------------------------------------------------------------------

  private async connect(): Promise<void> {
    // One deadline for the whole start: the GET's answer and then the endpoint event (a server
    // that takes the connection and never answers must not hold the start for ever).
    const endpointKnown = new Promise<void>((resolve, reject) => {
      this.endpointWaiter = { resolve, reject };
    });
    // Rejected before anyone awaits it when the GET fails first.
    endpointKnown.catch(() => undefined);
    let headersCame = false;
    const timeoutMs = this.endpointTimeoutMs;
    const timer = setTimeout(() => {
      const error = headersCame
        ? // EPROTO as for the other answers that are no HTTP+SSE endpoint's: the stream is open, it is the content that is wrong.
          new HttpTransportError(`${this.o.shownUrl} sent no "endpoint" event within ${timeoutMs} ms; this is not an MCP SSE endpoint`, {
            code: 'EPROTO',
            url: this.o.shownUrl,
            label: this.o.label,
          })
        : new HttpTransportError(`${this.o.shownUrl} did not answer the GET for its event stream within ${timeoutMs} ms`, {
            code: 'ETIMEDOUT',
            url: this.o.shownUrl,
            label: this.o.label,
          });
      this.endpointWaiter?.reject(error);
      // Ends a GET still waiting for its answer (its rejection is then this error, below).
      if (!headersCame) this.controller.abort(error);
    }, timeoutMs);
    try {
      await this.openStream(endpointKnown, () => (headersCame = true));
    } catch (err) {
      this.failStart();
      throw err;
    } finally {
      clearTimeout(timer);
      this.endpointWaiter = undefined;
    }
    this.phase = 'open';
    this.logEmitter.fire(`${this.o.label}: connected over legacy HTTP+SSE; messages go to ${displayUrl(new URL(this.endpoint!))}`);
  }

  /** The GET, its answer checked, and the stream read until `endpointKnown` settles. */
  private async openStream(endpointKnown: Promise<void>, onHeaders: () => void): Promise<void> {
    let res: Response;
    try {
      res = await fetchWithAuth(this.o, 'GET', this.o.href, { ...this.o.headers, accept: 'text/event-stream' }, undefined, this.controller.signal);
    } catch (err) {
      // The deadline's abort: its error says what happened.
      const reason: unknown = this.controller.signal.aborted ? this.controller.signal.reason : undefined;
      throw reason instanceof HttpTransportError ? reason : err;
    }
    onHeaders();
    if (!res.ok) throw await statusError(this.o, 'GET', res, 'legacy SSE stream');
    if (!isEventStream(res.headers.get('content-type'))) {
      await drain(res);
      throw new HttpTransportError(
        `GET ${this.o.shownUrl} answered ${res.headers.get('content-type') ?? 'no content type'}, not an event stream; this is not an MCP SSE endpoint`,
        { code: 'EPROTO', url: this.o.shownUrl, label: this.o.label },
      );
    }
    this.readStream(res).then(undefined, () => undefined);
    await endpointKnown;
  }

  private failStart(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.controller.abort();
    this.disposeEmitters();
  }

  /** Reads the one stream to its end; its end is the end of the session. */
  private async readStream(res: Response): Promise<void> {
    let failure: unknown;
    try {
      await readEventStream(res, { onEvent: (event) => this.handleEvent(event), onRetry: () => undefined }, this.o.maxMessageBytes + 4096);
    } catch (err) {
      failure = err;
    }
    if (failure instanceof SseLimitError) this.warningEmitter.fire({ message: `${failure.message}; the stream was dropped` });
    const why =
      failure === undefined
        ? 'the server ended the event stream'
        : `the event stream broke (${streamFailureText(failure)})`;
    if (this.endpointWaiter !== undefined) {
      this.endpointWaiter.reject(
        new HttpTransportError(`${why} before sending its "endpoint" event`, { code: 'EPROTO', url: this.o.shownUrl, label: this.o.label }),
      );
      return;
    }
    if (this.phase !== 'open') return;
    this.phase = 'closed';
    this.controller.abort();
    this.closeEmitter.fire({ reason: `${why} (${this.o.shownUrl})`, expected: false, ...(failure instanceof Error ? { error: failure } : {}) });
    this.disposeEmitters();
  }

  private handleEvent(event: EventSourceMessage): void {
    if (event.event === 'endpoint') {
      this.setEndpoint(event.data);
      return;
    }
    const value = sseMessageValue(event, this.o.maxMessageBytes, this.warn);
    if (value === NO_SSE_MESSAGE) return;
    if (value === OVERSIZE_SSE_MESSAGE) {
      // oversize: the request it answers fails now, not at its timeout.
      this.warn({ message: `dropped an SSE message larger than the limit of ${this.o.maxMessageBytes} bytes`, oversize: oversizeNotice(event.data, this.o.maxMessageBytes) });
      return;
    }
    this.messageEmitter.fire(value);
  }

  private readonly warn = (warning: TransportWarning): void => this.warningEmitter.fire(warning);

  private setEndpoint(data: string): void {
    const waiter = this.endpointWaiter;
    if (waiter === undefined) {
      this.warningEmitter.fire({ message: 'ignored a second "endpoint" event' });
      return;
    }
    const text = data.trim();
    if (text.length > MAX_ENDPOINT_CHARS) {
      // Every POST carries it in its request line (and parses it): a server's megabytes would cost each message that.
      waiter.reject(
        new HttpTransportError(`the "endpoint" event holds ${text.length} characters, more than the ${MAX_ENDPOINT_CHARS} a message endpoint may have`, {
          code: 'EPROTO',
          url: this.o.shownUrl,
          label: this.o.label,
        }),
      );
      return;
    }
    let url: URL;
    try {
      url = new URL(text, this.o.url);
    } catch {
      waiter.reject(new HttpTransportError('the "endpoint" event does not hold a URL', { code: 'EPROTO', url: this.o.shownUrl, label: this.o.label }));
      return;
    }
    if (url.origin !== this.o.url.origin) {
      // Messages (and our credentials) must not be sent anywhere but the server we were given.
      waiter.reject(
        new HttpTransportError(`the server named a message endpoint on another origin (${url.origin}); refused`, {
          code: 'EPROTO',
          url: this.o.shownUrl,
          label: this.o.label,
        }),
      );
      return;
    }
    this.endpoint = url.href;
    waiter.resolve();
  }

  private disposeEmitters(): void {
    this.messageEmitter.dispose();
    this.closeEmitter.dispose();
    this.warningEmitter.dispose();
    this.logEmitter.dispose();
  }
}
