/**
 * Newline-delimited framing for byte streams (the MCP stdio transport).
 *
 * Cost is linear in the bytes received: each byte is scanned for '\n' once (only the new
 * chunk is searched), the chunks of one line are kept as a list and concatenated once when
 * the line's newline arrives, and UTF-8 is decoded on complete lines only, so a multibyte
 * character split across chunks is never damaged.
 */
import type { OversizeNotice, TransportWarning } from './transport';
import { errorMessage } from '../util/errorMessage';

/** Default limit for one message (one line, in bytes, without its line terminator). */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Length of the excerpt of bad input quoted in warnings (characters). */
export const WARNING_EXCERPT_CHARS = 200;

const LF = 0x0a;
const CR = 0x0d;

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
  /** One complete line, without its '\n' and without a trailing '\r'. The buffer may be a view. */
  onLine(line: Buffer): void;
  /** Called once per refused line, as soon as it is known to be too long. */
  onOversize(info: OversizeLineInfo): void;
  /**
   * Called when a line refused before its end (`onOversize` with `complete: false`) ends: at
   * its newline or at the end of the stream, with its whole length and its last bytes.
   */
  onOversizeEnd?(info: OversizeLineInfo): void;
}

const HEAD_BYTES = 1024;
const TAIL_BYTES = 256;

/**
 * Splits a byte stream into lines. A line longer than the limit is refused: its bytes are
 * dropped as they arrive (never buffered) until the next newline, and `onOversize` is called
 * once for it. Callback exceptions do not corrupt the state: the rest of the chunk is still
 * processed and the first exception is rethrown afterwards.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private pendingBytes = 0;
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
    return this.pendingBytes === 0 && !this.discarding;
  }

  /** Bytes held for the line still in progress (0 while discarding). */
  get bufferedBytes(): number {
    return this.pendingBytes;
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
    if (this.parts.length === 0) {
      line = piece;
    } else {
      this.parts.push(piece);
      line = Buffer.concat(this.parts, this.pendingBytes + piece.length);
      this.parts = [];
    }
    this.pendingBytes = 0;
    this.emit(line, failures);
  }

  /** Ends the stream: a final line without a newline is still delivered. Idempotent. */
  end(): void {
    if (this.done) return;
    this.done = true;
    const failures: unknown[] = [];
    if (this.discarding) {
      this.endDiscarding(failures);
    } else if (this.pendingBytes > 0) {
      const line = Buffer.concat(this.parts, this.pendingBytes);
      this.parts = [];
      this.pendingBytes = 0;
      this.emit(line, failures);
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
    this.parts.push(rest);
    this.pendingBytes += rest.length;
    // One byte of slack: the last byte may be the '\r' of a '\r\n' terminator.
    if (this.pendingBytes > this.maxLineBytes + 1) {
      const info: OversizeLineInfo = {
        bytes: this.pendingBytes,
        complete: false,
        limit: this.maxLineBytes,
        head: headOf(this.parts),
      };
      this.discarded = { bytes: info.bytes, head: info.head, tail: tailOf(this.parts) };
      this.parts = [];
      this.pendingBytes = 0;
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
        head: line.subarray(0, Math.min(HEAD_BYTES, length)),
        tail: line.subarray(Math.max(0, length - TAIL_BYTES), length),
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

/**
 * Decodes the first `maxBytes` of `buf` (default: all of it), dropping a UTF-8 sequence cut
 * off at the end, so an excerpt never ends in a replacement character.
 */
export function decodeUtf8Prefix(buf: Buffer, maxBytes = buf.length): string {
  let end = Math.min(buf.length, maxBytes);
  // Find the start of the last sequence (at most 3 continuation bytes back).
  let lead = end - 1;
  while (lead >= 0 && lead > end - 4 && (buf[lead] & 0xc0) === 0x80) lead--;
  if (lead >= 0) {
    const b = buf[lead];
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    if (end - lead < need) end = lead;
  }
  return buf.toString('utf8', 0, end);
}

/** A short, single-line, log-safe excerpt of some text. */
export function excerpt(text: string, maxChars = WARNING_EXCERPT_CHARS): string {
  let s = text.length > maxChars ? text.slice(0, maxChars) : text;
  // Control characters (ANSI escapes, NUL, ...) would garble a log line.
  s = s.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  s = s.replace(/\t/g, ' ');
  return text.length > maxChars ? `${s}…` : s;
}

/** "64 MiB", "1.5 KiB", "12 bytes". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n;
  let u = -1;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  const text = Number.isInteger(v) ? String(v) : v.toFixed(1);
  return `${text} ${units[u]}`;
}

export interface LineDecoderOptions {
  /** Longest accepted message in bytes (one line, without its terminator). Default 64 MiB. */
  readonly maxMessageBytes?: number;
  /** One parsed JSON value per line. */
  onMessage(value: unknown): void;
  /** Lines that are not JSON, and refused oversize messages. */
  onWarning(warning: TransportWarning): void;
  /** Appended to the oversize warning: how a user raises the limit. */
  readonly limitHint?: string;
  /** Names the stream in warnings; default "stdout". */
  readonly source?: string;
}

/** What the oversize warning suggests when the host gives no hint of its own (see limitHint). */
export const DEFAULT_LIMIT_HINT = 'raise the message size limit of this host (in VS Code: the setting mcpHost.maxMessageSizeMB)';

/**
 * Newline-delimited JSON decoder. Each non-blank line is parsed with JSON.parse; a line that
 * is not JSON becomes a warning (with an excerpt) and decoding continues with the next line.
 */
export class LineDecoder {
  /** Lines that span chunks, oversize lines and the end of the stream. */
  private readonly splitter: LineSplitter;
  readonly maxMessageBytes: number;
  /** A refused response whose id was not in its first bytes: look at its last ones when it ends. */
  private idAtEnd = false;

  constructor(private readonly opts: LineDecoderOptions) {
    this.maxMessageBytes = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.splitter = new LineSplitter({
      maxLineBytes: this.maxMessageBytes,
      onLine: (line) => this.decode(line, 0, line.length),
      onOversize: (info) => this.onOversize(info),
      onOversizeEnd: (info) => this.onOversizeEnd(info),
    });
  }

  /**
   * Performance: the usual line lies wholly inside one chunk. Those are split here, in one loop
   * with no callback per line and no Buffer view; the splitter sees only the bytes of lines
   * that span chunks (and of refused ones). As in LineSplitter, a throwing onMessage does not
   * stop the rest of the chunk; the first exception is rethrown afterwards.
   */
  push(chunk: Buffer): void {
    const splitter = this.splitter;
    if (splitter.ended) throw new Error('LineDecoder: push() after end()');
    const max = this.maxMessageBytes;
    let failed = false;
    let failure: unknown;
    let start = 0;
    const length = chunk.length;
    while (start < length) {
      const nl = chunk.indexOf(LF, start);
      try {
        if (nl === -1) {
          // A line that continues in the next chunk.
          splitter.pushWithoutNewline(chunk, start);
        } else if (!splitter.idle) {
          // The end of a line begun in an earlier chunk.
          splitter.pushLineEnd(chunk, start, nl);
        } else {
          const end = nl > start && chunk[nl - 1] === CR ? nl - 1 : nl;
          // A line over the limit goes to the splitter, which refuses and reports it.
          if (end - start > max) splitter.pushLineEnd(chunk, start, nl);
          else this.decode(chunk, start, end);
        }
      } catch (err) {
        if (!failed) {
          failed = true;
          failure = err;
        }
      }
      if (nl === -1) break;
      start = nl + 1;
    }
    if (failed) throw failure;
  }

  end(): void {
    this.splitter.end();
  }

  /** The line is bytes [start, end) of `buf`, without its terminator. */
  private decode(buf: Buffer, start: number, end: number): void {
    const first = buf[start];
    // '{' and '[' start every JSON-RPC message: skip the blank-line and byte-order-mark tests.
    if (first !== 0x7b && first !== 0x5b && (end === start || isBlank(buf, start, end))) return;
    let text = buf.toString('utf8', start, end);
    if (first === 0xef && text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a UTF-8 byte order mark
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.notJson(err, text, end - start);
      return;
    }
    this.opts.onMessage(value);
  }

  private notJson(err: unknown, text: string, bytes: number): void {
    const source = this.opts.source ?? 'stdout';
    const why = errorMessage(err);
    this.opts.onWarning({
      message: `Ignored a line on ${source} that is not JSON (${formatBytes(bytes)}): ${excerpt(why, 160)}`,
      excerpt: excerpt(text),
    });
  }

  private onOversize(info: OversizeLineInfo): void {
    const source = this.opts.source ?? 'stdout';
    const size = info.complete ? `${formatBytes(info.bytes)} (${info.bytes} bytes)` : `more than ${formatBytes(info.bytes)} (${info.bytes} bytes so far)`;
    const hint = this.opts.limitHint ?? DEFAULT_LIMIT_HINT;
    // The request it answers fails now if its id is in the first bytes (or the line is whole).
    const start = refusedMessageStart(info.head);
    const answers = start.response ? (start.id ?? (info.tail ? trailingId(info.tail) : undefined)) : undefined;
    this.idAtEnd = start.response && answers === undefined && !info.complete;
    this.opts.onWarning({
      message:
        `Discarded a message on ${source} of ${size}: it exceeds the limit of ${formatBytes(info.limit)} (${info.limit} bytes). ` +
        `Decoding resumes after its newline; if this server legitimately sends larger messages, ${hint}.`,
      excerpt: excerpt(decodeUtf8Prefix(info.head, WARNING_EXCERPT_CHARS * 4)),
      oversize: { bytes: info.bytes, complete: info.complete, limit: info.limit, answers, hint },
    });
  }

  /** A response refused before its end whose id comes last (as the TypeScript SDK writes them). */
  private onOversizeEnd(info: OversizeLineInfo): void {
    if (!this.idAtEnd) return;
    this.idAtEnd = false;
    const answers = info.tail ? trailingId(info.tail) : undefined;
    if (answers === undefined) return;
    this.opts.onWarning({
      message: `The discarded message on ${this.opts.source ?? 'stdout'} (${formatBytes(info.bytes)}, ${info.bytes} bytes) was the answer to request ${JSON.stringify(answers)}.`,
      oversize: { bytes: info.bytes, complete: true, limit: info.limit, answers, hint: this.opts.limitHint ?? DEFAULT_LIMIT_HINT },
    });
  }
}

/**
 * What the first bytes of a refused message say: whether it is a response (a `result` or
 * `error` member, and no `method`, among its first members) and its `id` if that came early.
 * The rest of the message was never kept; a response's id may also end it (see trailingId).
 */
export function refusedMessageStart(head: Buffer): { response: boolean; id?: number | string } {
  const top = topLevelMembers(decodeUtf8Prefix(head));
  const response = !top.keys.includes('method') && (top.keys.includes('result') || top.keys.includes('error'));
  return response ? { response, id: top.id } : { response };
}

/** For transports that hold a refused message whole (SSE): its size and the request it answers. */
export function oversizeNotice(text: string, limit: number, hint = DEFAULT_LIMIT_HINT): OversizeNotice {
  const start = refusedMessageStart(Buffer.from(text.slice(0, HEAD_BYTES)));
  const answers = start.response ? (start.id ?? trailingId(Buffer.from(text.slice(-TAIL_BYTES)))) : undefined;
  return { bytes: Buffer.byteLength(text), complete: true, limit, answers, hint };
}

/** The keys of the outermost object among the first bytes of a JSON text, and its `id` if whole. */
function topLevelMembers(text: string): { keys: string[]; id?: number | string } {
  const keys: string[] = [];
  let id: number | string | undefined;
  let depth = 0;
  let i = text.search(/\S/);
  if (i === -1 || text[i] !== '{') return { keys };
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end === -1) break; // cut off inside a string
      if (depth === 1) {
        const colon = /^\s*:/.exec(text.slice(end + 1, end + 40));
        if (colon) {
          const key = parseJsonString(text.slice(i, end + 1));
          keys.push(key);
          if (key === 'id') id = primitiveAt(text, end + 1 + colon[0].length);
        }
      }
      i = end;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return { keys, id };
}

function parseJsonString(literal: string): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return literal; // an invalid escape: not a key we look for
  }
}

/** The index of the quote that closes the string opening at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/** A number or string id starting at `at` (after blanks), whole in `text`. */
function primitiveAt(text: string, at: number): number | string | undefined {
  const m = /^\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*[,}]/.exec(text.slice(at, at + 200));
  return m ? (JSON.parse(m[1]) as number | string) : undefined;
}

/**
 * The `id` among the plain members that end an object (`,"id":5}` or `,"id":5,"jsonrpc":"2.0"}`).
 * A `,` or `{` before its quote makes `"id"` a key, and only plain members follow it up to the
 * final brace, so it belongs to the outermost object.
 */
export function trailingId(tail: Buffer): number | string | undefined {
  const text = tail.toString('utf8');
  const plain = '(?:-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?|"(?:[^"\\\\]|\\\\.)*"|true|false|null)';
  const m = new RegExp(`[,{]\\s*"id"\\s*:\\s*(${plain})\\s*((?:,\\s*"(?:[^"\\\\]|\\\\.)*"\\s*:\\s*${plain}\\s*)*)\\}\\s*$`).exec(text);
  if (!m) return undefined;
  const value: unknown = JSON.parse(m[1]);
  return typeof value === 'number' || typeof value === 'string' ? value : undefined;
}

function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = buf[i];
    if (b !== 0x20 && b !== 0x09 && b !== CR && b !== 0x0b && b !== 0x0c) return false;
  }
  return true;
}

export interface TextLineDecoderOptions {
  /** Longer lines are cut: the first part is delivered with a "[line truncated…]" note. */
  readonly maxLineBytes?: number;
  onLine(line: string): void;
}

/** Default cut-off for one line of free-form text (stderr). */
export const DEFAULT_MAX_TEXT_LINE_BYTES = 64 * 1024;

/** Splits a byte stream of UTF-8 text (e.g. stderr) into lines; CRLF-tolerant. */
export class TextLineDecoder {
  private readonly splitter: LineSplitter;

  constructor(private readonly opts: TextLineDecoderOptions) {
    this.splitter = new LineSplitter({
      maxLineBytes: opts.maxLineBytes ?? DEFAULT_MAX_TEXT_LINE_BYTES,
      onLine: (line) => this.opts.onLine(line.toString('utf8')),
      onOversize: (info) =>
        this.opts.onLine(
          `${decodeUtf8Prefix(info.head)}… [line truncated: ${info.complete ? '' : 'more than '}${formatBytes(info.bytes)}]`,
        ),
    });
  }

  push(chunk: Buffer): void {
    this.splitter.push(chunk);
  }

  end(): void {
    this.splitter.end();
  }
}

/**
 * One message as a line for the wire: JSON plus '\n'. JSON.stringify never emits a raw
 * newline; U+2028/U+2029 are escaped too, since some line readers treat them as line breaks.
 */
export function encodeMessage(message: unknown): string {
  const json = JSON.stringify(message);
  if (json === undefined) {
    throw new TypeError(`Cannot send ${typeof message === 'undefined' ? 'undefined' : typeof message} as a JSON message`);
  }
  // Performance: look before replacing (replace() with a callback costs more even when nothing
  // matches). indexOf of a character above U+00FF in a one-byte (Latin-1) string, what
  // JSON.stringify makes of ASCII data, is answered without a scan.
  if (json.indexOf('\u2028') === -1 && json.indexOf('\u2029') === -1) return `${json}\n`;
  return `${json.replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'))}\n`;
}
