/** A resource that must be released. Mirrors vscode.Disposable without importing vscode. */
export interface Disposable {
  dispose(): void;
}

export function toDisposable(fn: () => void): Disposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

/**
 * A scope of disposables released together. Once disposed, anything added is
 * disposed immediately, so a late async result of a finished scope cannot leak.
 */
export class DisposableStore implements Disposable {
  private readonly items = new Set<Disposable>();
  private disposedFlag = false;

  get isDisposed(): boolean {
    return this.disposedFlag;
  }

  add<T extends Disposable>(item: T): T {
    if (this.disposedFlag) {
      item.dispose();
    } else {
      this.items.add(item);
    }
    return item;
  }

  dispose(): void {
    if (this.disposedFlag) return;
    this.disposedFlag = true;
    const errors: unknown[] = [];
    for (const item of [...this.items].reverse()) {
      try {
        item.dispose();
      } catch (err) {
        errors.push(err);
      }
    }
    this.items.clear();
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'Several disposables failed');
  }
}
