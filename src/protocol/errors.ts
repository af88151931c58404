import type { TransportCloseInfo } from '../transport/transport';

/** JSON-RPC 2.0 standard codes and the MCP-specific ones. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP: resources/read of an unknown URI. */
  ResourceNotFound: -32002,
  /** MCP 2025-11-25: the server needs the user to complete a URL elicitation first. */
  UrlElicitationRequired: -32042,
  // Codes in the implementation-defined server-error range for failures on our side.
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  RequestCancelled: -32800,
  InvalidResult: -32098,
  UnsupportedProtocolVersion: -32099,
} as const;

const codeNames = new Map<number, string>(Object.entries(ErrorCode).map(([name, code]) => [code, name]));

export function errorCodeName(code: number): string | undefined {
  return codeNames.get(code);
}

/** Every error the protocol layer produces or receives: a code, a message and optional data. */
export class McpError extends Error {
  override name = 'McpError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  /** The JSON-RPC `error` member for this error. */
  toJson(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** The peer answered a request with a JSON-RPC error. */
export class RemoteError extends McpError {
  override name = 'RemoteError';
  constructor(
    readonly method: string,
    code: number,
    remoteMessage: string,
    data?: unknown,
  ) {
    super(code, remoteMessage, data);
  }
}

export class RequestTimeoutError extends McpError {
  override name = 'RequestTimeoutError';
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
    reason: string,
  ) {
    super(ErrorCode.RequestTimeout, `${method} timed out after ${timeoutMs} ms${reason ? ` (${reason})` : ''}`, {
      timeoutMs,
    });
  }
}

export class RequestCancelledError extends McpError {
  override name = 'RequestCancelledError';
  constructor(
    readonly method: string,
    reason: string,
  ) {
    super(ErrorCode.RequestCancelled, `${method} was cancelled: ${reason}`);
  }
}

export class ConnectionClosedError extends McpError {
  override name = 'ConnectionClosedError';
  constructor(
    message: string,
    readonly closeInfo?: TransportCloseInfo,
  ) {
    super(ErrorCode.ConnectionClosed, message, closeInfo ? describeCloseData(closeInfo) : undefined);
  }
}

export class InvalidResultError extends McpError {
  override name = 'InvalidResultError';
  constructor(
    readonly method: string,
    details: string,
  ) {
    super(ErrorCode.InvalidResult, `The server's answer to ${method} does not match the MCP schema: ${details}`);
  }
}

export class UnsupportedProtocolVersionError extends McpError {
  override name = 'UnsupportedProtocolVersionError';
  constructor(
    readonly offered: string,
    readonly answered: string,
    readonly supported: readonly string[],
  ) {
    super(
      ErrorCode.UnsupportedProtocolVersion,
      `The server answered protocol version ${JSON.stringify(answered)}, which this client does not support ` +
        `(we offered ${offered}; supported: ${supported.join(', ')}). Update the server or the extension.`,
      { offered, answered, supported },
    );
  }
}

function describeCloseData(info: TransportCloseInfo): Record<string, unknown> {
  return {
    reason: info.reason,
    exitCode: info.exitCode ?? null,
    signal: info.signal ?? null,
    stderrTail: info.stderrTail ?? [],
  };
}

/** A one-paragraph human description of why a connection closed, for error messages. */
export function describeClose(info: TransportCloseInfo): string {
  let text = info.reason;
  const tail = info.stderrTail?.filter((l) => l.trim() !== '') ?? [];
  if (tail.length > 0) {
    text += `. Last stderr: ${tail.slice(-5).join(' | ')}`;
  }
  return text;
}
