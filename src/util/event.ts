import type { Disposable } from './disposable';

/** A subscribable event, shaped like vscode.Event so the editor floor can pass it through. */
export type Event<T> = (listener: (value: T) => void) => Disposable;

const NO_LISTENERS: ReadonlyArray<never> = Object.freeze([]);

/** Fires values to listeners; a throwing listener does not stop the others. */
export class Emitter<T> implements Disposable {
  // Shared until the first subscription (most emitters of a connection never get one).
  protected listeners: ReadonlyArray<(value: T) => void> = NO_LISTENERS;
  protected disposed = false;

  constructor(protected readonly onListenerError: (err: unknown) => void = defaultListenerError) {}

  readonly event: Event<T> = (listener) => {
    if (this.disposed) return { dispose() {} };
    // Copy on write (here and in dispose): fire() can then iterate the array it finds without
    // copying it per event, and still sees the listeners as they were when it started.
    this.listeners = this.listeners.concat(listener);
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
    // A snapshot without a copy: subscribing and unsubscribing replace the array (see event).
    const listeners = this.listeners;
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i](value);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.listeners = NO_LISTENERS;
  }
}

/**
 * An Emitter for one hot path (a transport's incoming messages). Its fire() is the same code in
 * a function of its own: V8 keeps type feedback per function, so here the call of the listener
 * sees only that path's listener and can be inlined, instead of sharing the call site that
 * every other emitter's listeners make polymorphic.
 */
export class HotEmitter<T> extends Emitter<T> {
  /** `textLength`: see MessageListener (transport.ts); passed on to the listeners when given. */
  override fire(value: T, textLength?: number): void {
    if (this.disposed) return;
    const listeners = this.listeners as ReadonlyArray<(value: T, textLength?: number) => void>;
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i](value, textLength);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}

function defaultListenerError(err: unknown): void {
  // Surface, never swallow silently; but neither the emitter nor the process may break on it: a
  // listener that fails on what a server sent (a trace writer on a 150,000-deep message) rethrown
  // here ended the CLI. The text is cut and stripped of control characters (it may echo a server).
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  console.error(`mcp-host: an event listener failed: ${text.slice(0, 300).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')}`);
}
