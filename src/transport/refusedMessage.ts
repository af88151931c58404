// What a refused (oversize) message says from the little of it that was kept: whether it is a
// response and the id of the request it answers (in its first members, or among the plain
// members that end it), so that request fails at once rather than at its timeout.

import { HEAD_BYTES, TAIL_BYTES } from './lineSplitter';
import type { OversizeNotice } from './transport';

/**
 * Decodes the first `maxBytes` of `buf` (default: all of it), dropping a UTF-8 sequence cut
 * off at the end, so an excerpt never ends in a replacement character.
 */
export function decodeUtf8Prefix(buf: Buffer, maxBytes = buf.length): string {
  let end = Math.min(buf.length, maxBytes);
  // Find the start of the last sequence (at most 3 continuation bytes back).
  let lead = end - 1;
  while (lead >= 0 && lead > end - 4 && (buf[lead] & 0xc0) === 0x80) lead--;
  if (lead >= 0) {
    const b = buf[lead];
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    if (end - lead < need) end = lead;
  }
  return buf.toString('utf8', 0, end);
}

/** What the oversize warning suggests when the host gives no hint of its own (see limitHint). */
export const DEFAULT_LIMIT_HINT = 'raise the message size limit of this host (in VS Code: the setting mcpHost.maxMessageSizeMB)';

/**
 * What the first bytes of a refused message say: whether it is a response (a `result` or
 * `error` member, and no `method`, among its first members) and its `id` if that came early.
 * The rest of the message was never kept; a response's id may also end it (see trailingId).
 */
export function refusedMessageStart(head: Buffer): { response: boolean; id?: number | string } {
  const top = topLevelMembers(decodeUtf8Prefix(head));
  const response = !top.keys.includes('method') && (top.keys.includes('result') || top.keys.includes('error'));
  return response ? { response, id: top.id } : { response };
}

/** For transports that hold a refused message whole (SSE): its size and the request it answers. */
export function oversizeNotice(text: string, limit: number, hint = DEFAULT_LIMIT_HINT): OversizeNotice {
  const start = refusedMessageStart(Buffer.from(text.slice(0, HEAD_BYTES)));
  const answers = start.response ? (start.id ?? trailingId(Buffer.from(text.slice(-TAIL_BYTES)))) : undefined;
  return { bytes: Buffer.byteLength(text), complete: true, limit, answers, hint };
}

/** The keys of the outermost object among the first bytes of a JSON text, and its `id` if whole. */
function topLevelMembers(text: string): { keys: string[]; id?: number | string } {
  const keys: string[] = [];
  let id: number | string | undefined;
  let depth = 0;
  let i = text.search(/\S/);
  if (i === -1 || text[i] !== '{') return { keys };
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end === -1) break; // cut off inside a string
      if (depth === 1) {
        const colon = /^\s*:/.exec(text.slice(end + 1, end + 40));
        if (colon) {
          const key = parseJsonString(text.slice(i, end + 1));
          keys.push(key);
          if (key === 'id') id = primitiveAt(text, end + 1 + colon[0].length);
        }
      }
      i = end;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return { keys, id };
}

function parseJsonString(literal: string): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return literal; // an invalid escape: not a key we look for
  }
}

/** The index of the quote that closes the string opening at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/** A number or string id starting at `at` (after blanks), whole in `text`. */
function primitiveAt(text: string, at: number): number | string | undefined {
  const m = /^\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*[,}]/.exec(text.slice(at, at + 200));
  return m ? (JSON.parse(m[1]) as number | string) : undefined;
}

/**
 * The `id` among the plain members that end an object (`,"id":5}` or `,"id":5,"jsonrpc":"2.0"}`).
 * A `,` or `{` before its quote makes `"id"` a key, and only plain members follow it up to the
 * final brace, so it belongs to the outermost object.
 */
export function trailingId(tail: Buffer): number | string | undefined {
  const text = tail.toString('utf8');
  const plain = '(?:-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?|"(?:[^"\\\\]|\\\\.)*"|true|false|null)';
  const m = new RegExp(`[,{]\\s*"id"\\s*:\\s*(${plain})\\s*((?:,\\s*"(?:[^"\\\\]|\\\\.)*"\\s*:\\s*${plain}\\s*)*)\\}\\s*$`).exec(text);
  if (!m) return undefined;
  const value: unknown = JSON.parse(m[1]);
  return typeof value === 'number' || typeof value === 'string' ? value : undefined;
}
