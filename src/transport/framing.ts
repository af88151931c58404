/**
 * Newline-delimited framing for byte streams (the MCP stdio transport).
 *
 * Cost is linear in the bytes received: each byte is scanned for '\n' once (only the new
 * chunk is searched), the chunks of one line are kept as a list and concatenated once when
 * the line's newline arrives, and UTF-8 is decoded on complete lines only, so a multibyte
 * character split across chunks is never damaged.
 *
 * The parts: line splitting with the size limit (lineSplitter.ts) and what a refused message
 * says (refusedMessage.ts); the decoders of JSON messages and of text lines, and the encoder,
 * are here. The hot path (LineDecoder.push and decode) stays in this one file.
 */
import type { TransportWarning } from './transport';
import { errorMessage } from '../util/errorMessage';
import { escapedChar } from '../util/serverText';
import { CR, LF, LineSplitter, type OversizeLineInfo } from './lineSplitter';
import { DEFAULT_LIMIT_HINT, decodeUtf8Prefix, refusedMessageStart, trailingId } from './refusedMessage';
import { WarningRate } from '../util/warningRate';

export { LineSplitter, type LineSplitterOptions, type OversizeLineInfo } from './lineSplitter';
export { DEFAULT_LIMIT_HINT, decodeUtf8Prefix, oversizeNotice, refusedMessageStart, trailingId } from './refusedMessage';

/** Default limit for one message (one line, in bytes, without its line terminator). */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Warnings about lines that are not JSON, at most, per second and decoder (the rest are counted). */
export const NOT_JSON_WARNINGS_PER_SECOND = 10;

/**
 * How long one push() reads lines before it gives the event loop a turn (see onTurnOver). Node
 * reads a busy pipe up to 32 chunks in one turn: 100,000 small notifications held it 90–230 ms,
 * 200,000 lines of "{x}" (an exception each) 1.5–2.2 s.
 */
export const TURN_BUDGET_MS = 10;
/** How many lines are read between two looks at the clock. */
const LINES_PER_CLOCK_CHECK = 32;

/** Length of the excerpt of bad input quoted in warnings (characters). */
export const WARNING_EXCERPT_CHARS = 200;

/** A short, single-line, log-safe excerpt of some text. */
export function excerpt(text: string, maxChars = WARNING_EXCERPT_CHARS): string {
  let s = text.length > maxChars ? text.slice(0, maxChars) : text;
  // Control characters (ANSI escapes, NUL, ...) would garble a log line.
  s = s.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, escapedChar);
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
  /** One parsed JSON value per line, and the line's length in bytes (see MessageListener). */
  onMessage(value: unknown, textBytes: number): void;
  /** Lines that are not JSON, and refused oversize messages. */
  onWarning(warning: TransportWarning): void;
  /** Appended to the oversize warning: how a user raises the limit. */
  readonly limitHint?: string;
  /** Names the stream in warnings; default "stdout". */
  readonly source?: string;
  /**
   * Called when a push() has read lines for TURN_BUDGET_MS and more remain: the decoder has
   * stopped at a line's end, and `rest` is the part of the chunk not read yet. The caller gives
   * the event loop a turn, then pushes `rest` (a stream: pause, unshift it, resume on
   * setImmediate). Without it, a chunk is read whole in one turn.
   */
  readonly onTurnOver?: (rest: Buffer) => void;
  /** The clock of the turn budget (tests); performance.now by default. */
  readonly now?: () => number;
}
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
  /** At most NOT_JSON_WARNINGS_PER_SECOND not-JSON warnings; the lines over that are counted. */
  private readonly notJsonWarnings: WarningRate;
  private readonly now: () => number;
  /** The stream's name in warnings. */
  private readonly source: string;
  /** Lines read since the last turn with a look at the clock, and that look's time (see turnIsOver). */
  private linesThisTurn = 0;
  private turnStarted = -1;

  constructor(private readonly opts: LineDecoderOptions) {
    this.maxMessageBytes = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.now = opts.now ?? (() => performance.now());
    this.source = opts.source ?? 'stdout';
    this.notJsonWarnings = new WarningRate(
      NOT_JSON_WARNINGS_PER_SECOND,
      (skipped) =>
        this.opts.onWarning({
          message: `Ignored ${skipped} more line${skipped === 1 ? '' : 's'} on ${this.source} that ${skipped === 1 ? 'is' : 'are'} not JSON (at most ${NOT_JSON_WARNINGS_PER_SECOND} such warnings a second)`,
        }),
      this.now,
    );
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
    const onTurnOver = this.opts.onTurnOver;
    let turnOver = false;
    // Lines not warned of are counted in a warning once their second is over, with what comes next.
    if (this.notJsonWarnings.pending) this.notJsonWarnings.roll();
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
          const lookAtClock = onTurnOver !== undefined && ++this.linesThisTurn % LINES_PER_CLOCK_CHECK === 0 && nl + 1 < length;
          // A line over the limit goes to the splitter, which refuses and reports it.
          if (end - start > max) splitter.pushLineEnd(chunk, start, nl);
          else this.decode(chunk, start, end);
          turnOver = lookAtClock && this.turnIsOver();
        }
      } catch (err) {
        if (!failed) {
          failed = true;
          failure = err;
        }
      }
      if (nl === -1) break;
      start = nl + 1;
      if (turnOver) {
        onTurnOver!(chunk.subarray(start));
        break;
      }
    }
    if (failed) throw failure;
  }

  /**
   * Looked at every LINES_PER_CLOCK_CHECK lines. Node hands a busy pipe's chunks to push() up to
   * 32 at a time in one turn of the event loop, so the budget spans pushes: the turn's clock
   * starts at its first look (with a setImmediate that ends the turn) and the later looks compare.
   * A connection with fewer lines a turn seldom looks at all.
   */
  private turnIsOver(): boolean {
    if (this.turnStarted < 0) {
      this.turnStarted = this.now();
      setImmediate(() => {
        this.turnStarted = -1;
        this.linesThisTurn = 0;
      });
      return false;
    }
    return this.now() - this.turnStarted >= TURN_BUDGET_MS;
  }

  end(): void {
    this.splitter.end();
    this.flushWarnings();
  }

  /** The line is bytes [start, end) of `buf`, without its terminator. */
  private decode(buf: Buffer, start: number, end: number): void {
    const first = buf[start];
    // '{' and '[' start every JSON-RPC message: the usual line skips the tests below.
    if (first !== 0x7b && first !== 0x5b) {
      const content = firstContent(buf, start, end);
      if (content === end) return; // a blank line
      if (!canBeginJson(buf[content])) {
        // Text (a banner, a log line) is not given to JSON.parse: its exception per line cost
        // about 7 µs, 200 ms of blocking per 64 KiB of one-character lines.
        this.notJson('it does not begin as JSON does', buf, start, end);
        return;
      }
    }
    const last = buf[end - 1];
    if (last !== 0x7d && last !== 0x5d && !canEndJson(lastContent(buf, start, end))) {
      this.notJson('it does not end as JSON does', buf, start, end);
      return;
    }
    let text = buf.toString('utf8', start, end);
    if (first === 0xef && text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a UTF-8 byte order mark
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.notJson(excerpt(errorMessage(err), 160), buf, start, end);
      return;
    }
    this.opts.onMessage(value, end - start);
  }

  /**
   * A line that is not JSON is a warning, at most NOT_JSON_WARNINGS_PER_SECOND of them; the lines
   * over that are counted and said in one warning when the next second's first comes, or at the end.
   */
  private notJson(why: string, buf: Buffer, start: number, end: number): void {
    // Enough bytes for the excerpt's characters (at most 4 bytes each), not the whole line. Read
    // before admit(), which may warn of the lines it held back: the listener may join a line of
    // its own into the process's shared buffer, which `buf` may be (ByteChunks.takeTransient).
    const shown = decodeUtf8Prefix(buf.subarray(start, end), WARNING_EXCERPT_CHARS * 4 + 4);
    if (!this.notJsonWarnings.admit()) return;
    this.opts.onWarning({ message: `Ignored a line on ${this.source} that is not JSON (${formatBytes(end - start)}): ${why}`, excerpt: excerpt(shown) });
  }

  /** Says how many lines were not warned of, if any (the stream ended or was destroyed). */
  flushWarnings(): void {
    this.notJsonWarnings.flush();
  }

  private onOversize(info: OversizeLineInfo): void {
    const size = info.complete ? `${formatBytes(info.bytes)} (${info.bytes} bytes)` : `more than ${formatBytes(info.bytes)} (${info.bytes} bytes so far)`;
    const hint = this.opts.limitHint ?? DEFAULT_LIMIT_HINT;
    // The request it answers fails now if its id is in the first bytes (or the line is whole).
    const start = refusedMessageStart(info.head);
    const answers = start.response ? (start.id ?? (info.tail ? trailingId(info.tail) : undefined)) : undefined;
    this.idAtEnd = start.response && answers === undefined && !info.complete;
    this.opts.onWarning({
      message:
        `Discarded a message on ${this.source} of ${size}: it exceeds the limit of ${formatBytes(info.limit)} (${info.limit} bytes). ` +
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
      message: `The discarded message on ${this.source} (${formatBytes(info.bytes)}, ${info.bytes} bytes) was the answer to request ${JSON.stringify(answers)}.`,
      oversize: { bytes: info.bytes, complete: true, limit: info.limit, answers, hint: this.opts.limitHint ?? DEFAULT_LIMIT_HINT },
    });
  }
}

function isBlankByte(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === CR || b === 0x0b || b === 0x0c;
}

/** Where the line's content begins: after a UTF-8 byte order mark and blanks (`end` when blank). */
function firstContent(buf: Buffer, start: number, end: number): number {
  let i = end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf ? start + 3 : start;
  while (i < end && isBlankByte(buf[i])) i++;
  return i;
}

/** The line's last byte before trailing blanks (-1 when there is none). */
function lastContent(buf: Buffer, start: number, end: number): number {
  let i = end - 1;
  while (i >= start && isBlankByte(buf[i])) i--;
  return i >= start ? buf[i] : -1;
}

/** A byte a JSON text can begin with: { [ " - a digit, or t f n (true, false, null). */
function canBeginJson(b: number): boolean {
  return b === 0x7b || b === 0x5b || b === 0x22 || b === 0x2d || (b >= 0x30 && b <= 0x39) || b === 0x74 || b === 0x66 || b === 0x6e;
}

/** A byte a JSON text can end with: } ] " a digit, or e l (true, false, null). */
function canEndJson(b: number): boolean {
  return b === 0x7d || b === 0x5d || b === 0x22 || (b >= 0x30 && b <= 0x39) || b === 0x65 || b === 0x6c;
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
  return `${escapeLineSeparators(stringifyMessage(message))}\n`;
}

/**
 * A message's JSON text, not yet fit for the wire: StdioTransport escapes U+2028/U+2029
 * (escapeLineSeparators) once per write of many messages rather than once per message.
 */
export function stringifyMessage(message: unknown): string {
  const json = JSON.stringify(message);
  if (json === undefined) {
    throw new TypeError(`Cannot send ${typeof message === 'undefined' ? 'undefined' : typeof message} as a JSON message`);
  }
  return json;
}

/**
 * Escapes U+2028/U+2029 in JSON text (JSON.stringify emits them raw, and only inside strings,
 * where the escape means the same). The text of a whole write may go through at once.
 */
export function escapeLineSeparators(text: string): string {
  // Performance: look before replacing (replace() with a callback costs more even when nothing
  // matches). indexOf of a character above U+00FF in a one-byte (Latin-1) string, what
  // JSON.stringify makes of ASCII data, is answered without a scan; and on a write's text, the
  // flattening it does first is one the write would do anyway.
  if (text.indexOf('\u2028') === -1 && text.indexOf('\u2029') === -1) return text;
  return text.replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}
