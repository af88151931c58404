// Arguments of a flat schema, asked one field at a time in quick inputs: "Argument 2/4", a Back
// button, inline validation against the field's schema, defaults and examples as hints, the last
// values used pre-filled, optional fields skippable, and a button to switch to the full form.
import * as vscode from 'vscode';
import { runQuickInput } from '../../quickInput';
import { compileSchema } from '../../webview/validation';
import { display, fieldSchema, placeholder, type FlatField } from './schemaShape';

export type QuickArgumentsResult = { kind: 'done'; value: Record<string, unknown> } | { kind: 'form'; value: Record<string, unknown> } | undefined;

const FORM_BUTTON: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('preview'), tooltip: 'Edit All Arguments in a Form' };

type StepOutcome = { kind: 'next'; set: boolean; value?: unknown } | { kind: 'back' } | { kind: 'form' } | { kind: 'cancel' };

export async function askArgumentsQuickly(
  title: string,
  root: Record<string, unknown>,
  fields: FlatField[],
  initial: Record<string, unknown>,
): Promise<QuickArgumentsResult> {
  const values: Record<string, unknown> = { ...initial };
  let i = 0;
  while (i < fields.length) {
    const field = fields[i];
    const outcome = field.kind === 'boolean' || field.kind === 'enum' ? await pickStep(title, field, i, fields.length, values) : await inputStep(title, root, field, i, fields.length, values);
    switch (outcome.kind) {
      case 'cancel':
        return undefined;
      case 'form':
        return { kind: 'form', value: values };
      case 'back':
        i = Math.max(0, i - 1);
        break;
      case 'next':
        if (outcome.set) values[field.name] = outcome.value;
        else delete values[field.name];
        i++;
        break;
    }
  }
  return { kind: 'done', value: values };
}

function prompt(field: FlatField): string {
  const title = typeof field.schema.title === 'string' ? `${field.schema.title} (${field.name})` : field.name;
  const type = field.kind === 'enum' ? 'one of the listed values' : field.kind;
  const description = typeof field.schema.description === 'string' ? ` — ${field.schema.description}` : '';
  return `${title}: ${type}${field.required ? ', required' : ', optional (leave empty to skip)'}${description}`;
}

function inputStep(title: string, root: Record<string, unknown>, field: FlatField, index: number, total: number, values: Record<string, unknown>): Promise<StepOutcome> {
  const input = vscode.window.createInputBox();
  input.title = title;
  input.step = index + 1;
  input.totalSteps = total;
  input.prompt = prompt(field);
  input.placeholder = placeholder(field.schema) ?? (field.required ? `${field.name} (required)` : `${field.name} (optional — press Enter to skip)`);
  input.ignoreFocusOut = true;
  input.buttons = [...(index > 0 ? [vscode.QuickInputButtons.Back] : []), FORM_BUTTON];
  const current = field.name in values ? values[field.name] : field.required && 'default' in field.schema ? field.schema.default : undefined;
  input.value = current === undefined || current === null ? '' : display(current);
  const checker = compileSchema(fieldSchema(root, field));
  let generation = 0;

  /** The value the text stands for, or why it cannot be used. */
  const parse = (text: string): { set: boolean; value?: unknown } | { error: string } => {
    if (text === '') {
      if (!field.required) return { set: false };
      return { error: `${field.name} is required: enter ${field.kind === 'string' ? 'a value' : field.kind === 'integer' ? 'an integer' : 'a number'}` };
    }
    if (field.kind === 'string') return { set: true, value: text };
    if (field.nullable && text.trim() === 'null') return { set: true, value: null };
    const n = Number(text.trim());
    if (!Number.isFinite(n)) return { error: `Enter ${field.kind === 'integer' ? 'an integer' : 'a number'}` };
    return { set: true, value: n };
  };
  const check = async (text: string): Promise<string | undefined> => {
    const parsed = parse(text);
    if ('error' in parsed) return parsed.error;
    if (!parsed.set) return undefined;
    const compiled = await checker;
    if (compiled.kind !== 'ok') return undefined;
    const issues = compiled.validate(parsed.value);
    return issues.length ? `${field.name} ${issues.map((i) => i.message).join('; ')}` : undefined;
  };

  return runQuickInput<StepOutcome>(input, { kind: 'cancel' }, (session) => {
    const { finish } = session;
    if (input.value !== '') void check(input.value).then((m) => (input.validationMessage = m));
    return [
    input.onDidChangeValue(async (text) => {
      const mine = ++generation;
      const message = await check(text);
      if (mine === generation && !session.done) input.validationMessage = message;
    }),
    input.onDidAccept(async () => {
      const text = input.value;
      input.busy = true;
      const message = await check(text);
      input.busy = false;
      if (message) {
        input.validationMessage = message;
        return;
      }
      const parsed = parse(text);
      if ('error' in parsed) return;
      finish({ kind: 'next', set: parsed.set, value: parsed.value });
    }),
    input.onDidTriggerButton((button) => {
      if (button === vscode.QuickInputButtons.Back) finish({ kind: 'back' });
      else if (button === FORM_BUTTON) finish({ kind: 'form' });
    }),
    ];
  });
}

interface ChoiceItem extends vscode.QuickPickItem {
  set: boolean;
  value?: unknown;
}

function pickStep(title: string, field: FlatField, index: number, total: number, values: Record<string, unknown>): Promise<StepOutcome> {
  const pick = vscode.window.createQuickPick<ChoiceItem>();
  pick.title = title;
  pick.step = index + 1;
  pick.totalSteps = total;
  pick.placeholder = prompt(field);
  pick.ignoreFocusOut = true;
  pick.matchOnDescription = true;
  pick.buttons = [...(index > 0 ? [vscode.QuickInputButtons.Back] : []), FORM_BUTTON];
  const choices = field.kind === 'boolean' ? [true, false] : (field.choices ?? []);
  const hasDefault = 'default' in field.schema;
  const items: ChoiceItem[] = choices.map((value) => ({
    label: display(value),
    description: hasDefault && JSON.stringify(field.schema.default) === JSON.stringify(value) ? 'default' : undefined,
    set: true,
    value,
  }));
  if (field.nullable && !choices.includes(null)) items.push({ label: 'null', set: true, value: null });
  if (!field.required) items.push({ label: '$(circle-slash) Skip', description: hasDefault ? `not sent — the server uses its default (${display(field.schema.default)})` : 'not sent', set: false });
  pick.items = items;
  const current = field.name in values ? values[field.name] : hasDefault ? field.schema.default : undefined;
  const active = field.name in values || (field.required && hasDefault) ? items.find((it) => it.set && JSON.stringify(it.value) === JSON.stringify(current)) : items.find((it) => !it.set);
  if (active) pick.activeItems = [active];

  return runQuickInput<StepOutcome>(pick, { kind: 'cancel' }, ({ finish }) => [
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0] ?? pick.activeItems[0];
      if (!chosen) return;
      finish({ kind: 'next', set: chosen.set, value: chosen.value });
    }),
    pick.onDidTriggerButton((button) => {
      if (button === vscode.QuickInputButtons.Back) finish({ kind: 'back' });
      else if (button === FORM_BUTTON) finish({ kind: 'form' });
    }),
  ]);
}
