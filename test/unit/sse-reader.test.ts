import { test, describe, mock } from 'node:test';
import assert from 'node:assert/strict';
import * as eventsourceParser from 'eventsource-parser';
import { createParser, type EventSourceMessage, type ParseError, type ParserConfig } from 'eventsource-parser';
import { SSE_HEAP_FACTOR, SSE_LINE_COST, SseLimitError, readArrivedEventStream, readEventStream } from '../../src/transport/sseStream';

/**
 * readEventStream against eventsource-parser fed the whole body at once (decoded by TextDecoder):
 * the same events and retry values, however the bytes are split into chunks (line endings CRLF,
 * CR and LF, a byte order mark, fields and multi-byte characters split between chunks).
 */

/** A small seeded generator (mulberry32): the same cases on every run. */
function randomOf(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', '{"x":1}', ' ', ':', 'é', '€', '😀', 'data', 'id', '\0', 'ï»¿'];
const FIELDS = ['data: ', 'data:', 'data', 'event: message', 'event: other', 'event:', 'id: ', 'id:', 'retry: ', 'retry:', ': comment', 'unknown: ', ''];
const ENDINGS = ['\n', '\r\n', '\r'];

function randomBody(random: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  let body = random() < 0.15 ? '\ufeff' : '';
  const lines = 1 + Math.floor(random() * 14);
  for (let i = 0; i < lines; i++) {
    const field = pick(FIELDS);
    let value = '';
    if (field.startsWith('retry')) value = random() < 0.7 ? String(Math.floor(random() * 5000)) : 'x1';
    else if (field !== '') for (let n = Math.floor(random() * 4); n > 0; n--) value += pick(PIECES);
    body += field + value + pick(ENDINGS);
    if (random() < 0.4) body += pick(ENDINGS);
  }
  return body;
}

function expected(bytes: Uint8Array): { events: EventSourceMessage[]; retries: number[] } {
  const events: EventSourceMessage[] = [];
  const retries: number[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e), onRetry: (ms) => retries.push(ms) });
  const text = new TextDecoder().decode(bytes);
  // A CR that ends the body ends its line (the parser alone holds it back: an LF may follow).
  parser.feed(text.endsWith('\r') ? `${text}\n` : text);
  return { events, retries };
}

async function actual(bytes: Uint8Array, cuts: number[]): Promise<{ events: EventSourceMessage[]; retries: number[] }> {
  const events: EventSourceMessage[] = [];
  const retries: number[] = [];
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    chunks.push(bytes.subarray(start, cut));
    start = cut;
  }
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks.shift();
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
  await readEventStream(new Response(body), { onEvent: (e) => events.push(e), onRetry: (ms) => retries.push(ms) }, 1_000_000);
  return { events, retries };
}

describe('readEventStream: the events eventsource-parser finds in the whole body, in any chunking', () => {
  test('2,000 random bodies, each split at random byte offsets', async () => {
    const random = randomOf(21);
    for (let i = 0; i < 2000; i++) {
      const text = randomBody(random);
      const bytes = new TextEncoder().encode(text);
      const cuts: number[] = [];
      for (let at = 0; at < bytes.length; at++) if (random() < 0.2) cuts.push(at);
      const got = await actual(bytes, cuts);
      assert.deepEqual(got, expected(bytes), `body ${JSON.stringify(text)} cut at ${cuts.join(',')}`);
    }
  });

  test('every single cut of a body with all line endings, a BOM and multi-byte characters', async () => {
    const text = '\ufeffid: 1\r\nevent: message\rdata: {"a":"é€😀"}\n: c\r\nretry: 250\ndata: two\r\n\r\ndata:\n\nevent: other\ndata: x\n\n';
    const bytes = new TextEncoder().encode(text);
    const want = expected(bytes);
    assert.equal(want.events.length, 3);
    for (let cut = 0; cut <= bytes.length; cut++) assert.deepEqual(await actual(bytes, [cut]), want, `cut at ${cut}`);
  });
});

/** readEventStream over the given chunks (strings are UTF-8 encoded), with `maxChars`; the events, or the failure. */
async function readChunks(chunks: Iterable<string | Uint8Array>, maxChars: number): Promise<{ events: EventSourceMessage[]; error?: Error }> {
  const events: EventSourceMessage[] = [];
  const iterator = chunks[Symbol.iterator]();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(typeof next.value === 'string' ? new TextEncoder().encode(next.value) : next.value);
    },
  });
  try {
    await readEventStream(new Response(body), { onEvent: (e) => events.push(e), onRetry: () => undefined }, maxChars);
    return { events };
  } catch (err) {
    return { events, error: err as Error };
  }
}

function* repeat<T>(item: T, times: number): Generator<T> {
  for (let i = 0; i < times; i++) yield item;
}

describe('readEventStream: what an event costs is bounded, not only its characters', () => {
  test(`an endless event of one-character data lines is refused once its lines (at ${SSE_LINE_COST} each) pass ${SSE_HEAP_FACTOR} times the limit, long before its characters pass the limit`, async () => {
    const maxChars = 100_000;
    const got = await readChunks(repeat('data:x\n', 1_000_000), maxChars);
    assert.ok(got.error instanceof SseLimitError, String(got.error));
    assert.match(got.error.message, /larger than the limit of 100000 bytes, or has too many data lines for it \(each counts 64 bytes, up to 6 times the limit\)/);
    assert.deepEqual(got.events, []);
  });

  test('a pretty-printed JSON message over many data lines (16 characters each on average), near the limit, is read', async () => {
    const maxChars = 64 * 1024 + 4096;
    const message = { jsonrpc: '2.0', id: 1, result: { items: Array.from({ length: 1_050 }, (_, i) => ({ name: `item-${i}`, ok: true })) } };
    const pretty = JSON.stringify(message, null, 2);
    assert.ok(pretty.length > 0.8 * maxChars && pretty.length < maxChars, String(pretty.length));
    const event = `${pretty.split('\n').map((line) => `data: ${line}`).join('\n')}\n\n`;
    const got = await readChunks([event], maxChars);
    assert.equal(got.error, undefined);
    assert.deepEqual(JSON.parse(got.events[0]!.data), message);
  });

  test('comment heartbeats between blank lines are not data lines: they cost nothing beyond their characters', async () => {
    const got = await readChunks([...repeat(': ping\n', 2_000), 'data: {"a":1}\n\n'], 5_000);
    assert.equal(got.error, undefined);
    assert.deepEqual(got.events.map((e) => e.data), ['{"a":1}']);
  });

  test('the events before a refused one in the same chunk still go out', async () => {
    const got = await readChunks([`data: ok\n\n${'data: x\n'.repeat(100)}\n`], 500);
    assert.ok(got.error instanceof SseLimitError, String(got.error));
    assert.deepEqual(got.events.map((e) => e.data), ['ok']);
  });

  test('the count starts again at each blank line: a long stream of events (and of comment heartbeats) under the limit is read whole', async () => {
    const events = (function* () {
      for (let i = 0; i < 20_000; i++) yield i % 3 === 0 ? ': ping\n\n' : `id: ${i}\ndata: {"n":${i}}\n\n`;
    })();
    const got = await readChunks(events, 200);
    assert.equal(got.error, undefined);
    assert.equal(got.events.length, 20_000 - Math.ceil(20_000 / 3));
    assert.equal(got.events.at(-1)!.data, '{"n":19999}');
  });

  test('with CR and with CRLF line ends alike: blank lines end events, and a many-line event is refused', async () => {
    for (const end of ['\r', '\r\n']) {
      const fine = await readChunks(repeat(`data: a${end}data: b${end}${end}`, 5_000), 300);
      assert.equal(fine.error, undefined, `${JSON.stringify(end)}: ${String(fine.error)}`);
      assert.equal(fine.events.length, 5_000);
      assert.equal(fine.events[0]!.data, 'a\nb');
      const endless = await readChunks(repeat(`data: a${end}`, 5_000), 300);
      assert.ok(endless.error instanceof SseLimitError, `${JSON.stringify(end)}: ${String(endless.error)}`);
    }
  });

  test('an event whose lines are cut anywhere, down to a byte a chunk, is counted the same', async () => {
    const text = `data: ${'é'.repeat(40)}\r\ndata: two\n\n`.repeat(50);
    const bytes = new TextEncoder().encode(text);
    const oneByOne = await readChunks((function* () { for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1); })(), 300);
    assert.equal(oneByOne.error, undefined);
    assert.equal(oneByOne.events.length, 50);
    assert.equal(oneByOne.events[49]!.data, `${'é'.repeat(40)}\ntwo`);
    // Within SSE_HEAP_FACTOR times a limit (5 lines and 20 characters in all): an event of 4 lines
    // (4 x 64 + 32) is read, one of 6 (6 x 64 + 48) refused, however they are cut.
    const cut = (text: string, size: number) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
    const within = `${'data: x\n'.repeat(4)}\n`;
    const tooMany = `${'data: x\n'.repeat(6)}\n`;
    for (const size of [1, 3, 7, 1000]) {
      const read = await readChunks(cut(within, size), (5 * SSE_LINE_COST + 20) / SSE_HEAP_FACTOR);
      assert.deepEqual([read.error, read.events.length], [undefined, 1], `within, cut every ${size}`);
      const refused = await readChunks(cut(tooMany, size), (5 * SSE_LINE_COST + 20) / SSE_HEAP_FACTOR);
      assert.ok(refused.error instanceof SseLimitError, `too many lines, cut every ${size}: ${String(refused.error)}`);
    }
  });
});

/**
 * The ParseErrors the parser reports to readEventStream while `run` runs (its onError is ours: the
 * parser is watched through its module's createParser, which sseStream.ts calls per stream).
 */
async function parseErrorsOf(run: () => Promise<void>): Promise<ParseError[]> {
  const errors: ParseError[] = [];
  const original = eventsourceParser.createParser;
  const watched = mock.method(eventsourceParser, 'createParser', (config: ParserConfig) =>
    original({
      ...config,
      onError: (error) => {
        errors.push(error);
        config.onError?.(error);
      },
    }),
  );
  try {
    await run();
  } finally {
    watched.mock.restore();
  }
  return errors;
}

/** readEventStream over the given chunks (strings are UTF-8 encoded): the events and retry values. */
async function readAll(chunks: readonly (string | Uint8Array)[]): Promise<{ events: EventSourceMessage[]; retries: number[] }> {
  const events: EventSourceMessage[] = [];
  const retries: number[] = [];
  const queue = [...chunks];
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(typeof next === 'string' ? new TextEncoder().encode(next) : next);
    },
  });
  await readEventStream(new Response(body), { onEvent: (e) => events.push(e), onRetry: (ms) => retries.push(ms) }, 1_000_000);
  return { events, retries };
}

/** Lines eventsource-parser reports as errors: unknown fields, and retry values not all digits. */
const ERROR_LINES = ['x: 1', 'x', 'datax: 1', 'data : 1', 'ids: 2', 'eventful', 'idle', '\ufeffdata: 1', 'retry: 12x', 'retry:', 'retry', 'retry: ', 'retry:  5', 'retry: -1', 'retry: 1.5', 'retry: \u0665'];

describe('readEventStream: lines the parser would report as errors (and ignore) never reach it', () => {
  test('20 chunks of 64 KiB of unknown-field and invalid retry lines between blank lines: the real events among them come out whole, and the parser builds no error', async () => {
    let junk = '';
    for (let i = 0; junk.length < 64 * 1024; i++) junk += `${ERROR_LINES[i % ERROR_LINES.length]}\n${i % 3 === 0 ? '\n' : ''}`;
    const chunks: string[] = [];
    const want: EventSourceMessage[] = [];
    for (let i = 0; i < 20; i++) {
      // An event with error lines inside it, and one after the junk; each chunk ends with a blank line.
      chunks.push(`\nid: ${i}\nx: 1\nretry: ${1000 + i}\nretry: 12x\nevent: message\nfoo\ndata: {"n":${i}}\nidle\n\n${junk}data: ${i}\n\n`);
      want.push({ id: String(i), event: 'message', data: `{"n":${i}}` }, { id: undefined, event: undefined, data: String(i) });
    }
    let got: Awaited<ReturnType<typeof readAll>> | undefined;
    const errors = await parseErrorsOf(async () => {
      got = await readAll(chunks);
    });
    assert.deepEqual(got, { events: want, retries: Array.from({ length: 20 }, (_, i) => 1000 + i) });
    assert.deepEqual(errors, []);
  });

  test('a line cut between chunks reaches the parser whole: its error at most once a chunk, and the events the same', async () => {
    const text = `${ERROR_LINES.join('\n')}\ndata: a\n\n`.repeat(40);
    const bytes = new TextEncoder().encode(text);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 97) }, (_, i) => bytes.subarray(i * 97, (i + 1) * 97));
    let got: Awaited<ReturnType<typeof readAll>> | undefined;
    const errors = await parseErrorsOf(async () => {
      got = await readAll(chunks);
    });
    assert.deepEqual(got, expected(bytes));
    assert.equal(got!.events.length, 40);
    assert.ok(errors.length <= chunks.length, `${errors.length} errors for ${chunks.length} chunks`);
  });

  test('the fields as the standard has them: data without a colon, id lines, valid and invalid retry values, comments', async () => {
    const text = [
      ': a comment',
      'id: 7',
      'data',
      '',
      'retry: 250',
      'retry: 12x',
      'retry:',
      'retry',
      'retry:07',
      'data: a',
      'data:b',
      '',
      'id',
      'event: other',
      ':data: not data',
      'data: c',
      '',
      'x: 1',
      'event',
      'data: d',
      'id: 8',
      '',
      '',
    ].join('\n');
    const want = {
      events: [
        { id: '7', event: undefined, data: '' },
        { id: undefined, event: undefined, data: 'a\nb' },
        { id: '', event: 'other', data: 'c' },
        { id: '8', event: undefined, data: 'd' },
      ],
      retries: [250, 7],
    };
    const bytes = new TextEncoder().encode(text);
    assert.deepEqual(expected(bytes), want);
    const errors = await parseErrorsOf(async () => {
      assert.deepEqual(await readAll([text]), want);
    });
    assert.deepEqual(errors, []);
    // What the parser takes for a byte order mark at the start of its first text is dropped, as before.
    assert.deepEqual(await readAll(['\u00ef\u00bb\u00bfdata: 1\n\n']), { events: [{ id: undefined, event: undefined, data: '1' }], retries: [] });
  });

  test('CR and CRLF line ends, the body cut anywhere in two (between a CR and its LF too), give the events of LF line ends', async () => {
    const lines = ['id: 1', 'x: 1', 'data: {"a":"é"}', 'retry: 12x', '', ': c', 'retry: 300', 'data', '', '', 'event: other', 'data: two', 'data: lines', '', 'data: last', '', 'data: unended'];
    const lf = new TextEncoder().encode(lines.join('\n'));
    const want = await readAll([lf]);
    assert.equal(want.events.length, 4);
    assert.deepEqual(want, expected(lf));
    for (const end of ['\r', '\r\n']) {
      const bytes = new TextEncoder().encode(lines.join(end));
      for (let cut = 0; cut <= bytes.length; cut++) {
        assert.deepEqual(await readAll([bytes.subarray(0, cut), bytes.subarray(cut)]), want, `${JSON.stringify(end)} cut at ${cut}`);
      }
    }
  });
});

/** readArrivedEventStream over `body` (a string is UTF-8 encoded): the events and retry values, or the failure; `sync`: read before it returned. */
async function readArrived(
  body: string | Uint8Array,
  maxChars = 1_000_000,
  done?: () => boolean,
): Promise<{ events: EventSourceMessage[]; retries: number[]; error?: Error; sync?: boolean }> {
  const events: EventSourceMessage[] = [];
  const retries: number[] = [];
  const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let sync = false;
  try {
    const reading = readArrivedEventStream(bytes, { onEvent: (e) => events.push(e), onRetry: (ms) => retries.push(ms) }, maxChars, done);
    sync = reading === undefined;
    await reading;
    return { events, retries, sync };
  } catch (err) {
    return { events, retries, error: err as Error, sync };
  }
}

/** readArrived without the `sync` flag, for comparing with readAll and expected. */
async function readWhole(body: string | Uint8Array, maxChars?: number): Promise<{ events: EventSourceMessage[]; retries: number[]; error?: Error }> {
  const { sync: _sync, ...got } = await readArrived(body, maxChars);
  return got;
}

describe('readArrivedEventStream (a body that arrived whole): what readEventStream reads of it', () => {
  test('the 2,000 random bodies (each ends with a line end): read in one step, the events and retry values of the whole body', async () => {
    const random = randomOf(21);
    for (let i = 0; i < 2000; i++) {
      const bytes = new TextEncoder().encode(randomBody(random));
      const got = await readArrived(bytes);
      assert.equal(got.sync, true);
      const { sync: _sync, ...rest } = got;
      assert.deepEqual(rest, expected(bytes), JSON.stringify(new TextDecoder().decode(bytes)));
    }
  });

  test('CR, CRLF and LF line ends, a byte order mark (or what the parser takes for one), a CR that ends the body', async () => {
    const lines = ['id: 1', 'x: 1', 'data: {"a":"é"}', 'retry: 12x', '', ': c', 'retry: 300', 'data', '', '', 'event: other', 'data: two', 'data: lines', '', 'data: last', '', ''];
    const want = await readAll([lines.join('\n')]);
    assert.equal(want.events.length, 4);
    for (const end of ['\n', '\r', '\r\n']) {
      assert.deepEqual(await readWhole(lines.join(end)), want, JSON.stringify(end));
      assert.deepEqual(await readWhole(`\ufeff${lines.join(end)}`), want, `BOM, ${JSON.stringify(end)}`);
    }
    assert.deepEqual(await readWhole('\u00ef\u00bb\u00bfdata: 1\n\n'), await readAll(['\u00ef\u00bb\u00bfdata: 1\n\n']));
  });

  test('the lines the parser would report as errors never reach it, and the events among them come out', async () => {
    // Not first: the first line of a stream is left to the parser, which takes a byte order mark off it.
    const text = `: hello\n${ERROR_LINES.join('\n')}\nid: 3\nretry: 12x\ndata: {"n":1}\nidle\n\n${ERROR_LINES.join('\n')}\ndata: 2\n\n`;
    let got: Awaited<ReturnType<typeof readWhole>> | undefined;
    const errors = await parseErrorsOf(async () => {
      got = await readWhole(text);
    });
    assert.deepEqual(got, { events: [{ id: '3', event: undefined, data: '{"n":1}' }, { id: undefined, event: undefined, data: '2' }], retries: [] });
    assert.deepEqual(errors, []);
  });

  test('an event over the limit (by its characters, or by its many data lines) is refused; the events before it still go out', async () => {
    const byLines = await readWhole(`data: ok\n\n${'data: x\n'.repeat(100)}\n`, 500);
    assert.ok(byLines.error instanceof SseLimitError, String(byLines.error));
    assert.match(byLines.error.message, /larger than the limit of 500 bytes, or has too many data lines for it/);
    assert.deepEqual(byLines.events.map((e) => e.data), ['ok']);
    // An ended event's characters count up to SSE_HEAP_FACTOR times the limit here (the message's own limit is sseMessageValue's).
    assert.equal((await readWhole(`data: ${'x'.repeat(600)}\n\n`, 500)).error, undefined);
    const byChars = await readWhole(`data: ok\n\ndata: ${'x'.repeat(SSE_HEAP_FACTOR * 500)}\n\n`, 500);
    assert.ok(byChars.error instanceof SseLimitError, String(byChars.error));
    assert.deepEqual(byChars.events.map((e) => e.data), ['ok']);
  });

  test('a body whose last line is not ended goes through the chunk reader as one chunk: a body without any line end is held, and read only while the stream owes answers', async () => {
    const long = `data: ${'x'.repeat(600)}`;
    for (const [body, done, want] of [
      [long, () => true, { events: [], error: undefined }],
      [long, () => false, { events: [], error: 'SseLimitError' }],
      // A chunk with a line end reaches the parser whole, its unended line too (and that line is over the parser's limit).
      [`data: a\n\n${long}`, () => true, { events: ['a'], error: 'SseLimitError' }],
      [`data: a\n\n${long}`, () => false, { events: ['a'], error: 'SseLimitError' }],
      // A character cut at the end: the reader's decoder ends it as U+FFFD, on an unended line (no event).
      [Buffer.concat([Buffer.from('data: a\n\ndata: '), Buffer.from('é').subarray(0, 1)]), () => false, { events: ['a'], error: undefined }],
    ] as const) {
      const got = await readArrived(body, 500, done);
      assert.equal(got.sync, false, 'through the chunk reader');
      assert.deepEqual({ events: got.events.map((e) => e.data), error: got.error?.constructor.name }, want, `${JSON.stringify(String(body).slice(0, 20))}, done ${String(done())}`);
    }
  });

  test('what the sink throws is thrown, after the events before it', () => {
    const seen: string[] = [];
    const sink = {
      onEvent: (e: EventSourceMessage) => {
        seen.push(e.data);
        if (e.data === 'bad') throw new Error('refused by the sink');
      },
      onRetry: () => undefined,
    };
    assert.throws(() => readArrivedEventStream(Buffer.from('data: a\n\ndata: bad\n\ndata: c\n\n'), sink, 1000), /refused by the sink/);
    assert.deepEqual(seen, ['a', 'bad']);
  });
});
