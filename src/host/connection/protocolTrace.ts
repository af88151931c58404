import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggingLevel } from '../../protocol/schemas';
import type { Logger } from '../../util/logger';
import type { Redactor } from '../redact';
import type { TrafficDirection, TrafficOrigin, TrafficRecorder } from '../traffic';

/** The gateway client a relayed request is sent for, across the awaits of sending it. */
const relayOrigin = new AsyncLocalStorage<TrafficOrigin | undefined>();

/** Runs `send` so that what it sends is marked, in the traffic ring, with who asked (the gateway). */
export function sendOnBehalfOf<T>(origin: TrafficOrigin | undefined, send: () => T): T {
  return relayOrigin.run(origin, send);
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
    this.traffic.recordMessage(direction, message, direction === 'send' ? relayOrigin.getStore() : undefined);
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
