// What a server says besides its answers, on stderr: its log messages (notifications/message),
// --log-level, and the connection's own log of it for report and serve (with --verbose).
import type { McpClient } from '../protocol/client';
import type { LoggingLevel, LoggingMessageParams } from '../protocol/schemas';
import { errorMessage } from '../util/errorMessage';
import type { Logger } from '../util/logger';
import { oneLine } from './failure';
import type { CliIo } from './io';

/** How long one log message may be on stderr. */
const LOG_MESSAGE_CHARS = 2000;

/** A server's log message as one stderr line: level, logger, data (JSON unless text), cut short. */
export function describeLogMessage(m: LoggingMessageParams): string {
  let data: string;
  try {
    data = typeof m.data === 'string' ? m.data : (JSON.stringify(m.data) ?? String(m.data));
  } catch {
    data = '(data that cannot be shown)';
  }
  if (data.length > LOG_MESSAGE_CHARS) data = `${data.slice(0, LOG_MESSAGE_CHARS)}… (${data.length} chars)`;
  return `log ${m.level}${m.logger ? ` ${m.logger}` : ''}: ${data.replace(/\r?\n/g, ' | ')}`;
}

/** --log-level: logging/setLevel when the server declares logging; a warning otherwise. */
export async function requestLogLevel(client: McpClient, level: LoggingLevel, label: string, io: CliIo): Promise<void> {
  if (!client.hasCapability('logging')) {
    io.stderr(`mcp-host: warning: ${label} does not declare logging; --log-level ${level} not sent\n`);
    return;
  }
  try {
    await client.setLoggingLevel(level);
  } catch (err) {
    io.stderr(`mcp-host: warning: logging/setLevel ${level} failed: ${oneLine(errorMessage(err))}\n`);
  }
}

const silentLogger: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** A ServerConnection's logger in the CLI: `[NAME] …` lines on stderr with --verbose, else nothing. */
export function serverLogger(name: string, verbose: boolean, io: CliIo): Logger {
  if (!verbose) return silentLogger;
  const line = (text: string) => io.stderr(`[${name}] ${text}\n`);
  return { trace() {}, debug() {}, info: line, warn: line, error: line };
}
