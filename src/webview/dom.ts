// Small DOM helpers for the webview pages. Text from servers only ever becomes text nodes or
// attribute values set through the DOM API, never markup.

import { describeJsonPointer } from '../util/jsonPointer';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void; getState(): unknown; setState(state: unknown): void };

export const vscodeApi = acquireVsCodeApi();

/** Which load of its panel this document is (set by the extension): said with "ready". */
export function pageLoad(): string | undefined {
  return document.documentElement.dataset.load;
}

type Child = Node | string | number | false | null | undefined;
type Attrs = Record<string, string | number | boolean | undefined | ((ev: Event) => void)>;

/** Creates an element: `h('button', {class: 'x', onclick: fn}, 'Label')`. Strings become text nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') {
      el.addEventListener(key.replace(/^on/, ''), value);
    } else if (key === 'class') {
      el.className = String(value);
    } else if (value === true) {
      el.setAttribute(key, '');
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** A codicon-free icon: a short text glyph in a span (the page loads no icon font). */
export function glyph(text: string, label?: string): HTMLSpanElement {
  return h('span', { class: 'glyph', 'aria-hidden': label ? undefined : 'true', title: label }, text);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** JSON Pointer helpers. */
export function pointer(parent: string, segment: string | number): string {
  return `${parent}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** "edits[0].oldText"; "Value" for the whole value (at the start of a line). */
export function describePointer(path: string): string {
  return describeJsonPointer(path, 'Value');
}
