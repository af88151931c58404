// What the Streamable HTTP transport reads from the JSON-RPC messages it carries, without parsing
// them into types: which method, which request ids, whether a message answers a given id, the
// Mcp-Method/Mcp-Name headers, and a description for errors that never includes the params.

import { encodeHeaderValue } from './paramHeaders';

export type RequestId = string | number;

export function isMethod(message: unknown, method: string): boolean {
  return typeof message === 'object' && message !== null && (message as { method?: unknown }).method === method;
}

/** Mcp-Method and Mcp-Name (transports/streamable-http.mdx, Standard Request Headers). */
export function mirroredHeaders(message: unknown): Record<string, string> {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return {};
  const { method, params } = message as { method?: unknown; params?: { name?: unknown; uri?: unknown } };
  if (typeof method !== 'string') return {};
  const headers: Record<string, string> = { 'mcp-method': method };
  const name = method === 'resources/read' ? params?.uri : method === 'tools/call' || method === 'prompts/get' ? params?.name : undefined;
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}

/** The ids of the requests in a message (one request, or a batch). */
export function requestIds(message: unknown): RequestId[] {
  const ids: RequestId[] = [];
  const add = (m: unknown): void => {
    const id = requestIdOf(m);
    if (id !== undefined) ids.push(id);
  };
  if (Array.isArray(message)) for (const m of message) add(m);
  else add(message);
  return ids;
}

/** The id of the one request a message is, if it is one (not a batch, a notification or an answer). */
export function requestIdOf(message: unknown): RequestId | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { id, method } = message as { id?: unknown; method?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : undefined;
}

export function isResponseTo(message: unknown, id: RequestId): boolean {
  return (
    typeof message === 'object' &&
    message !== null &&
    !('method' in message) &&
    (message as { id?: unknown }).id === id &&
    ('result' in message || 'error' in message)
  );
}

/** "tools/call request", "notifications/initialized", "response": for errors, never the params. */
export function describeMessage(message: unknown): string {
  if (Array.isArray(message)) return `a batch of ${message.length}`;
  if (typeof message !== 'object' || message === null) return 'the message';
  const { method, id } = message as { method?: unknown; id?: unknown };
  if (typeof method === 'string') return id === undefined ? method : `${method} request`;
  return 'a response';
}
