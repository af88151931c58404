// Reading a server-sent event stream (a POST's answer, the GET stream, the legacy SSE transport):
// bytes to events with eventsource-parser, within a size limit, and the JSON message an event carries.

import { createParser, type EventSourceMessage, type EventSourceParser, type ParseError } from 'eventsource-parser';
import type { TransportWarning } from './transport';
import { EventLoopSlicer, excerptText, Utf8Decoder, withoutByteOrderMark } from './httpBody';
import { arrivedBodyOf, nodeBodyOf, type NodeBody, type NodeBodyEnd } from './nodeResponse';
import { ByteChunks } from '../util/byteChunks';

/** Where the events of a stream go. Called as plain functions, not as methods (no `this`). */
export interface SseSink {
  readonly onEvent: (event: EventSourceMessage) => void;
  readonly onRetry: (ms: number) => void;
}

/** The event stream broke a rule we enforce (an event over the size limit). */
export class SseLimitError extends Error {}

/** How long a server may keep a stream open that owes nothing more (see readEventStream). */
export const OWED_NOTHING_GRACE_MS = 1000;

/**
 * Reads an SSE body to its end, handing each event to the sink. Resolves when the server ends
 * the body, or once `done()` holds (before the first chunk, or after one) and the server has not
 * ended it within OWED_NOTHING_GRACE_MS (a web body: at once); what comes after that is not
 * read, and a body still open is cancelled (a server may keep open a stream that owes nothing
 * more); rejects when reading fails (network, abort) or an event outgrows `maxChars`. A node:http
 * body is read straight from its IncomingMessage (nodeBodyOf), any other through its web stream.
 */
export function readEventStream(res: Response, sink: SseSink, maxChars: number, done?: () => boolean): Promise<void> {
  const whole = arrivedBodyOf(res);
  if (whole !== undefined) {
    try {
      return readArrivedEventStream(whole, sink, maxChars, done) ?? READ_AT_ONCE;
    } catch (err) {
      return Promise.reject(err);
    }
  }
  const reader = new EventStreamReader(sink, maxChars, done);
  const node = nodeBodyOf(res);
  return node !== undefined ? reader.readNode(node) : reader.readWeb(res.body);
}

const READ_AT_ONCE = Promise.resolve();

/**
 * A body node:http has parsed whole (arrivedBodyOf), read as readEventStream reads it. The usual
 * one (a POST's answer: one small event, ended by its blank line) is read in one step, its events
 * handed to the sink before this returns undefined; it throws what readEventStream would reject
 * with (an SseLimitError, or what the sink threw). Performance (#21): none of the reader's
 * per-stream state (decoder, line ends, held bytes, grace timer, promise hops). A body that does
 * not end with a line end goes through the reader as one chunk (the promise returned): what it
 * leaves of an unended last line (held bytes, a cut character) is read only while the stream
 * still owes answers (`done`), and one step could not tell.
 */
export function readArrivedEventStream(bytes: Buffer, sink: SseSink, maxChars: number, done?: () => boolean): Promise<void> | undefined {
  const last = bytes.length === 0 ? 10 : bytes[bytes.length - 1];
  if (last !== 10 && last !== 13) return new EventStreamReader(sink, maxChars, done).readNode(oneChunkBody(bytes));
  readWholeEventStream(bytes, sink, maxChars);
  return undefined;
}

/**
 * A body that ends with a line end, read in one step: what the reader does with it as one chunk
 * (feedText), whether or not the stream owes answers (no text is held back for later).
 */
function readWholeEventStream(bytes: Buffer, sink: SseSink, maxChars: number): void {
  let limitError: SseLimitError | undefined;
  const onError = (error: ParseError): void => {
    if (error.type === 'max-buffer-size-exceeded') limitError = sseTooLarge(maxChars);
  };
  const parser = createParser({ onEvent: sink.onEvent, onRetry: sink.onRetry, onError, maxBufferSize: maxChars });
  const text = withoutByteOrderMark(bytes.toString('utf8'));
  // A CR that ends the body is a whole line end: no LF can follow it now.
  if (!feedWithinLimit(parser, new EventSize(maxChars), text)) limitError ??= sseTooLarge(maxChars);
  if (limitError !== undefined) throw limitError;
}

/** A whole body already taken, as a NodeBody of one chunk (what readArrived hands over). */
function oneChunkBody(bytes: Buffer): NodeBody {
  return {
    read: (onChunk) => {
      try {
        return Promise.resolve(bytes.length === 0 || onChunk(bytes) ? 'ended' : 'stopped');
      } catch (err) {
        return Promise.reject(err);
      }
    },
    cancel: () => undefined,
    wholeBodyArrived: () => true,
  };
}

/**
 * One stream's reading. Performance (#21): a class rather than an async function (whose frame and
 * promises cost per request); a POST's answer is read by one of these per request, and most of
 * them carry one small event.
 */
class EventStreamReader {
  private readonly parser: EventSourceParser;
  private readonly decoder = new Utf8Decoder();
  private readonly lines = new CrLineEnds();
  /** Small chunks without a line end, held as bytes until one comes (see feed); made when first needed. */
  private held: ByteChunks | undefined;
  private readonly eventSize: EventSize;
  private limitError: SseLimitError | undefined;
  /** done() held after a chunk: what comes after it is not read. */
  private owedNothing = false;
  /** Cancels a node body the server keeps open after owing nothing (OWED_NOTHING_GRACE_MS). */
  private closer: NodeJS.Timeout | undefined;
  private node: NodeBody | undefined;

  constructor(
    sink: SseSink,
    private readonly maxChars: number,
    private readonly done: (() => boolean) | undefined,
  ) {
    this.parser = createParser({ onEvent: sink.onEvent, onRetry: sink.onRetry, onError: this.parseError, maxBufferSize: maxChars });
    this.eventSize = new EventSize(maxChars);
  }

  readNode(node: NodeBody): Promise<void> {
    this.node = node;
    // A stream that owes nothing from the start (the answer to a POST of notifications or answers
    // only, which a server should answer with 202 and no body): the server has
    // OWED_NOTHING_GRACE_MS to end it, as after an answer (one that never sent a byte held the
    // socket until the transport closed); what its first chunk carries is still taken (a server
    // that sends a request of its own there). No timer when its end has arrived already.
    if (this.done?.() === true) {
      return node.read(this.takeNodeChunk, node.wholeBodyArrived() ? undefined : OWED_NOTHING_GRACE_MS).then(this.nodeEnded, this.nodeFailed);
    }
    // Sliced by the body's reader (nodeHttp.ts readDirect): a fast server's tiny events do not hold
    // the event loop. Returning false stops it and destroys the body (and its socket) unread.
    return node.read(this.takeNodeChunk).then(this.nodeEnded, this.nodeFailed);
  }

  async readWeb(body: ReadableStream<Uint8Array> | null): Promise<void> {
    // Owing nothing from the start: cancelled at once, as a web body is after its last owed answer.
    if (this.done?.() === true) {
      body?.cancel().catch(() => undefined);
      return;
    }
    const stopped = await readWebEventStream(body, (chunk) => {
      this.feed(chunk);
      if (this.limitError) throw this.limitError;
      return this.done?.() !== true;
    });
    if (!stopped) this.feedRest();
    if (this.limitError) throw this.limitError;
  }

  private readonly parseError = (error: ParseError): void => {
    if (error.type === 'max-buffer-size-exceeded') this.limitError = sseTooLarge(this.maxChars);
    // Unknown fields and invalid retry values are ignored, as the SSE standard says.
  };

  private readonly takeNodeChunk = (chunk: Buffer): boolean => {
    if (this.owedNothing) return true;
    this.feed(chunk);
    if (this.limitError !== undefined) return false;
    if (this.done?.() === true) {
      this.owedNothing = true;
      // Once the stream owes nothing more, the server has OWED_NOTHING_GRACE_MS to end it (what
      // is still sent is not read): most end it at once, and their connection goes back to the
      // pool (destroying it at once cost a new connection per answer); one kept open is
      // destroyed then. No timer when the body's end has arrived already (an answer that came
      // with its headers, read after node:http parsed it all).
      const node = this.node!;
      if (!node.wholeBodyArrived()) {
        this.closer = setTimeout(() => node.cancel(), OWED_NOTHING_GRACE_MS);
        this.closer.unref();
      }
    }
    return true;
  };

  private readonly nodeEnded = (_end: NodeBodyEnd): void => {
    this.stopCloser();
    if (this.limitError) throw this.limitError;
    if (this.owedNothing) return;
    this.feedRest();
    if (this.limitError) throw this.limitError;
  };

  private readonly nodeFailed = (err: unknown): void => {
    this.stopCloser();
    // The body destroyed after the grace: the stream had carried all it owed.
    if (!this.owedNothing) throw err;
  };

  private stopCloser(): void {
    if (this.closer !== undefined) clearTimeout(this.closer);
  }

  /**
   * A character split across chunks is decoded whole, and a leading byte order mark dropped as
   * the parser expects (Utf8Decoder: several times faster than TextDecoder's stream mode on large
   * events). What the parser holds of an unfinished line is a string per piece it was fed (about
   * 30 bytes of heap each), and the server decides how small the pieces are: a small chunk with no
   * line end is held as bytes (ByteChunks) until a line end comes or enough has gathered. No event
   * ends without a line end, so holding them delays none.
   */
  private feed(chunk: Uint8Array): void {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const held = this.held;
    // The usual chunk, an answer's whole event, ends with its blank line: no search then.
    if (bytes.length < FEED_AT_ONCE_BYTES && bytes[bytes.length - 1] !== 10 && !hasLineEnd(bytes)) {
      const holding = held ?? (this.held = new ByteChunks());
      holding.push(bytes);
      if (holding.length >= FEED_AT_ONCE_BYTES) this.feedText(this.decoder.write(holding.take()));
      return;
    }
    if (held === undefined || held.length === 0) {
      this.feedText(this.decoder.write(bytes));
      return;
    }
    held.push(bytes);
    this.feedText(this.decoder.write(held.take()));
  }

  private feedRest(): void {
    const held = this.held === undefined || this.held.length === 0 ? '' : this.decoder.write(this.held.take());
    this.feedText(held + this.decoder.end());
  }

  /**
   * What reaches the parser has LF line ends only, and none of the lines it would report as an
   * error (EventSize.refusedAt lists them): it builds a ParseError, stack trace and all, for each
   * line of an unknown field or with an invalid retry value, which we ignore anyway, and on text
   * with CR line ends it searches for an LF from every line start. Server text of such lines held
   * the event loop some 100 to 200 ms per 64 KiB; a blank line in each write kept every event
   * under the size limit.
   */
  private feedText(decoded: string): void {
    const text = this.lines.complete(decoded);
    if (text === '') return;
    if (!feedWithinLimit(this.parser, this.eventSize, text)) this.limitError ??= sseTooLarge(this.maxChars);
  }
}

/**
 * Feeds `text` to the parser with its line ends made LF (a CR it ends with counts as a whole line
 * end: CrLineEnds completes one cut between texts), up to the first event over the size limit, and
 * without the lines the parser would report as errors (see feedText); false when an event was over
 * the limit. The events complete before a refused one still go out (an answer among them).
 */
function feedWithinLimit(parser: EventSourceParser, eventSize: EventSize, text: string): boolean {
  if (text.indexOf('\r') !== -1) text = text.replace(/\r\n?/g, '\n');
  const refusedAt = eventSize.refusedAt(text);
  const end = refusedAt === -1 ? text.length : refusedAt;
  if (end > 0) parser.feed(withoutLines(text, end, eventSize.errorLines));
  return refusedAt === -1;
}

function sseTooLarge(maxChars: number): SseLimitError {
  return new SseLimitError(
    `an SSE event is larger than the limit of ${maxChars} bytes, or has too many data lines for it (each counts ${SSE_LINE_COST} bytes, up to ${SSE_HEAP_FACTOR} times the limit)`,
  );
}

function hasLineEnd(bytes: Buffer): boolean {
  return bytes.indexOf(10) !== -1 || bytes.indexOf(13) !== -1;
}

/** Chunks at least this large go to the parser as they come; smaller ones wait for a line end (see feed). */
const FEED_AT_ONCE_BYTES = 16 * 1024;

/**
 * What a `data:` line of an event costs the parser beyond its characters: it joins each to the
 * event's data (a string of about 30 bytes a line, and the line's own), so an event of
 * one-character lines costs some 65 bytes of heap per character. Other lines (comments, `id:`,
 * `event:`) are not kept.
 */
export const SSE_LINE_COST = 64;

/**
 * An event's characters and SSE_LINE_COST per data line may come to this many times the limit:
 * a pretty-printed JSON message (one data line per line of it, 16 characters or more each) meets
 * the limit on its characters first, and an endless event of one-character data lines is refused
 * at about 6 times the limit's worth of heap rather than 65.
 */
export const SSE_HEAP_FACTOR = 6;

/**
 * The size of the event being read, as the limit counts it: its characters and SSE_LINE_COST per
 * data line, from the last blank line (the end of the event before). The parser's own limit
 * counts characters only; an endless event of short data lines stays under it while the heap
 * grows some 30 times faster. On the way, the complete lines the parser would report as errors
 * are listed (errorLines), for feedText to leave out.
 */
class EventSize {
  private chars = 0;
  private dataLines = 0;
  /** The text fed last ended inside a line (not just after a line end), and whether that line is a data line. */
  private midLine = false;
  private midLineIsData = false;
  /** No text counted yet: the parser takes what looks like a byte order mark off its first text, so its first line is left as it is. */
  private streamStart = true;
  private readonly budget: number;
  /**
   * The lines of the text counted last that the parser would report as errors (see makesParseError),
   * as pairs of where each begins and where the line after it begins; adjoining ones are one pair.
   * A line begun in an earlier text, or not ended in this one, is not listed: the parser has, or
   * will have, its start from another text. Made when first needed (most streams have none).
   */
  errorLines: number[] | undefined;

  constructor(maxChars: number) {
    this.budget = SSE_HEAP_FACTOR * maxChars;
  }

  /**
   * Counts `text` (LF line ends only: feedText makes them so). -1 while every event fits; else
   * where the first one that does not begins in `text` (0: in an earlier text).
   */
  refusedAt(text: string): number {
    /** Where the open event's text begins in `text` (0: before it), and its characters before that. */
    let eventStart = 0;
    let carried = this.chars;
    let lineStart = 0;
    if (this.errorLines !== undefined) this.errorLines.length = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', lineStart)) {
      const next = end + 1;
      const continued = lineStart === 0 && this.midLine;
      if (continued) {
        if (this.midLineIsData) this.dataLines++;
      } else if (end === lineStart) {
        // A blank line: the event ends here.
        if (carried + (end - eventStart) + this.dataLines * SSE_LINE_COST > this.budget) return eventStart;
        eventStart = next;
        carried = 0;
        this.dataLines = 0;
      } else {
        if (isDataLine(text, lineStart)) this.dataLines++;
        if (makesParseError(text, lineStart, end) && (lineStart > 0 || !this.streamStart)) {
          const errorLines = (this.errorLines ??= []);
          if (errorLines[errorLines.length - 1] === lineStart) errorLines[errorLines.length - 1] = next;
          else errorLines.push(lineStart, next);
        }
      }
      lineStart = next;
    }
    if (lineStart < text.length) {
      this.midLineIsData = lineStart === 0 && this.midLine ? this.midLineIsData : isDataLine(text, lineStart);
      this.midLine = true;
    } else {
      this.midLine = false;
    }
    this.streamStart = false;
    this.chars = carried + (text.length - eventStart);
    return this.chars + this.dataLines * SSE_LINE_COST > this.budget ? eventStart : -1;
  }
}

/** A line that starts with `d` (a `data` field; an unknown field that does is counted too, harmlessly). */
function isDataLine(text: string, lineStart: number): boolean {
  return text.charCodeAt(lineStart) === 100;
}

/**
 * Whether eventsource-parser reports the line from `start` to its line end at `end` (not blank)
 * as an error: a field other than data, event, id and retry (a field is the line up to its first
 * colon, or the whole line), or a retry value (after one space) that is not all ASCII digits. A
 * line that starts with a colon is a comment. The parser ignores these lines but for the error.
 */
function makesParseError(text: string, start: number, end: number): boolean {
  switch (text.charCodeAt(start)) {
    case 58: // `:`
      return false;
    case 100:
      return !isField(text, start, end, 'data');
    case 101:
      return !isField(text, start, end, 'event');
    case 105:
      return !isField(text, start, end, 'id');
    case 114:
      return !isField(text, start, end, 'retry') || !isDigits(text, text.charCodeAt(start + 6) === 32 ? start + 7 : start + 6, end);
    default:
      return true;
  }
}

/** Whether the line from `start` to `end` is of the field `name`: the name, then a colon or the line's end. */
function isField(text: string, start: number, end: number, name: string): boolean {
  const after = start + name.length;
  return text.startsWith(name, start) && (after === end || text.charCodeAt(after) === 58);
}

/** Whether `text` from `start` to `end` is one ASCII digit or more (`start` past `end`: none). */
function isDigits(text: string, start: number, end: number): boolean {
  if (start >= end) return false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** `text` up to `end` (a line start) without the lines `errorLines` lists. */
function withoutLines(text: string, end: number, errorLines: readonly number[] | undefined): string {
  if (errorLines === undefined || errorLines.length === 0 || errorLines[0]! >= end) return end === text.length ? text : text.slice(0, end);
  let kept = text.slice(0, errorLines[0]);
  let from = errorLines[1]!;
  for (let i = 2; i < errorLines.length && errorLines[i]! < end; i += 2) {
    kept += text.slice(from, errorLines[i]);
    from = errorLines[i + 1]!;
  }
  return from < end ? kept + text.slice(from, end) : kept;
}

/**
 * A CR is a whole line end in SSE, but the parser holds back a CR that ends its input (an LF may
 * follow): on a stream with CR line ends the last event would wait for the next chunk, or be
 * lost at the body's end. Such a CR is completed here as CRLF at once, and an LF that then
 * starts the next text is dropped (it was the other half of a CRLF already complete): a CRLF cut
 * between two texts is one line end when feedText makes every line end an LF.
 */
class CrLineEnds {
  private afterCr = false;

  complete(text: string): string {
    if (text === '') return text;
    if (this.afterCr) {
      this.afterCr = false;
      if (text.charCodeAt(0) === 10) text = text.slice(1);
      if (text === '') return text;
    }
    if (text.charCodeAt(text.length - 1) !== 13) return text;
    this.afterCr = true;
    return `${text}\n`;
  }
}

/**
 * Hands each chunk of a web stream to `onChunk` (which may throw to stop, or return false to end
 * the reading: then resolves true); cancels the stream on failure or stop.
 */
async function readWebEventStream(body: ReadableStream<Uint8Array> | null, onChunk: (chunk: Uint8Array) => boolean): Promise<boolean> {
  if (body === null) return false;
  const reader = body.getReader();
  const slicer = new EventLoopSlicer();
  try {
    for (;;) {
      await slicer.yieldIfBusy();
      const { done, value } = await reader.read();
      if (done) return false;
      if (!onChunk(value)) {
        reader.cancel().catch(() => undefined);
        return true;
      }
    }
  } catch (err) {
    reader.cancel().catch(() => undefined);
    throw err;
  } finally {
    reader.releaseLock();
  }
}

/** What sseMessageValue returns for an event that carries no message. */
export const NO_SSE_MESSAGE: unique symbol = Symbol('no SSE message');

/** What sseMessageValue returns for an event whose data is over the limit (the caller warns, or fails the stream). */
export const OVERSIZE_SSE_MESSAGE: unique symbol = Symbol('SSE message over the limit');

/**
 * The JSON value an SSE event carries to the client, or NO_SSE_MESSAGE: an event of another type,
 * blank data (a priming event) or data that is not JSON (warned about here); OVERSIZE_SSE_MESSAGE
 * for data over `maxBytes`.
 */
export function sseMessageValue(event: EventSourceMessage, maxBytes: number, warn: (warning: TransportWarning) => void): unknown {
  if (event.event !== undefined && event.event !== 'message') return NO_SSE_MESSAGE;
  const data = event.data;
  if (data === '' || data.trim() === '') return NO_SSE_MESSAGE;
  // Characters first: counting bytes walks the whole text.
  if (data.length > maxBytes && Buffer.byteLength(data) > maxBytes) return OVERSIZE_SSE_MESSAGE;
  try {
    return JSON.parse(data);
  } catch {
    warn({ message: 'ignored an SSE event whose data is not valid JSON', excerpt: excerptText(data) });
    return NO_SSE_MESSAGE;
  }
}
