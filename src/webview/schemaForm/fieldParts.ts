// What every field of the form has: its value (set or not), its label, description, constraints line
// and error slot, whatever control it shows.
import { h } from '../dom';
import { constraintsOf, type Schema } from './schema';

/** A field's value: not set (left out of the object) or set. */
export type Maybe = { set: false } | { set: true; value: unknown };

export interface Field {
  path: string;
  element: HTMLElement;
  get(): Maybe;
  /** Shows (or clears) the error of exactly this field. */
  showError(message: string | undefined): void;
  children(): Field[];
}

export function errorSlot(path: string): HTMLElement {
  return h('div', { class: 'field-error', role: 'alert', 'aria-live': 'polite', id: `err-${cssId(path)}`, hidden: true });
}

export function cssId(path: string): string {
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

export function fieldShell(path: string, name: string, s: Schema, required: boolean, controlId: string, control: HTMLElement, kind: string): { element: HTMLElement; error: HTMLElement } {
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

export function setError(el: HTMLElement, control: HTMLElement | undefined, message: string | undefined): void {
  el.hidden = !message;
  el.textContent = message ?? '';
  if (control) {
    if (message) control.setAttribute('aria-invalid', 'true');
    else control.removeAttribute('aria-invalid');
  }
}
