import type { LoggingLevel } from '../../protocol/schemas';
import type { Logger } from '../../util/logger';
import type { Redactor } from '../redact';
import type { TrafficDirection, TrafficOrigin, TrafficRecorder } from '../traffic';

/** The gateway client a relayed request is being sent for, while `sendOnBehalfOf` runs its send. */
let relayOrigin: TrafficOrigin | undefined;

/**
 * Runs `send` so that what it sends at once is marked, in the traffic ring, with who asked (the
 * gateway). A request goes out within the call that sends it (JsonRpcConnection.request writes,
 * and traces, before it returns), so a variable set around the call marks it. Not an
 * AsyncLocalStorage (#21): on Node 20 its first run() installs promise hooks for the whole
 * extension host, and every promise of every extension pays for them from then on (the stdio
 * bench's 20,000 calls with 256 in flight: 13% slower, 29% more CPU). What a relayed request sends
 * later, after an await (a modern request sent again with another protocol version), is recorded
 * as the host's own.
 */
export function sendOnBehalfOf<T>(origin: TrafficOrigin | undefined, send: () => T): T {
  const outer = relayOrigin;
  relayOrigin = origin;
  try {
    return send();
  } finally {
    relayOrigin = outer;
  }
}

/**
 * The traffic hook of one server: every protocol message in and out goes into the traffic ring,
 * and into the log at trace level (redacted); the server's own log messages go into its log.
 */
export class ProtocolTrace {
  constructor(
    private readonly traffic: TrafficRecorder,
    private readonly log: Logger,
    private readonly redactor: Redactor,
    private readonly traceEnabled: () => boolean,
  ) {}

  /** Every message in and out: into the traffic ring, and into the log at trace level. */
  onMessage(direction: TrafficDirection, message: unknown): void {
    this.traffic.recordMessage(direction, message, direction === 'send' ? relayOrigin : undefined);
    if (this.traceEnabled()) this.traceMessage(direction, message);
  }

  private traceMessage(direction: TrafficDirection, message: unknown): void {
    // Redacted before it is cut, so a secret across the cut cannot leave its first half behind.
    let text = this.redactor.redact(JSON.stringify(message) ?? String(message));
    if (text.length > 4000) text = `${text.slice(0, 4000)}… (${text.length} chars)`;
    this.log.trace(`${direction === 'send' ? '→' : '←'} ${text}`);
  }

  /** A `notifications/message` of the server, into its log at the matching level. */
  logServerMessage(level: LoggingLevel, loggerName: string | undefined, data: unknown): void {
    const text = `${loggerName ? `[${loggerName}] ` : ''}${typeof data === 'string' ? data : JSON.stringify(data)}`;
    switch (level) {
      case 'debug':
        this.log.debug(text);
        break;
      case 'info':
      case 'notice':
        this.log.info(text);
        break;
      case 'warning':
        this.log.warn(text);
        break;
      default:
        this.log.error(text);
    }
  }
}
