// Reading a server-sent event stream (a POST's answer, the GET stream, the legacy SSE transport):
// bytes to events with eventsource-parser, within a size limit, and the JSON message an event carries.

import { createParser, type EventSourceMessage, type EventSourceParser, type ParseError } from 'eventsource-parser';
import type { TransportWarning } from './transport';
import { EventLoopSlicer, excerptText, Utf8Decoder } from './httpBody';
import { nodeBodyOf, type NodeBody, type NodeBodyEnd } from './nodeResponse';

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
 * the body, or once `done()` holds after a chunk and the server has not ended it within
 * OWED_NOTHING_GRACE_MS (a web body: at once); what comes after that chunk is not read, and a
 * body still open is cancelled (a server may keep open a stream that owes nothing more); rejects
 * when reading fails (network, abort) or an event outgrows `maxChars`. A node:http body is read
 * straight from its IncomingMessage (nodeBodyOf), any other through its web stream.
 */
export function readEventStream(res: Response, sink: SseSink, maxChars: number, done?: () => boolean): Promise<void> {
  const reader = new EventStreamReader(sink, maxChars, done);
  const node = nodeBodyOf(res);
  return node !== undefined ? reader.readNode(node) : reader.readWeb(res.body);
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
  }

  readNode(node: NodeBody): Promise<void> {
    this.node = node;
    // Sliced by the body's reader (nodeHttp.ts readDirect): a fast server's tiny events do not hold
    // the event loop. Returning false stops it and destroys the body (and its socket) unread.
    return node.read(this.takeNodeChunk).then(this.nodeEnded, this.nodeFailed);
  }

  async readWeb(body: ReadableStream<Uint8Array> | null): Promise<void> {
    const stopped = await readWebEventStream(body, (chunk) => {
      this.feed(chunk);
      if (this.limitError) throw this.limitError;
      return this.done?.() !== true;
    });
    if (!stopped) this.feedRest();
  }

  private readonly parseError = (error: ParseError): void => {
    if (error.type === 'max-buffer-size-exceeded') {
      this.limitError = new SseLimitError(`an SSE event is larger than the limit of ${this.maxChars} bytes`);
    }
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
    if (!this.owedNothing) this.feedRest();
  };

  private readonly nodeFailed = (err: unknown): void => {
    this.stopCloser();
    // The body destroyed after the grace: the stream had carried all it owed.
    if (!this.owedNothing) throw err;
  };

  private stopCloser(): void {
    if (this.closer !== undefined) clearTimeout(this.closer);
  }

  // A character split across chunks is decoded whole, and a leading byte order mark dropped as
  // the parser expects (Utf8Decoder: several times faster than TextDecoder's stream mode on large events).
  private feed(chunk: Uint8Array): void {
    const text = this.lines.complete(this.decoder.write(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
    if (text !== '') this.parser.feed(text);
  }

  private feedRest(): void {
    const rest = this.lines.complete(this.decoder.end());
    if (rest !== '') this.parser.feed(rest);
  }
}

/**
 * A CR is a whole line end in SSE, but the parser holds back a CR that ends its input (an LF may
 * follow): on a stream with CR line ends the last event would wait for the next chunk, or be
 * lost at the body's end. Such a CR is completed here as CRLF at once, and an LF that then
 * starts the next text is dropped (it was the other half of a CRLF already complete).
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
