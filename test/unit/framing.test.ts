import { test, describe } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  LineDecoder,
  LineSplitter,
  NOT_JSON_WARNINGS_PER_SECOND,
  TURN_BUDGET_MS,
  TextLineDecoder,
  decodeUtf8Prefix,
  encodeMessage,
  excerpt,
} from '../../src/transport/framing';
import type { TransportWarning } from '../../src/transport/transport';

function collect(maxMessageBytes?: number) {
  const messages: unknown[] = [];
  const warnings: TransportWarning[] = [];
  const decoder = new LineDecoder({
    maxMessageBytes,
    onMessage: (v) => messages.push(v),
    onWarning: (w) => warnings.push(w),
  });
  return { messages, warnings, decoder };
}

const SAMPLE = { jsonrpc: '2.0', id: 7, result: { text: 'héllo 😀 世界 ✓ 𝄞', n: [1, 2, 3] } };

describe('LineDecoder', () => {
  test('the default limit is 64 MiB', () => {
    assert.equal(DEFAULT_MAX_MESSAGE_BYTES, 64 * 1024 * 1024);
    assert.equal(new LineDecoder({ onMessage() {}, onWarning() {} }).maxMessageBytes, 64 * 1024 * 1024);
  });

  test('a message split in two at every byte position (including inside multibyte characters)', () => {
    const bytes = Buffer.from(encodeMessage(SAMPLE), 'utf8');
    for (let i = 0; i <= bytes.length; i++) {
      const { messages, warnings, decoder } = collect();
      decoder.push(bytes.subarray(0, i));
      decoder.push(bytes.subarray(i));
      assert.deepEqual(messages, [SAMPLE], `split at ${i}`);
      assert.deepEqual(warnings, [], `split at ${i}`);
    }
  });

  test("each message comes with its line's length in bytes (for the depth check), whole or split", () => {
    const line = JSON.stringify(SAMPLE);
    const bytes = Buffer.from(`${line}\r\n${line}\n`, 'utf8');
    const lengths: number[] = [];
    const decoder = new LineDecoder({ onMessage: (_value, textBytes) => lengths.push(textBytes), onWarning() {} });
    decoder.push(bytes.subarray(0, 10));
    decoder.push(bytes.subarray(10));
    assert.deepEqual(lengths, [Buffer.byteLength(line), Buffer.byteLength(line)]);
  });

  test('multibyte-heavy messages (emoji, CJK) split at every byte, in three pieces', () => {
    const msg = { text: '😀🎉👩‍💻 漢字かなカナ한국어 Ünïcödé 𝄞' };
    const bytes = Buffer.from(encodeMessage(msg), 'utf8');
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j += 3) {
        const { messages, warnings, decoder } = collect();
        decoder.push(bytes.subarray(0, i));
        decoder.push(bytes.subarray(i, j));
        decoder.push(bytes.subarray(j));
        assert.deepEqual(messages, [msg], `split at ${i},${j}`);
        assert.equal(warnings.length, 0);
      }
    }
  });

  test('one-byte chunks, several messages', () => {
    const msgs = [SAMPLE, { a: 1 }, [1, 'two', null], 'a string', 42, { emoji: '🧪🧪' }];
    const bytes = Buffer.from(msgs.map(encodeMessage).join(''), 'utf8');
    const { messages, warnings, decoder } = collect();
    for (let i = 0; i < bytes.length; i++) decoder.push(bytes.subarray(i, i + 1));
    assert.deepEqual(messages, msgs);
    assert.equal(warnings.length, 0);
  });

  test('several messages in one chunk, with a partial one at the end', () => {
    const { messages, decoder } = collect();
    decoder.push(Buffer.from('{"a":1}\n{"b":2}\n{"c":'));
    assert.deepEqual(messages, [{ a: 1 }, { b: 2 }]);
    decoder.push(Buffer.from('3}\n'));
    assert.deepEqual(messages, [{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  test('CRLF line endings, including a CR and LF in different chunks', () => {
    const { messages, warnings, decoder } = collect();
    decoder.push(Buffer.from('{"a":1}\r\n{"b":"x\\r"}\r'));
    decoder.push(Buffer.from('\n'));
    decoder.push(Buffer.from('{"c":3}\r\n'));
    assert.deepEqual(messages, [{ a: 1 }, { b: 'x\r' }, { c: 3 }]);
    assert.equal(warnings.length, 0);
  });

  test('empty and whitespace-only lines are skipped silently', () => {
    const { messages, warnings, decoder } = collect();
    decoder.push(Buffer.from('\n\n   \n\t\r\n\r\n{"a":1}\n  \n'));
    decoder.end();
    assert.deepEqual(messages, [{ a: 1 }]);
    assert.deepEqual(warnings, []);
  });

  test('a line that is not JSON is a warning with an excerpt; the next message still works', () => {
    const { messages, warnings, decoder } = collect();
    decoder.push(Buffer.from('Server listening on port 3000 \u001b[32mOK\u001b[0m\n{"id":1}\n'));
    assert.deepEqual(messages, [{ id: 1 }]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].message, /not JSON/);
    assert.match(warnings[0].excerpt ?? '', /^Server listening on port 3000/);
    assert.ok(!(warnings[0].excerpt ?? '').includes('\u001b'), 'control characters are escaped');

    const long = 'x'.repeat(5000);
    decoder.push(Buffer.from(`${long}\n{"id":2}\n`));
    assert.equal(warnings.length, 2);
    assert.ok((warnings[1].excerpt ?? '').length <= 201, `excerpt length ${warnings[1].excerpt?.length}`);
    assert.ok(warnings[1].message.length < 400);
    assert.deepEqual(messages, [{ id: 1 }, { id: 2 }]);
  });

  test('lines that cannot be JSON are not parsed; ten warnings a second, the rest counted in one', () => {
    let clock = 1_000_000;
    const messages: unknown[] = [];
    const warnings: TransportWarning[] = [];
    const decoder = new LineDecoder({ onMessage: (v) => messages.push(v), onWarning: (w) => warnings.push(w), now: () => clock });
    decoder.push(Buffer.from(`${'x\n'.repeat(50)}{"id":1}\n${'Listening on 3000, "ok"\n'.repeat(5)}`));
    assert.deepEqual(messages, [{ id: 1 }]);
    assert.equal(warnings.length, NOT_JSON_WARNINGS_PER_SECOND);
    assert.match(warnings[0].message, /Ignored a line on stdout that is not JSON \(1 bytes\): it does not begin as JSON does/);
    // The next second: the count of the lines not warned of, then the new line's warning.
    clock += 1000;
    decoder.push(Buffer.from('true"\n'));
    assert.match(warnings[NOT_JSON_WARNINGS_PER_SECOND].message, /^Ignored 45 more lines on stdout that are not JSON \(at most 10 such warnings a second\)$/);
    assert.match(warnings[NOT_JSON_WARNINGS_PER_SECOND + 1].message, /that is not JSON \(5 bytes\): Unexpected/);
    // The count comes with the next output once its second is over, a message as well.
    decoder.push(Buffer.from('x\n'.repeat(12)));
    clock += 1000;
    decoder.push(Buffer.from('{"id":2}\n'));
    assert.match(warnings.at(-1)!.message, /^Ignored 3 more lines on stdout/);
    assert.deepEqual(messages, [{ id: 1 }, { id: 2 }]);
    // Or at the end of the stream (or when it is destroyed: flushWarnings).
    decoder.push(Buffer.from('x\n'.repeat(12)));
    decoder.end();
    assert.match(warnings.at(-1)!.message, /^Ignored 2 more lines on stdout/);
    assert.equal(warnings.length, 3 * NOT_JSON_WARNINGS_PER_SECOND + 3, 'ten a second, and three counts');
  });

  test("a not-JSON line's excerpt is read before a listener runs: a line the listener joins elsewhere does not become it", () => {
    let clock = 0;
    const other = new LineDecoder({ onMessage: () => {}, onWarning: () => {}, now: () => clock });
    const warnings: TransportWarning[] = [];
    const decoder = new LineDecoder({
      now: () => clock,
      onMessage: () => {},
      onWarning: (w) => {
        warnings.push(w);
        // The count of the lines held back comes first, from within the same call: a listener that
        // makes another decoder join a long line of its own meanwhile.
        if (/more line/.test(w.message)) {
          other.push(Buffer.from(`{"other":"${'Z'.repeat(70_000)}`));
          other.push(Buffer.from('"}\n'));
        }
      },
    });
    const banners = Array.from({ length: NOT_JSON_WARNINGS_PER_SECOND + 2 }, (_, i) => `banner ${i}\n`).join('');
    decoder.push(Buffer.from(`${banners}first part ${'x'.repeat(70_000)}`));
    decoder.push(Buffer.from(' last part'));
    clock = 2000;
    decoder.end(); // the held line, joined (over 64 KiB: the shared buffer), is not JSON
    const last = warnings.at(-1)!;
    assert.match(last.message, /not JSON/);
    assert.ok(last.excerpt?.startsWith('first part xxx'), last.excerpt?.slice(0, 40));
    assert.ok(warnings.some((w) => /2 more lines/.test(w.message)));
  });

  test('a chunk that takes longer than a turn allows is handed back at a line end, and nothing is lost', async () => {
    const messages: unknown[] = [];
    const handedBack: Buffer[] = [];
    // The clock is looked at every 32 lines, and finds 3 ms more each time: the turn starts at
    // the 32nd line (0 ms), and the look after the 160th line finds 12 ms.
    let clock = 0;
    const decoder = new LineDecoder({ onMessage: (v) => messages.push(v), onWarning: () => {}, onTurnOver: (rest) => handedBack.push(rest), now: () => (clock += 3) - 3 });
    const lines = Array.from({ length: 200 }, (_, i) => `{"id":${i}}\n`);
    decoder.push(Buffer.from(lines.join('')));
    assert.equal(TURN_BUDGET_MS, 10);
    assert.equal(messages.length, 160);
    assert.equal(handedBack.length, 1);
    assert.equal(handedBack[0].toString(), lines.slice(160).join(''));
    // Given back in a later turn: read on from there.
    await new Promise((resolve) => setImmediate(resolve));
    decoder.push(handedBack[0]);
    assert.deepEqual(messages, lines.map((_, i) => ({ id: i })));
    assert.equal(handedBack.length, 1, 'the next turn had time for the 40 lines');
    // Without onTurnOver a chunk is read whole.
    const whole = collect();
    whole.decoder.push(Buffer.from(lines.join('')));
    assert.equal(whole.messages.length, 200);
  });

  test('a throwing listener in a chunk that is handed back: the rest is read once, the error rethrown', () => {
    const seen: number[] = [];
    const handedBack: Buffer[] = [];
    let clock = 0;
    const decoder = new LineDecoder({
      onMessage: (v) => {
        const id = (v as { id: number }).id;
        seen.push(id);
        if (id === 3 || id === 160) throw new Error(`listener failed on ${id}`);
      },
      onWarning: () => {},
      onTurnOver: (rest) => handedBack.push(rest),
      now: () => (clock += 3) - 3,
    });
    const lines = Array.from({ length: 200 }, (_, i) => `{"id":${i}}\n`);
    assert.throws(() => decoder.push(Buffer.from(lines.join(''))), /listener failed on 3/);
    assert.deepEqual(seen, Array.from({ length: 160 }, (_, i) => i));
    assert.equal(handedBack.length, 1);
    assert.equal(handedBack[0].toString(), lines.slice(160).join(''));
  });

  test('the pushes of one turn share its budget (Node reads a busy pipe 32 chunks a turn)', async () => {
    const messages: unknown[] = [];
    const handedBack: Buffer[] = [];
    let clock = 0;
    const decoder = new LineDecoder({ onMessage: (v) => messages.push(v), onWarning: () => {}, onTurnOver: (rest) => handedBack.push(rest), now: () => (clock += 5) - 5 });
    const chunk = (from: number, count: number) => Buffer.from(Array.from({ length: count }, (_, i) => `{"id":${from + i}}\n`).join(''));
    decoder.push(chunk(0, 40)); // the turn's clock starts at line 32: 0 ms
    decoder.push(chunk(40, 40)); // line 64: 5 ms
    decoder.push(chunk(80, 40)); // line 96: 10 ms, over
    assert.equal(messages.length, 96);
    assert.equal(handedBack.length, 1);
    assert.equal(handedBack[0].toString(), chunk(96, 24).toString());
    // The next turn starts afresh.
    await new Promise((resolve) => setImmediate(resolve));
    decoder.push(Buffer.concat([handedBack[0], chunk(120, 40)]));
    assert.equal(messages.length, 160);
    assert.equal(handedBack.length, 1);
  });

  test('a UTF-8 byte order mark before a message is ignored', () => {
    const { messages, warnings, decoder } = collect();
    decoder.push(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}\n')]));
    assert.deepEqual(messages, [{ a: 1 }]);
    assert.equal(warnings.length, 0);
  });

  test('an oversize message arriving in pieces is refused with one warning, and the stream recovers', () => {
    const { messages, warnings, decoder } = collect(100);
    decoder.push(Buffer.from('{"ok":1}\n{"big":"'));
    for (let i = 0; i < 50; i++) decoder.push(Buffer.from('y'.repeat(50)));
    decoder.push(Buffer.from('"}\n{"after":'));
    decoder.push(Buffer.from('true}\n'));
    assert.deepEqual(messages, [{ ok: 1 }, { after: true }]);
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    const w = warnings[0];
    assert.match(w.message, /exceeds the limit of 100 bytes/);
    assert.match(w.message, /mcpHost\.maxMessageSizeMB/);
    assert.equal(w.oversize?.answers, undefined, 'not a response: no request to fail');
    assert.match(w.message, /more than/);
    assert.match(w.excerpt ?? '', /^\{"big":"yyy/);
  });

  test('an oversize message inside one chunk is refused with its exact size', () => {
    const { messages, warnings, decoder } = collect(10);
    decoder.push(Buffer.from('{"a":"0123456789"}\n{"b":2}\n'));
    assert.deepEqual(messages, [{ b: 2 }]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].message, /18 bytes/);
  });

  test('the limit counts the line without its terminator, bytes not characters', () => {
    // Exactly 10 bytes: accepted with LF and with CRLF (even when the CR arrives alone).
    const ten = '"éééé"'; // 1 + 4*2 + 1 = 10 bytes, 6 characters
    assert.equal(Buffer.byteLength(ten), 10);
    for (const chunks of [[`${ten}\n`], [`${ten}\r\n`], [ten, '\r', '\n'], [`${ten}\r`, '\n']]) {
      const { messages, warnings, decoder } = collect(10);
      for (const c of chunks) decoder.push(Buffer.from(c));
      assert.deepEqual(messages, ['éééé'], JSON.stringify(chunks));
      assert.equal(warnings.length, 0);
    }
    // 11 bytes (7 characters): refused, split or not.
    const eleven = '"éééé1"';
    for (const chunks of [[`${eleven}\n`], [eleven, '\r\n'], [eleven, 'x', '\n']]) {
      const { messages, warnings, decoder } = collect(10);
      for (const c of chunks) decoder.push(Buffer.from(c));
      decoder.push(Buffer.from('1\n'));
      assert.deepEqual(messages, [1], JSON.stringify(chunks));
      assert.equal(warnings.length, 1);
    }
  });

  test('a refused message is not buffered while it keeps arriving', () => {
    const lines: Buffer[] = [];
    let oversize = 0;
    const s = new LineSplitter({ maxLineBytes: 1000, onLine: (l) => lines.push(l), onOversize: () => oversize++ });
    const chunk = Buffer.alloc(300, 0x61);
    for (let i = 0; i < 10_000; i++) {
      s.push(chunk);
      assert.ok(s.bufferedBytes <= 1001, `buffered ${s.bufferedBytes}`);
    }
    assert.equal(oversize, 1);
    s.push(Buffer.from('\nok\n'));
    assert.deepEqual(lines.map(String), ['ok']);
    assert.equal(oversize, 1);
  });

  test('end(): a final line without a newline is delivered; a refused one is not reported twice', () => {
    const a = collect();
    a.decoder.push(Buffer.from('{"a":1}\n{"last":'));
    a.decoder.push(Buffer.from('"😀"}'));
    assert.deepEqual(a.messages, [{ a: 1 }]);
    a.decoder.end();
    assert.deepEqual(a.messages, [{ a: 1 }, { last: '😀' }]);
    a.decoder.end(); // idempotent
    assert.equal(a.messages.length, 2);
    assert.throws(() => a.decoder.push(Buffer.from('{}\n')), /after end/);

    const b = collect(5);
    b.decoder.push(Buffer.from('"0123456789'));
    b.decoder.end();
    assert.equal(b.warnings.length, 1);
    assert.deepEqual(b.messages, []);

    const c = collect();
    c.decoder.push(Buffer.from('{"a":1}\r'));
    c.decoder.end();
    assert.deepEqual(c.messages, [{ a: 1 }]);
  });

  test('random streams cut into random chunks decode as the whole stream split on newlines', () => {
    // A small deterministic generator (xorshift), so a failure names a reproducible seed.
    let state = 0x9e3779b9;
    const random = (n: number) => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) % n;
    };
    const LIMIT = 40;
    const kinds = [
      () => JSON.stringify({ id: random(1000), t: 'é😀'.repeat(random(4)) }),
      () => JSON.stringify({ long: 'x'.repeat(LIMIT + random(30)) }), // over the limit
      () => JSON.stringify({ edge: 'y'.repeat(LIMIT - 10 - random(2)) }), // at or near the limit
      () => ' '.repeat(random(3)), // blank
      () => 'not json',
      () => `\ufeff${JSON.stringify({ bom: true })}`,
      () => `[${random(9)}]`,
    ];
    for (let round = 0; round < 300; round++) {
      const lines = Array.from({ length: 1 + random(12) }, () => kinds[random(kinds.length)]());
      const text = lines.map((l) => `${l}${random(3) === 0 ? '\r\n' : '\n'}`).join('');
      const bytes = Buffer.from(text);
      const expectedMessages: unknown[] = [];
      let expectedWarnings = 0;
      for (const line of lines) {
        const raw = Buffer.from(line);
        if (line.trim() === '') continue;
        if (raw.length > LIMIT) expectedWarnings++;
        else {
          try {
            expectedMessages.push(JSON.parse(line.replace(/^\ufeff/, '')));
          } catch {
            expectedWarnings++;
          }
        }
      }
      const got = collect(LIMIT);
      let at = 0;
      while (at < bytes.length) {
        const size = 1 + random(random(2) === 0 ? 8 : 120);
        got.decoder.push(bytes.subarray(at, at + size));
        at += size;
      }
      got.decoder.end();
      assert.deepEqual(got.messages, expectedMessages, `round ${round}: ${JSON.stringify(text)}`);
      assert.equal(got.warnings.length, expectedWarnings, `round ${round}: ${JSON.stringify(text)}`);
    }
  });

  test('a throwing listener does not lose the rest of the chunk', () => {
    const seen: unknown[] = [];
    const decoder = new LineDecoder({
      onMessage: (v) => {
        seen.push(v);
        if (seen.length === 1) throw new Error('listener failed');
      },
      onWarning() {},
    });
    assert.throws(() => decoder.push(Buffer.from('1\n2\n3')), /listener failed/);
    decoder.push(Buffer.from('\n'));
    assert.deepEqual(seen, [1, 2, 3]);
  });

  test('a 64 MiB - 1 KiB message in 64 KiB chunks', () => {
    const total = 64 * 1024 * 1024 - 1024;
    const prefix = '{"jsonrpc":"2.0","id":1,"result":{"data":"';
    const suffix = '"}}\n';
    const big = Buffer.alloc(total + 1); // + newline
    big.write(prefix, 0, 'latin1');
    big.fill(0x61, prefix.length, total - (suffix.length - 1));
    big.write(suffix, total - (suffix.length - 1), 'latin1');
    assert.equal(big[big.length - 1], 0x0a);
    const { messages, warnings, decoder } = collect();
    for (let off = 0; off < big.length; off += 64 * 1024) decoder.push(big.subarray(off, off + 64 * 1024));
    assert.equal(warnings.length, 0, warnings[0]?.message);
    assert.equal(messages.length, 1);
    const data = (messages[0] as { result: { data: string } }).result.data;
    assert.equal(data.length, total - prefix.length - (suffix.length - 1));
  });

  test('linear: a 50 MB message in 16 KiB chunks is concatenated once, and decoded once', () => {
    const size = 50 * 1000 * 1000;
    const big = Buffer.alloc(size, 0x62);
    big[0] = 0x22; // "
    big[size - 2] = 0x22;
    big[size - 1] = 0x0a;
    const { messages, decoder } = collect();
    const originalConcat = Buffer.concat;
    let concatCalls = 0;
    let concatBytes = 0;
    Buffer.concat = ((list: readonly Uint8Array[], length?: number) => {
      concatCalls++;
      const out = originalConcat(list, length);
      concatBytes += out.length;
      return out;
    }) as typeof Buffer.concat;
    // Counted, not timed (a loaded CI machine took 1.25 s where an idle one takes 0.4): one
    // concatenation of the whole message is what keeps it linear.
    try {
      for (let off = 0; off < size; off += 16 * 1024) decoder.push(big.subarray(off, off + 16 * 1024));
    } finally {
      Buffer.concat = originalConcat;
    }
    assert.equal(messages.length, 1);
    assert.equal((messages[0] as string).length, size - 3);
    assert.equal(concatCalls, 1, 'the chunks of one message are concatenated exactly once');
    assert.equal(concatBytes, size - 1);
  });
});

describe('encodeMessage', () => {
  test('JSON plus one newline, no newline inside, round-trips through the decoder', () => {
    const msg = { text: 'line1\nline2\r\n\u2028\u2029 end', nested: { a: [1, 'x'] } };
    const line = encodeMessage(msg);
    assert.ok(line.endsWith('\n'));
    assert.equal(line.indexOf('\n'), line.length - 1);
    assert.ok(!line.includes('\u2028') && !line.includes('\u2029'));
    const { messages, decoder } = collect();
    decoder.push(Buffer.from(line, 'utf8'));
    assert.deepEqual(messages, [msg]);
  });

  test('refuses values that are not JSON', () => {
    assert.throws(() => encodeMessage(undefined), TypeError);
    assert.throws(() => encodeMessage(() => 1), TypeError);
    assert.throws(() => encodeMessage({ n: 1n }), TypeError);
  });
});

describe('TextLineDecoder (stderr)', () => {
  test('splits lines across chunks, UTF-8 safe, CRLF tolerant, final line on end()', () => {
    const lines: string[] = [];
    const d = new TextLineDecoder({ onLine: (l) => lines.push(l) });
    const bytes = Buffer.from('first 😀\r\nsecond 世界\n\nthird', 'utf8');
    for (let i = 0; i < bytes.length; i++) d.push(bytes.subarray(i, i + 1));
    d.end();
    assert.deepEqual(lines, ['first 😀', 'second 世界', '', 'third']);
  });

  test('a very long line is cut, not buffered without bound', () => {
    const lines: string[] = [];
    const d = new TextLineDecoder({ maxLineBytes: 2000, onLine: (l) => lines.push(l) });
    d.push(Buffer.from('€'.repeat(5000)));
    d.push(Buffer.from('\nnext\n'));
    assert.equal(lines.length, 2);
    assert.match(lines[0], /^€+… \[line truncated: more than /);
    assert.ok(!lines[0].includes('\ufffd'));
    assert.equal(lines[1], 'next');
  });
});

describe('helpers', () => {
  test('decodeUtf8Prefix never ends inside a character', () => {
    const buf = Buffer.from('a😀b世', 'utf8');
    const expected = ['', 'a', 'a', 'a', 'a', 'a😀', 'a😀b', 'a😀b', 'a😀b', 'a😀b世'];
    for (let n = 0; n <= buf.length; n++) assert.equal(decodeUtf8Prefix(buf, n), expected[n], `n=${n}`);
  });

  test('excerpt is short and single-line', () => {
    assert.equal(excerpt('abc'), 'abc');
    const e = excerpt('a\nb'.repeat(500));
    assert.ok(!e.includes('\n'));
    assert.ok(e.endsWith('…'));
  });
});
