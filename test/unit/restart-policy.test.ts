import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { RestartPolicy } from '../../src/host/restartPolicy';

class FakeClock {
  t = 1_000_000;
  now = () => this.t;
  advance(ms: number) {
    this.t += ms;
  }
}

describe('RestartPolicy', () => {
  test('backs off exponentially up to the maximum', () => {
    const clock = new FakeClock();
    const policy = new RestartPolicy({ initialDelayMs: 1000, maxDelayMs: 5000, maxCrashes: 100, windowMs: 60_000 }, clock);
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const d = policy.recordCrash();
      assert.ok(d.restart);
      delays.push(d.delayMs);
      clock.advance(1);
    }
    assert.deepEqual(delays, [1000, 2000, 4000, 5000, 5000, 5000]);
  });

  test('the breaker trips at 5 crashes within 3 minutes', () => {
    const clock = new FakeClock();
    const policy = new RestartPolicy({}, clock);
    for (let i = 1; i <= 4; i++) {
      const d = policy.recordCrash();
      assert.equal(d.restart, true, `crash ${i} restarts`);
      clock.advance(30_000);
    }
    const fifth = policy.recordCrash();
    assert.equal(fifth.restart, false);
    assert.equal(fifth.crashesInWindow, 5);
    assert.match(!fifth.restart ? fifth.reason : '', /crashed 5 times within 180 s/);
  });

  test('crashes older than the window are forgotten', () => {
    const clock = new FakeClock();
    const policy = new RestartPolicy({}, clock);
    for (let i = 0; i < 4; i++) {
      policy.recordCrash();
      clock.advance(50_000); // 4 crashes over 200 s: never 5 within 180 s
    }
    const d = policy.recordCrash();
    assert.equal(d.restart, true);
    assert.ok(d.crashesInWindow < 5);
    // and the delay starts low again as old crashes leave the window
    clock.advance(10 * 60_000);
    const fresh = policy.recordCrash();
    assert.ok(fresh.restart && fresh.delayMs === 1000);
  });

  test('reset (a manual restart) starts the count afresh', () => {
    const clock = new FakeClock();
    const policy = new RestartPolicy({ maxCrashes: 2 }, clock);
    policy.recordCrash();
    assert.equal(policy.recordCrash().restart, false);
    policy.reset();
    const d = policy.recordCrash();
    assert.ok(d.restart && d.delayMs === 1000);
  });
});
