/**
 * Remote servers: the factory for the HTTP transports. `type: "sse"` is the legacy HTTP+SSE
 * transport; `type: "http"` is Streamable HTTP, falling back to legacy as the spec's
 * "Backwards Compatibility" section says: POST initialize; if that is answered 400, 404 or 405,
 * GET the same URL expecting an SSE stream whose first event is `endpoint`.
 */
import { Emitter, HotEmitter, type Event } from '../util/event';
import type { Disposable } from '../util/disposable';
import { HttpTransportError, resolveHttpOptions, type HttpTransportOptions, type ResolvedHttpOptions } from './httpShared';
import { endpointKeyOf, legacySseEndpoints } from './endpointMemory';
import { LegacySseTransport } from './legacySse';
import { StreamableHttpTransport } from './streamableHttp';
import type { MessageListener, Transport, TransportCloseInfo, TransportWarning } from './transport';
import { errorMessage } from '../util/errorMessage';

export {
  HttpTransportError,
  fetchWithAuth,
  displayUrl,
  MAX_AUTH_RETRIES,
  type HttpTransportOptions,
  type HttpReconnectOptions,
} from './httpShared';
export { StreamableHttpTransport, STREAM_LOST_ERROR_CODE } from './streamableHttp';
export { LegacySseTransport } from './legacySse';

/** The statuses the spec names for "this is not a Streamable HTTP endpoint". */
const LEGACY_FALLBACK_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);

/**
 * How long the event stream of an endpoint remembered as HTTP+SSE may take to name its message
 * endpoint: such a server sends that event first, at once, while a server moved to Streamable
 * HTTP may hold a session-less GET open without a word (30 s, the usual wait, would stall the start).
 */
const REMEMBERED_SSE_ENDPOINT_TIMEOUT_MS = 5_000;

/** GET statuses that say the URL is no HTTP+SSE endpoint (any more), rather than that something failed. */
const NOT_SSE_STATUSES: ReadonlySet<number> = new Set([400, 404, 405, 406, 415]);

export function createHttpTransport(kind: 'http' | 'sse', options: HttpTransportOptions): Transport {
  if (kind === 'sse') return new LegacySseTransport(options);
  return new HttpTransportWithFallback(options);
}

/**
 * Streamable HTTP until the answer to the first initialize says otherwise, then legacy SSE.
 * Events of whichever transport is in use are passed on.
 */
class HttpTransportWithFallback implements Transport {
  private readonly messageEmitter = new HotEmitter<unknown>();
  private readonly closeEmitter = new Emitter<TransportCloseInfo>();
  private readonly warningEmitter = new Emitter<TransportWarning>();
  private readonly logEmitter = new Emitter<string>();

  readonly onMessage: (listener: MessageListener) => Disposable = this.messageEmitter.event;
  readonly onClose: Event<TransportCloseInfo> = this.closeEmitter.event;
  readonly onWarning: Event<TransportWarning> = this.warningEmitter.event;
  readonly onLog: Event<string> = this.logEmitter.event;

  private readonly o: ResolvedHttpOptions;
  private inner: Transport;
  private subscriptions: Disposable[] = [];
  /** Which transport is in use is settled (by the answer to the first message). */
  private decided = false;
  private deciding: Promise<void> | undefined;
  private closeForwarded = false;
  private closing = false;
  /** The start of an endpoint remembered as HTTP+SSE (startAsRemembered), made once. */
  private starting: Promise<void> | undefined;

  constructor(private readonly options: HttpTransportOptions) {
    this.o = resolveHttpOptions(options);
    this.inner = legacySseEndpoints.has(this.endpointKey)
      ? new LegacySseTransport(options, REMEMBERED_SSE_ENDPOINT_TIMEOUT_MS)
      : new StreamableHttpTransport(options, this.o);
    this.attach(this.inner);
  }

  get isClosed(): boolean {
    return this.closing || this.inner.isClosed;
  }

  get endpointKey(): string {
    return endpointKeyOf(this.o.href);
  }

  /** Speaking HTTP+SSE, which only the legacy era has: the client sends no era probe. */
  get legacyEraOnly(): boolean {
    return this.decided && this.inner instanceof LegacySseTransport;
  }

  start(): Promise<void> {
    if (this.inner instanceof LegacySseTransport) return (this.starting ??= this.startAsRemembered(this.inner));
    return this.inner.start();
  }

  /**
   * An endpoint that spoke HTTP+SSE before (legacySseEndpoints): its stream is opened at once. If
   * the answer says it is no HTTP+SSE endpoint any more, it is forgotten and Streamable HTTP comes
   * first, as for an endpoint never met. Anything else (a sign-in needed, the network, a 5xx, a
   * close) fails the start as it is, and the memory stays.
   */
  private async startAsRemembered(legacy: LegacySseTransport): Promise<void> {
    try {
      await legacy.start();
    } catch (err) {
      if (this.closing || !isNoSseEndpointAnswer(err)) throw err;
      legacySseEndpoints.forget(this.endpointKey);
      this.logEmitter.fire(`${this.o.label}: the legacy HTTP+SSE stream it used before is not offered any more (${errorMessage(err)}); trying Streamable HTTP`);
      const streamable = new StreamableHttpTransport(this.options, this.o);
      if (!(await this.backToStreamable(legacy, streamable))) throw err;
      return streamable.start();
    }
    this.decided = true;
    this.logEmitter.fire(`${this.o.label}: using the legacy HTTP+SSE transport, as before (${this.o.shownUrl})`);
  }

  setProtocolVersion(version: string | undefined): void {
    this.inner.setProtocolVersion?.(version);
  }

  registerTool(name: string, inputSchema: unknown): string | undefined {
    return this.inner.registerTool?.(name, inputSchema);
  }

  send(message: unknown): Promise<void> {
    if (this.decided) return this.inner.send(message);
    if (this.deciding !== undefined) return this.deciding.then(() => this.inner.send(message));
    const deciding = this.decide(message);
    // Later messages wait for the decision, not for its outcome.
    this.deciding = deciding.then(
      () => undefined,
      () => undefined,
    );
    return deciding;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.inner.close();
    if (!this.closeForwarded) {
      // The transport in use never opened (a failed fallback): report the close ourselves.
      this.closeForwarded = true;
      this.closeEmitter.fire({ reason: 'closed by the client', expected: true });
    }
    this.dispose();
  }

  private async decide(message: unknown): Promise<void> {
    try {
      await this.inner.send(message);
    } catch (err) {
      const status = err instanceof HttpTransportError ? err.status : undefined;
      if (status === undefined || !LEGACY_FALLBACK_STATUSES.has(status) || !isInitialize(message) || this.closing) {
        if (isEraProbe(message) || status === undefined) {
          // The client's era probe decides nothing: the initialize that follows it does. Nor does
          // a failure without an answer (the network, a transport not started): the next message decides.
          this.deciding = undefined;
        } else this.decided = true;
        throw err;
      }
      await this.fallBack(message, status);
      return;
    }
    if (!this.decided) {
      this.decided = true;
      this.logEmitter.fire(`${this.o.label}: using the Streamable HTTP transport (${this.o.shownUrl})`);
    }
  }

  private async fallBack(message: unknown, status: number): Promise<void> {
    this.logEmitter.fire(
      `${this.o.label}: POST initialize answered HTTP ${status}, so ${this.o.shownUrl} is not a Streamable HTTP endpoint; trying the legacy HTTP+SSE transport (GET)`,
    );
    const streamable = this.inner;
    this.detach();
    const legacy = new LegacySseTransport(this.options);
    this.inner = legacy;
    this.attach(legacy);
    try {
      await legacy.start();
    } catch (err) {
      // Neither: back to Streamable HTTP, still usable, and the next message decides again. A
      // modern server refuses initialize (the era remembered as legacy was wrong): the client
      // probes it with server/discover next, over this same transport (protocol/handshake.ts).
      await this.backToStreamable(legacy, streamable);
      this.deciding = undefined;
      const why = err instanceof HttpTransportError ? err.detail : errorMessage(err);
      throw new HttpTransportError(
        `${this.o.shownUrl} is neither a Streamable HTTP endpoint (POST initialize answered HTTP ${status}) nor a legacy SSE endpoint (${why}). Check the URL.`,
        { code: err instanceof HttpTransportError ? err.code : 'EPROTO', status, url: this.o.shownUrl, label: this.o.label, cause: err },
      );
    }
    await streamable.close();
    this.decided = true;
    legacySseEndpoints.remember(this.endpointKey);
    this.logEmitter.fire(`${this.o.label}: using the legacy HTTP+SSE transport (${this.o.shownUrl})`);
    await legacy.send(message);
  }

  /**
   * A legacy transport that did not start gives way to `streamable`, in use from now on. False
   * when this transport was closed meanwhile: close() closed the legacy one, so `streamable` is
   * closed here.
   */
  private async backToStreamable(legacy: LegacySseTransport, streamable: Transport): Promise<boolean> {
    this.detach();
    await legacy.close().catch(() => undefined);
    this.inner = streamable;
    this.attach(streamable);
    if (!this.closing) return true;
    await streamable.close();
    return false;
  }

  private attach(transport: Transport): void {
    this.subscriptions = [
      transport.onMessage((value, textLength) => this.messageEmitter.fire(value, textLength)),
      transport.onWarning((warning) => this.warningEmitter.fire(warning)),
      transport.onLog((line) => this.logEmitter.fire(line)),
      transport.onClose((info) => {
        if (this.closeForwarded) return;
        this.closeForwarded = true;
        this.closeEmitter.fire(info);
      }),
    ];
  }

  private detach(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.subscriptions = [];
  }

  private dispose(): void {
    this.detach();
    this.messageEmitter.dispose();
    this.closeEmitter.dispose();
    this.warningEmitter.dispose();
    this.logEmitter.dispose();
  }
}

/** An answer that says the URL is no HTTP+SSE endpoint: a GET refused as such, or a stream that is no MCP SSE stream. */
function isNoSseEndpointAnswer(err: unknown): boolean {
  if (!(err instanceof HttpTransportError)) return false;
  return err.status !== undefined ? NOT_SSE_STATUSES.has(err.status) : err.code === 'EPROTO';
}

function isEraProbe(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'server/discover';
}

function isInitialize(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize';
}
