// The schema form page: builds controls from a JSON Schema, keeps the value, shows the problems
// the extension host finds (it validates with Ajv; this page cannot run Ajv under its CSP).
import type { FormFromWebview, FormIssue, FormSnapshot, FormToWebview, SchemaFormInit } from '../vscode/webview/protocol';
import { append, describePointer, h, pointer, vscodeApi } from './dom';

type Schema = Record<string, unknown>;
type Maybe = { set: false } | { set: true; value: unknown };

const post = (message: FormFromWebview) => vscodeApi.postMessage(message);
const app = document.getElementById('app') as HTMLElement;

let rootSchema: Schema = {};
let root: Field | undefined;
let mode: 'form' | 'json' = 'form';
let jsonArea: HTMLTextAreaElement | undefined;
let jsonError: string | undefined;
let submitted = false;
const touched = new Set<string>();
let issues: FormIssue[] = [];
let requestCounter = 0;
let latestValidation = 0;
let pendingSubmit = 0;
let validateTimer: number | undefined;
let formHost: HTMLElement;
let summary: HTMLElement;
let submitButton: HTMLButtonElement;
let modeButton: HTMLButtonElement;

// ---- schema helpers ------------------------------------------------------------------------------

function deref(schema: unknown, depth = 0): Schema {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema === false ? { not: {} } : {};
  let s = schema as Schema;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#') && depth < 20) {
    const target = resolvePointer(rootSchema, s.$ref.slice(1));
    if (target && typeof target === 'object') {
      const { $ref: _ignored, ...rest } = s;
      void _ignored;
      s = { ...deref(target, depth + 1), ...rest };
    }
  }
  // allOf of object schemas: merge their properties and required lists.
  if (Array.isArray(s.allOf) && s.allOf.every((p) => p && typeof p === 'object')) {
    const parts = (s.allOf as unknown[]).map((p) => deref(p, depth + 1));
    if (parts.every((p) => typeOf(p) === 'object' || (!p.type && p.properties))) {
      const merged: Schema = { ...s, type: 'object', properties: {}, required: [] };
      delete merged.allOf;
      for (const p of [s, ...parts]) {
        Object.assign(merged.properties as Schema, (p.properties as Schema) ?? {});
        (merged.required as string[]).push(...((p.required as string[]) ?? []));
      }
      return merged;
    }
  }
  return s;
}

function resolvePointer(doc: unknown, ptr: string): unknown {
  if (ptr === '' || ptr === '/') return doc;
  let cur: unknown = doc;
  for (const raw of ptr.replace(/^\//, '').split('/')) {
    const seg = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/** The single type of a schema, ignoring "null" in a type list; undefined when it is not one type. */
function typeOf(s: Schema): string | undefined {
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) {
    const t = s.type.filter((x) => x !== 'null');
    if (t.length === 1) return String(t[0]);
    return undefined;
  }
  if (s.properties && typeof s.properties === 'object') return 'object';
  if (s.items && typeof s.items === 'object') return 'array';
  if (Array.isArray(s.enum) && s.enum.length > 0) {
    const kinds = new Set(s.enum.map((v) => (v === null ? 'null' : typeof v)));
    kinds.delete('null');
    if (kinds.size === 1) return [...kinds][0];
  }
  return undefined;
}

function nullable(s: Schema): boolean {
  return Array.isArray(s.type) && s.type.includes('null');
}

/** Choices a value can take when the schema lists them (enum, or oneOf/anyOf of consts). */
function choicesOf(s: Schema): Array<{ value: unknown; label: string; description?: string }> | undefined {
  if (Array.isArray(s.enum)) {
    const names = Array.isArray(s.enumNames) ? (s.enumNames as unknown[]) : [];
    return s.enum.map((value, i) => ({ value, label: typeof names[i] === 'string' ? String(names[i]) : display(value) }));
  }
  const alts = (Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined) as Schema[] | undefined;
  if (alts && alts.length > 0 && alts.every((a) => a && typeof a === 'object' && 'const' in a)) {
    return alts.map((a) => ({ value: a.const, label: typeof a.title === 'string' ? a.title : display(a.const), description: typeof a.description === 'string' ? a.description : undefined }));
  }
  return undefined;
}

function display(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function placeholderFor(s: Schema): string {
  if (Array.isArray(s.examples) && s.examples.length > 0) return `e.g. ${display(s.examples[0])}`;
  if ('default' in s) return `default: ${display(s.default)}`;
  if (typeof s.format === 'string') return s.format;
  return '';
}

function constraintsOf(s: Schema): string {
  const parts: string[] = [];
  const t = typeOf(s);
  if (t) parts.push(nullable(s) ? `${t} or null` : t);
  if (typeof s.format === 'string') parts.push(s.format);
  if (typeof s.minimum === 'number') parts.push(`≥ ${s.minimum}`);
  if (typeof s.exclusiveMinimum === 'number') parts.push(`> ${s.exclusiveMinimum}`);
  if (typeof s.maximum === 'number') parts.push(`≤ ${s.maximum}`);
  if (typeof s.exclusiveMaximum === 'number') parts.push(`< ${s.exclusiveMaximum}`);
  if (typeof s.minLength === 'number') parts.push(`min length ${s.minLength}`);
  if (typeof s.maxLength === 'number') parts.push(`max length ${s.maxLength}`);
  if (typeof s.pattern === 'string') parts.push(`pattern ${s.pattern}`);
  if (typeof s.minItems === 'number') parts.push(`at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`);
  if (typeof s.maxItems === 'number') parts.push(`at most ${s.maxItems} items`);
  return parts.join(' · ');
}

// ---- fields --------------------------------------------------------------------------------------

interface Field {
  path: string;
  element: HTMLElement;
  get(): Maybe;
  /** Shows (or clears) the error of exactly this field. */
  showError(message: string | undefined): void;
  children(): Field[];
}

function errorSlot(path: string): HTMLElement {
  return h('div', { class: 'field-error', role: 'alert', 'aria-live': 'polite', id: `err-${cssId(path)}`, hidden: true });
}

function cssId(path: string): string {
  return path.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`) || 'root';
}

function labelFor(name: string, s: Schema, required: boolean, controlId: string): HTMLElement {
  const title = typeof s.title === 'string' && s.title ? s.title : name;
  return h(
    'label',
    { for: controlId, class: 'field-label' },
    title,
    required ? h('span', { class: 'required', title: 'required' }, ' *') : null,
    title !== name && name ? h('code', { class: 'field-name' }, name) : null,
  );
}

function fieldShell(path: string, name: string, s: Schema, required: boolean, controlId: string, control: HTMLElement, kind: string): { element: HTMLElement; error: HTMLElement } {
  const error = errorSlot(path);
  const constraints = constraintsOf(s);
  const element = h(
    'div',
    { class: `field field-${kind}`, 'data-path': path, 'data-control': kind, 'data-label': typeof s.title === 'string' && s.title ? s.title : name },
    labelFor(name, s, required, controlId),
    typeof s.description === 'string' && s.description ? h('div', { class: 'field-description', id: `desc-${cssId(path)}` }, s.description) : null,
    control,
    constraints ? h('div', { class: 'field-constraints' }, constraints) : null,
    error,
  );
  control.setAttribute('aria-describedby', `desc-${cssId(path)} err-${cssId(path)}`);
  return { element, error };
}

function setError(el: HTMLElement, control: HTMLElement | undefined, message: string | undefined): void {
  el.hidden = !message;
  el.textContent = message ?? '';
  if (control) {
    if (message) control.setAttribute('aria-invalid', 'true');
    else control.removeAttribute('aria-invalid');
  }
}

function buildField(name: string, schemaIn: unknown, path: string, required: boolean, initial: Maybe): Field {
  const s = deref(schemaIn);
  const t = typeOf(s);
  const choices = choicesOf(s);
  if ('const' in s && !choices) return constField(name, s, path, required);
  if (choices) return choiceField(name, s, path, required, initial, choices);
  if (t === 'object' && s.properties && typeof s.properties === 'object') return objectField(name, s, path, required, initial);
  if (t === 'array' && s.items && typeof s.items === 'object' && !Array.isArray(s.items)) return arrayField(name, s, path, required, initial);
  if (t === 'string' || t === 'number' || t === 'integer') return textField(name, s, path, required, initial, t);
  if (t === 'boolean') return booleanField(name, s, path, required, initial);
  return jsonField(name, s, path, required, initial);
}

function markTouched(path: string): void {
  touched.add(path);
  scheduleValidation();
}

function textField(name: string, s: Schema, path: string, required: boolean, initial: Maybe, t: string): Field {
  const id = `f-${cssId(path)}`;
  const multiline = t === 'string' && ((typeof s.maxLength === 'number' && s.maxLength > 200) || s.format === 'textarea' || (typeof s.contentMediaType === 'string') || (initial.set && typeof initial.value === 'string' && initial.value.includes('\n')));
  const inputType = t !== 'string' ? 'text' : s.format === 'email' ? 'email' : s.format === 'uri' || s.format === 'url' ? 'url' : s.format === 'date' ? 'date' : 'text';
  const control = multiline
    ? h('textarea', { id, rows: 4, placeholder: placeholderFor(s), 'data-control-for': path, spellcheck: 'false' })
    : h('input', { id, type: inputType, placeholder: placeholderFor(s), 'data-control-for': path, inputmode: t === 'integer' ? 'numeric' : t === 'number' ? 'decimal' : undefined, spellcheck: 'false', autocomplete: 'off' });
  const start = initial.set ? initial.value : required && 'default' in s ? s.default : undefined;
  if (start !== undefined && start !== null) control.value = typeof start === 'string' ? start : JSON.stringify(start);
  control.addEventListener('input', () => scheduleValidation());
  control.addEventListener('blur', () => markTouched(path));
  const { element, error } = fieldShell(path, name, s, required, id, control, t);
  return {
    path,
    element,
    get() {
      const text = control.value;
      if (text === '') {
        // An empty field is left out: "is required" is reported for a required one (an empty
        // string can still be sent from the JSON editor).
        return { set: false };
      }
      if (t === 'string') return { set: true, value: text };
      const n = Number(text.trim());
      // Not a number: send the text so the validator says what is wrong with it.
      return { set: true, value: text.trim() !== '' && Number.isFinite(n) ? n : text };
    },
    showError: (m) => setError(error, control, m),
    children: () => [],
  };
}

function booleanField(name: string, s: Schema, path: string, required: boolean, initial: Maybe): Field {
  const id = `f-${cssId(path)}`;
  const start = initial.set ? initial.value : 'default' in s ? s.default : undefined;
  if (required || 'default' in s) {
    const control = h('input', { id, type: 'checkbox', 'data-control-for': path });
    control.checked = start === true;
    // An optional box the person has not touched (and that had no value) is not sent: the server
    // applies its own default.
    let changed = initial.set;
    control.addEventListener('change', () => {
      changed = true;
      markTouched(path);
    });
    const { element, error } = fieldShell(path, name, s, required, id, control, 'boolean');
    element.classList.add('field-checkbox');
    return {
      path,
      element,
      get: () => (!required && !changed ? { set: false } : { set: true, value: control.checked }),
      showError: (m) => setError(error, control, m),
      children: () => [],
    };
  }
  return choiceField(name, s, path, required, initial, [
    { value: true, label: 'true' },
    { value: false, label: 'false' },
  ]);
}

function choiceField(name: string, s: Schema, path: string, required: boolean, initial: Maybe, choices: Array<{ value: unknown; label: string; description?: string }>): Field {
  const id = `f-${cssId(path)}`;
  const control = h('select', { id, 'data-control-for': path });
  const start = initial.set ? initial.value : required && 'default' in s ? s.default : undefined;
  const hasUnset = !required || start === undefined;
  if (hasUnset) append(control, h('option', { value: '' }, required ? '(choose one)' : 'default' in s ? `(not set — default: ${display(s.default)})` : '(not set)'));
  choices.forEach((c, i) => {
    const option = h('option', { value: String(i), 'data-json': JSON.stringify(c.value), title: c.description }, c.label);
    if (start !== undefined && JSON.stringify(start) === JSON.stringify(c.value)) option.selected = true;
    append(control, option);
  });
  control.addEventListener('change', () => markTouched(path));
  const { element, error } = fieldShell(path, name, s, required, id, control, 'choice');
  return {
    path,
    element,
    get: () => (control.value === '' ? { set: false } : { set: true, value: choices[Number(control.value)].value }),
    showError: (m) => setError(error, control, m),
    children: () => [],
  };
}

function constField(name: string, s: Schema, path: string, required: boolean): Field {
  const id = `f-${cssId(path)}`;
  const control = h('code', { id, class: 'const-value' }, display(s.const));
  const { element, error } = fieldShell(path, name, s, required, id, control, 'const');
  return { path, element, get: () => ({ set: true, value: s.const }), showError: (m) => setError(error, undefined, m), children: () => [] };
}

function jsonField(name: string, s: Schema, path: string, required: boolean, initial: Maybe): Field {
  const id = `f-${cssId(path)}`;
  const control = h('textarea', { id, rows: 3, class: 'json', placeholder: `JSON${placeholderFor(s) ? ` — ${placeholderFor(s)}` : ''}`, 'data-control-for': path, spellcheck: 'false' });
  const start = initial.set ? initial.value : required && 'default' in s ? s.default : undefined;
  if (start !== undefined) control.value = JSON.stringify(start, null, 2);
  let parseError: string | undefined;
  control.addEventListener('input', () => scheduleValidation());
  control.addEventListener('blur', () => markTouched(path));
  const { element, error } = fieldShell(path, name, s, required, id, control, 'json');
  return {
    path,
    element,
    get() {
      parseError = undefined;
      if (control.value.trim() === '') return { set: false };
      try {
        return { set: true, value: JSON.parse(control.value) };
      } catch (err) {
        parseError = `is not valid JSON (${(err as Error).message})`;
        return { set: true, value: control.value };
      }
    },
    showError: (m) => setError(error, control, parseError ? `${parseError}` : m),
    children: () => [],
  };
}

function objectField(name: string, s: Schema, path: string, required: boolean, initial: Maybe, isRoot = false): Field {
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  const requiredNames = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const start = initial.set && initial.value && typeof initial.value === 'object' && !Array.isArray(initial.value) ? (initial.value as Record<string, unknown>) : {};
  const fields = Object.entries(properties).map(([key, sub]) =>
    buildField(key, sub, pointer(path, key), requiredNames.has(key), key in start ? { set: true, value: start[key] } : { set: false }),
  );
  // Extra members (in the initial value but not in the schema) are kept and shown as JSON.
  const extras = Object.keys(start).filter((k) => !(k in properties));
  const extraField = extras.length > 0 || (s.additionalProperties !== false && s.additionalProperties !== undefined && typeof s.additionalProperties === 'object')
    ? buildField('Other properties', { type: 'object', description: 'Members not described by the schema, as a JSON object.' }, `${path}/*extra*`, false, extras.length ? { set: true, value: Object.fromEntries(extras.map((k) => [k, start[k]])) } : { set: false })
    : undefined;
  const error = errorSlot(path);
  const body = h('div', { class: 'object-body' }, ...fields.map((f) => f.element), extraField?.element);
  const title = typeof s.title === 'string' && s.title ? s.title : name;
  const element = isRoot
    ? h('div', { class: 'field field-object root', 'data-path': path, 'data-control': 'object', 'data-label': title }, error, body)
    : h(
        'fieldset',
        { class: 'field field-object', 'data-path': path, 'data-control': 'object', 'data-label': title },
        h('legend', {}, title, required ? h('span', { class: 'required', title: 'required' }, ' *') : null, title !== name ? h('code', { class: 'field-name' }, name) : null),
        typeof s.description === 'string' && s.description ? h('div', { class: 'field-description' }, s.description) : null,
        error,
        body,
      );
  if (fields.length === 0 && !extraField) append(body, h('p', { class: 'empty' }, 'No properties.'));
  return {
    path,
    element,
    get() {
      const value: Record<string, unknown> = {};
      let any = false;
      for (const f of fields) {
        const v = f.get();
        if (v.set) {
          value[f.path.slice(path.length + 1).replace(/~1/g, '/').replace(/~0/g, '~')] = v.value;
          any = true;
        }
      }
      const extra = extraField?.get();
      if (extra?.set && extra.value && typeof extra.value === 'object' && !Array.isArray(extra.value)) {
        Object.assign(value, extra.value);
        any = true;
      }
      if (!any && !required && !isRoot) return { set: false };
      return { set: true, value };
    },
    showError: (m) => setError(error, undefined, m),
    children: () => (extraField ? [...fields, extraField] : fields),
  };
}

function arrayField(name: string, s: Schema, path: string, required: boolean, initial: Maybe): Field {
  const itemSchema = deref(s.items);
  const itemChoices = choicesOf(itemSchema);
  const title = typeof s.title === 'string' && s.title ? s.title : name;
  const error = errorSlot(path);
  const start = initial.set && Array.isArray(initial.value) ? initial.value : required && Array.isArray(s.default) ? (s.default as unknown[]) : [];

  // An array of choices with unique items: a set of checkboxes.
  if (itemChoices && s.uniqueItems === true) {
    const boxes = itemChoices.map((c, i) => {
      const box = h('input', { type: 'checkbox', id: `f-${cssId(path)}-${i}`, 'data-control-for': pointer(path, i) });
      box.checked = start.some((v) => JSON.stringify(v) === JSON.stringify(c.value));
      box.addEventListener('change', () => markTouched(path));
      return { box, choice: c, element: h('label', { class: 'check-choice', for: `f-${cssId(path)}-${i}` }, box, ' ', c.label) };
    });
    const element = h(
      'fieldset',
      { class: 'field field-array', 'data-path': path, 'data-control': 'checkboxes', 'data-label': title },
      h('legend', {}, title, required ? h('span', { class: 'required' }, ' *') : null),
      typeof s.description === 'string' ? h('div', { class: 'field-description' }, s.description) : null,
      ...boxes.map((b) => b.element),
      constraintsOf(s) ? h('div', { class: 'field-constraints' }, constraintsOf(s)) : null,
      error,
    );
    return {
      path,
      element,
      get() {
        const value = boxes.filter((b) => b.box.checked).map((b) => b.choice.value);
        return value.length === 0 && !required ? { set: false } : { set: true, value };
      },
      showError: (m) => setError(error, undefined, m),
      children: () => [],
    };
  }

  const items: Field[] = [];
  const list = h('ol', { class: 'array-items' });
  const rebuild = (values: Maybe[]) => {
    items.length = 0;
    list.textContent = '';
    values.forEach((v, i) => {
      const f = buildField(`${title} ${i + 1}`, itemSchema, pointer(path, i), true, v);
      items.push(f);
      const remove = h('button', { class: 'icon-button', type: 'button', title: `Remove item ${i + 1}`, 'aria-label': `Remove item ${i + 1}` }, '✕');
      remove.addEventListener('click', () => {
        const now = items.map((it) => it.get());
        now.splice(i, 1);
        rebuild(now);
        markTouched(path);
      });
      const up = h('button', { class: 'icon-button', type: 'button', title: 'Move up', 'aria-label': `Move item ${i + 1} up`, disabled: i === 0 }, '↑');
      up.addEventListener('click', () => {
        const now = items.map((it) => it.get());
        [now[i - 1], now[i]] = [now[i], now[i - 1]];
        rebuild(now);
        scheduleValidation();
      });
      list.appendChild(h('li', { class: 'array-item' }, h('div', { class: 'array-item-body' }, f.element), h('div', { class: 'array-item-actions' }, up, remove)));
    });
    countLabel.textContent = `${values.length} item${values.length === 1 ? '' : 's'}`;
  };
  const countLabel = h('span', { class: 'array-count' });
  const add = h('button', { class: 'secondary', type: 'button', 'data-add-for': path }, '+ Add item');
  add.addEventListener('click', () => {
    const now = items.map((it) => it.get());
    now.push('default' in itemSchema ? { set: true, value: itemSchema.default } : { set: false });
    rebuild(now);
    const last = items[items.length - 1];
    (last?.element.querySelector('input, textarea, select') as HTMLElement | null)?.focus();
    scheduleValidation();
  });
  const element = h(
    'fieldset',
    { class: 'field field-array', 'data-path': path, 'data-control': 'array', 'data-label': title },
    h('legend', {}, title, required ? h('span', { class: 'required', title: 'required' }, ' *') : null, title !== name ? h('code', { class: 'field-name' }, name) : null, ' ', countLabel),
    typeof s.description === 'string' && s.description ? h('div', { class: 'field-description' }, s.description) : null,
    error,
    list,
    h('div', { class: 'array-actions' }, add),
    constraintsOf(s) ? h('div', { class: 'field-constraints' }, constraintsOf(s)) : null,
  );
  rebuild(start.map((value) => ({ set: true, value })));
  return {
    path,
    element,
    get() {
      const values = items.map((f) => f.get()).map((v) => (v.set ? v.value : null));
      return values.length === 0 && !required && !initial.set ? { set: false } : { set: true, value: values };
    },
    showError: (m) => setError(error, undefined, m),
    children: () => items,
  };
}

// ---- the page ------------------------------------------------------------------------------------

function allFields(f: Field | undefined, out: Field[] = []): Field[] {
  if (!f) return out;
  out.push(f);
  for (const c of f.children()) allFields(c, out);
  return out;
}

function currentValue(): unknown {
  if (mode === 'json') {
    jsonError = undefined;
    const text = jsonArea?.value ?? '';
    try {
      return text.trim() === '' ? {} : JSON.parse(text);
    } catch (err) {
      jsonError = `Not valid JSON: ${(err as Error).message}`;
      return undefined;
    }
  }
  const v = root?.get();
  return v?.set ? v.value : {};
}

function scheduleValidation(): void {
  if (validateTimer !== undefined) clearTimeout(validateTimer);
  validateTimer = window.setTimeout(() => {
    validateTimer = undefined;
    const value = currentValue();
    if (value === undefined) {
      renderIssues();
      return;
    }
    latestValidation = ++requestCounter;
    post({ type: 'validate', requestId: latestValidation, value });
  }, 200);
}

function renderIssues(): void {
  const fields = allFields(root);
  const byPath = new Map(fields.map((f) => [f.path, f]));
  const shown = new Map<Field, string[]>();
  const unplaced: string[] = [];
  for (const issue of issues) {
    // The field itself, or the nearest enclosing one.
    let p = issue.path;
    let field = byPath.get(p);
    while (!field && p !== '') {
      p = p.slice(0, p.lastIndexOf('/'));
      field = byPath.get(p);
    }
    const visible = submitted || [...touched].some((t) => issue.path === t || issue.path.startsWith(`${t}/`) || t.startsWith(`${issue.path}/`));
    if (!visible) continue;
    if (field && mode === 'form') {
      const text = field.path === issue.path ? issue.message : `${describePointer(issue.path.slice(field.path.length) || '')} ${issue.message}`.replace(/^Value /, '');
      shown.set(field, [...(shown.get(field) ?? []), text]);
    }
    if (!field || field === root || mode === 'json' || submitted) unplaced.push(`${describePointer(issue.path)} ${issue.message}`);
  }
  for (const f of fields) f.showError(shown.get(f)?.join('; '));
  summary.textContent = '';
  const lines = [...(jsonError ? [jsonError] : []), ...unplaced];
  summary.hidden = lines.length === 0;
  if (lines.length > 0) {
    append(summary, h('strong', {}, lines.length === 1 ? 'Please fix this:' : `Please fix these ${lines.length} problems:`), h('ul', {}, ...lines.map((l) => h('li', {}, l))));
  }
  submitButton.setAttribute('aria-disabled', String(issues.length > 0 && submitted));
}

function buildForm(value: unknown): void {
  formHost.textContent = '';
  jsonArea = undefined;
  if (mode === 'json') {
    jsonArea = h('textarea', { class: 'json-editor', id: 'json-editor', rows: 18, spellcheck: 'false', 'aria-label': 'Value as JSON', 'data-control-for': '' });
    jsonArea.value = JSON.stringify(value ?? {}, null, 2);
    jsonArea.addEventListener('input', () => {
      touched.add('');
      scheduleValidation();
    });
    formHost.appendChild(h('div', { class: 'field', 'data-path': '', 'data-control': 'json-editor', 'data-label': 'JSON' }, jsonArea));
    root = undefined;
    modeButton.textContent = 'Edit as Form';
  } else {
    const s = deref(rootSchema);
    root = typeOf(s) === 'object' || s.properties ? objectField('', s, '', true, { set: true, value: value ?? {} }, true) : buildField('Value', s, '', true, value === undefined ? { set: false } : { set: true, value });
    formHost.appendChild(root.element);
    modeButton.textContent = 'Edit as JSON';
  }
  scheduleValidation();
}

function submit(): void {
  submitted = true;
  const value = currentValue();
  if (value === undefined) {
    renderIssues();
    return;
  }
  pendingSubmit = ++requestCounter;
  latestValidation = pendingSubmit;
  submitButton.disabled = true;
  post({ type: 'submit', requestId: pendingSubmit, value });
}

function toggleMode(): void {
  const value = currentValue();
  if (value === undefined) {
    renderIssues();
    return;
  }
  mode = mode === 'form' ? 'json' : 'form';
  buildForm(value);
  (formHost.querySelector('input, textarea, select') as HTMLElement | null)?.focus();
}

function start(i: SchemaFormInit): void {
  rootSchema = i.schema;
  mode = i.startInJson ? 'json' : 'form';
  document.title = i.title;
  app.textContent = '';
  app.removeAttribute('aria-busy');
  summary = h('div', { class: 'summary', role: 'alert', hidden: true });
  formHost = h('div', { class: 'form-fields' });
  submitButton = h('button', { type: 'submit', class: 'primary', id: 'submit' }, i.submitLabel);
  modeButton = h('button', { type: 'button', class: 'secondary', id: 'mode' }, 'Edit as JSON');
  modeButton.addEventListener('click', toggleMode);
  const cancel = h('button', { type: 'button', class: 'secondary', id: 'cancel' }, i.cancelLabel);
  cancel.addEventListener('click', () => post({ type: 'cancel' }));
  const decline = i.declineLabel ? h('button', { type: 'button', class: 'secondary', id: 'decline' }, i.declineLabel) : null;
  decline?.addEventListener('click', () => post({ type: 'decline' }));
  const form = h(
    'form',
    { class: 'schema-form', novalidate: true, 'aria-label': i.title },
    h('header', {}, h('h1', {}, i.title), i.subtitle ? h('div', { class: 'subtitle' }, i.subtitle) : null, i.description ? h('p', { class: 'description' }, i.description) : null),
    summary,
    formHost,
    i.warning ? h('div', { class: 'warning', role: 'note' }, ...i.warning.split('\n').map((line) => h('div', {}, line))) : null,
    h('div', { class: 'buttons' }, submitButton, decline, cancel, h('span', { class: 'spacer' }), modeButton),
    h('div', { class: 'hint' }, 'Ctrl+Enter to submit · values are checked against the schema before anything is sent'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submit();
  });
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      submit();
    }
  });
  app.appendChild(form);
  buildForm(i.initial);
  (formHost.querySelector('input, textarea, select') as HTMLElement | null)?.focus();
}

function snapshot(): FormSnapshot {
  const value = currentValue();
  const fields = [...app.querySelectorAll<HTMLElement>('[data-path]')].map((el) => {
    const err = el.querySelector(':scope > .field-error, :scope > .object-body > .field-error') as HTMLElement | null;
    const own = [...el.children].find((c) => c.classList.contains('field-error')) as HTMLElement | undefined;
    const shownError = own ?? err ?? undefined;
    return {
      path: el.dataset.path ?? '',
      label: el.dataset.label ?? '',
      control: el.dataset.control ?? '',
      error: shownError && !shownError.hidden && shownError.textContent ? shownError.textContent : undefined,
    };
  });
  const summaryItems = summary.hidden ? [] : [...summary.querySelectorAll('li')].map((li) => li.textContent ?? '');
  return { value, mode, fields, summary: summaryItems, html: app.innerHTML };
}

function fill(path: string, text: string): string | undefined {
  const control = [...app.querySelectorAll<HTMLElement>('[data-control-for]')].find((el) => el.dataset.controlFor === path);
  if (!control) return `no control for ${path}`;
  if (control instanceof HTMLInputElement && control.type === 'checkbox') {
    control.checked = text === 'true';
    control.dispatchEvent(new Event('change', { bubbles: true }));
  } else if (control instanceof HTMLSelectElement) {
    const option = [...control.options].find((o) => o.dataset.json === text || o.textContent === text || (text === '' && o.value === ''));
    if (!option) return `no option ${text} for ${path}`;
    control.value = option.value;
    control.dispatchEvent(new Event('change', { bubbles: true }));
  } else if (control instanceof HTMLInputElement || control instanceof HTMLTextAreaElement) {
    control.focus();
    control.value = text;
    control.dispatchEvent(new Event('input', { bubbles: true }));
    control.dispatchEvent(new Event('blur'));
    touched.add(path);
  }
  return undefined;
}

window.addEventListener('message', (event: MessageEvent<FormToWebview>) => {
  const message = event.data;
  switch (message.type) {
    case 'init':
      start(message.init);
      return;
    case 'issues':
      // An answer to an older request than the latest is stale: ignore it.
      if (message.requestId !== latestValidation && message.requestId !== pendingSubmit) return;
      if (message.requestId === pendingSubmit) submitButton.disabled = false;
      issues = message.issues;
      renderIssues();
      if (message.requestId === pendingSubmit && issues.length > 0) {
        const firstBad = app.querySelector('[aria-invalid="true"]') as HTMLElement | null;
        (firstBad ?? summary).focus?.();
        firstBad?.scrollIntoView({ block: 'center' });
      }
      return;
    case 'busy':
      submitButton.disabled = message.message !== undefined;
      return;
    case 'snapshot':
      post({ type: 'snapshot', requestId: message.requestId, snapshot: snapshot() });
      return;
    case 'fill': {
      const error = fill(message.path, message.text);
      post({ type: 'done', requestId: message.requestId, error });
      return;
    }
    case 'press': {
      const id = message.button === 'json' ? 'mode' : message.button;
      const button = document.getElementById(id);
      if (!button) {
        post({ type: 'done', requestId: message.requestId, error: `no ${message.button} button` });
        return;
      }
      if (message.button === 'submit') {
        // Flush a pending validation so the submit sees the latest value.
        if (validateTimer !== undefined) clearTimeout(validateTimer);
        validateTimer = undefined;
      }
      button.click();
      post({ type: 'done', requestId: message.requestId });
      return;
    }
  }
});

post({ type: 'ready' });
