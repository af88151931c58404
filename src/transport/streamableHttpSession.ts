// The session of a Streamable HTTP transport: the Mcp-Session-Id the server assigns and the
// protocol version, sent as headers on every request; a new session when the server forgets
// ours (HTTP 404: the client's initialize replayed under an id of our own, then
// notifications/initialized); and DELETE to end it at close.

import { DELETE_TIMEOUT_MS, HttpTransportError, drain, fetchWithAuth, isEventStream, statusError, type ResolvedHttpOptions } from './httpShared';
import { readTextLimited } from './httpBody';
import type { ResumableStreams } from './resumableStreams';
import { isResponseTo } from './streamableHttpMessages';
import type { TransportWarning } from './transport';
import { errorMessage } from '../util/errorMessage';
import { shownServerMessage, shownServerValue } from '../util/serverText';

const JSON_AND_SSE = 'application/json, text/event-stream';
/** Visible ASCII, as the spec requires of session ids (and as HTTP header values allow). */
const SESSION_ID_PATTERN = /^[\x21-\x7E]+$/;

/** What the session needs of the transport that owns it. */
export interface SessionOwner {
  readonly o: ResolvedHttpOptions;
  /** Aborted when the transport closes (asked only when needed: most sessions never renew). */
  closeSignal(): AbortSignal;
  readonly streams: ResumableStreams;
  warn(warning: TransportWarning): void;
  log(line: string): void;
  /** The server is gone: a new session could not be started. */
  lose(reason: string, error: Error): void;
}

export class StreamableHttpSession {
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private isModern = false;
  /** Headers of every POST; rebuilt when the session or version changes, shared otherwise. */
  private headers: Record<string, string>;
  /** The client's initialize request, replayed when the session expires. */
  private initializeMessage: Record<string, unknown> | undefined;
  private renewal: Promise<void> | undefined;
  private renewals = 0;
  private deleteController: AbortController | undefined;

  constructor(private readonly owner: SessionOwner) {
    this.headers = this.buildPostHeaders();
  }

  /** The session id the server assigned, if any (never logged). */
  get id(): string | undefined {
    return this.sessionId;
  }

  /** 2026-07-28 and later: method and name mirrored into headers, errors answered with 4xx. */
  get modern(): boolean {
    return this.isModern;
  }

  get postHeaders(): Record<string, string> {
    return this.headers;
  }

  /** A renewal under way, which every POST waits for. */
  get pendingRenewal(): Promise<void> | undefined {
    return this.renewal;
  }

  /** The client's initialize is known: an expired session can be replaced. */
  get renewable(): boolean {
    return this.initializeMessage !== undefined;
  }

  isInitialize(message: unknown): boolean {
    return this.initializeMessage === message;
  }

  rememberInitialize(message: Record<string, unknown>): void {
    this.initializeMessage = message;
  }

  setProtocolVersion(version: string | undefined): void {
    // initialize clears a version no session had yet: nothing to rebuild then.
    if (version === this.protocolVersion) return;
    this.protocolVersion = version;
    this.isModern = version !== undefined && version >= '2026-07-28';
    this.headers = this.buildPostHeaders();
  }

  /** Takes the Mcp-Session-Id of the answer to initialize. */
  capture(res: Response): void {
    const id = res.headers.get('mcp-session-id');
    if (id === null) return;
    if (!SESSION_ID_PATTERN.test(id)) {
      this.owner.warn({ message: 'ignored an Mcp-Session-Id header with characters outside visible ASCII' });
      return;
    }
    this.sessionId = id;
    this.headers = this.buildPostHeaders();
  }

  /** The session `expired` was refused with 404: start a new one (once, however many requests saw it). */
  renew(expired: string): Promise<void> {
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
        setImmediate(() => this.owner.lose(`the session expired and a new one could not be started: ${detail}`, error));
        throw error;
      },
    );
    this.renewal = renewal;
    return renewal;
  }

  getHeaders(lastEventId: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { ...this.owner.o.headers, accept: 'text/event-stream' };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion;
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    return headers;
  }

  /** DELETE the session (405 means the server keeps it; fine); errors are logged only. */
  async end(): Promise<void> {
    const o = this.owner.o;
    const session = this.sessionId;
    if (session === undefined) return;
    const controller = (this.deleteController = new AbortController());
    const timer = setTimeout(() => controller.abort(), DELETE_TIMEOUT_MS);
    try {
      const headers: Record<string, string> = { ...o.headers, 'mcp-session-id': session };
      if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion;
      const res = await fetchWithAuth(o, 'DELETE', o.href, headers, undefined, controller.signal, false);
      await drain(res);
      if (!res.ok && res.status !== 405) this.owner.log(`${o.label}: ending the session: DELETE answered HTTP ${res.status}`);
    } catch (err) {
      if (!controller.signal.aborted) this.owner.log(`${o.label}: could not end the session: ${errorMessage(err)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops waiting for the DELETE (a second close). */
  abortEnd(): void {
    this.deleteController?.abort();
  }

  /**
   * Replays the client's initialize under an id of our own, then notifications/initialized; all
   * within one deadline. Every POST waits for the renewal: a server that took the replayed
   * initialize and never answered held them all for ever, and the transport never reported itself
   * lost. The deadline is acceptTimeoutMs, the transport's own bound on a POST it waits for on
   * nobody's behalf (the host's request timeouts belong to the requests waiting, not to this): a
   * server answers initialize at once, as it takes a notification at once.
   */
  private async startNewSession(): Promise<void> {
    const o = this.owner.o;
    // Its own abort, tied to the close by a listener removed after it (not AbortSignal.any, which
    // Node 20 keeps tied to the long-lived signal).
    const renewal = new AbortController();
    const closing = this.owner.closeSignal();
    const onClose = () => renewal.abort();
    if (closing.aborted) renewal.abort();
    else closing.addEventListener('abort', onClose, { once: true });
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      renewal.abort();
    }, o.acceptTimeoutMs);
    try {
      await this.replayInitialize(renewal.signal);
    } catch (err) {
      if (!late) throw err;
      throw new HttpTransportError(`the server did not answer the new session's initialize within ${o.acceptTimeoutMs} ms (POST ${o.shownUrl})`, {
        code: 'ETIMEDOUT',
        url: o.shownUrl,
        label: o.label,
        cause: err,
      });
    } finally {
      clearTimeout(timer);
      closing.removeEventListener('abort', onClose);
    }
  }

  private async replayInitialize(signal: AbortSignal): Promise<void> {
    const o = this.owner.o;
    const streams = this.owner.streams;
    this.owner.log(`${o.label}: the session expired (HTTP 404 for its session id); starting a new session`);
    streams.stopGetStream();
    const version = this.protocolVersion;
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    this.headers = this.buildPostHeaders();
    const id = `mcp-host-session-${++this.renewals}`;
    const res = await fetchWithAuth(o, 'POST', o.href, this.headers, JSON.stringify({ ...this.initializeMessage, id }), signal);
    if (!res.ok) throw await statusError(o, 'POST', res, 'initialize for a new session');
    this.capture(res);
    const answer = (await this.ownAnswer(res, id, signal)) as { result?: { protocolVersion?: unknown }; error?: { message?: unknown } };
    if (answer.error !== undefined || answer.result === undefined) {
      const message = answer.error?.message;
      throw new HttpTransportError(`the server refused a new session: ${message === undefined ? 'no result' : typeof message === 'string' ? shownServerMessage(message) : shownServerValue(message)}`, {
        code: 'EPROTO',
        url: o.shownUrl,
        label: o.label,
      });
    }
    if (version !== undefined && answer.result.protocolVersion !== version) {
      throw new HttpTransportError(`the new session negotiated protocol version ${shownServerValue(answer.result.protocolVersion)} instead of ${version}`, {
        code: 'EPROTO',
        url: o.shownUrl,
        label: o.label,
      });
    }
    this.protocolVersion = version;
    this.headers = this.buildPostHeaders();
    const ack = await fetchWithAuth(o, 'POST', o.href, this.headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}', signal);
    if (!ack.ok) throw await statusError(o, 'POST', ack, 'notifications/initialized for a new session');
    await drain(ack);
    this.owner.log(`${o.label}: started a new session`);
    // A server that forgot our session has often restarted, perhaps a new version: one that
    // refused the GET stream (405) is asked again; one whose stream was open gets it back.
    streams.reconsiderGetStream();
  }

  /** The answer to our own request `id`, from a JSON body or an SSE stream. */
  private ownAnswer(res: Response, id: string, signal: AbortSignal): Promise<unknown> {
    if (!isEventStream(res.headers.get('content-type'))) {
      return readTextLimited(res, this.owner.o.maxMessageBytes, 'the answer to initialize for a new session').then((text) => {
        const value: unknown = JSON.parse(text);
        const answer = Array.isArray(value) ? value.find((m) => isResponseTo(m, id)) : value;
        if (!isResponseTo(answer, id)) throw new Error('the server did not answer initialize');
        return answer;
      });
    }
    return this.owner.streams.readOwnAnswer(res, id, signal);
  }

  private buildPostHeaders(): Record<string, string> {
    const headers: Record<string, string> = { ...this.owner.o.headers, accept: JSON_AND_SSE, 'content-type': 'application/json' };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion;
    return headers;
  }
}
