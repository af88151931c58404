import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { FOCUS_RACE_MS, StolenFocusGuard } from '../../src/vscode/focusRace';

function guardAt(start = 5_000) {
  const clock = { t: start };
  const guard = new StolenFocusGuard(() => clock.t);
  return { clock, guard };
}

describe('StolenFocusGuard (a quick input hidden by VS Code right after it was shown)', () => {
  test('a hide right after the show, over a webview editor, shows the input again, once', () => {
    const { clock, guard } = guardAt();
    guard.shown();
    clock.t += 12;
    assert.equal(guard.hideWasStolen(true), true);
    guard.shown();
    clock.t += 5;
    assert.equal(guard.hideWasStolen(true), false, 'a second quick hide is the person’s');
  });

  test('a hide while no webview editor is active is the person’s', () => {
    const { clock, guard } = guardAt();
    guard.shown();
    clock.t += 12;
    assert.equal(guard.hideWasStolen(false), false);
  });

  test('a hide after the race window is the person’s, measured from the first show', () => {
    const { clock, guard } = guardAt();
    guard.shown();
    clock.t += FOCUS_RACE_MS + 1;
    assert.equal(guard.hideWasStolen(true), false);
    const late = guardAt();
    late.guard.shown();
    late.clock.t += FOCUS_RACE_MS;
    assert.equal(late.guard.hideWasStolen(true), true, 'the window includes its end');
  });

  test('a hide after the person typed in the input is theirs (an Escape), however soon', () => {
    const { clock, guard } = guardAt();
    guard.shown();
    clock.t += 40;
    guard.typedIn();
    assert.equal(guard.hideWasStolen(true), false);
  });

  test('a hide before any show is not taken for the race', () => {
    const { guard } = guardAt();
    assert.equal(guard.hideWasStolen(true), false);
  });
});
