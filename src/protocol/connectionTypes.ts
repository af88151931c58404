// The types of a JSON-RPC connection (connection.ts) that its users share: request options,
// progress, the context of a peer's request, handlers. connection.ts re-exports them.
import type { Logger } from '../util/logger';
import type { RequestId } from './jsonrpc';

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Upper bound for a request whose timeout is reset by progress. */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 10 * 60_000;

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

export interface RequestOptions {
  /** Time without an answer before the request fails. Default: the connection's. */
  timeoutMs?: number;
  /** Cancels the request: the server is sent `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Receives `notifications/progress` for this request; adds a progress token. */
  onProgress?: (update: ProgressUpdate) => void;
  /** Progress notifications restart the timeout, up to `maxTotalTimeoutMs`. */
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeoutMs?: number;
  /** Extra `_meta` for the request (merged with the progress token). */
  meta?: Record<string, unknown>;
}

export interface IncomingRequestContext {
  readonly id: RequestId;
  readonly method: string;
  /** Aborted when the peer cancels the request or the connection closes. */
  readonly signal: AbortSignal;
  readonly meta?: Record<string, unknown>;
}

export type RequestHandler = (
  params: Record<string, unknown>,
  context: IncomingRequestContext,
) => unknown | Promise<unknown>;

export type NotificationHandler = (params: Record<string, unknown>) => void;

export type MessageDirection = 'send' | 'receive';

export interface ConnectionOptions {
  /** Names the peer in every log line and error ("server 'everything'"). */
  label: string;
  logger?: Logger;
  defaultTimeoutMs?: number;
  maxTotalTimeoutMs?: number;
  /** Called with every message in and out, for a protocol trace. Only set it when tracing. */
  onTrace?: (direction: MessageDirection, message: unknown) => void;
}
