// A form generated from a JSON Schema, in a webview: used to enter tool arguments and (by the
// elicitation feature) to answer a server's elicitation/create. The page builds the controls from
// the schema; every value is validated HERE, in the extension host, with Ajv (the webview's CSP
// forbids the code generation Ajv needs), and the problems are sent back to be shown at their fields.
import * as vscode from 'vscode';
import { WatchedPanel } from './watchedPanel';
import { compileSchema, type ValidationIssue } from './validation';
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
    const form = new SchemaFormPanel<T>(options, (result) => {
      openForms.delete(form);
      resolve(result);
    });
    openForms.add(form);
  });
}

/** How long a test's request to the page (snapshot, fill, press) may wait for its answer. */
const PAGE_ANSWER_TIMEOUT_MS = 15_000;

/** One open form: its panel, the requests tests send to its page, and the person's answer. */
class SchemaFormPanel<T> implements SchemaFormHandle {
  readonly title: string;
  readonly ready: Promise<void>;
  private markReady: () => void = () => undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly checker: ReturnType<typeof compileSchema>;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  private nextRequest = 1;
  private settled = false;
  private issues: FormIssue[] = [];
  private readonly view: WatchedPanel;
  private started = false;

  constructor(
    private readonly options: SchemaFormOptions,
    private readonly onAnswer: (result: SchemaFormResult<T>) => void,
  ) {
    this.title = options.title;
    this.ready = new Promise<void>((r) => (this.markReady = r));
    this.checker = compileSchema(options.schema);
    this.view = new WatchedPanel({
      viewType: 'mcpHost.schemaForm',
      title: options.title,
      viewColumn: options.viewColumn ?? vscode.ViewColumn.Active,
      page: () => ({ title: options.title, script: 'schemaForm.js' }),
      isReady: () => this.started,
    });
    this.disposables.push(
      this.view,
      this.view.onDidClose(() => this.finish({ action: 'cancel' })),
      this.view.onDidReceiveMessage((message) => void this.handleMessage(message as FormFromWebview)),
    );
    if (options.token) this.disposables.push(options.token.onCancellationRequested(() => this.finish({ action: 'cancel' })));
  }

  get panel(): vscode.WebviewPanel {
    return this.view.panel;
  }

  get lastIssues(): readonly FormIssue[] {
    return this.issues;
  }

  snapshot(): Promise<FormSnapshot> {
    return this.request<FormSnapshot>((requestId) => ({ type: 'snapshot', requestId }));
  }

  async fill(path: string, text: string): Promise<void> {
    await this.request((requestId) => ({ type: 'fill', requestId, path, text }));
  }

  async press(button: 'submit' | 'cancel' | 'decline' | 'json'): Promise<void> {
    await this.request((requestId) => ({ type: 'press', requestId, button }));
  }

  private finish(result: SchemaFormResult<T>): void {
    if (this.settled) return;
    this.settled = true;
    for (const d of this.disposables) d.dispose();
    // A press that closed the form (submit, cancel) has done its job; a snapshot has nothing to show.
    for (const w of this.waiting.values()) w.resolve(undefined);
    this.waiting.clear();
    this.onAnswer(result);
  }

  private post(message: FormToWebview): Thenable<boolean> {
    return this.panel.webview.postMessage(message);
  }

  /** A request to the page, answered by its `snapshot` or `done` message with the same id. */
  private request<R>(make: (requestId: number) => FormToWebview): Promise<R> {
    const requestId = this.nextRequest++;
    const message = make(requestId);
    return new Promise<R>((resolve, reject) => {
      // Only tests ask: a page that does not answer fails the test with what it was asked.
      const timer = setTimeout(() => {
        if (this.waiting.delete(requestId)) reject(new Error(`the form page did not answer "${message.type}" within ${PAGE_ANSWER_TIMEOUT_MS} ms`));
      }, PAGE_ANSWER_TIMEOUT_MS);
      const settle = <V>(settleWith: (value: V) => void) => (value: V) => {
        clearTimeout(timer);
        settleWith(value);
      };
      this.waiting.set(requestId, { resolve: settle(resolve as (v: unknown) => void), reject: settle(reject) });
      void this.post(message);
    });
  }

  /** The schema's issues (Ajv, here in the extension host) and the caller's own checks. */
  private async check(value: unknown): Promise<FormIssue[]> {
    const compiled = await this.checker;
    let issues: ValidationIssue[] = [];
    if (compiled.kind === 'ok') issues = compiled.validate(value);
    else if (this.options.unusableSchema !== 'allow') issues = [{ path: '', message: vscode.l10n.t('Cannot check the values: {0}.', compiled.message) }];
    const extra = this.options.validate ? await this.options.validate(value) : [];
    return [...issues, ...extra].map(({ path, message }) => ({ path, message }));
  }

  private async handleMessage(message: FormFromWebview): Promise<void> {
    switch (message.type) {
      case 'ready':
        // Said at once: the watchdog must not replace a page that is talking while init is built.
        this.started = true;
        void this.post({ type: 'init', init: await this.initMessage() });
        this.markReady();
        return;
      case 'validate':
        this.issues = await this.check(message.value);
        void this.post({ type: 'issues', requestId: message.requestId, issues: this.issues });
        return;
      case 'submit':
        this.issues = await this.check(message.value);
        if (this.issues.length > 0) {
          void this.post({ type: 'issues', requestId: message.requestId, issues: this.issues });
          return;
        }
        this.finish({ action: 'accept', value: message.value as T });
        return;
      case 'decline':
        this.finish({ action: 'decline' });
        return;
      case 'cancel':
        this.finish({ action: 'cancel' });
        return;
      case 'snapshot':
      case 'done':
        this.answerRequest(message);
        return;
    }
  }

  private answerRequest(message: Extract<FormFromWebview, { type: 'snapshot' | 'done' }>): void {
    const w = this.waiting.get(message.requestId);
    this.waiting.delete(message.requestId);
    if (!w) return;
    if (message.type === 'snapshot') w.resolve(message.snapshot);
    else if (message.error) w.reject(new Error(message.error));
    else w.resolve(undefined);
  }

  /** What the page builds the form from; says so when the values cannot be checked. */
  private async initMessage(): Promise<SchemaFormInit> {
    const options = this.options;
    const compiled = await this.checker;
    let warning = options.warning;
    if (compiled.kind !== 'ok') {
      const text =
        options.unusableSchema === 'allow'
          ? vscode.l10n.t('The values cannot be checked before sending: {0}.', compiled.message)
          : vscode.l10n.t('This form cannot be checked: {0}.', compiled.message);
      warning = warning ? `${warning}\n${text}` : text;
    } else if (compiled.notes.length > 0) {
      // Patterns RE2 cannot run are not checked here: said, with the field, rather than left silent.
      const text = vscode.l10n.t('Not checked here: {0}.', compiled.notes.join('; '));
      warning = warning ? `${warning}\n${text}` : text;
    }
    return {
      title: options.title,
      description: options.description,
      subtitle: options.subtitle,
      schema: options.schema,
      initial: options.initial,
      submitLabel: options.submitLabel ?? vscode.l10n.t('Submit'),
      declineLabel: options.declineLabel,
      cancelLabel: options.cancelLabel ?? vscode.l10n.t('Cancel'),
      warning,
      startInJson: options.startInJson,
    };
  }
}
