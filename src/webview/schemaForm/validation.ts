// Validation as the page does it: the current value sent to the extension host (which validates it
// with Ajv) a moment after each edit, and the issues it answers shown at their fields or in the
// summary.
import { append, describePointer, h } from '../dom';
import type { Field } from './fieldParts';
import { page, post, touched } from './state';

export function allFields(f: Field | undefined, out: Field[] = []): Field[] {
  if (!f) return out;
  out.push(f);
  for (const c of f.children()) allFields(c, out);
  return out;
}

export function currentValue(): unknown {
  if (page.mode === 'json') {
    page.jsonError = undefined;
    const text = page.jsonArea?.value ?? '';
    try {
      return text.trim() === '' ? {} : JSON.parse(text);
    } catch (err) {
      page.jsonError = `Not valid JSON: ${(err as Error).message}`;
      return undefined;
    }
  }
  const v = page.root?.get();
  return v?.set ? v.value : {};
}

/** The current value; undefined once the reason there is none is shown (the JSON does not parse). */
export function valueOrItsProblem(): unknown {
  const value = currentValue();
  if (value === undefined) renderIssues();
  return value;
}

export function scheduleValidation(): void {
  if (page.validateTimer !== undefined) clearTimeout(page.validateTimer);
  page.validateTimer = window.setTimeout(() => {
    page.validateTimer = undefined;
    const value = valueOrItsProblem();
    if (value === undefined) return;
    page.latestValidation = ++page.requestCounter;
    post({ type: 'validate', requestId: page.latestValidation, value });
  }, 200);
}

export function renderIssues(): void {
  const fields = allFields(page.root);
  const byPath = new Map(fields.map((f) => [f.path, f]));
  const shown = new Map<Field, string[]>();
  const unplaced: string[] = [];
  for (const issue of page.issues) {
    // The field itself, or the nearest enclosing one.
    let p = issue.path;
    let field = byPath.get(p);
    while (!field && p !== '') {
      p = p.slice(0, p.lastIndexOf('/'));
      field = byPath.get(p);
    }
    const visible = page.submitted || [...touched].some((t) => issue.path === t || issue.path.startsWith(`${t}/`) || t.startsWith(`${issue.path}/`));
    if (!visible) continue;
    if (field && page.mode === 'form') {
      const text = field.path === issue.path ? issue.message : `${describePointer(issue.path.slice(field.path.length) || '')} ${issue.message}`.replace(/^Value /, '');
      shown.set(field, [...(shown.get(field) ?? []), text]);
    }
    if (!field || field === page.root || page.mode === 'json' || page.submitted) unplaced.push(`${describePointer(issue.path)} ${issue.message}`);
  }
  for (const f of fields) f.showError(shown.get(f)?.join('; '));
  page.summary.textContent = '';
  const lines = [...(page.jsonError ? [page.jsonError] : []), ...unplaced];
  page.summary.hidden = lines.length === 0;
  if (lines.length > 0) {
    append(page.summary, h('strong', {}, lines.length === 1 ? 'Please fix this:' : `Please fix these ${lines.length} problems:`), h('ul', {}, ...lines.map((l) => h('li', {}, l))));
  }
  page.submitButton.setAttribute('aria-disabled', String(page.issues.length > 0 && page.submitted));
}

export function markTouched(path: string): void {
  touched.add(path);
  scheduleValidation();
}
