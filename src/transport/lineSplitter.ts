// Splitting a byte stream into lines without ever buffering more than one line of the limit:
// a line over the limit is refused as it arrives, and what is seen of it (its length, first and
// last bytes) is reported for the warning. The decoders in framing.ts build on it.

import { ByteChunks } from '../util/byteChunks';

export const LF = 0x0a;
export const CR = 0x0d;

export interface OversizeLineInfo {
  /** Bytes of the line seen so far (the whole line when its newline had already arrived). */
  readonly bytes: number;
  /** True when `bytes` is the full line length; false when the line is still arriving. */
  readonly complete: boolean;
  readonly limit: number;
  /** The first bytes of the line (at most 1 KiB), for an excerpt. */
  readonly head: Buffer;
  /** The last bytes of the line (at most 256), when `complete`: a response's id may be there. */
  readonly tail?: Buffer;
}

export interface LineSplitterOptions {
  /** Longest accepted line in bytes, not counting '\n' or '\r\n'. */
  readonly maxLineBytes: number;
  /**
   * One complete line, without its '\n' and without a trailing '\r'. The buffer may be a view of
   * a chunk, or of the process's shared join buffer (ByteChunks.takeTransient): it is valid only
   * during the call, so decode it there and keep nothing of it (copy what must stay).
   */
  onLine(line: Buffer): void;
  /** Called once per refused line, as soon as it is known to be too long. */
  onOversize(info: OversizeLineInfo): void;
  /**
   * Called when a line refused before its end (`onOversize` with `complete: false`) ends: at
   * its newline or at the end of the stream, with its whole length and its last bytes.
   */
  onOversizeEnd?(info: OversizeLineInfo): void;
}

/** How much of a refused line is kept, at its start and at its end. */
export const HEAD_BYTES = 1024;
export const TAIL_BYTES = 256;

/**
 * Splits a byte stream into lines. A line longer than the limit is refused: its bytes are
 * dropped as they arrive (never buffered) until the next newline, and `onOversize` is called
 * once for it. Callback exceptions do not corrupt the state: the rest of the chunk is still
 * processed and the first exception is rethrown afterwards.
 */
export class LineSplitter {
  /** The line in progress (a stdio server decides how small its pieces are: ByteChunks bounds their cost). */
  private readonly pending = new ByteChunks();
  /** Dropping the rest of an oversize line until its newline. */
  private discarding = false;
  /** While discarding: the line's length so far, its first bytes and its last bytes. */
  private discarded: { bytes: number; head: Buffer; tail: Buffer } = { bytes: 0, head: Buffer.alloc(0), tail: Buffer.alloc(0) };
  private done = false;
  private readonly maxLineBytes: number;

  constructor(private readonly opts: LineSplitterOptions) {
    if (!Number.isSafeInteger(opts.maxLineBytes) || opts.maxLineBytes <= 0) {
      throw new RangeError(`maxLineBytes must be a positive integer, got ${String(opts.maxLineBytes)}`);
    }
    this.maxLineBytes = opts.maxLineBytes;
  }

  /** end() was called. */
  get ended(): boolean {
    return this.done;
  }

  /** No line is in progress: the next byte pushed starts a new line. */
  get idle(): boolean {
    return this.pending.length === 0 && !this.discarding;
  }

  /** Bytes held for the line still in progress (0 while discarding). */
  get bufferedBytes(): number {
    return this.pending.length;
  }

  push(chunk: Buffer): void {
    if (this.done) throw new Error('LineSplitter: push() after end()');
    const failures: unknown[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(LF, start);
      if (nl === -1) {
        this.hold(chunk, start, failures);
        break;
      }
      this.finishLine(chunk, start, nl, failures);
      start = nl + 1;
    }
    if (failures.length > 0) throw failures[0];
  }

  /**
   * For a caller that has already found the newlines (LineDecoder): bytes [start, nl) of
   * `chunk` end the current line, and `chunk[nl]` is its newline.
   */
  pushLineEnd(chunk: Buffer, start: number, nl: number): void {
    if (this.done) throw new Error('LineSplitter: push() after end()');
    const failures: unknown[] = [];
    this.finishLine(chunk, start, nl, failures);
    if (failures.length > 0) throw failures[0];
  }

  /** For a caller that has already searched them: bytes from `start` on hold no newline. */
  pushWithoutNewline(chunk: Buffer, start: number): void {
    if (this.done) throw new Error('LineSplitter: push() after end()');
    const failures: unknown[] = [];
    this.hold(chunk, start, failures);
    if (failures.length > 0) throw failures[0];
  }

  private finishLine(chunk: Buffer, start: number, nl: number, failures: unknown[]): void {
    if (this.discarding) {
      // The newline ends the refused line; it was reported when it began.
      this.discard(chunk.subarray(start, nl > start && chunk[nl - 1] === CR ? nl - 1 : nl));
      this.endDiscarding(failures);
      return;
    }
    const piece = chunk.subarray(start, nl);
    let line: Buffer;
    if (this.pending.length === 0) {
      line = piece;
    } else {
      this.pending.push(piece);
      line = this.pending.takeTransient();
    }
    this.emit(line, failures);
  }

  /** Ends the stream: a final line without a newline is still delivered. Idempotent. */
  end(): void {
    if (this.done) return;
    this.done = true;
    const failures: unknown[] = [];
    if (this.discarding) {
      this.endDiscarding(failures);
    } else if (this.pending.length > 0) {
      this.emit(this.pending.takeTransient(), failures);
    }
    if (failures.length > 0) throw failures[0];
  }

  /** Keeps (or, for an oversize line, drops) the tail of a chunk that has no newline. */
  private hold(chunk: Buffer, start: number, failures: unknown[]): void {
    if (this.discarding) {
      this.discard(start === 0 ? chunk : chunk.subarray(start));
      return;
    }
    const rest = start === 0 ? chunk : chunk.subarray(start);
    this.pending.push(rest);
    // One byte of slack: the last byte may be the '\r' of a '\r\n' terminator.
    if (this.pending.length > this.maxLineBytes + 1) {
      const parts = this.pending.parts();
      const info: OversizeLineInfo = {
        bytes: this.pending.length,
        complete: false,
        limit: this.maxLineBytes,
        head: headOf(parts),
      };
      this.discarded = { bytes: info.bytes, head: info.head, tail: tailOf(parts) };
      this.pending.clear();
      this.discarding = true;
      this.call(() => this.opts.onOversize(info), failures);
    }
  }

  private emit(line: Buffer, failures: unknown[]): void {
    const length = line.length > 0 && line[line.length - 1] === CR ? line.length - 1 : line.length;
    if (length > this.maxLineBytes) {
      const info: OversizeLineInfo = {
        bytes: length,
        complete: true,
        limit: this.maxLineBytes,
        // Copies: the line may be the shared join buffer (takeTransient).
        head: Buffer.from(line.subarray(0, Math.min(HEAD_BYTES, length))),
        tail: Buffer.from(line.subarray(Math.max(0, length - TAIL_BYTES), length)),
      };
      this.call(() => this.opts.onOversize(info), failures);
      return;
    }
    const content = length === line.length ? line : line.subarray(0, length);
    try {
      this.opts.onLine(content);
    } catch (err) {
      failures.push(err);
    }
  }

  /** Counts bytes of a refused line and keeps its last ones (copied: the chunk is not ours). */
  private discard(bytes: Buffer): void {
    if (bytes.length === 0) return;
    const d = this.discarded;
    d.bytes += bytes.length;
    d.tail = bytes.length >= TAIL_BYTES ? Buffer.from(bytes.subarray(bytes.length - TAIL_BYTES)) : tailOf([d.tail, bytes]);
  }

  private endDiscarding(failures: unknown[]): void {
    this.discarding = false;
    const { bytes, head, tail } = this.discarded;
    this.discarded = { bytes: 0, head: Buffer.alloc(0), tail: Buffer.alloc(0) };
    // A '\r' of a '\r\n' that arrived before its '\n' is not part of the line.
    const cr = tail.length > 0 && tail[tail.length - 1] === CR ? 1 : 0;
    const onEnd = this.opts.onOversizeEnd;
    if (onEnd) this.call(() => onEnd({ bytes: bytes - cr, complete: true, limit: this.maxLineBytes, head, tail: tail.subarray(0, tail.length - cr) }), failures);
  }

  private call(fn: () => void, failures: unknown[]): void {
    try {
      fn();
    } catch (err) {
      failures.push(err);
    }
  }
}

function headOf(parts: readonly Buffer[]): Buffer {
  const out: Buffer[] = [];
  let n = 0;
  for (const p of parts) {
    if (n >= HEAD_BYTES) break;
    const take = p.subarray(0, HEAD_BYTES - n);
    out.push(take);
    n += take.length;
  }
  return Buffer.concat(out, n);
}

/** The last TAIL_BYTES of some buffers, copied. */
function tailOf(parts: readonly Buffer[]): Buffer {
  const out: Buffer[] = [];
  let n = 0;
  for (let i = parts.length - 1; i >= 0 && n < TAIL_BYTES; i--) {
    const p = parts[i];
    const take = p.subarray(Math.max(0, p.length - (TAIL_BYTES - n)));
    out.unshift(take);
    n += take.length;
  }
  return Buffer.concat(out, n);
}
