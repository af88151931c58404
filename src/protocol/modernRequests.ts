// How the client sends a request in the modern era (2026-07-28): the era's `_meta` on every
// request, one retry with another version on -32022, MRTR for the methods that allow it, and the
// result's `resultType` checked before the result is validated.
import type { Transport } from '../transport/transport';
import type { Logger } from '../util/logger';
import type { RequestOptions, JsonRpcConnection } from './connection';
import { MetaKey, MissingClientCapabilityError, ModernErrorCode, isRecognisedModernError, pickVersion, supportedVersionsOf } from './era';
import { McpError, ErrorCode, InvalidResultError, RemoteError } from './errors';
import { fastSafeParse } from './fast-check';
import type { ClientRequestHandlers } from './handlers';
import { formatZodError } from './jsonrpc';
import { MRTR_METHODS, runMrtr } from './mrtr';
import type { ClientCapabilities, Implementation, LoggingLevel } from './schemas';
import type { ZodSchema } from './zod';

/** What the modern requests need of their client. */
export interface ModernRequestsHost {
  readonly connection: JsonRpcConnection;
  readonly transport: Transport;
  readonly label: string;
  readonly clientInfo: Implementation;
  readonly logger: Logger;
  readonly handlers: ClientRequestHandlers;
  clientCapabilities(): ClientCapabilities;
  /** The version in use changed (a server that changed its mind): the client's state follows. */
  onVersion(version: string): void;
}

export class ModernRequests {
  /** The `_meta` of every modern request (see useVersion). */
  private metaValue: Record<string, unknown> | undefined;
  /** The modern era's log level, sent in every request's _meta (logging/setLevel is gone). */
  private logLevel: LoggingLevel | undefined;

  constructor(private readonly host: ModernRequestsHost) {}

  get meta(): Record<string, unknown> | undefined {
    return this.metaValue;
  }

  /** The `_meta` of every modern request: version, identity, capabilities (and log level). */
  useVersion(version: string): void {
    const meta: Record<string, unknown> = {
      [MetaKey.protocolVersion]: version,
      [MetaKey.clientInfo]: this.host.clientInfo,
      [MetaKey.clientCapabilities]: this.host.clientCapabilities(),
    };
    if (this.logLevel !== undefined) meta[MetaKey.logLevel] = this.logLevel;
    this.metaValue = meta;
    this.host.onVersion(version);
    // HTTP sends it as the MCP-Protocol-Version header too.
    this.host.transport.setProtocolVersion?.(version);
  }

  /** Sends `level` in every request's `_meta` from now on (the modern era has no logging/setLevel). */
  setLogLevel(level: LoggingLevel, version: string): void {
    this.logLevel = level;
    this.useVersion(version);
  }

  /** A modern request: `_meta` on every round, MRTR for the methods that allow it, `resultType` checked. */
  call<T>(method: string, params: Record<string, unknown> | undefined, schema: ZodSchema<T>, options: RequestOptions | undefined): Promise<T> {
    const raw = MRTR_METHODS.has(method)
      ? runMrtr({
          method,
          label: this.host.label,
          params: params ?? {},
          handlers: this.host.handlers,
          signal: options?.signal,
          send: (p) => this.request(method, p, options),
        })
      : this.request(method, params, options);
    return raw.then((result) => this.completeResult(method, result, schema));
  }

  /** A modern request whose result is validated with `schema` without interpreting `resultType` (tasks do). */
  send<T>(method: string, params: Record<string, unknown> | undefined, schema: ZodSchema<T>, options?: RequestOptions): Promise<T> {
    return this.request(method, params, options).then((result) => this.validated(method, result, schema));
  }

  private async request(method: string, params: Record<string, unknown> | undefined, options: RequestOptions | undefined): Promise<Record<string, unknown>> {
    let retried = false;
    for (;;) {
      // The caller's _meta wins (tasks add to the capabilities); ours fills in the rest.
      const meta = { ...this.metaValue, ...(params?._meta as Record<string, unknown> | undefined) };
      try {
        return await this.host.connection.request(method, { ...params, _meta: meta }, undefined, options);
      } catch (err) {
        if (!retried && isRecognisedModernError(err) && err.code === ModernErrorCode.UnsupportedProtocolVersion) {
          // The server changed its mind (a restart behind HTTP): once, with a version both speak.
          const choice = pickVersion(supportedVersionsOf(err), []);
          if (choice && choice.version !== meta[MetaKey.protocolVersion]) {
            retried = true;
            this.useVersion(choice.version);
            continue;
          }
        }
        throw this.explained(method, err);
      }
    }
  }

  private explained(method: string, err: unknown): unknown {
    if (err instanceof RemoteError && err.code === ModernErrorCode.MissingRequiredClientCapability) {
      const data = err.data as { requiredCapabilities?: ClientCapabilities } | undefined;
      return new MissingClientCapabilityError(method, this.host.label, data?.requiredCapabilities ?? {}, err.message);
    }
    return err;
  }

  /** Every modern result says what it is: only `complete` (or none, from an older server) is a result. */
  private completeResult<T>(method: string, result: Record<string, unknown>, schema: ZodSchema<T>): T {
    const type = result.resultType;
    if (type !== undefined && type !== 'complete') {
      const why =
        type === 'input_required'
          ? `input_required, which only ${[...MRTR_METHODS].join(', ')} may answer`
          : `resultType ${JSON.stringify(type)}, which this client does not know`;
      throw new McpError(ErrorCode.InvalidResult, `${this.host.label} answered ${method} with ${why}`);
    }
    return this.validated(method, result, schema);
  }

  private validated<T>(method: string, result: Record<string, unknown>, schema: ZodSchema<T>): T {
    const parsed = fastSafeParse(schema, result);
    if (parsed.success) return parsed.data;
    const error = new InvalidResultError(method, formatZodError(parsed.error));
    this.host.logger.warn(`[${this.host.label}] ${error.message}`);
    throw error;
  }
}
