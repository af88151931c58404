// The depth check runs on every incoming message: it must refuse a message nested past the limit
// (a hostile server sent 150,000 levels) without overflowing the stack itself, and let every
// message within the limit through, however wide.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_MESSAGE_DEPTH, SHORTEST_TOO_DEEP_TEXT, nestsDeeperThan, textMayNestDeeperThan } from '../../src/util/nesting';

function nestedArrays(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

function nestedObjects(depth: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < depth; i++) value = { a: 1, b: 'text', next: value };
  return value;
}

describe('nestsDeeperThan', () => {
  test('leaves and empty containers nest no deeper than 1', () => {
    for (const leaf of [null, 0, 'x'.repeat(10_000), true, undefined]) assert.equal(nestsDeeperThan(leaf, 0), false);
    assert.equal(nestsDeeperThan({}, 1), false);
    assert.equal(nestsDeeperThan({}, 0), true);
  });

  test('exactly at the limit passes; one level more is refused (arrays and objects)', () => {
    for (const make of [nestedArrays, nestedObjects]) {
      assert.equal(nestsDeeperThan(make(MAX_MESSAGE_DEPTH)), false);
      assert.equal(nestsDeeperThan(make(MAX_MESSAGE_DEPTH + 1)), true);
    }
  });

  test('150,000 levels are refused without a stack overflow', () => {
    assert.equal(nestsDeeperThan(nestedArrays(150_000)), true);
    assert.equal(nestsDeeperThan(nestedObjects(150_000)), true);
  });

  test('the deep branch is found after wide shallow ones, in arrays and objects alike', () => {
    const wide = Array.from({ length: 10_000 }, (_, i) => ({ i, content: [{ type: 'text', text: `t${i}` }] }));
    assert.equal(nestsDeeperThan({ result: { items: wide } }), false);
    assert.equal(nestsDeeperThan({ result: { items: [...wide, nestedArrays(MAX_MESSAGE_DEPTH)] } }), true);
    assert.equal(nestsDeeperThan({ result: { items: wide, last: { deeper: nestedObjects(MAX_MESSAGE_DEPTH) } } }), true);
  });

  test('a JSON.parse result with a "__proto__" key is walked as data', () => {
    const parsed: unknown = JSON.parse(`{"__proto__": ${JSON.stringify(nestedArrays(MAX_MESSAGE_DEPTH))}}`);
    assert.equal(nestsDeeperThan(parsed), true);
  });
});

describe('textMayNestDeeperThan', () => {
  test('the shortest text that nests too deep is the bound; one character less cannot', () => {
    const shortest = JSON.stringify(nestedArrays(MAX_MESSAGE_DEPTH + 1));
    assert.equal(nestsDeeperThan(JSON.parse(shortest)), true);
    assert.equal(textMayNestDeeperThan(shortest.length), true);
    assert.equal(textMayNestDeeperThan(shortest.length - 1), false);
    assert.equal(SHORTEST_TOO_DEEP_TEXT, shortest.length);
    // Within the limit, as long as the bound: walked, and let through.
    const deepest = JSON.stringify([nestedArrays(MAX_MESSAGE_DEPTH - 1), 'x'.repeat(100)]);
    assert.equal(textMayNestDeeperThan(deepest.length), true);
    assert.equal(nestsDeeperThan(JSON.parse(deepest)), false);
  });

  test('for any limit: a text below the bound never parses to a value nested deeper', () => {
    for (let max = 0; max < 40; max++) {
      const text = JSON.stringify(nestedObjects(max + 1)).replace(/"a":1,"b":"text",/g, '');
      assert.equal(nestsDeeperThan(JSON.parse(text), max), true);
      assert.equal(textMayNestDeeperThan(text.length, max), true, `max ${max}: ${text.length} characters`);
    }
  });
});
