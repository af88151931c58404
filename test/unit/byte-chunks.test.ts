// ByteChunks: what holding a peer's pieces costs stays near their bytes, whatever their size
// (a chunked HTTP body of one-byte chunks, a stdio server writing a byte at a time).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ByteChunks } from '../../src/util/byteChunks';
import { LineSplitter } from '../../src/transport/lineSplitter';

/** Pieces of the sizes given, filled with a running byte pattern, and the whole they make. */
function pieces(sizes: readonly number[]): { parts: Buffer[]; whole: Buffer } {
  let n = 0;
  const parts = sizes.map((size) => {
    const piece = Buffer.alloc(size);
    for (let i = 0; i < size; i++) piece[i] = (n++ * 7) % 251;
    return piece;
  });
  return { parts, whole: Buffer.concat(parts) };
}

describe('ByteChunks', () => {
  test('a few pieces are kept as they came: one is handed back itself, not copied', () => {
    const one = Buffer.from('{"jsonrpc":"2.0"}');
    const chunks = new ByteChunks();
    chunks.push(one);
    assert.equal(chunks.length, one.length);
    assert.equal(chunks.take(), one);
    assert.equal(chunks.length, 0);
    assert.equal(chunks.take().length, 0);
  });

  test('a million one-byte pieces are held in a few blocks, and come back whole and in order', () => {
    const chunks = new ByteChunks();
    const expected = Buffer.alloc(1_000_000);
    for (let i = 0; i < expected.length; i++) {
      expected[i] = i % 256;
      chunks.push(expected.subarray(i, i + 1));
    }
    assert.equal(chunks.length, expected.length);
    // Held one by one they would be a million Buffers (about 200 MB of heap); here 16 + 1,000,000 / 16 KiB.
    assert.ok(chunks.parts().length <= 16 + Math.ceil(expected.length / (16 * 1024)) + 1, `${chunks.parts().length} parts`);
    assert.ok(chunks.take().equals(expected));
  });

  test('mixed sizes (small among large, empty ones too) come back byte for byte', () => {
    const sizes: number[] = [];
    for (let i = 0; i < 3000; i++) sizes.push([1, 0, 3, 1500, 17, 40_000, 2, 1023, 1024, 16_384][(i * 7) % 10]!);
    const { parts, whole } = pieces(sizes);
    const chunks = new ByteChunks();
    for (const part of parts) chunks.push(part);
    assert.equal(chunks.length, whole.length);
    assert.ok(Buffer.concat(chunks.parts() as Buffer[]).equals(whole), 'parts() in order');
    assert.ok(chunks.take().equals(whole), 'take()');
  });

  test("a copied piece is the block's, not the caller's buffer: changing that buffer later changes nothing", () => {
    const chunks = new ByteChunks();
    const reused = Buffer.alloc(1);
    for (let i = 0; i < 100; i++) {
      reused[0] = 65 + (i % 26);
      chunks.push(i < 16 ? Buffer.from(reused) : reused);
    }
    reused[0] = 0;
    const text = chunks.take().toString('latin1');
    assert.equal(text.length, 100);
    assert.equal(text.slice(16), Array.from({ length: 84 }, (_, i) => String.fromCharCode(65 + ((i + 16) % 26))).join(''));
  });
});

describe('ByteChunks.takeTransient', () => {
  test('joins into one buffer the process reuses: the next join of any holder lands in the same memory', () => {
    const first = pieces([70_000, 1, 65_536]);
    const secondParts = [Buffer.alloc(3, 0xee), Buffer.alloc(100_000, 0xef)];
    const second = { parts: secondParts, whole: Buffer.concat(secondParts) };
    const a = new ByteChunks();
    const b = new ByteChunks();
    for (const p of first.parts) a.push(p);
    for (const p of second.parts) b.push(p);
    const joinedA = a.takeTransient();
    assert.ok(joinedA.equals(first.whole));
    assert.equal(a.length, 0, 'the pieces are let go');
    const copyOfA = Buffer.from(joinedA);
    const joinedB = b.takeTransient();
    assert.ok(joinedB.equals(second.whole));
    assert.equal(joinedB.buffer, joinedA.buffer, 'one shared buffer');
    assert.equal(joinedB.byteOffset, joinedA.byteOffset);
    // Why callers must decode at once: the first join's bytes are overwritten by the second.
    assert.ok(!joinedA.equals(copyOfA));
  });

  test('one piece is itself; a join under 64 KiB or over 16 MiB gets a buffer of its own and leaves the shared one be', () => {
    const one = Buffer.from('{"only":1}');
    const chunks = new ByteChunks();
    chunks.push(one);
    assert.equal(chunks.takeTransient(), one);

    const join = (...parts: Buffer[]) => {
      const c = new ByteChunks();
      for (const p of parts) c.push(p);
      return c.takeTransient();
    };
    const shared = join(Buffer.alloc(40_000, 1), Buffer.alloc(40_000, 2)).buffer;

    const small = join(Buffer.alloc(30_000, 1), Buffer.alloc(30_000, 2));
    assert.notEqual(small.buffer, shared, 'a join under 64 KiB is not in the shared buffer');
    assert.equal(small[0], 1);
    assert.equal(small[59_999], 2);

    const half = Buffer.alloc(8 * 1024 * 1024 + 1, 0x61);
    const big = join(half, half);
    assert.equal(big.length, half.length * 2);
    assert.notEqual(big.buffer, shared);
    assert.equal(big[big.length - 1], 0x61);
    // The large join neither used nor replaced the shared buffer: the next join lands in it again.
    assert.equal(join(Buffer.alloc(40_000, 5), Buffer.alloc(40_000, 6)).buffer, shared);
  });
});

describe('LineSplitter and the shared join buffer', () => {
  test("an oversize line's first and last bytes are copies: a later join elsewhere does not change them", () => {
    let kept: { head: Buffer; tail?: Buffer } | undefined;
    const splitter = new LineSplitter({ maxLineBytes: 100_000, onLine: () => assert.fail('over the limit'), onOversize: (info) => (kept = info) });
    // Held whole (within the limit and its one byte of slack), then ended over it: joined, then refused complete.
    splitter.push(Buffer.alloc(100_001, 0x61));
    splitter.push(Buffer.from('bbbbbbbbbb\n'));
    assert.ok(kept?.tail);
    const other = new LineSplitter({ maxLineBytes: 1_000_000, onLine: (line) => assert.equal(line.length, 140_000), onOversize: () => assert.fail('within the limit') });
    other.push(Buffer.alloc(70_000, 0x7a));
    other.push(Buffer.concat([Buffer.alloc(70_000, 0x7a), Buffer.from('\n')]));
    assert.ok(kept.head.every((byte) => byte === 0x61), 'head still the refused line\'s');
    assert.equal(kept.tail.toString('latin1').slice(-10), 'bbbbbbbbbb');
  });
});

describe('LineSplitter with a line that arrives a byte at a time', () => {
  test('the line comes whole (held in ByteChunks meanwhile)', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter({ maxLineBytes: 1024 * 1024, onLine: (line) => lines.push(line.toString()), onOversize: () => assert.fail('not over the limit') });
    const text = `{"text":"${'x'.repeat(200_000)}"}`;
    for (const byte of Buffer.from(text)) splitter.push(Buffer.from([byte]));
    assert.equal(splitter.bufferedBytes, text.length);
    splitter.push(Buffer.from('\n'));
    assert.deepEqual(lines, [text]);
    assert.equal(splitter.bufferedBytes, 0);
  });

  test('a byte-at-a-time line over the limit is refused with its first and last bytes', () => {
    const refused: Array<{ bytes: number; head: string; tail?: string }> = [];
    const splitter = new LineSplitter({
      maxLineBytes: 50_000,
      onLine: () => assert.fail('no line within the limit'),
      onOversize: (info) => refused.push({ bytes: info.bytes, head: info.head.subarray(0, 6).toString() }),
      onOversizeEnd: (info) => refused.push({ bytes: info.bytes, head: '', tail: info.tail?.subarray(-4).toString() }),
    });
    const text = `{"id":${'1'.repeat(60_000)}"end"`;
    for (const byte of Buffer.from(text)) splitter.push(Buffer.from([byte]));
    splitter.push(Buffer.from('\n'));
    assert.equal(refused[0]!.head, '{"id":');
    assert.equal(refused[0]!.bytes, 50_002);
    assert.deepEqual(refused[1], { bytes: text.length, head: '', tail: 'end"' });
  });
});
