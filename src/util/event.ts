import type { Disposable } from './disposable';

/** A subscribable event, shaped like vscode.Event so the editor floor can pass it through. */
export type Event<T> = (listener: (value: T) => void) => Disposable;

/** Fires values to listeners; a throwing listener does not stop the others. */
export class Emitter<T> implements Disposable {
  private listeners: Array<(value: T) => void> = [];
  private disposed = false;

  constructor(private readonly onListenerError: (err: unknown) => void = defaultListenerError) {}

  readonly event: Event<T> = (listener) => {
    if (this.disposed) return { dispose() {} };
    this.listeners.push(listener);
    return {
      dispose: () => {
        this.listeners = this.listeners.filter((l) => l !== listener);
      },
    };
  };

  get hasListeners(): boolean {
    return this.listeners.length > 0;
  }

  fire(value: T): void {
    if (this.disposed) return;
    // Snapshot: a listener may unsubscribe itself while we iterate.
    for (const listener of this.listeners.slice()) {
      try {
        listener(value);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.listeners = [];
  }
}

function defaultListenerError(err: unknown): void {
  // Surface, never swallow silently; but one bad listener must not break the emitter.
  queueMicrotask(() => {
    throw err;
  });
}
