// The traffic view's model: the servers' recorded messages as timeline rows, filtered, and the
// texts (details, copies, exports) a person sees. No `vscode` here: plain Node tests use it.
import { buildTimeline, messageBytes, trafficJsonLine, type TrafficEntry, type TrafficRecorder, type TrafficRow } from '../../host/traffic';
import type { TrafficDetail, TrafficFilter, TrafficRowView } from '../webview/trafficProtocol';

/** What the view needs of a server (a ServerConnection is one). */
export interface TrafficSource {
  readonly id: string;
  readonly name: string;
  readonly traffic: TrafficRecorder;
  redact(text: string): string;
}

export interface TrafficModel {
  rows: TrafficRowView[];
  methods: string[];
  total: number;
  /** Each row's server and timeline row, by key (for details, copies and exports). */
  index: Map<string, { source: TrafficSource; row: TrafficRow }>;
}

/** Above this a detail pane shows the start of a message (Copy and Export keep all of it). */
export const DETAIL_LIMIT = 512 * 1024;

/** Builds the rows of every server, oldest first, with the filter applied. */
export function buildTrafficModel(sources: readonly TrafficSource[], filter: TrafficFilter): TrafficModel {
  const all: Array<{ source: TrafficSource; row: TrafficRow }> = [];
  for (const source of sources) {
    if (filter.server && filter.server !== source.id) continue;
    for (const row of buildTimeline(source.traffic.entries())) all.push({ source, row });
  }
  all.sort((a, b) => a.row.at - b.row.at || a.row.key - b.row.key);
  const methods = [...new Set(all.map(({ row }) => row.method).filter((m): m is string => m !== undefined))].sort();
  const needle = filter.text?.trim().toLowerCase();
  const index = new Map<string, { source: TrafficSource; row: TrafficRow }>();
  const rows: TrafficRowView[] = [];
  for (const item of all) {
    if (filter.method && item.row.method !== filter.method) continue;
    if (filter.via && (filter.via === 'gateway') !== (item.row.origin !== undefined)) continue;
    if (needle && !searchText(item.source, item.row).includes(needle)) continue;
    const view = rowView(item.source, item.row);
    index.set(view.key, item);
    rows.push(view);
  }
  return { rows, methods, total: all.length, index };
}

function rowView(source: TrafficSource, row: TrafficRow): TrafficRowView {
  return {
    key: `${source.id}#${row.key}`,
    at: row.at,
    server: source.name,
    kind: row.kind,
    direction: row.direction,
    method: row.method === undefined ? undefined : source.redact(row.method),
    id: row.id === undefined ? undefined : source.redact(String(row.id)),
    status: row.status,
    error: row.error ? source.redact(`${row.error.code !== undefined ? `${row.error.code} ` : ''}${row.error.message}`) : undefined,
    latencyMs: row.latencyMs,
    requestBytes: row.first.kind === 'message' ? messageBytes(row.first.message) : undefined,
    responseBytes: row.response?.kind === 'message' ? messageBytes(row.response.message) : undefined,
    text: row.text,
    via: row.origin ? source.redact(row.origin.name) : undefined,
  };
}

const searchTexts = new WeakMap<TrafficEntry, string>();

/** A row's messages as redacted, lower-cased JSON (kept per entry while it is recorded). */
function searchText(source: TrafficSource, row: TrafficRow): string {
  const text = (entry: TrafficEntry | undefined) => {
    if (!entry) return '';
    let value = searchTexts.get(entry);
    if (value === undefined) {
      value = source.redact(entry.kind === 'event' ? entry.text : JSON.stringify(entry.message) ?? '').toLowerCase();
      searchTexts.set(entry, value);
    }
    return value;
  };
  return `${source.name.toLowerCase()}\n${text(row.first)}\n${text(row.response)}`;
}

/** A message as redacted, indented JSON: what Copy puts on the clipboard and the detail pane shows. */
export function prettyMessage(source: TrafficSource, entry: TrafficEntry): string {
  return source.redact(entry.kind === 'event' ? entry.text : JSON.stringify(entry.message, null, 2) ?? 'undefined');
}

export function rowDetail(key: string, item: { source: TrafficSource; row: TrafficRow }): TrafficDetail {
  const { source, row } = item;
  const detail: TrafficDetail = { key, title: rowTitle(source, row) };
  const cut = (text: string, part: 'request' | 'response') => {
    if (text.length <= DETAIL_LIMIT) return text;
    detail.truncated = { ...detail.truncated, [part]: text.length };
    return text.slice(0, DETAIL_LIMIT);
  };
  detail.request = cut(prettyMessage(source, row.first), 'request');
  if (row.response) detail.response = cut(prettyMessage(source, row.response), 'response');
  return detail;
}

function rowTitle(source: TrafficSource, row: TrafficRow): string {
  const what = row.kind === 'event' ? 'event' : row.kind === 'response' ? `response to ${row.id ?? '?'}` : `${row.method ?? ''}${row.id !== undefined ? ` #${row.id}` : ''}`;
  return `${source.name}: ${what}`;
}

/** The clipboard text of a row: its message, and for a request its response after it. */
export function rowCopyText(item: { source: TrafficSource; row: TrafficRow }): string {
  const parts = [prettyMessage(item.source, item.row.first)];
  if (item.row.response) parts.push(prettyMessage(item.source, item.row.response));
  return parts.join('\n\n');
}

/** JSONL of the given rows' entries (a request and its response are two lines), in time order. */
export function exportLines(items: Iterable<{ source: TrafficSource; row: TrafficRow }>): string[] {
  const lines: Array<{ at: number; seq: number; line: string }> = [];
  for (const { source, row } of items) {
    for (const entry of [row.first, row.response]) {
      if (entry) lines.push({ at: entry.at, seq: entry.seq, line: trafficJsonLine(entry, source.name, (t) => source.redact(t)) });
    }
  }
  lines.sort((a, b) => a.at - b.at || a.seq - b.seq);
  return lines.map((l) => l.line);
}
