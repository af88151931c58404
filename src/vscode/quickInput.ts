import * as vscode from 'vscode';

/** A shown quick input that settles once: the first `finish` wins. */
export interface QuickInputSession<T> {
  finish(value: T): void;
  readonly done: boolean;
}

/**
 * Shows `widget` and resolves with the first value given to `finish`. `wire` subscribes to the
 * widget's events and returns their disposables (and any other clean-up, such as timers); they
 * and the widget are disposed as soon as the session settles, so a late event changes nothing.
 */
export function runQuickInput<T>(widget: vscode.QuickInput, wire: (session: QuickInputSession<T>) => vscode.Disposable[]): Promise<T> {
  return new Promise<T>((resolve) => {
    let done = false;
    let listeners: vscode.Disposable[] = [];
    const session: QuickInputSession<T> = {
      finish(value) {
        if (done) return;
        done = true;
        for (const d of listeners) d.dispose();
        widget.dispose();
        resolve(value);
      },
      get done() {
        return done;
      },
    };
    listeners = wire(session);
    if (done) {
      for (const d of listeners) d.dispose();
      return;
    }
    widget.show();
  });
}
