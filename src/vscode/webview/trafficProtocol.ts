// Messages between the extension host and the traffic view's page (src/webview/traffic.ts).
// Types only: nothing here may import `vscode` or use the DOM.

export type TrafficRowKindView = 'request' | 'server-request' | 'notification' | 'response' | 'event';
export type TrafficRowStatusView = 'ok' | 'error' | 'pending' | 'cancelled' | 'unanswered' | 'none';

/** One line of the timeline as the page shows it. Texts are redacted already. */
export interface TrafficRowView {
  /** `<server id>#<seq>`: stable while the row's first message is recorded. */
  key: string;
  at: number;
  server: string;
  kind: TrafficRowKindView;
  /** 'send': from MCP Host to the server; 'receive': from the server. */
  direction?: 'send' | 'receive';
  method?: string;
  id?: string;
  status: TrafficRowStatusView;
  error?: string;
  latencyMs?: number;
  requestBytes?: number;
  responseBytes?: number;
  /** An event row's text. */
  text?: string;
  /** A request relayed for a gateway client (e.g. the chat agent): that client's name. */
  via?: string;
}

export interface TrafficFilter {
  /** A server's id; absent: every server. */
  server?: string;
  method?: string;
  /** Matched case-insensitively against the messages' (redacted) JSON. */
  text?: string;
  /** 'gateway': only requests relayed for gateway clients; 'host': only the rest. */
  via?: 'host' | 'gateway';
}

export interface TrafficDetail {
  key: string;
  title: string;
  /** Pretty JSON, redacted; cut when very large (then `truncated` says how large it was). */
  request?: string;
  response?: string;
  truncated?: { request?: number; response?: number };
}

export interface TrafficSnapshot {
  /** Each visible row as text: "time server direction method id status". */
  rows: string[];
  selected?: string;
  detail?: string;
  filter: TrafficFilter;
}

export type TrafficToWebview =
  | {
      type: 'rows';
      rows: TrafficRowView[];
      servers: Array<{ id: string; name: string; recording: boolean }>;
      methods: string[];
      filter: TrafficFilter;
      /** How many messages each server keeps (0: recording is off). */
      capacity: number;
      /** Rows before filtering. */
      total: number;
    }
  | { type: 'detail'; detail: TrafficDetail }
  /** Test hooks: describe what is on screen; select a row as a click would. */
  | { type: 'snapshot'; requestId: number }
  | { type: 'select'; key: string };

export type TrafficFromWebview =
  | { type: 'ready'; load?: string }
  | { type: 'filter'; filter: TrafficFilter }
  | { type: 'select'; key: string }
  | { type: 'copy'; key: string }
  | { type: 'export' }
  | { type: 'clear' }
  | { type: 'openSettings' }
  | { type: 'snapshot'; requestId: number; snapshot: TrafficSnapshot };
