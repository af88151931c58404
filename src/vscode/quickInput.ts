import * as vscode from 'vscode';
import { StolenFocusGuard } from './focusRace';

/** A shown quick input that settles once: the first `finish` wins. */
export interface QuickInputSession<T> {
  finish(value: T): void;
  readonly done: boolean;
}

/**
 * Shows `widget` and resolves with the first value given to `finish`, or with `whenHidden` when the
 * person closes it. `wire` subscribes to the widget's other events and returns their disposables
 * (and any other clean-up, such as timers); they and the widget are disposed as soon as the session
 * settles, so a late event changes nothing. A hide that is VS Code's focus race, not the person's
 * (see StolenFocusGuard), shows the widget again.
 */
export function runQuickInput<T>(widget: vscode.QuickInput, whenHidden: T, wire: (session: QuickInputSession<T>) => vscode.Disposable[]): Promise<T> {
  return new Promise<T>((resolve) => {
    let done = false;
    let listeners: vscode.Disposable[] = [];
    const guard = new StolenFocusGuard();
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
    const onHide = widget.onDidHide(() => {
      if (done) return;
      // VS Code hides on a lost focus only what does not ignore it: any other hide is the person's.
      if (!widget.ignoreFocusOut && guard.hideWasStolen(webviewEditorActive())) widget.show();
      else session.finish(whenHidden);
    });
    const onType = valueChanges(widget)?.(() => guard.typedIn());
    listeners = [onHide, ...(onType ? [onType] : []), ...wire(session)];
    if (done) {
      for (const d of listeners) d.dispose();
      return;
    }
    const show = () => {
      widget.show();
      guard.shown();
    };
    // Over a webview editor, chosen from the command palette: the palette hands the focus back to
    // the webview 70 to 170 ms after the input is shown (measured in the run-tool e2e on VS Code
    // 1.139), and VS Code then hides it for good, even a picker made by createQuickPick (whose
    // ignoreFocusOut is true), which showing it again did not bring back. Shown once that is over.
    if (webviewEditorActive()) setTimeout(() => done || show(), FOCUS_HANDBACK_MS);
    else show();
  });
}

/** How long after a command starts over a webview editor its quick input waits before showing. */
const FOCUS_HANDBACK_MS = 250;

function webviewEditorActive(): boolean {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputWebview || input instanceof vscode.TabInputCustom;
}

function valueChanges(widget: vscode.QuickInput): vscode.Event<string> | undefined {
  return 'onDidChangeValue' in widget ? (widget as vscode.QuickPick<vscode.QuickPickItem> | vscode.InputBox).onDidChangeValue : undefined;
}
