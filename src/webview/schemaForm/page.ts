// The page around the fields: header, summary, buttons, the switch between form and JSON editor,
// and submit.
import type { SchemaFormInit } from '../../vscode/webview/protocol';
import { h } from '../dom';
import { buildField, objectField } from './fields';
import { deref, getRootSchema, setRootSchema, typeOf } from './schema';
import { app, page, post, touched } from './state';
import { scheduleValidation, valueOrItsProblem } from './validation';

function buildForm(value: unknown): void {
  page.formHost.textContent = '';
  page.jsonArea = undefined;
  if (page.mode === 'json') {
    page.jsonArea = h('textarea', { class: 'json-editor', id: 'json-editor', rows: 18, spellcheck: 'false', 'aria-label': 'Value as JSON', 'data-control-for': '' });
    page.jsonArea.value = JSON.stringify(value ?? {}, null, 2);
    page.jsonArea.addEventListener('input', () => {
      touched.add('');
      scheduleValidation();
    });
    page.formHost.appendChild(h('div', { class: 'field', 'data-path': '', 'data-control': 'json-editor', 'data-label': 'JSON' }, page.jsonArea));
    page.root = undefined;
    page.modeButton.textContent = 'Edit as Form';
  } else {
    const s = deref(getRootSchema());
    page.root = typeOf(s) === 'object' || s.properties ? objectField('', s, '', true, { set: true, value: value ?? {} }, true) : buildField('Value', s, '', true, value === undefined ? { set: false } : { set: true, value });
    page.formHost.appendChild(page.root.element);
    page.modeButton.textContent = 'Edit as JSON';
  }
  scheduleValidation();
}

function submit(): void {
  page.submitted = true;
  const value = valueOrItsProblem();
  if (value === undefined) return;
  page.pendingSubmit = ++page.requestCounter;
  page.latestValidation = page.pendingSubmit;
  page.submitButton.disabled = true;
  post({ type: 'submit', requestId: page.pendingSubmit, value });
}

function toggleMode(): void {
  const value = valueOrItsProblem();
  if (value === undefined) return;
  page.mode = page.mode === 'form' ? 'json' : 'form';
  buildForm(value);
  (page.formHost.querySelector('input, textarea, select') as HTMLElement | null)?.focus();
}

export function start(i: SchemaFormInit): void {
  setRootSchema(i.schema);
  page.mode = i.startInJson ? 'json' : 'form';
  document.title = i.title;
  app.textContent = '';
  app.removeAttribute('aria-busy');
  page.summary = h('div', { class: 'summary', role: 'alert', hidden: true });
  page.formHost = h('div', { class: 'form-fields' });
  page.submitButton = h('button', { type: 'submit', class: 'primary', id: 'submit' }, i.submitLabel);
  page.modeButton = h('button', { type: 'button', class: 'secondary', id: 'mode' }, 'Edit as JSON');
  page.modeButton.addEventListener('click', toggleMode);
  const cancel = h('button', { type: 'button', class: 'secondary', id: 'cancel' }, i.cancelLabel);
  cancel.addEventListener('click', () => post({ type: 'cancel' }));
  const decline = i.declineLabel ? h('button', { type: 'button', class: 'secondary', id: 'decline' }, i.declineLabel) : null;
  decline?.addEventListener('click', () => post({ type: 'decline' }));
  const form = h(
    'form',
    { class: 'schema-form', novalidate: true, 'aria-label': i.title },
    h('header', {}, h('h1', {}, i.title), i.subtitle ? h('div', { class: 'subtitle' }, i.subtitle) : null, i.description ? h('p', { class: 'description' }, i.description) : null),
    page.summary,
    page.formHost,
    i.warning ? h('div', { class: 'warning', role: 'note' }, ...i.warning.split('\n').map((line) => h('div', {}, line))) : null,
    h('div', { class: 'buttons' }, page.submitButton, decline, cancel, h('span', { class: 'spacer' }), page.modeButton),
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
  (page.formHost.querySelector('input, textarea, select') as HTMLElement | null)?.focus();
}
