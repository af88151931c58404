import type { TransportCloseInfo } from '../transport/transport';
import { shownServerList, shownServerText } from '../util/serverText';

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
  MessageTooLarge: -32097,
  NotAnMcpServer: -32096,
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
  /** What the server answered, as the message shows it (bounded: the server decides its length). */
  readonly answered: string;
  constructor(
    readonly offered: string,
    /** The version the server answered, or the versions it named as the ones it supports. */
    answered: string | readonly string[],
    readonly supported: readonly string[],
  ) {
    const shown = typeof answered === 'string' ? `answered protocol version ${shownServerText(answered)}` : `supports only ${shownServerList(answered) || 'no version it named'}`;
    super(
      ErrorCode.UnsupportedProtocolVersion,
      `The server ${shown}, which this client does not support (we offered ${offered}; supported: ${supported.join(', ')}). Update the server or the extension.`,
      { offered, answered: shown, supported },
    );
    this.answered = shown;
  }
}

/** The answer to a request was larger than the message size limit, so it was discarded. */
export class MessageTooLargeError extends McpError {
  override name = 'MessageTooLargeError';
  constructor(
    readonly method: string,
    /** The size of the answer; when `complete` is false, the bytes seen before it was refused. */
    readonly bytes: number,
    readonly complete: boolean,
    readonly limit: number,
    hint?: string,
  ) {
    super(
      ErrorCode.MessageTooLarge,
      `The answer to ${method} is ${complete ? '' : 'more than '}${formatSize(bytes)}, over the message size limit of ${formatSize(limit)}: it was discarded` +
        (hint ? `. To accept it, ${hint}` : ''),
      { bytes, complete, limit },
    );
  }
}

/**
 * The process sent one of our requests back instead of answering it (`cat`, a shell, a program
 * that echoes its input): it is not an MCP server, whatever its error answers would suggest.
 */
export class NotAnMcpServerError extends McpError {
  override name = 'NotAnMcpServerError';
  constructor(
    readonly method: string,
    label: string,
  ) {
    super(
      ErrorCode.NotAnMcpServer,
      `${label} is not an MCP server: it sent our ${method} request back instead of answering it (a program that echoes its input, such as cat or a shell). Check the command and its arguments.`,
    );
  }
}

/** "64 MiB (67108864 bytes)". */
function formatSize(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  const short = mib >= 1 ? `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
  return `${short} (${bytes} bytes)`;
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
  const stderr = describeStderr(info.stderrTail ?? []);
  return stderr ? `${info.reason}. ${stderr}` : info.reason;
}

/**
 * The stderr lines worth showing a person, or undefined when there are none. A crash ends in
 * noise (a Node stack, its `Node.js v20` trailer, the fields of the error object), so the line
 * that names the error (`Error: Cannot find module …`, `fatal: missing API_KEY`) is looked for
 * first; without one, the last few lines that are not noise are shown.
 */
export function describeStderr(lines: readonly string[]): string | undefined {
  const kept = lines.filter((l) => l.trim() !== '' && !isStderrNoise(l));
  if (kept.length === 0) return undefined;
  const keyIndex = findLastIndex(kept, (l) => isErrorLine(l.trim()));
  if (keyIndex === -1) return `Last stderr: ${kept.slice(-5).map((l) => l.trim()).join(' | ')}`;
  // Unindented lines after the error line are later messages, not its details (a stack, fields).
  const later = kept.slice(keyIndex + 1).filter((l) => !/^\s/.test(l)).slice(-2);
  return `Stderr: ${[kept[keyIndex], ...later].map((l) => l.trim()).join(' | ')}`;
}

/** A line that names an error: `TypeError: …`, `Error [ERR_X]: …`, `fatal: …`, `panic: …`, a Rust panic. */
function isErrorLine(line: string): boolean {
  return (
    /^(?:Uncaught\s+)?(?:[A-Za-z_$][\w$.]*)?(?:Error|Exception)(?:\s*\[[^\]]*\])?:\s*\S/.test(line) ||
    /^(?:fatal|error|panic|critical)\b\s*[:!]/i.test(line) ||
    /\bpanicked at\b/.test(line)
  );
}

/** Lines of a crash report that say nothing a person can act on. */
function isStderrNoise(line: string): boolean {
  return (
    /^\s+at\s/.test(line) || // a JavaScript stack frame
    /^Node\.js v\d/.test(line) || // Node's version trailer
    /^\s*\^+\s*$/.test(line) || // the caret under the throwing source line
    /^\s*[{}[\]](?:,)?\s*$/.test(line) || // a lone brace of a printed error object
    /^node:internal\//.test(line) // the internal file Node threw from
  );
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i])) return i;
  return -1;
}
