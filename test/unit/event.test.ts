import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Emitter, HotEmitter } from '../../src/util/event';

describe('Emitter', () => {
  it('fires to every listener in the order they subscribed; a disposed subscription gets nothing more', () => {
    const emitter = new Emitter<number>();
    const seen: string[] = [];
    const a = emitter.event((v) => seen.push(`a${v}`));
    emitter.event((v) => seen.push(`b${v}`));
    emitter.fire(1);
    a.dispose();
    emitter.fire(2);
    assert.deepEqual(seen, ['a1', 'b1', 'b2']);
  });

  it('keeps the listeners of each emitter apart (none shares another one’s list)', () => {
    const first = new Emitter<number>();
    const second = new Emitter<number>();
    const seen: number[] = [];
    first.event((v) => seen.push(v));
    assert.equal(second.hasListeners, false);
    second.fire(2);
    first.fire(1);
    assert.deepEqual(seen, [1]);
  });

  it('fires to the listeners present when fire() began, though one subscribes or unsubscribes meanwhile', () => {
    const emitter = new Emitter<number>();
    const seen: string[] = [];
    let late: { dispose(): void } | undefined;
    emitter.event((v) => {
      seen.push(`a${v}`);
      late ??= emitter.event((w) => seen.push(`late${w}`));
    });
    emitter.fire(1);
    emitter.fire(2);
    assert.deepEqual(seen, ['a1', 'a2', 'late2']);
  });

  it('a listener that unsubscribes another during fire() leaves that one this event, not the next', () => {
    const emitter = new Emitter<number>();
    const seen: string[] = [];
    const later: { b?: { dispose(): void } } = {};
    emitter.event((v) => {
      seen.push(`a${v}`);
      later.b?.dispose();
    });
    later.b = emitter.event((v) => seen.push(`b${v}`));
    emitter.event((v) => seen.push(`c${v}`));
    emitter.fire(1);
    emitter.fire(2);
    assert.deepEqual(seen, ['a1', 'b1', 'c1', 'a2', 'c2']);
  });

  for (const Kind of [Emitter, HotEmitter]) {
    it(`${Kind.name}: goes on after a listener throws, and hands the error to onListenerError`, () => {
      const errors: unknown[] = [];
      const emitter = new Kind<number>((err) => errors.push(err));
      const seen: number[] = [];
      emitter.event(() => {
        throw new Error('boom');
      });
      emitter.event((v) => seen.push(v));
      emitter.fire(7);
      assert.deepEqual(seen, [7]);
      assert.deepEqual(errors.map((e) => (e as Error).message), ['boom']);
    });
  }

  it('HotEmitter passes the text length on to its listeners', () => {
    const emitter = new HotEmitter<string>();
    const seen: Array<[string, number | undefined]> = [];
    (emitter.event as unknown as (l: (v: string, n?: number) => void) => void)((v, n) => seen.push([v, n]));
    emitter.fire('x', 42);
    assert.deepEqual(seen, [['x', 42]]);
  });

  it('after dispose() fires nothing and takes no listener', () => {
    const emitter = new Emitter<number>();
    const seen: number[] = [];
    emitter.event((v) => seen.push(v));
    emitter.dispose();
    emitter.fire(1);
    emitter.event((v) => seen.push(v));
    assert.equal(emitter.hasListeners, false);
    emitter.fire(2);
    assert.deepEqual(seen, []);
  });
});
