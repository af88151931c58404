// A field for any schema: the scalar fields (scalarFields.ts), or an object or array of fields.
import { append, h, pointer } from '../dom';
import { cssId, errorSlot, setError, type Field, type Maybe } from './fieldParts';
import { booleanField, choiceField, constField, jsonField, textField } from './scalarFields';
import { choicesOf, constraintsOf, deref, typeOf, type Schema } from './schema';
import { markTouched, scheduleValidation } from './validation';

export function buildField(name: string, schemaIn: unknown, path: string, required: boolean, initial: Maybe): Field {
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

export function objectField(name: string, s: Schema, path: string, required: boolean, initial: Maybe, isRoot = false): Field {
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

export function arrayField(name: string, s: Schema, path: string, required: boolean, initial: Maybe): Field {
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
