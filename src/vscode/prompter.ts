import * as vscode from 'vscode';
import { runQuickInput } from './quickInput';

/**
 * Every question MCP Host asks a person while using a server (which resource, a template
 * variable, a prompt argument, sampling consent, an elicitation form) goes through this
 * interface. Production uses VS Code's quick input and dialogs; the integration tests install
 * a scripted implementation (see `UsageTestHooks`) and answer as the person would.
 *
 * (src/vscode/prompter.ts is the simpler one the configuration's `${input:…}` questions use; this
 * one adds what using a server needs: suggestions while typing, and a server cancelling a question.)
 *
 * `key` names the question for such a script: `resource.pick`, `template.var:NAME`,
 * `prompt.pick`, `prompt.arg:NAME`, `sampling.consent`, `elicitation.start`,
 * `elicitation.field:NAME`, `elicitation.review`, `elicitation.url`, `uri.copy`.
 */
export interface UsagePrompter {
  /** One item of a list; undefined when dismissed. */
  pick<T extends PickItem>(items: readonly T[], options: PickOptions<T>): Promise<T | undefined>;
  /** Several items of a list; undefined when dismissed. */
  pickMany<T extends PickItem>(items: readonly T[], options: PickManyOptions<T>): Promise<readonly T[] | undefined>;
  /** Free text; undefined when dismissed. */
  input(options: InputOptions): Promise<string | undefined>;
  /** Free text with suggestions that follow what is typed (completion/complete). */
  inputWithSuggestions(options: SuggestInputOptions): Promise<string | undefined>;
  /** A message with buttons; the chosen button, or undefined when dismissed. */
  message(severity: 'info' | 'warning' | 'error', text: string, options: MessageOptions, ...buttons: string[]): Promise<string | undefined>;
  /** Opens a URL outside VS Code (the system browser). */
  openExternal(uri: vscode.Uri): Promise<boolean>;
}

export interface PickItem extends vscode.QuickPickItem {
  /** Kept with the item for the caller; not shown. */
  readonly value?: unknown;
}

interface CommonOptions {
  key: string;
  title?: string;
  /** Aborts the question (the server cancelled its request); the answer is then undefined. */
  signal?: AbortSignal;
  /** Keep the question open when focus moves elsewhere (used for the servers' own requests). */
  ignoreFocusOut?: boolean;
}

export interface PickOptions<T> extends CommonOptions {
  placeHolder?: string;
  /** The item that is active (highlighted) when the list opens. */
  active?: T;
  matchOnDescription?: boolean;
  matchOnDetail?: boolean;
}

export interface PickManyOptions<T> extends CommonOptions {
  placeHolder?: string;
  /** Items checked when the list opens. */
  selected?: readonly T[];
}

export interface InputOptions extends CommonOptions {
  prompt?: string;
  placeHolder?: string;
  value?: string;
  password?: boolean;
  /** A message when the text is not acceptable, else undefined. */
  validate?: (value: string) => string | undefined;
}

export interface SuggestInputOptions extends InputOptions {
  /** Suggestions for what is typed so far; undefined when there are none to ask for. */
  suggest?: (value: string, signal: AbortSignal) => Promise<readonly string[]>;
}

export interface MessageOptions {
  key: string;
  modal?: boolean;
  detail?: string;
  signal?: AbortSignal;
}

/** The real VS Code UI. */
export class VsCodePrompter implements UsagePrompter {
  pick<T extends PickItem>(items: readonly T[], options: PickOptions<T>): Promise<T | undefined> {
    const qp = vscode.window.createQuickPick<T>();
    qp.title = options.title;
    qp.placeholder = options.placeHolder;
    qp.ignoreFocusOut = options.ignoreFocusOut ?? false;
    qp.matchOnDescription = options.matchOnDescription ?? false;
    qp.matchOnDetail = options.matchOnDetail ?? false;
    qp.items = items;
    if (options.active) qp.activeItems = [options.active];
    return runQuickInput<T | undefined>(qp, undefined, ({ finish }) => [
      qp.onDidAccept(() => finish(qp.selectedItems[0] ?? qp.activeItems[0])),
      onAbort(options.signal, () => finish(undefined)),
    ]);
  }

  pickMany<T extends PickItem>(items: readonly T[], options: PickManyOptions<T>): Promise<readonly T[] | undefined> {
    const qp = vscode.window.createQuickPick<T>();
    qp.title = options.title;
    qp.placeholder = options.placeHolder;
    qp.ignoreFocusOut = options.ignoreFocusOut ?? false;
    qp.canSelectMany = true;
    qp.items = items;
    if (options.selected) qp.selectedItems = options.selected;
    return runQuickInput<readonly T[] | undefined>(qp, undefined, ({ finish }) => [
      qp.onDidAccept(() => finish([...qp.selectedItems])),
      onAbort(options.signal, () => finish(undefined)),
    ]);
  }

  input(options: InputOptions): Promise<string | undefined> {
    const box = vscode.window.createInputBox();
    box.title = options.title;
    box.prompt = options.prompt;
    box.placeholder = options.placeHolder;
    box.value = options.value ?? '';
    box.password = options.password ?? false;
    box.ignoreFocusOut = options.ignoreFocusOut ?? false;
    const check = () => {
      box.validationMessage = options.validate?.(box.value);
      return box.validationMessage === undefined;
    };
    return runQuickInput<string | undefined>(box, undefined, ({ finish }) => [
      box.onDidChangeValue(() => void check()),
      box.onDidAccept(() => {
        if (check()) finish(box.value);
      }),
      onAbort(options.signal, () => finish(undefined)),
    ]);
  }

  inputWithSuggestions(options: SuggestInputOptions): Promise<string | undefined> {
    const suggest = options.suggest;
    if (!suggest) return this.input(options);
    type Item = vscode.QuickPickItem & { text: string };
    const qp = vscode.window.createQuickPick<Item>();
    return runQuickInput<string | undefined>(qp, undefined, (session) => {
      const { finish } = session;
      let inflight: AbortController | undefined;
      let timer: NodeJS.Timeout | undefined;
      let suggestions: readonly string[] = [];
      // Items keep their identity from one render to the next (a click that lands while the
      // suggestions are refreshed must still pick what was clicked), and the active one stays active.
      const cache = new Map<string, Item>();
      const item = (text: string, typed: boolean): Item => {
        const key = `${typed ? 't' : 's'}:${text}`;
        let it = cache.get(key);
        if (!it) {
          it = typed
            ? { label: text === '' ? '(empty)' : text, text, description: 'as typed', alwaysShow: true }
            : { label: text, text, description: 'suggested by the server', alwaysShow: true };
          cache.set(key, it);
        }
        return it;
      };
      const render = () => {
        const typed = qp.value;
        const items: Item[] = [];
        // What is typed is an answer too, even when the server suggests nothing like it (an empty
        // value only where it is acceptable).
        if (!suggestions.includes(typed) && !(typed === '' && options.validate?.('') !== undefined)) items.push(item(typed, true));
        for (const s of suggestions) items.push(item(s, false));
        const same = items.length === qp.items.length && items.every((it, i) => it === qp.items[i]);
        if (same) return;
        const active = qp.activeItems[0];
        qp.items = items;
        if (active && items.includes(active)) qp.activeItems = [active];
      };
      const refresh = () => {
        inflight?.abort();
        const controller = new AbortController();
        inflight = controller;
        qp.busy = true;
        void suggest(qp.value, controller.signal).then(
          (values) => {
            if (controller.signal.aborted || session.done) return;
            suggestions = values;
            qp.busy = false;
            render();
          },
          () => {
            if (controller.signal.aborted || session.done) return;
            qp.busy = false;
          },
        );
      };
      qp.title = options.title;
      qp.placeholder = options.prompt ?? options.placeHolder;
      qp.ignoreFocusOut = options.ignoreFocusOut ?? false;
      qp.value = options.value ?? '';
      render();
      // The first suggestions are asked for once the widget is shown (right after wiring).
      queueMicrotask(() => {
        if (!session.done) refresh();
      });
      return [
        new vscode.Disposable(() => {
          inflight?.abort();
          if (timer) clearTimeout(timer);
        }),
        qp.onDidChangeValue(() => {
          render();
          if (timer) clearTimeout(timer);
          timer = setTimeout(refresh, 150);
        }),
        qp.onDidAccept(() => {
          const chosen = qp.selectedItems[0] ?? qp.activeItems[0];
          const text = chosen ? chosen.text : qp.value;
          const error = options.validate?.(text);
          if (error) {
            // Shown where the person looks: as the placeholder when nothing is typed, else the title.
            qp.placeholder = error;
            qp.title = `${options.title ?? ''}${options.title ? ' — ' : ''}${error}`;
            return;
          }
          finish(text);
        }),
        onAbort(options.signal, () => finish(undefined)),
      ];
    });
  }

  async message(severity: 'info' | 'warning' | 'error', text: string, options: MessageOptions, ...buttons: string[]): Promise<string | undefined> {
    const show =
      severity === 'error' ? vscode.window.showErrorMessage : severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    const shown = show(text, { modal: options.modal ?? false, detail: options.detail }, ...buttons);
    if (!options.signal) return shown;
    // A dialog cannot be closed from here; a cancelled request just stops waiting for it.
    return Promise.race([shown, new Promise<undefined>((resolve) => onAbort(options.signal, () => resolve(undefined)))]);
  }

  async openExternal(uri: vscode.Uri): Promise<boolean> {
    return vscode.env.openExternal(uri);
  }
}

function onAbort(signal: AbortSignal | undefined, fn: () => void): vscode.Disposable {
  if (!signal) return { dispose() {} };
  if (signal.aborted) {
    queueMicrotask(fn);
    return { dispose() {} };
  }
  signal.addEventListener('abort', fn, { once: true });
  return { dispose: () => signal.removeEventListener('abort', fn) };
}
