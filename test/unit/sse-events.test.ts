// readEventStream over web bodies cut into exactly the chunks a test names: CR line ends at the
// edge of a chunk (the parser holds such a CR back), a CRLF split between two chunks, and a
// reading stopped once the reader has what it waited for (the body then cancelled).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { EventSourceMessage } from 'eventsource-parser';
import { readEventStream } from '../../src/transport/sseStream';

/** A body that hands over `chunks` one by one, then ends unless `open` (then `end()` ends it). */
function body(chunks: string[], open = false): { res: Response; cancelled: () => boolean; end: () => void } {
  let next = 0;
  let cancelled = false;
  let ended = false;
  let control!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      control = controller;
    },
    pull(controller) {
      if (next < chunks.length) controller.enqueue(new TextEncoder().encode(chunks[next++]));
      else if (!open && !ended) {
        ended = true;
        controller.close();
      }
    },
    cancel() {
      cancelled = true;
    },
  });
  const end = () => {
    if (ended) return;
    ended = true;
    control.close();
  };
  return { res: new Response(stream, { headers: { 'content-type': 'text/event-stream' } }), cancelled: () => cancelled, end };
}

function sink(events: EventSourceMessage[]) {
  return { onEvent: (event: EventSourceMessage) => events.push(event), onRetry: () => undefined };
}

async function eventsOf(chunks: string[]): Promise<string[]> {
  const events: EventSourceMessage[] = [];
  await readEventStream(body(chunks).res, sink(events), 1 << 20);
  return events.map((e) => `${e.id ?? '-'}:${e.data}`);
}

describe('readEventStream and CR line ends', () => {
  test('the last event of a body with CR line ends is dispatched', async () => {
    assert.deepEqual(await eventsOf(['id: 1\rdata: a\r\r']), ['1:a']);
    assert.deepEqual(await eventsOf(['id: 1\rdata: a\r', '\r']), ['1:a']);
    assert.deepEqual(await eventsOf(['data: a\r\rdata: b\r\r']), ['-:a', '-:b']);
  });

  test('an event not ended by a blank line is not dispatched at the end of the body', async () => {
    assert.deepEqual(await eventsOf(['data: a\r']), []);
    assert.deepEqual(await eventsOf(['data: a']), []);
    assert.deepEqual(await eventsOf(['data: a\r\n']), []);
  });

  test('a CRLF split between chunks is one line end', async () => {
    assert.deepEqual(await eventsOf(['data: a\r', '\ndata: b\r\n\r\n']), ['-:a\nb']);
    assert.deepEqual(await eventsOf(['data: a\r\n\r', '\n']), ['-:a']);
    assert.deepEqual(await eventsOf(['data: a\r', '\n', '\r', '\n']), ['-:a']);
    // CR, then CR LF: a line end and a blank line.
    assert.deepEqual(await eventsOf(['data: a\r', '\r', '\n', 'data: b\n\n']), ['-:a', '-:b']);
    // An LF after a CR only once: LF LF after it is a blank line.
    assert.deepEqual(await eventsOf(['data: a\r', '\n\n']), ['-:a']);
  });

  test('an event ended by a CR at the end of a chunk is dispatched without waiting for the next', async () => {
    const events: EventSourceMessage[] = [];
    const { res, end } = body(['data: a\r\r'], true);
    const reading = readEventStream(res, sink(events), 1 << 20);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(events.map((e) => e.data), ['a']);
    end();
    await reading;
    assert.deepEqual(events.map((e) => e.data), ['a']);
  });
});

describe('readEventStream with done()', () => {
  test('stops after the chunk where done() holds, with every event of that chunk, and cancels the body', async () => {
    const events: EventSourceMessage[] = [];
    const { res, cancelled } = body(['data: 1\n\ndata: answer\n\ndata: 3\n\n', 'data: 4\n\n'], true);
    await readEventStream(res, sink(events), 1 << 20, () => events.some((e) => e.data === 'answer'));
    assert.deepEqual(events.map((e) => e.data), ['1', 'answer', '3']);
    assert.ok(cancelled(), 'the body was cancelled');
  });

  test('reads to the end while done() does not hold', async () => {
    const events: EventSourceMessage[] = [];
    await readEventStream(body(['data: 1\n\n', 'data: 2\n\n']).res, sink(events), 1 << 20, () => false);
    assert.deepEqual(events.map((e) => e.data), ['1', '2']);
  });
});
