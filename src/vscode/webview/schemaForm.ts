// A form generated from a JSON Schema, in a webview: used to enter tool arguments and (by the
// elicitation feature) to answer a server's elicitation/create. The page builds the controls from
// the schema; every value is validated HERE, in the extension host, with Ajv (the webview's CSP
// forbids the code generation Ajv needs), and the problems are sent back to be shown at their fields.
import * as vscode from 'vscode';
import { compileSchema, type ValidationIssue } from './validation';
import { loadWebview, webviewOptions } from './html';
import type { FormFromWebview, FormIssue, FormSnapshot, FormToWebview, SchemaFormInit } from './protocol';

export interface SchemaFormOptions {
  /** The tab title and the heading. */
  title: string;
  /** Shown under the heading (plain text; Markdown is not interpreted). */
  description?: string;
  /** A short line above the description, e.g. "everything · draft-07". */
  subtitle?: string;
  /** An object schema (JSON Schema 2020-12 unless `$schema` says draft-07). */
  schema: Record<string, unknown>;
  /** Values to start with (e.g. the last ones used). */
  initial?: unknown;
  submitLabel?: string;
  /** Shows a third button whose answer is `decline` (for elicitation). */
  declineLabel?: string;
  cancelLabel?: string;
  /** A warning above the buttons, e.g. that the tool is destructive. */
  warning?: string;
  /** Open in the JSON editor instead of the generated form. */
  startInJson?: boolean;
  /** When the schema cannot be used for validation: refuse to submit (default), or warn and allow it. */
  unusableSchema?: 'block' | 'allow';
  /** Checks after the schema's; issues refuse the submission and are shown at their fields. */
  validate?: (value: unknown) => FormIssue[] | Promise<FormIssue[]>;
  viewColumn?: vscode.ViewColumn;
  /** Closes the form (answer: cancel) when cancelled, e.g. when the server cancels its request. */
  token?: vscode.CancellationToken;
}

export type SchemaFormResult<T = unknown> = { action: 'accept'; value: T } | { action: 'decline' } | { action: 'cancel' };

/** What tests can do with an open form: look at it and use it through its real page. */
export interface SchemaFormHandle {
  readonly title: string;
  readonly panel: vscode.WebviewPanel;
  /** Resolves once the page has rendered the form. */
  readonly ready: Promise<void>;
  /** What the page shows (undefined once the form has closed). */
  snapshot(): Promise<FormSnapshot>;
  /** Types `text` into the control of the field at `path` (a JSON Pointer), as a person would. */
  fill(path: string, text: string): Promise<void>;
  press(button: 'submit' | 'cancel' | 'decline' | 'json'): Promise<void>;
  /** The issues the host last sent to the page. */
  readonly lastIssues: readonly FormIssue[];
}

const openForms = new Set<SchemaFormHandle>();

/** The forms open right now (newest last). For tests. */
export function openSchemaForms(): SchemaFormHandle[] {
  return [...openForms];
}

/** Opens the form and resolves with the person's answer once they submit, decline or close it. */
export function showSchemaForm<T = unknown>(options: SchemaFormOptions): Promise<SchemaFormResult<T>> {
  return new Promise<SchemaFormResult<T>>((resolve) => {
    const panel = vscode.window.createWebviewPanel(
      'mcpHost.schemaForm',
      options.title,
      { viewColumn: options.viewColumn ?? vscode.ViewColumn.Active, preserveFocus: false },
      { ...webviewOptions(), retainContextWhenHidden: true },
    );
    const disposables: vscode.Disposable[] = [];
    let settled = false;
    let lastIssues: FormIssue[] = [];
    let nextRequest = 1;
    const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
    let markReady: () => void = () => undefined;
    const ready = new Promise<void>((r) => (markReady = r));
    const checker = compileSchema(options.schema);

    const finish = (result: SchemaFormResult<T>) => {
      if (settled) return;
      settled = true;
      openForms.delete(handle);
      for (const d of disposables) d.dispose();
      // A press that closed the form (submit, cancel) has done its job; a snapshot has nothing to show.
      for (const w of waiting.values()) w.resolve(undefined);
      waiting.clear();
      resolve(result);
      panel.dispose();
    };

    const post = (message: FormToWebview) => panel.webview.postMessage(message);
    const request = <R>(make: (requestId: number) => FormToWebview): Promise<R> => {
      const requestId = nextRequest++;
      return new Promise<R>((res, rej) => {
        waiting.set(requestId, { resolve: res as (v: unknown) => void, reject: rej });
        void post(make(requestId));
      });
    };

    const check = async (value: unknown): Promise<FormIssue[]> => {
      const compiled = await checker;
      let issues: ValidationIssue[] = [];
      if (compiled.kind === 'ok') issues = compiled.validate(value);
      else if (options.unusableSchema !== 'allow') issues = [{ path: '', message: `Cannot check the values: ${compiled.message}.` }];
      const extra = options.validate ? await options.validate(value) : [];
      return [...issues, ...extra].map(({ path, message }) => ({ path, message }));
    };

    const handle: SchemaFormHandle = {
      title: options.title,
      panel,
      ready,
      get lastIssues() {
        return lastIssues;
      },
      snapshot: () => request<FormSnapshot>((requestId) => ({ type: 'snapshot', requestId })),
      fill: async (path, text) => {
        await request((requestId) => ({ type: 'fill', requestId, path, text }));
      },
      press: async (button) => {
        await request((requestId) => ({ type: 'press', requestId, button }));
      },
    };
    openForms.add(handle);

    disposables.push(
      panel.onDidDispose(() => finish({ action: 'cancel' })),
      panel.webview.onDidReceiveMessage(async (message: FormFromWebview) => {
        switch (message.type) {
          case 'ready': {
            const compiled = await checker;
            let warning = options.warning;
            if (compiled.kind !== 'ok') {
              const text =
                options.unusableSchema === 'allow'
                  ? `The values cannot be checked before sending: ${compiled.message}.`
                  : `This form cannot be checked: ${compiled.message}.`;
              warning = warning ? `${warning}\n${text}` : text;
            }
            const init: SchemaFormInit = {
              title: options.title,
              description: options.description,
              subtitle: options.subtitle,
              schema: options.schema,
              initial: options.initial,
              submitLabel: options.submitLabel ?? 'Submit',
              declineLabel: options.declineLabel,
              cancelLabel: options.cancelLabel ?? 'Cancel',
              warning,
              startInJson: options.startInJson,
            };
            void post({ type: 'init', init });
            markReady();
            return;
          }
          case 'validate': {
            lastIssues = await check(message.value);
            void post({ type: 'issues', requestId: message.requestId, issues: lastIssues });
            return;
          }
          case 'submit': {
            lastIssues = await check(message.value);
            if (lastIssues.length > 0) {
              void post({ type: 'issues', requestId: message.requestId, issues: lastIssues });
              return;
            }
            finish({ action: 'accept', value: message.value as T });
            return;
          }
          case 'decline':
            finish({ action: 'decline' });
            return;
          case 'cancel':
            finish({ action: 'cancel' });
            return;
          case 'snapshot':
          case 'done': {
            const w = waiting.get(message.requestId);
            waiting.delete(message.requestId);
            if (!w) return;
            if (message.type === 'snapshot') w.resolve(message.snapshot);
            else if (message.error) w.reject(new Error(message.error));
            else w.resolve(undefined);
            return;
          }
        }
      }),
    );
    if (options.token) disposables.push(options.token.onCancellationRequested(() => finish({ action: 'cancel' })));
    let started = false;
    void ready.then(() => (started = true));
    disposables.push(loadWebview(panel, { title: options.title, script: 'schemaForm.js' }, () => started));
  });
}
