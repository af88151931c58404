// The state of the form page: the fields, the mode, what was touched or submitted, the latest
// validation request and its issues, and the page's elements (made by start() in page.ts).
import type { FormFromWebview, FormIssue } from '../../vscode/webview/protocol';
import { vscodeApi } from '../dom';
import type { Field } from './fieldParts';

export const post = (message: FormFromWebview) => vscodeApi.postMessage(message);
export const app = document.getElementById('app') as HTMLElement;

class FormPage {
  root: Field | undefined;
  mode: 'form' | 'json' = 'form';
  jsonArea: HTMLTextAreaElement | undefined;
  jsonError: string | undefined;
  submitted = false;
  issues: FormIssue[] = [];
  requestCounter = 0;
  latestValidation = 0;
  pendingSubmit = 0;
  validateTimer: number | undefined;
  formHost!: HTMLElement;
  summary!: HTMLElement;
  submitButton!: HTMLButtonElement;
  modeButton!: HTMLButtonElement;
}

export const page = new FormPage();
/** The paths of the fields the person has left or changed: only their problems are shown before a submit. */
export const touched = new Set<string>();
