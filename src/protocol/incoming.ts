// What the peer of a JSON-RPC connection (connection.ts) sends us besides answers: its requests,
// to the handlers we installed; its notifications, to their subscribers; its cancellations of
// its own requests. Not on the path of our requests and their answers.
import type { Disposable } from '../util/disposable';
import { errorMessage } from '../util/errorMessage';
import { Emitter } from '../util/event';
import type { Logger } from '../util/logger';
import type { IncomingRequestContext, NotificationHandler, RequestHandler } from './connectionTypes';
import { ErrorCode, McpError } from './errors';
import type { JsonRpcRequest, RequestId } from './jsonrpc';

/** What the incoming side needs of its connection. */
export interface IncomingHost {
  readonly label: string;
  readonly logger: Logger;
  /** Writes a response (none once the connection is closed). */
  sendResponse(message: Record<string, unknown>): void;
  /** A request that is one of ours sent back (`cat`): ours fails, and true is returned. */
  failEchoed(message: JsonRpcRequest): boolean;
}

export class IncomingMessages {
  private readonly requestHandlers = new Map<string, RequestHandler>();
  private readonly notificationEmitters = new Map<string, Emitter<Record<string, unknown>>>();
  /** The peer's requests being handled, by id, with what aborts them. */
  private readonly inFlight = new Map<RequestId, AbortController>();

  constructor(private readonly host: IncomingHost) {}

  /** Installs the handler for requests the peer sends us. Replaces any previous one. */
  setRequestHandler(method: string, handler: RequestHandler): Disposable {
    this.requestHandlers.set(method, handler);
    return {
      dispose: () => {
        if (this.requestHandlers.get(method) === handler) this.requestHandlers.delete(method);
      },
    };
  }

  hasRequestHandler(method: string): boolean {
    return this.requestHandlers.has(method);
  }

  /** Subscribes to one notification method from the peer. */
  onNotification(method: string, handler: NotificationHandler): Disposable {
    let emitter = this.notificationEmitters.get(method);
    if (!emitter) {
      emitter = new Emitter<Record<string, unknown>>((err) => this.host.logger.error(`[${this.host.label}] handler for ${method} failed: ${errorMessage(err)}`));
      this.notificationEmitters.set(method, emitter);
    }
    return emitter.event(handler);
  }

  /** A notification of the peer (its progress for our requests is the connection's to route first). */
  handleNotification(method: string, params: Record<string, unknown>): void {
    if (method === 'notifications/cancelled') {
      const requestId = params.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') {
        this.inFlight.get(requestId)?.abort(new Error(typeof params.reason === 'string' ? params.reason : 'cancelled by the peer'));
      }
    }
    this.notificationEmitters.get(method)?.fire(params);
  }

  handleRequest(message: JsonRpcRequest): void {
    const { id, method } = message;
    const handler = this.requestHandlers.get(method);
    if (!handler) {
      if (this.host.failEchoed(message)) return;
      this.sendError(id, ErrorCode.MethodNotFound, `Method not found: ${method}`);
      return;
    }
    if (this.inFlight.has(id)) {
      this.sendError(id, ErrorCode.InvalidRequest, `Request id ${JSON.stringify(id)} is already in use`);
      return;
    }
    const controller = new AbortController();
    this.inFlight.set(id, controller);
    const params = message.params ?? {};
    const context: IncomingRequestContext = {
      id,
      method,
      signal: controller.signal,
      meta: params._meta as Record<string, unknown> | undefined,
    };
    Promise.resolve()
      .then(() => handler(params, context))
      .then(
        (result) => {
          if (controller.signal.aborted) return; // cancelled: the spec says not to answer
          this.host.sendResponse({ jsonrpc: '2.0', id, result: (result ?? {}) as Record<string, unknown> });
        },
        (err: unknown) => {
          if (controller.signal.aborted) return;
          if (err instanceof McpError) {
            this.host.sendResponse({ jsonrpc: '2.0', id, error: err.toJson() });
          } else {
            this.host.logger.error(`[${this.host.label}] handler for ${method} failed: ${errorMessage(err)}`);
            this.sendError(id, ErrorCode.InternalError, errorMessage(err));
          }
        },
      )
      .finally(() => this.inFlight.delete(id));
  }

  /** The connection closed: every request of the peer still being handled is aborted. */
  abortAll(): void {
    for (const controller of this.inFlight.values()) controller.abort(new Error('connection closed'));
    this.inFlight.clear();
  }

  dispose(): void {
    for (const emitter of this.notificationEmitters.values()) emitter.dispose();
  }

  private sendError(id: RequestId, code: number, message: string): void {
    this.host.sendResponse({ jsonrpc: '2.0', id, error: { code, message } });
  }
}
