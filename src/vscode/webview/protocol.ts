// Messages between the extension host and the webviews (schema form, tool result). Shared by
// both sides: the host code (src/vscode/webview, src/vscode/usage/tools) and the browser scripts
// (src/webview). Types only: nothing here may import `vscode` or use the DOM.

export interface FormIssue {
  /** JSON Pointer into the value; '' = the whole value. */
  path: string;
  message: string;
}

export interface SchemaFormInit {
  title: string;
  description?: string;
  /** Extra lines above the form (e.g. "Server: everything"), plain text. */
  subtitle?: string;
  schema: Record<string, unknown>;
  initial?: unknown;
  submitLabel: string;
  /** When set, a third button answers "decline" (elicitation). */
  declineLabel?: string;
  cancelLabel: string;
  /** A warning shown above the buttons (e.g. "This tool is marked destructive"). */
  warning?: string;
  /** Start in the JSON editor rather than the form. */
  startInJson?: boolean;
}

export type FormToWebview =
  | { type: 'init'; init: SchemaFormInit }
  | { type: 'issues'; requestId: number; issues: FormIssue[] }
  | { type: 'busy'; message: string | undefined }
  /** Test hook: describe what is on screen. */
  | { type: 'snapshot'; requestId: number }
  /** Test hook: set a field as a person would (fills the input and fires its events). */
  | { type: 'fill'; requestId: number; path: string; text: string }
  | { type: 'press'; requestId: number; button: 'submit' | 'cancel' | 'decline' | 'json' };

export type FormFromWebview =
  | { type: 'ready'; load?: string }
  | { type: 'validate'; requestId: number; value: unknown }
  | { type: 'submit'; requestId: number; value: unknown }
  | { type: 'cancel' }
  | { type: 'decline' }
  | { type: 'snapshot'; requestId: number; snapshot: FormSnapshot }
  | { type: 'done'; requestId: number; error?: string };

export interface FormSnapshot {
  /** The value the form would submit now (undefined while the JSON editor holds invalid JSON). */
  value: unknown;
  mode: 'form' | 'json';
  /** Every field on screen: its JSON Pointer, label, the kind of control, and the error shown. */
  fields: Array<{ path: string; label: string; control: string; error?: string }>;
  /** Issues shown in the summary at the top. */
  summary: string[];
  html: string;
}

// ---- tool result view --------------------------------------------------------------------------

/** One content block as the result view shows it (already size-limited by the host). */
export type ResultBlock =
  | { kind: 'text'; text: string; truncatedFrom?: number; format: 'markdown' | 'json' | 'plain'; audience?: string[]; priority?: number }
  | { kind: 'image'; mimeType: string; data: string; bytes: number; tooLarge?: boolean; audience?: string[] }
  | { kind: 'audio'; mimeType: string; data: string; bytes: number; tooLarge?: boolean; audience?: string[] }
  | { kind: 'resource_link'; uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number }
  | {
      kind: 'resource';
      uri: string;
      mimeType?: string;
      text?: string;
      truncatedFrom?: number;
      blob?: string;
      bytes?: number;
      tooLarge?: boolean;
      format?: 'markdown' | 'json' | 'plain';
    }
  | { kind: 'unknown'; type: string; json: string };

export interface StructuredView {
  json: string;
  truncatedFrom?: number;
  /** 'valid' / 'invalid' against the tool's outputSchema; 'none' = the tool declares none. */
  check: 'valid' | 'invalid' | 'none' | 'unchecked';
  issues: FormIssue[];
  note?: string;
}

export interface ResultViewModel {
  runId: number;
  tool: string;
  toolTitle?: string;
  server: string;
  argumentsJson: string;
  startedAt: string;
  durationMs: number;
  /** 'ok', a tool execution error (isError: true), or a protocol/transport failure. */
  status: 'ok' | 'tool-error' | 'failed' | 'cancelled';
  errorMessage?: string;
  blocks: ResultBlock[];
  structured?: StructuredView;
  /** The tool has an outputSchema but the result carries no structuredContent. */
  missingStructured?: boolean;
  /** A resource read (from a resource link) rather than a tool call. */
  resourceUri?: string;
  rawJsonBytes: number;
}

export type ResultToWebview =
  | { type: 'show'; model: ResultViewModel }
  | { type: 'snapshot'; requestId: number };

export type ResultFromWebview =
  | { type: 'ready'; load?: string }
  | { type: 'rendered'; runId: number }
  | { type: 'openLink'; uri: string }
  | { type: 'showAll'; blockIndex: number | 'structured' }
  | { type: 'openInEditor'; blockIndex: number | 'structured' | 'raw' }
  | { type: 'copy'; what: number | 'structured' | 'raw' | 'arguments' }
  | { type: 'save'; blockIndex: number }
  | { type: 'runAgain' }
  | { type: 'snapshot'; requestId: number; snapshot: ResultSnapshot };

export interface ResultSnapshot {
  runId: number;
  title: string;
  html: string;
  /** Text of the page as a person reads it. */
  text: string;
  blocks: Array<{ kind: string; text: string; html: string }>;
}
