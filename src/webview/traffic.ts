// The traffic view's page: a toolbar of filters, the timeline table, and the selected message's
// JSON. Everything from a server becomes text nodes (dom.ts), never markup. Rows come from the
// extension already filtered and redacted; this page only draws them and reports what was clicked.
import type { TrafficDetail, TrafficFilter, TrafficFromWebview, TrafficRowView, TrafficSnapshot, TrafficToWebview } from '../vscode/webview/trafficProtocol';
import { formatBytes, h, pageLoad, vscodeApi } from './dom';

const post = (message: TrafficFromWebview) => vscodeApi.postMessage(message);
const app = document.getElementById('app') as HTMLElement;

/** The timeline's columns: title and class (the class sets the width in traffic.css). */
const COLUMNS = [
  ['Time', 'c-time'],
  ['Server', 'c-server'],
  ['', 'c-direction'],
  ['Method', 'c-method'],
  ['Id', 'c-id'],
  ['Status', 'c-status'],
  ['Latency', 'c-latency'],
  ['Size', 'c-size'],
] as const;

let rows: TrafficRowView[] = [];
let filter: TrafficFilter = {};
let selected: string | undefined;
let detail: TrafficDetail | undefined;
/** Follow the newest row while the person has not scrolled up. */
let follow = true;

const serverSelect = h('select', { id: 'server', 'aria-label': 'Server' });
const methodSelect = h('select', { id: 'method', 'aria-label': 'Method' });
const viaSelect = h(
  'select',
  { id: 'via', 'aria-label': 'Who asked' },
  h('option', { value: '' }, 'Anyone'),
  h('option', { value: 'host' }, 'MCP Host'),
  h('option', { value: 'gateway' }, 'Gateway clients (chat agent…)'),
);
const textInput = h('input', { id: 'text', type: 'text', placeholder: 'Filter by text (method, id, arguments, results…)', 'aria-label': 'Filter by text' });
const count = h('span', { id: 'count', class: 'meta', role: 'status' });
const notice = h('div', { id: 'notice', class: 'warning', hidden: true });
const body = h('tbody');
const tableWrap = h('div', { class: 'timeline', tabindex: '-1' }, h('table', { id: 'timeline', 'aria-label': 'Messages' }, header(), body));
const detailPane = h('section', { id: 'detail', class: 'detail', 'aria-label': 'Selected message' });


function header(): HTMLElement {
  const cells = COLUMNS.map(([title, cls]) => h('th', { scope: 'col', class: cls }, title));
  return h('thead', {}, h('tr', {}, ...cells));
}

function button(label: string, title: string, onClick: () => void): HTMLButtonElement {
  const b = h('button', { type: 'button', class: 'secondary small', title }, label);
  b.addEventListener('click', onClick);
  return b;
}

function sendFilter(): void {
  const via = viaSelect.value === 'host' || viaSelect.value === 'gateway' ? viaSelect.value : undefined;
  filter = { server: serverSelect.value || undefined, method: methodSelect.value || undefined, text: textInput.value || undefined, via };
  post({ type: 'filter', filter });
}

let textTimer: ReturnType<typeof setTimeout> | undefined;
serverSelect.addEventListener('change', sendFilter);
methodSelect.addEventListener('change', sendFilter);
viaSelect.addEventListener('change', sendFilter);
textInput.addEventListener('input', () => {
  if (textTimer) clearTimeout(textTimer);
  textTimer = setTimeout(sendFilter, 200);
});
tableWrap.addEventListener('scroll', () => {
  follow = tableWrap.scrollTop + tableWrap.clientHeight >= tableWrap.scrollHeight - 4;
});

app.replaceChildren(
  h(
    'header',
    { class: 'toolbar' },
    serverSelect,
    methodSelect,
    viaSelect,
    textInput,
    count,
    h('span', { class: 'spacer' }),
    button('Export…', 'Save the messages shown as JSON Lines (secrets redacted)', () => post({ type: 'export' })),
    button('Clear', 'Forget the recorded messages of every server', () => post({ type: 'clear' })),
  ),
  notice,
  tableWrap,
  detailPane,
);
app.removeAttribute('aria-busy');

function options(select: HTMLSelectElement, all: string, items: Array<{ value: string; label: string }>, value: string | undefined): void {
  select.replaceChildren(h('option', { value: '' }, all), ...items.map((i) => h('option', { value: i.value }, i.label)));
  select.value = value ?? '';
}

function time(at: number): string {
  const d = new Date(at);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** → from MCP Host to the server, ← from the server; a server's own request is marked too. */
function arrow(row: TrafficRowView): string {
  if (row.kind === 'event') return '•';
  return row.direction === 'send' ? '→' : '←';
}

function statusText(row: TrafficRowView): string {
  switch (row.status) {
    case 'ok':
      return row.kind === 'response' ? 'response' : 'ok';
    case 'error':
      return row.error ? `error ${row.error}` : 'error';
    case 'pending':
      return 'pending';
    case 'cancelled':
      return 'cancelled';
    case 'unanswered':
      return 'no answer';
    default:
      return row.kind === 'notification' ? 'notification' : '';
  }
}

function sizeText(row: TrafficRowView): string {
  if (row.requestBytes === undefined) return '';
  return row.responseBytes === undefined ? formatBytes(row.requestBytes) : `${formatBytes(row.requestBytes)} / ${formatBytes(row.responseBytes)}`;
}

function rowElement(row: TrafficRowView): HTMLTableRowElement {
  const what = row.kind === 'event' ? (row.text ?? '') : (row.method ?? (row.kind === 'response' ? '(response)' : ''));
  const tr = h(
    'tr',
    { 'data-key': row.key, class: `row-${row.kind} row-${row.status}${row.key === selected ? ' selected' : ''}`, tabindex: '0', 'aria-selected': row.key === selected ? 'true' : 'false' },
    h('td', { class: 'c-time' }, time(row.at)),
    h('td', { class: 'c-server' }, row.server),
    h('td', { class: 'c-direction', title: row.direction === 'send' ? 'sent by MCP Host' : row.direction === 'receive' ? 'sent by the server' : 'server event' }, arrow(row)),
    h('td', { class: 'c-method', colspan: row.kind === 'event' ? '5' : undefined }, what, row.kind === 'server-request' ? h('span', { class: 'tag' }, 'server request') : null, row.via !== undefined ? h('span', { class: 'tag', title: 'relayed by the gateway for this client' }, `via ${row.via}`) : null),
    ...(row.kind === 'event'
      ? []
      : [
          h('td', { class: 'c-id' }, row.id ?? ''),
          h('td', { class: 'c-status', title: row.error ?? '' }, statusText(row)),
          h('td', { class: 'c-latency' }, row.latencyMs === undefined ? '' : `${row.latencyMs} ms`),
          h('td', { class: 'c-size' }, sizeText(row)),
        ]),
  );
  tr.addEventListener('click', () => select(row.key));
  tr.addEventListener('keydown', (e) => moveSelection(e, row.key));
  return tr;
}

function moveSelection(event: KeyboardEvent, key: string): void {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  event.preventDefault();
  const index = rows.findIndex((r) => r.key === key) + (event.key === 'ArrowDown' ? 1 : -1);
  const next = rows[index];
  if (!next) return;
  select(next.key);
  body.querySelector<HTMLElement>(`tr[data-key="${CSS.escape(next.key)}"]`)?.focus();
}

function select(key: string): void {
  selected = key;
  for (const tr of body.querySelectorAll('tr')) {
    const on = tr.getAttribute('data-key') === key;
    tr.classList.toggle('selected', on);
    tr.setAttribute('aria-selected', on ? 'true' : 'false');
  }
  post({ type: 'select', key });
}

function renderRows(message: Extract<TrafficToWebview, { type: 'rows' }>): void {
  rows = message.rows;
  filter = message.filter;
  options(serverSelect, 'All servers', message.servers.map((s) => ({ value: s.id, label: s.name })), filter.server);
  options(methodSelect, 'All methods', message.methods.map((m) => ({ value: m, label: m })), filter.method);
  viaSelect.value = filter.via ?? '';
  if (document.activeElement !== textInput) textInput.value = filter.text ?? '';
  count.textContent = rows.length === message.total ? `${rows.length} rows` : `${rows.length} of ${message.total} rows`;
  if (message.capacity === 0) {
    notice.replaceChildren('Recording is off: the setting mcpHost.traffic.maxMessages is 0. ', h('button', { type: 'button', class: 'link-button', onclick: () => post({ type: 'openSettings' }) }, 'Open the setting'));
    notice.hidden = false;
  } else {
    notice.hidden = true;
  }
  body.replaceChildren(...rows.map(rowElement));
  if (rows.length === 0) body.append(h('tr', { class: 'empty' }, h('td', { colspan: '8' }, message.total === 0 ? 'No messages yet. Start a server or run a tool: its messages appear here as they are sent.' : 'No message matches the filter.')));
  if (selected && !rows.some((r) => r.key === selected)) {
    selected = undefined;
    detail = undefined;
    renderDetail();
  }
  if (follow) tableWrap.scrollTop = tableWrap.scrollHeight;
}

function renderDetail(): void {
  if (!detail) {
    detailPane.replaceChildren(h('p', { class: 'meta' }, 'Select a message to see its JSON.'));
    return;
  }
  const shown = detail;
  const part = (title: string, text: string | undefined, total: number | undefined) =>
    text === undefined
      ? null
      : h('div', { class: 'part' }, h('h2', {}, title), total !== undefined ? h('p', { class: 'truncated' }, `Showing the first ${formatBytes(text.length)} of ${formatBytes(total)}; Copy and Export keep all of it.`) : null, h('pre', { class: 'json' }, text));
  const isEvent = rows.find((r) => r.key === shown.key)?.kind === 'event';
  const parts = [part(isEvent ? 'Event' : shown.response === undefined ? 'Message' : 'Request', shown.request, shown.truncated?.request), part('Response', shown.response, shown.truncated?.response)];
  detailPane.replaceChildren(
    h('div', { class: 'detail-header' }, h('strong', {}, shown.title), h('span', { class: 'spacer' }), button('Copy', 'Copy the JSON (secrets redacted)', () => post({ type: 'copy', key: shown.key }))),
    ...parts.filter((p): p is HTMLDivElement => p !== null),
  );
}

function snapshot(): TrafficSnapshot {
  return {
    rows: [...body.querySelectorAll('tr[data-key]')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '').join(' ').trim()),
    selected,
    detail: detailPane.textContent ?? undefined,
    filter,
  };
}

window.addEventListener('message', (event: MessageEvent<TrafficToWebview>) => {
  const message = event.data;
  switch (message.type) {
    case 'rows':
      renderRows(message);
      break;
    case 'detail':
      if (message.detail.key === selected) {
        detail = message.detail;
        renderDetail();
      }
      break;
    case 'select':
      select(message.key);
      break;
    case 'snapshot':
      post({ type: 'snapshot', requestId: message.requestId, snapshot: snapshot() });
      break;
  }
});

renderDetail();
post({ type: 'ready', load: pageLoad() });
