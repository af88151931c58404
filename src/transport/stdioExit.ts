// What is told when a stdio server exits: how it ended (code or signal), what we did to make it
// (the escalation), an error that came after the start, and the last lines of its stderr, for
// the close reason and for the errors of writes that failed because it was gone.

import type { TransportCloseInfo } from './transport';
import { errorMessage } from '../util/errorMessage';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class ServerExitDetails {
  /** What we last did to make it exit, for the close reason. */
  escalation: string | undefined;
  private lateError: Error | undefined;
  private readonly stderrTail: string[] = [];

  constructor(private readonly tailSize: number) {}

  /** An error after the start (a stream, a signal that could not be sent); the first is kept. */
  noteLateError(err: Error): void {
    this.lateError ??= err;
  }

  /** Keeps the last `tailSize` stderr lines that are not blank. */
  noteStderrLine(line: string): void {
    if (line.trim() !== '' && this.tailSize > 0) {
      this.stderrTail.push(line);
      if (this.stderrTail.length > this.tailSize) this.stderrTail.shift();
    }
  }

  describeExit(exit: ProcessExit): string {
    let text = exit.signal ? `killed by ${exit.signal}` : exit.code !== null ? `exited with code ${exit.code}` : 'exited';
    if (this.escalation) text += ` (${this.escalation})`;
    if (this.lateError) text += `; ${errorMessage(this.lateError)}`;
    return text;
  }

  /** The server's last stderr line, cut short, for an error about its exit. */
  lastStderrNote(): string {
    const last = this.stderrTail.at(-1)?.trim();
    if (!last) return '';
    return `; its last stderr line: ${last.length > 300 ? `${last.slice(0, 300)}…` : last}`;
  }

  closeInfo(exit: ProcessExit, expected: boolean): TransportCloseInfo {
    const { code, signal } = exit;
    const error = this.lateError;
    return {
      reason: this.describeExit(exit),
      expected,
      exitCode: code,
      signal,
      stderrTail: [...this.stderrTail],
      ...(error ? { error } : {}),
    };
  }
}
