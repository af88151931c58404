import type { JsonRpcConnection } from './connection';
import { errorMessage } from '../util/errorMessage';
import { McpError, RequestCancelledError, ConnectionClosedError, ErrorCode } from './errors';
import { MetaKey } from './era';
import { SubscriptionsAcknowledgedParamsSchema, type SubscriptionFilter } from './schemas';
import type { Disposable } from '../util/disposable';
import type { Logger } from '../util/logger';
import { withTimeout } from '../util/withTimeout';

/** A listen stream lasts as long as the connection; the connection's timer needs a finite number. */
const LISTEN_TIMEOUT_MS = 2_000_000_000;

export interface ListenOptions {
  label: string;
  logger: Logger;
  /** The list-change kinds the server offers (from its capabilities). */
  lists: Pick<SubscriptionFilter, 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'>;
  /** The `_meta` every modern request carries. */
  meta: () => Record<string, unknown>;
  /** How long to wait for `notifications/subscriptions/acknowledged`. */
  ackTimeoutMs: number;
}

interface Stream {
  id: number | undefined;
  controller: AbortController;
  filter: SubscriptionFilter;
  acknowledged: boolean;
  ack: { resolve: () => void; reject: (err: Error) => void };
  acked: Promise<void>;
  ended: boolean;
}

/**
 * `subscriptions/listen` (basic/patterns/subscriptions.mdx): one listen stream per connection
 * carries list changes and resource updates. Changing the subscribed resources opens a stream
 * with the new filter and, once the server has acknowledged it, cancels the old one (so no
 * notification falls between the two). Notifications are accepted only when their
 * `subscriptionId` names one of our live streams.
 */
export class ListenSubscriptions implements Disposable {
  private readonly streams: Stream[] = [];
  private readonly desired = new Set<string>();
  private work: Promise<void> = Promise.resolve();
  private readonly disposables: Disposable[] = [];
  private closed = false;

  constructor(
    private readonly connection: JsonRpcConnection,
    private readonly options: ListenOptions,
  ) {
    this.disposables.push(
      connection.onNotification('notifications/subscriptions/acknowledged', (params) => this.acknowledged(params)),
      connection.onNotification('notifications/cancelled', (params) => this.endedByServer(params.requestId)),
    );
  }

  /** True when a notification belongs to one of our streams (its `_meta` names it). */
  owns(params: Record<string, unknown>): boolean {
    const id = subscriptionIdOf(params);
    return id !== undefined && this.streams.some((s) => s.id === id && !s.ended);
  }

  /** The resources subscribed now. */
  get resources(): string[] {
    return [...this.desired];
  }

  /** Opens the stream for list changes, if none is open. */
  ensureOpen(): Promise<void> {
    return this.enqueue(() => (this.current() ? Promise.resolve() : this.reopen()));
  }

  subscribe(uri: string): Promise<void> {
    this.desired.add(uri);
    return this.enqueue(() => this.syncResources());
  }

  unsubscribe(uri: string): Promise<void> {
    this.desired.delete(uri);
    return this.enqueue(() => this.syncResources());
  }

  /** Cancels every stream (`notifications/cancelled` on stdio; the HTTP transport closes its stream). */
  close(): void {
    this.closed = true;
    for (const stream of this.streams.splice(0)) this.cancel(stream, 'the client closed the subscription');
  }

  dispose(): void {
    this.close();
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
  }

  // --- internals -----------------------------------------------------------

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.work.then(step, step);
    this.work = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  private current(): Stream | undefined {
    const last = this.streams[this.streams.length - 1];
    return last && !last.ended ? last : undefined;
  }

  private syncResources(): Promise<void> {
    const current = this.current();
    const have = current?.filter.resourceSubscriptions ?? [];
    if (current && have.length === this.desired.size && have.every((u) => this.desired.has(u))) return Promise.resolve();
    return this.reopen();
  }

  private async reopen(): Promise<void> {
    if (this.closed) throw new McpError(ErrorCode.ConnectionClosed, `the subscriptions of ${this.options.label} are closed`);
    const filter: SubscriptionFilter = { ...this.options.lists };
    if (this.desired.size > 0) filter.resourceSubscriptions = [...this.desired];
    const previous = this.streams.filter((s) => !s.ended);
    if (Object.values(filter).every((v) => v === undefined || v === false)) {
      // Nothing left to listen for.
      for (const s of previous) this.retire(s, 'nothing is subscribed any more');
      return;
    }
    const stream = this.open(filter);
    try {
      await withTimeout(stream.acked, this.options.ackTimeoutMs, () =>
        new McpError(ErrorCode.RequestTimeout, `${this.options.label} did not acknowledge subscriptions/listen within ${this.options.ackTimeoutMs} ms`),
      );
    } catch (err) {
      this.retire(stream, 'not acknowledged');
      throw err;
    }
    for (const s of previous) this.retire(s, 'replaced by a stream with a new filter');
  }

  private open(filter: SubscriptionFilter): Stream {
    let ack!: Stream['ack'];
    const acked = new Promise<void>((resolve, reject) => (ack = { resolve, reject }));
    acked.catch(() => undefined); // awaited by reopen(); a late failure must not be unhandled
    const stream: Stream = { id: undefined, controller: new AbortController(), filter, acknowledged: false, ack, acked, ended: false };
    this.streams.push(stream);
    const request = this.connection.request('subscriptions/listen', { _meta: this.options.meta(), notifications: filter }, undefined, {
      timeoutMs: LISTEN_TIMEOUT_MS,
      signal: stream.controller.signal,
    });
    // The connection numbers requests in order; the id is the subscription's id.
    stream.id = this.connection.lastRequestId;
    request.then(
      () => this.ended(stream, 'the server ended it'),
      (err: unknown) => this.failed(stream, err),
    );
    return stream;
  }

  private acknowledged(params: Record<string, unknown>): void {
    const id = subscriptionIdOf(params);
    const stream = this.streams.find((s) => s.id === id);
    if (!stream) return;
    const parsed = SubscriptionsAcknowledgedParamsSchema.safeParse(params);
    const granted = parsed.success ? parsed.data.notifications : {};
    const missing = (stream.filter.resourceSubscriptions ?? []).filter((u) => !(granted.resourceSubscriptions ?? []).includes(u));
    if (missing.length > 0) this.options.logger.warn(`[${this.options.label}] did not accept updates for ${missing.join(', ')}`);
    stream.acknowledged = true;
    stream.ack.resolve();
  }

  private endedByServer(requestId: unknown): void {
    const stream = this.streams.find((s) => s.id === requestId && !s.ended);
    if (stream) this.ended(stream, 'the server cancelled it');
  }

  private ended(stream: Stream, why: string): void {
    if (stream.ended) return;
    stream.ended = true;
    stream.ack.reject(new McpError(ErrorCode.ConnectionClosed, `subscriptions/listen to ${this.options.label} ended: ${why}`));
    this.remove(stream);
    this.options.logger.info(`[${this.options.label}] subscription stream ${stream.id} ended: ${why}`);
  }

  private failed(stream: Stream, err: unknown): void {
    const quiet = err instanceof RequestCancelledError || err instanceof ConnectionClosedError;
    if (!quiet) this.options.logger.warn(`[${this.options.label}] subscriptions/listen failed: ${errorMessage(err)}`);
    if (stream.ended) return;
    stream.ended = true;
    stream.ack.reject(err instanceof Error ? err : new Error(String(err)));
    this.remove(stream);
  }

  private retire(stream: Stream, why: string): void {
    this.remove(stream);
    this.cancel(stream, why);
  }

  private cancel(stream: Stream, why: string): void {
    if (stream.ended) return;
    stream.ended = true;
    stream.controller.abort(new Error(why));
  }

  private remove(stream: Stream): void {
    const i = this.streams.indexOf(stream);
    if (i !== -1) this.streams.splice(i, 1);
  }
}

export function subscriptionIdOf(params: Record<string, unknown>): unknown {
  const meta = params._meta as Record<string, unknown> | undefined;
  return meta?.[MetaKey.subscriptionId];
}

