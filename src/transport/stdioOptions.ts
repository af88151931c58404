// What a stdio server is started with, and the timings of its shutdown.

import type { EnvOverrides } from './spawn-plan';

export interface StdioShutdownOptions {
  /** After closing stdin, how long the server may take to exit by itself. Default 1000. */
  readonly closeStdinGraceMs?: number;
  /** After SIGTERM, how long before SIGKILL. Default 1500. */
  readonly sigtermGraceMs?: number;
}

export interface StdioTransportOptions {
  /** Program to run: a name looked up on PATH, or a path (relative paths are relative to `cwd`). */
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to this process's environment; `null` removes a variable, `undefined` is ignored. */
  readonly env?: EnvOverrides;
  readonly cwd?: string;
  /** Longest accepted incoming message in bytes (default 64 MiB). */
  readonly maxMessageBytes?: number;
  /** Shown in the oversize warning: how the user raises the limit (e.g. the setting name). */
  readonly maxMessageBytesHint?: string;
  /** How many stderr lines TransportCloseInfo.stderrTail keeps (default 20). */
  readonly stderrTailLines?: number;
  readonly shutdown?: StdioShutdownOptions;
  /** Names the server in errors (e.g. the configured server name). */
  readonly label?: string;
}

/**
 * The whole sequence (stdin closed, SIGTERM, SIGKILL at 2.5 s) must end well inside the 5 s
 * VS Code gives deactivate(); ServerRegistry.shutdown() forces what is left at 3.5 s.
 */
export const DEFAULT_CLOSE_STDIN_GRACE_MS = 1000;
export const DEFAULT_SIGTERM_GRACE_MS = 1500;
export const DEFAULT_STDERR_TAIL_LINES = 20;
/**
 * After the server exits, how long its stdout/stderr may stay open (a leftover process that
 * escaped the process group may hold them) before they are destroyed and the close completes.
 */
export const STDIO_DRAIN_TIMEOUT_MS = 2000;
/**
 * A write that failed because the server went away waits this long for its exit and the end of
 * its stderr, so the error names the exit code and what it said (stdout or stdin may close
 * before the exit event arrives and before stderr is read to its end).
 */
export const EXIT_DETAILS_WAIT_MS = 500;

/** A timing or count from the options; throws on a negative or non-finite one. */
export function nonNegative(value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`expected a non-negative number, got ${value}`);
  return value;
}
