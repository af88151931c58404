import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { WarningRate } from '../../src/util/warningRate';

describe('WarningRate', () => {
  test('admits a second\'s allowance, counts the rest, and says the count when the next second begins, at roll() or at flush()', () => {
    let clock = 5_000;
    const counts: number[] = [];
    const rate = new WarningRate(3, (n) => counts.push(n), () => clock);
    const admitted = () => Array.from({ length: 5 }, () => rate.admit()).filter(Boolean).length;
    assert.equal(admitted(), 3);
    assert.equal(rate.pending, true);
    assert.deepEqual(counts, [], 'nothing said within the second');
    clock += 999;
    rate.roll();
    assert.deepEqual(counts, [], 'still the same second');
    clock += 1;
    rate.roll();
    assert.deepEqual(counts, [2], 'the second is over: its count is said');
    assert.equal(rate.pending, false);
    assert.equal(admitted(), 3);
    clock += 1000;
    // The next second's first warning says the last second's count first.
    assert.equal(rate.admit(), true);
    assert.deepEqual(counts, [2, 2]);
    assert.equal(admitted(), 2);
    rate.flush();
    assert.deepEqual(counts, [2, 2, 3]);
    rate.flush();
    assert.deepEqual(counts, [2, 2, 3], 'a count is said once');
  });
});
