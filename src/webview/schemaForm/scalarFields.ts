// The fields of one value each, per type: text (strings and numbers), booleans, choices, a const,
// and JSON for whatever the form cannot show otherwise.
import { append, h } from '../dom';
import { cssId, fieldShell, setError, type Field, type Maybe } from './fieldParts';
import { display, placeholderFor, type Schema } from './schema';
import { markTouched, scheduleValidation } from './validation';

export function textField(name: string, s: Schema, path: string, required: boolean, initial: Maybe, t: string): Field {
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

export function booleanField(name: string, s: Schema, path: string, required: boolean, initial: Maybe): Field {
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

export function choiceField(name: string, s: Schema, path: string, required: boolean, initial: Maybe, choices: Array<{ value: unknown; label: string; description?: string }>): Field {
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

export function constField(name: string, s: Schema, path: string, required: boolean): Field {
  const id = `f-${cssId(path)}`;
  const control = h('code', { id, class: 'const-value' }, display(s.const));
  const { element, error } = fieldShell(path, name, s, required, id, control, 'const');
  return { path, element, get: () => ({ set: true, value: s.const }), showError: (m) => setError(error, undefined, m), children: () => [] };
}

export function jsonField(name: string, s: Schema, path: string, required: boolean, initial: Maybe): Field {
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
