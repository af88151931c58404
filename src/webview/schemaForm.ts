// The schema form page: builds controls from a JSON Schema, keeps the value, shows the problems
// the extension host finds (it validates with Ajv; this page cannot run Ajv under its CSP).
// This file is its messaging with the extension; the parts are in schemaForm/: schema.ts (reading
// the schema), fieldParts.ts, scalarFields.ts and fields.ts (a field per type, each reading its
// value), validation.ts (validation requests and their messages), page.ts (the page and submit).
import type { FormSnapshot, FormToWebview } from '../vscode/webview/protocol';
import { start } from './schemaForm/page';
import { app, page, post, touched } from './schemaForm/state';
import { currentValue, renderIssues } from './schemaForm/validation';
import { pageLoad } from './dom';

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
  const summaryItems = page.summary.hidden ? [] : [...page.summary.querySelectorAll('li')].map((li) => li.textContent ?? '');
  return { value, mode: page.mode, fields, summary: summaryItems, html: app.innerHTML };
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
      if (message.requestId !== page.latestValidation && message.requestId !== page.pendingSubmit) return;
      if (message.requestId === page.pendingSubmit) page.submitButton.disabled = false;
      page.issues = message.issues;
      renderIssues();
      if (message.requestId === page.pendingSubmit && page.issues.length > 0) {
        const firstBad = app.querySelector('[aria-invalid="true"]') as HTMLElement | null;
        (firstBad ?? page.summary).focus?.();
        firstBad?.scrollIntoView({ block: 'center' });
      }
      return;
    case 'busy':
      page.submitButton.disabled = message.message !== undefined;
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
        if (page.validateTimer !== undefined) clearTimeout(page.validateTimer);
        page.validateTimer = undefined;
      }
      button.click();
      post({ type: 'done', requestId: message.requestId });
      return;
    }
  }
});

post({ type: 'ready', load: pageLoad() });
