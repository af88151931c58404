import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { readEventStream } from '../../src/transport/sseStream';

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
