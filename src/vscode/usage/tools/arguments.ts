import * as vscode from 'vscode';
import type { ServerConnection } from '../../../host/serverConnection';
import type { Tool } from '../../../protocol/schemas';
import { showSchemaForm } from '../../webview/schemaForm';
import { compileSchema, formatIssues, type ValidationIssue } from '../../webview/validation';
import { askArgumentsQuickly } from './quickArguments';
import { flatFields } from './schemaShape';
import { argumentsInput, isDestructive } from './settings';

/** Arguments that do not fit the tool's input schema; nothing was sent. */
export class ToolArgumentsError extends Error {
  constructor(
    readonly issues: ValidationIssue[],
    tool: string,
  ) {
    super(vscode.l10n.t('The arguments do not fit the input schema of "{0}"; nothing was sent:\n{1}', tool, formatIssues(issues)));
    this.name = 'ToolArgumentsError';
  }
}

/** Asks for the arguments: quick inputs for flat schemas, the form otherwise. Undefined = cancelled. */
export async function askArguments(
  server: ServerConnection,
  tool: Tool,
  initial: Record<string, unknown> | undefined,
  forceForm: boolean,
): Promise<Record<string, unknown> | undefined> {
  const schema = tool.inputSchema;
  const title = vscode.l10n.t('Run {0} — {1}', tool.title ?? tool.annotations?.title ?? tool.name, server.name);
  const fields = flatFields(schema);
  const mode = argumentsInput();
  let start = initial ?? {};
  if (!forceForm && fields && mode !== 'form') {
    if (fields.length === 0) return {};
    const quick = await askArgumentsQuickly(title, schema, fields, start);
    if (!quick) return undefined;
    if (quick.kind === 'done') return quick.value;
    // The person asked for the form part-way: it opens with what they typed.
    start = quick.value;
  } else if (!forceForm && mode === 'quickInput' && !fields) {
    void vscode.window.setStatusBarMessage(vscode.l10n.t('$(info) {0} has nested arguments: using the form', tool.name), 4000);
  }
  return askArgumentsInForm(server, tool, title, start);
}

async function askArgumentsInForm(server: ServerConnection, tool: Tool, title: string, initial: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
  const schema = tool.inputSchema;
  const compiled = await compileSchema(schema);
  const destructive = isDestructive(tool);
  const answer = await showSchemaForm<Record<string, unknown>>({
    title,
    subtitle:
      compiled.kind === 'ok'
        ? vscode.l10n.t('Tool {0} on server {1} · input schema: JSON Schema {2}', tool.name, server.name, compiled.dialect)
        : vscode.l10n.t('Tool {0} on server {1}', tool.name, server.name),
    description: tool.description,
    schema,
    initial,
    submitLabel: destructive ? vscode.l10n.t('Run…') : vscode.l10n.t('Run'),
    warning: destructive ? vscode.l10n.t('The server marks this tool as destructive: it may change or delete data. You will be asked to confirm.') : undefined,
    unusableSchema: 'allow',
    validate: (value) => (value && typeof value === 'object' && !Array.isArray(value) ? [] : [{ path: '', message: vscode.l10n.t('must be a JSON object (tool arguments are an object)') }]),
  });
  return answer.action === 'accept' ? answer.value : undefined;
}

/**
 * Checks arguments against the tool's input schema before anything is sent (the form already
 * did; arguments given by a caller too). Shows and throws a ToolArgumentsError when they do not fit.
 */
export async function checkArguments(server: ServerConnection, tool: Tool, args: Record<string, unknown>): Promise<void> {
  const compiled = await compileSchema(tool.inputSchema);
  if (compiled.kind !== 'ok') {
    server.logger.warn(`Tool ${tool.name}: arguments not checked: ${compiled.message}`);
    return;
  }
  for (const note of compiled.notes) server.logger.info(`Tool ${tool.name}: inputSchema: ${note}`);
  const issues = compiled.validate(args);
  if (issues.length === 0) return;
  const error = new ToolArgumentsError(issues, tool.name);
  void vscode.window.showErrorMessage(vscode.l10n.t('MCP Host: {0}', error.message));
  throw error;
}
