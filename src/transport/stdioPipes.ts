// The hookup of a stdio server's three pipes: stdout decoded into messages (framing.ts), stderr
// into log lines, and the errors and closes of each reported to the transport. Without a
// listener on stdin's 'error', EPIPE would be thrown as an uncaught exception.

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { LineDecoder, TextLineDecoder } from './framing';
import type { TransportWarning } from './transport';

export interface PipeHandlers {
  readonly maxMessageBytes?: number;
  readonly maxMessageBytesHint?: string;
  /** One message from stdout; called by the decoder directly (the hot path). */
  readonly onMessage: (value: unknown, textBytes: number) => void;
  readonly onWarning: (warning: TransportWarning) => void;
  readonly onStderrLine: (line: string) => void;
  /** An error on stdout or stderr, after the start. */
  readonly onOutputError: (err: Error) => void;
  readonly onStdoutClosed: () => void;
  readonly onStderrClosed: () => void;
  /** EPIPE / ECONNRESET when the server has gone or closed its stdin. */
  readonly onStdinError: (err: Error) => void;
  readonly onStdinClosed: () => void;
}

export function wirePipes(child: ChildProcessWithoutNullStreams, handlers: PipeHandlers): void {
  const decoder = new LineDecoder({
    maxMessageBytes: handlers.maxMessageBytes,
    limitHint: handlers.maxMessageBytesHint,
    onMessage: handlers.onMessage,
    onWarning: handlers.onWarning,
    // A server that writes faster than its lines are read (a flood of notifications, lines that
    // are not JSON) is read a turn at a time, so that the other servers' messages come between.
    onTurnOver: (rest) => {
      child.stdout.pause();
      child.stdout.unshift(rest);
      setImmediate(() => child.stdout.resume());
    },
  });
  child.stdout.on('data', (chunk: Buffer) => decoder.push(chunk));
  child.stdout.on('end', () => decoder.end());
  child.stdout.on('error', handlers.onOutputError);
  child.stdout.on('close', () => {
    // A destroyed stdout ends without 'end': the count of the lines not warned of is said here.
    decoder.flushWarnings();
    handlers.onStdoutClosed();
  });

  const stderrLines = new TextLineDecoder({ onLine: handlers.onStderrLine });
  child.stderr.on('data', (chunk: Buffer) => stderrLines.push(chunk));
  child.stderr.on('end', () => stderrLines.end());
  child.stderr.on('error', handlers.onOutputError);
  child.stderr.on('close', handlers.onStderrClosed);

  child.stdin.on('error', handlers.onStdinError);
  child.stdin.on('close', handlers.onStdinClosed);
}
