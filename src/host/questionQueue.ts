// The questions servers make the editor ask a person (elicitation, sampling consent), one at a
// time and fairly: each server has its own line, and the lines take turns (round robin), so a
// server with a hundred questions waiting delays another server's first question by at most one
// of its own. A person can decline everything from one server until it restarts. No `vscode`:
// the editor floor shows the questions, this decides their order.

/** A question that was not asked because the person declined all of its server's questions. */
export class QuestionDeclinedError extends Error {
  constructor(readonly source: string) {
    super('the person declined all questions from this server for now');
    this.name = 'QuestionDeclinedError';
  }
}

/** A question that left the line without being asked: its request was cancelled, its server stopped, or the line was full. */
export class QuestionDroppedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'QuestionDroppedError';
  }
}

/** How many questions of one server may wait; more are refused at once. */
export const MAX_WAITING_PER_SOURCE = 32;

interface Waiting {
  readonly source: string;
  readonly run: () => void;
  readonly fail: (err: Error) => void;
  readonly detach: () => void;
}

export class FairQuestionQueue {
  /** Each source's waiting questions, oldest first. */
  private readonly lines = new Map<string, Waiting[]>();
  /** Sources with questions waiting, in the order of their turns. */
  private readonly turns: string[] = [];
  private readonly declining = new Set<string>();
  /** The source whose question is shown now (or was last), which goes last at the next pick. */
  private lastServed: string | undefined;
  private busy = false;

  constructor(private readonly maxWaitingPerSource = MAX_WAITING_PER_SOURCE) {}

  /**
   * Runs `ask` when it is this question's turn; rejects with QuestionDeclinedError when the person
   * declined all of `source`'s questions, with QuestionDroppedError when it left the line unasked.
   */
  ask<T>(source: string, ask: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.declining.has(source)) return Promise.reject(new QuestionDeclinedError(source));
    if (signal?.aborted) return Promise.reject(new QuestionDroppedError('cancelled by the server'));
    const line = this.lines.get(source) ?? [];
    if (line.length >= this.maxWaitingPerSource) {
      return Promise.reject(new QuestionDroppedError(`too many questions from this server are waiting (${line.length}); asked again later`));
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => this.remove(waiting, new QuestionDroppedError('cancelled by the server'));
      const waiting: Waiting = {
        source,
        run: () => {
          this.busy = true;
          this.lastServed = source;
          let answer: Promise<T>;
          try {
            answer = ask();
          } catch (err) {
            answer = Promise.reject(err instanceof Error ? err : new Error(String(err)));
          }
          void answer.then(resolve, reject).finally(() => {
            this.busy = false;
            this.next();
          });
        },
        fail: reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      line.push(waiting);
      if (line.length === 1) {
        this.lines.set(source, line);
        this.turns.push(source);
      }
      if (!this.busy) this.next();
    });
  }

  /**
   * The person declined everything from `source`: its waiting questions are declined now, and
   * later ones at once, until resume().
   */
  declineAll(source: string): void {
    this.declining.add(source);
    this.failLine(source, () => new QuestionDeclinedError(source));
  }

  isDeclining(source: string): boolean {
    return this.declining.has(source);
  }

  /** The source started again: its questions are asked again. */
  resume(source: string): void {
    this.declining.delete(source);
  }

  /** The source stopped: its waiting questions leave the line unasked. */
  drop(source: string, reason = 'the server stopped'): void {
    this.failLine(source, () => new QuestionDroppedError(reason));
  }

  /** How many questions wait (not counting the one shown). */
  get waiting(): number {
    let n = 0;
    for (const line of this.lines.values()) n += line.length;
    return n;
  }

  /** Whether a question is shown now. */
  get asking(): boolean {
    return this.busy;
  }

  private next(): void {
    if (this.busy || this.turns.length === 0) return;
    // The source just served waits behind the others, even if it queued again while it was shown.
    if (this.turns.length > 1 && this.turns[0] === this.lastServed) this.turns.push(this.turns.shift()!);
    const source = this.turns.shift()!;
    const line = this.lines.get(source)!;
    const waiting = line.shift()!;
    if (line.length > 0) this.turns.push(source);
    else this.lines.delete(source);
    waiting.detach();
    waiting.run();
  }

  private remove(waiting: Waiting, err: Error): void {
    const line = this.lines.get(waiting.source);
    const at = line?.indexOf(waiting) ?? -1;
    if (!line || at < 0) return;
    line.splice(at, 1);
    if (line.length === 0) this.forget(waiting.source);
    waiting.detach();
    waiting.fail(err);
  }

  private failLine(source: string, error: () => Error): void {
    const line = this.lines.get(source);
    if (!line) return;
    this.forget(source);
    for (const waiting of line) {
      waiting.detach();
      waiting.fail(error());
    }
  }

  private forget(source: string): void {
    this.lines.delete(source);
    const turn = this.turns.indexOf(source);
    if (turn >= 0) this.turns.splice(turn, 1);
  }
}
