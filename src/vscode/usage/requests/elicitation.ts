import * as vscode from 'vscode';
import { McpError, ErrorCode } from '../../../protocol/errors';
import type { IncomingRequestContext } from '../../../protocol/connection';
import type { Logger } from '../../../util/logger';
import type { PickItem } from '../../prompter';
import { showSchemaForm } from '../../webview/schemaForm';
import { usageServices } from '../../services';
import { QuestionDeclinedError } from '../../../host/questionQueue';
import type { ServerRef } from './sampling';
import {
  displayValue,
  initialValues,
  missingOrInvalid,
  parseRequestedSchema,
  parseTyped,
  type ElicitField,
  type FieldValue,
} from './elicitationSchema';

export type ElicitResult = { action: 'accept'; content?: Record<string, FieldValue> } | { action: 'decline' } | { action: 'cancel' };
/** What a question can end with: an answer for the server, or "decline all from this server for now". */
type Asked = ElicitResult | { action: 'decline-all' };

/** The choice that declines this question and every other of the same server until it restarts. */
export const DECLINE_ALL_LABEL = 'Decline All from This Server for Now';

/** elicitation/create for one server: form mode in quick inputs (or the schema-form webview), URL mode after asking. */
export function createElicitationHandler(server: ServerRef, log: () => Logger) {
  return async (params: Record<string, unknown>, ctx: IncomingRequestContext): Promise<Record<string, unknown>> => {
    const mode = params.mode ?? 'form';
    const message = typeof params.message === 'string' ? params.message : '';
    let ask: () => Promise<Asked>;
    if (mode === 'url') {
      const url = parseUrl(params.url);
      ask = () => askToOpenUrl(server, message, url, ctx.signal);
    } else if (mode === 'form') {
      const fields = parseRequestedSchema(params.requestedSchema);
      const style = vscode.workspace.getConfiguration('mcpHost').get<string>('elicitation.form', 'quickInput');
      ask = () => (style === 'webview' ? fillWebviewForm(server, message, params.requestedSchema as Record<string, unknown>, fields, ctx.signal) : fillForm(server, message, fields, ctx.signal));
    } else {
      throw new McpError(ErrorCode.InvalidParams, `elicitation/create: mode ${JSON.stringify(mode)} is not supported (this client supports "form" and "url")`);
    }
    let result: Asked;
    try {
      result = await usageServices.questions.ask(server.id, ask, ctx.signal);
    } catch (err) {
      if (!(err instanceof QuestionDeclinedError)) throw err;
      log().info(`Elicitation (${String(mode)}): declined without asking (the user declines all questions from this server until it restarts)`);
      return { action: 'decline' };
    }
    if (result.action === 'decline-all') {
      usageServices.questions.declineAll(server.id);
      log().info(`Elicitation (${String(mode)}): the user declined this and every further question from this server until it restarts`);
      return { action: 'decline' };
    }
    log().info(`Elicitation (${String(mode)}): the user chose ${result.action}`);
    return result;
  };
}

function parseUrl(value: unknown): URL {
  if (typeof value !== 'string') throw new McpError(ErrorCode.InvalidParams, 'elicitation/create in URL mode needs a "url"');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `elicitation/create: ${JSON.stringify(value)} is not a valid URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new McpError(ErrorCode.InvalidParams, `elicitation/create: MCP Host opens only http and https URLs, not ${url.protocol}`);
  }
  return url;
}

/** URL mode: show the full URL and its domain, open it only when the person says so. */
async function askToOpenUrl(server: ServerRef, message: string, url: URL, signal: AbortSignal): Promise<Asked> {
  const host = url.hostname;
  const warnings: string[] = [];
  if (host.split('.').some((label) => label.startsWith('xn--'))) warnings.push(`Warning: the domain is written in Punycode (${host}); it may imitate another domain.`);
  if (url.protocol === 'http:') warnings.push('Warning: the page is not served over HTTPS.');
  if (url.username || url.password) warnings.push('Warning: the URL carries a user name or password.');
  const detail = [message, `Domain: ${host}`, `Full URL: ${url.href}`, ...warnings].filter(Boolean).join('\n\n');
  const answer = await usageServices.prompter.message(
    'warning',
    `The MCP server "${server.name}" asks you to open a page on ${host}.`,
    { key: 'elicitation.url', modal: true, detail, signal },
    'Open',
    'Decline',
    DECLINE_ALL_LABEL,
  );
  if (answer === 'Open') {
    await usageServices.prompter.openExternal(vscode.Uri.parse(url.href, true));
    return { action: 'accept' };
  }
  if (answer === DECLINE_ALL_LABEL) return { action: 'decline-all' };
  return answer === 'Decline' ? { action: 'decline' } : { action: 'cancel' };
}

/**
 * Form mode in the schema-form webview (setting mcpHost.elicitation.form = "webview"): all fields
 * at once, defaults filled in, checked against the schema before it can be sent; Send, Decline,
 * or closing the tab (cancel).
 */
async function fillWebviewForm(server: ServerRef, message: string, schema: Record<string, unknown>, fields: readonly ElicitField[], signal: AbortSignal): Promise<ElicitResult> {
  const cts = new vscode.CancellationTokenSource();
  const abort = () => cts.cancel();
  signal.addEventListener('abort', abort, { once: true });
  try {
    const answer = await showSchemaForm<Record<string, unknown>>({
      title: `${server.name} asks`,
      subtitle: `The MCP server "${server.name}" asks for information (elicitation)`,
      description: message,
      schema,
      initial: initialValues(fields),
      submitLabel: 'Send',
      declineLabel: 'Decline',
      cancelLabel: 'Cancel',
      token: cts.token,
    });
    if (answer.action !== 'accept') return answer;
    // Only the requested fields go back, and only those with a value.
    const content: Record<string, FieldValue> = {};
    const value = answer.value && typeof answer.value === 'object' ? answer.value : {};
    for (const f of fields) {
      const v = value[f.name];
      if (v !== undefined && v !== null && v !== '') content[f.name] = v as FieldValue;
    }
    return { action: 'accept', content };
  } finally {
    signal.removeEventListener('abort', abort);
    cts.dispose();
  }
}

type Choice = PickItem & { value: string };

/**
 * Form mode as a sequence of quick inputs: a first step to answer or decline, one step per
 * field (defaults filled in), then a review where any field can be changed before sending.
 * Escape cancels.
 */
export async function fillForm(server: ServerRef, message: string, fields: readonly ElicitField[], signal: AbortSignal): Promise<Asked> {
  const prompter = usageServices.prompter;
  const title = `MCP server "${server.name}" asks`;
  const start = await prompter.pick<Choice>(
    [
      { label: '$(edit) Answer', description: fields.length === 1 ? '1 field' : `${fields.length} fields`, value: 'answer' },
      { label: '$(circle-slash) Decline', description: 'tell the server you will not answer', value: 'decline' },
      { label: `$(circle-slash) ${DECLINE_ALL_LABEL}`, description: 'this and every further question from it, until it restarts', value: 'decline-all' },
    ],
    { key: 'elicitation.start', title, placeHolder: message || 'The server asks for information', ignoreFocusOut: true, signal },
  );
  if (!start) return { action: 'cancel' };
  if (start.value === 'decline') return { action: 'decline' };
  if (start.value === 'decline-all') return { action: 'decline-all' };

  const values = initialValues(fields);
  for (let i = 0; i < fields.length; i++) {
    const answered = await askField(fields[i], values, `${title} (${i + 1}/${fields.length})`, signal);
    if (!answered) return { action: 'cancel' };
  }

  for (;;) {
    const problems = missingOrInvalid(fields, values);
    const items: Choice[] = [
      { label: '$(check) Send', description: problems.length ? `first: ${problems.join('; ')}` : 'send these answers to the server', value: '\u0000send' },
      ...fields.map((f) => ({
        label: `${f.label}${f.required ? ' *' : ''}`,
        description: displayValue(f, values[f.name]),
        detail: f.description,
        value: f.name,
      })),
      { label: '$(circle-slash) Decline', description: 'send nothing, tell the server you declined', value: '\u0000decline' },
    ];
    const chosen = await prompter.pick<Choice>(items, {
      key: 'elicitation.review',
      title: `${title}: review`,
      placeHolder: message ? `${message} (choose a field to change it)` : 'Choose a field to change it',
      ignoreFocusOut: true,
      signal,
    });
    if (!chosen) return { action: 'cancel' };
    if (chosen.value === '\u0000decline') return { action: 'decline' };
    if (chosen.value === '\u0000send') {
      if (problems.length === 0) return { action: 'accept', content: values };
      continue;
    }
    const field = fields.find((f) => f.name === chosen.value);
    if (field) await askField(field, values, `${title}: ${field.label}`, signal);
  }
}

/** Asks one field and stores the answer in `values`; false when dismissed. */
async function askField(field: ElicitField, values: Record<string, FieldValue>, title: string, signal: AbortSignal): Promise<boolean> {
  const prompter = usageServices.prompter;
  const key = `elicitation.field:${field.name}`;
  const current = values[field.name];
  const about = [field.description, hintFor(field), field.required ? 'Required.' : 'Optional: leave empty to skip.'].filter(Boolean).join(' ');
  switch (field.kind) {
    case 'string':
    case 'number': {
      const text = await prompter.input({
        key,
        title,
        prompt: `${field.label}: ${about}`,
        value: current === undefined ? '' : String(current),
        validate: (t) => parseTyped(field, t).error,
        ignoreFocusOut: true,
        signal,
      });
      if (text === undefined) return false;
      const parsed = parseTyped(field, text);
      if (parsed.value === undefined) delete values[field.name];
      else values[field.name] = parsed.value;
      return true;
    }
    case 'boolean':
    case 'enum': {
      const options: Choice[] =
        field.kind === 'boolean'
          ? [
              { label: 'Yes', value: 'true' },
              { label: 'No', value: 'false' },
            ]
          : field.options.map((o) => ({ label: o.title, description: o.title !== o.value ? o.value : undefined, value: o.value }));
      for (const o of options) if (String(current) === o.value && current !== undefined) o.description = o.description ? `${o.description} · current` : 'current';
      if (!field.required) options.push({ label: '$(dash) No answer', description: 'leave this field empty', value: '\u0000none' });
      const chosen = await prompter.pick<Choice>(options, {
        key,
        title,
        placeHolder: `${field.label}: ${about}`,
        active: options.find((o) => current !== undefined && o.value === String(current)),
        ignoreFocusOut: true,
        signal,
      });
      if (!chosen) return false;
      if (chosen.value === '\u0000none') delete values[field.name];
      else values[field.name] = field.kind === 'boolean' ? chosen.value === 'true' : chosen.value;
      return true;
    }
    case 'multiEnum': {
      const options: Choice[] = field.options.map((o) => ({ label: o.title, description: o.title !== o.value ? o.value : undefined, value: o.value }));
      let error = '';
      for (;;) {
        const now = values[field.name];
        const selected = Array.isArray(now) ? now : [];
        const chosen = await prompter.pickMany<Choice>(options, {
          key,
          title,
          placeHolder: `${error}${field.label}: ${about}`,
          selected: options.filter((o) => selected.includes(o.value)),
          ignoreFocusOut: true,
          signal,
        });
        if (!chosen) return false;
        const picked = chosen.map((c) => c.value);
        if (field.minItems !== undefined && picked.length < field.minItems) {
          error = `Choose at least ${field.minItems}. `;
          continue;
        }
        if (field.maxItems !== undefined && picked.length > field.maxItems) {
          error = `Choose at most ${field.maxItems}. `;
          continue;
        }
        if (picked.length === 0 && !field.required) delete values[field.name];
        else values[field.name] = picked;
        return true;
      }
    }
  }
}

function hintFor(field: ElicitField): string {
  switch (field.kind) {
    case 'string': {
      const parts: string[] = [];
      if (field.format === 'email') parts.push('An email address.');
      if (field.format === 'uri') parts.push('A URI.');
      if (field.format === 'date') parts.push('A date (YYYY-MM-DD).');
      if (field.format === 'date-time') parts.push('A date and time (YYYY-MM-DDTHH:MM:SSZ).');
      if (field.minLength !== undefined || field.maxLength !== undefined) parts.push(`${field.minLength ?? 0} to ${field.maxLength ?? '∞'} characters.`);
      return parts.join(' ');
    }
    case 'number': {
      const what = field.integer ? 'A whole number' : 'A number';
      if (field.minimum !== undefined && field.maximum !== undefined) return `${what} from ${field.minimum} to ${field.maximum}.`;
      if (field.minimum !== undefined) return `${what}, at least ${field.minimum}.`;
      if (field.maximum !== undefined) return `${what}, at most ${field.maximum}.`;
      return `${what}.`;
    }
    case 'multiEnum':
      if (field.minItems !== undefined || field.maxItems !== undefined) return `Choose ${field.minItems ?? 0} to ${field.maxItems ?? field.options.length}.`;
      return 'Choose any.';
    default:
      return '';
  }
}
