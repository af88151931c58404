import { Emitter } from '../../src/util/event';
import type { Transport, TransportCloseInfo, TransportWarning } from '../../src/transport/transport';

/**
 * An in-process Transport for unit tests of the protocol layer: the test plays
 * the server by calling `receive()` and reads what the client sent in `sent`.
 * (Process tests use real child processes; this exists so dispatcher edge cases
 * can be driven precisely.)
 */
export class MemoryTransport implements Transport {
  readonly sent: any[] = [];
  private readonly messageEmitter = new Emitter<unknown>();
  private readonly closeEmitter = new Emitter<TransportCloseInfo>();
  private readonly warningEmitter = new Emitter<TransportWarning>();
  private readonly logEmitter = new Emitter<string>();
  private readonly sendWaiters: Array<() => void> = [];
  private closed = false;
  started = false;

  readonly onMessage = this.messageEmitter.event;
  readonly onClose = this.closeEmitter.event;
  readonly onWarning = this.warningEmitter.event;
  readonly onLog = this.logEmitter.event;

  /** Called for each sent message; may answer by calling receive(). */
  autoReply?: (message: any, transport: MemoryTransport) => void;

  get isClosed(): boolean {
    return this.closed;
  }

  async start(): Promise<void> {
    this.started = true;
  }

  async send(message: unknown): Promise<void> {
    if (this.closed) throw new Error('transport closed');
    this.sent.push(message);
    for (const w of this.sendWaiters.splice(0)) w();
    const reply = this.autoReply;
    if (reply) queueMicrotask(() => reply(message, this));
  }

  receive(message: unknown): void {
    this.messageEmitter.fire(message);
  }

  /** Resolves once `count` messages in total have been sent. */
  async waitForSent(count: number, timeoutMs = 2000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.sent.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} sent messages, have ${this.sent.length}`);
      await new Promise<void>((resolve) => {
        this.sendWaiters.push(resolve);
        setTimeout(resolve, 20);
      });
    }
  }

  simulateClose(info: Partial<TransportCloseInfo> = {}): void {
    if (this.closed) return;
    this.closed = true;
    this.closeEmitter.fire({ reason: 'exited with code 1', expected: false, exitCode: 1, signal: null, stderrTail: [], ...info });
  }

  async close(): Promise<void> {
    this.simulateClose({ reason: 'closed by the client', expected: true, exitCode: 0 });
  }
}
