import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { FairQuestionQueue, MAX_WAITING_PER_SOURCE, QuestionDeclinedError, QuestionDroppedError } from '../../src/host/questionQueue';

/** A person who answers when told to: every question shown is recorded, and answered by answer(). */
function person() {
  const shown: string[] = [];
  const pending: Array<(value: string) => void> = [];
  return {
    shown,
    question(label: string) {
      return () =>
        new Promise<string>((resolve) => {
          shown.push(label);
          pending.push(resolve);
        });
    },
    /** Answers the question shown now and lets the queue move on. */
    async answer(): Promise<void> {
      const resolve = pending.shift();
      assert.ok(resolve, 'no question is shown');
      resolve('ok');
      await flush();
    },
    get open() {
      return pending.length;
    },
  };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('FairQuestionQueue', () => {
  test('one question at a time; one server with 100 waiting delays another server\'s first by at most one of its own', async () => {
    const queue = new FairQuestionQueue(200);
    const p = person();
    const answers: Array<Promise<string>> = [];
    for (let i = 0; i < 100; i++) answers.push(queue.ask('A', p.question(`A${i}`)));
    answers.push(queue.ask('B', p.question('B0')));
    await flush();
    assert.deepEqual(p.shown, ['A0']);
    assert.equal(p.open, 1, 'one question shown, the rest wait');
    assert.equal(queue.waiting, 100);
    await p.answer();
    assert.deepEqual(p.shown, ['A0', 'B0'], 'B comes right after the question A had on screen');
    while (p.open > 0) await p.answer();
    assert.equal(p.shown.length, 101);
    assert.deepEqual(await Promise.all(answers), answers.map(() => 'ok'));
    assert.equal(queue.asking, false);
  });

  test('three servers take turns (round robin), each in its own order', async () => {
    const queue = new FairQuestionQueue();
    const p = person();
    for (const source of ['A', 'B', 'C']) for (let i = 0; i < 3; i++) void queue.ask(source, p.question(`${source}${i}`));
    await flush();
    while (p.open > 0) await p.answer();
    assert.deepEqual(p.shown, ['A0', 'B0', 'C0', 'A1', 'B1', 'C1', 'A2', 'B2', 'C2']);
  });

  test('a server that asks again while its question is shown waits behind the others', async () => {
    const queue = new FairQuestionQueue();
    const p = person();
    void queue.ask('A', p.question('A0'));
    await flush();
    void queue.ask('A', p.question('A1'));
    void queue.ask('B', p.question('B0'));
    await p.answer();
    assert.deepEqual(p.shown, ['A0', 'B0']);
    await p.answer();
    await p.answer();
    assert.deepEqual(p.shown, ['A0', 'B0', 'A1']);
  });

  test('"decline all from this server": its waiting questions and later ones are declined unasked, until it restarts; others go on', async () => {
    const queue = new FairQuestionQueue();
    const p = person();
    const a0 = queue.ask('A', p.question('A0'));
    const waitingA = [queue.ask('A', p.question('A1')), queue.ask('A', p.question('A2'))];
    const b0 = queue.ask('B', p.question('B0'));
    await flush();
    // The person chose "decline all" on A0: the handler declines A0 itself and tells the queue.
    queue.declineAll('A');
    for (const w of waitingA) await assert.rejects(w, QuestionDeclinedError);
    await assert.rejects(queue.ask('A', p.question('A3')), QuestionDeclinedError);
    assert.equal(queue.isDeclining('A'), true);
    await p.answer();
    assert.equal(await a0, 'ok');
    assert.deepEqual(p.shown, ['A0', 'B0']);
    await p.answer();
    assert.equal(await b0, 'ok');
    queue.resume('A');
    const again = queue.ask('A', p.question('A4'));
    await flush();
    await p.answer();
    assert.equal(await again, 'ok');
    assert.deepEqual(p.shown, ['A0', 'B0', 'A4']);
  });

  test('a waiting question whose request is cancelled, or whose server stopped, leaves the line unasked', async () => {
    const queue = new FairQuestionQueue();
    const p = person();
    void queue.ask('A', p.question('A0'));
    const cancel = new AbortController();
    const cancelled = queue.ask('B', p.question('B0'), cancel.signal);
    const stopped = [queue.ask('C', p.question('C0')), queue.ask('C', p.question('C1'))];
    const kept = queue.ask('D', p.question('D0'));
    await flush();
    cancel.abort();
    await assert.rejects(cancelled, (err: Error) => err instanceof QuestionDroppedError && /cancelled/.test(err.message));
    queue.drop('C');
    for (const s of stopped) await assert.rejects(s, (err: Error) => err instanceof QuestionDroppedError && /stopped/.test(err.message));
    await p.answer();
    await p.answer();
    assert.equal(await kept, 'ok');
    assert.deepEqual(p.shown, ['A0', 'D0']);
    assert.equal(queue.waiting, 0);
    const already = new AbortController();
    already.abort();
    await assert.rejects(queue.ask('E', p.question('E0'), already.signal), QuestionDroppedError);
    assert.deepEqual(p.shown, ['A0', 'D0']);
  });

  test('a server may keep a bounded number of questions waiting; a failing question does not stop the line', async () => {
    const queue = new FairQuestionQueue();
    const p = person();
    void queue.ask('A', p.question('A-shown'));
    const waiting = Array.from({ length: MAX_WAITING_PER_SOURCE }, (_, i) => queue.ask('A', p.question(`A${i}`)));
    await assert.rejects(queue.ask('A', p.question('A-over')), (err: Error) => err instanceof QuestionDroppedError && /too many/.test(err.message));
    queue.drop('A');
    await Promise.allSettled(waiting);
    await p.answer();
    const failing = queue.ask('B', () => Promise.reject(new Error('the dialog broke')));
    const throwing = assert.rejects(
      queue.ask('B', () => {
        throw new Error('thrown');
      }),
      /thrown/,
    );
    const after = queue.ask('C', p.question('C0'));
    await assert.rejects(failing, /the dialog broke/);
    await flush();
    // B's next question waits for C's turn.
    assert.equal(p.shown.at(-1), 'C0');
    await p.answer();
    assert.equal(await after, 'ok');
    await throwing;
    assert.equal(queue.asking, false);
  });
});
