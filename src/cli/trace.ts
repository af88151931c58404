import * as fs from 'node:fs';
import * as path from 'node:path';
import { trafficJsonLine, type TrafficDirection } from '../host/traffic';

/**
 * `--trace FILE`: every protocol message of the run as JSON Lines, the same lines the editor's
 * traffic view exports, redacted as stderr is. Written synchronously, so a run that is killed
 * still leaves every line it sent or received; the file is the owner's only (it holds data).
 */
export class TraceFile {
  private seq = 0;

  private constructor(
    private readonly fd: number,
    private readonly server: string,
    private readonly redact: (text: string) => string,
  ) {}

  /** Throws an Error that names the file and why it cannot be written. */
  static open(file: string, cwd: string, server: string, redact: (text: string) => string): TraceFile {
    const target = path.resolve(cwd, file);
    try {
      const fd = fs.openSync(target, 'w', 0o600);
      // The mode above applies to a new file only: an existing one is made the owner's too.
      if (process.platform !== 'win32') fs.fchmodSync(fd, 0o600);
      return new TraceFile(fd, server, redact);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new Error(`cannot write the trace file ${target}${code ? ` (${code})` : ''}`);
    }
  }

  message(direction: TrafficDirection, message: unknown): void {
    this.write(trafficJsonLine({ seq: ++this.seq, at: Date.now(), kind: 'message', direction, message }, this.server, this.redact));
  }

  event(text: string): void {
    this.write(trafficJsonLine({ seq: ++this.seq, at: Date.now(), kind: 'event', text }, this.server, this.redact));
  }

  close(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      // closed already
    }
  }

  private write(line: string): void {
    try {
      fs.writeSync(this.fd, `${line}\n`);
    } catch {
      // A full disk must not fail the run the trace is about.
    }
  }
}
