import * as vscode from 'vscode';
import { extensionFor } from './mime';

/**
 * The URI scheme of resource documents:
 * `mcp-host-resource://<server>/<resource URI as readable folders>/<file name>?<escaped resource URI>`.
 * Breadcrumbs and tab descriptions show the path, so it reads like the resource URI
 * (`mem:/good/hello.txt`); the query holds the exact URI. (Not `mcp-resource`: VS Code 1.10x+
 * registers that one for its own MCP support.)
 */
export const RESOURCE_SCHEME = 'mcp-host-resource';

export interface ResourceAddress {
  serverName: string;
  /** The resource's own URI, exactly as the server gave it. */
  resourceUri: string;
}

// Both the server name (authority) and the resource URI (the query) are escaped as "~XX" (hex of
// each UTF-8 byte), never with "%": VS Code decodes and re-encodes "%" sequences on the way to its
// file service (1.139 does, and toString(true) keeps a bare "%"), so a URI holding "%2F" would not
// come back. The authority keeps only lower-case letters, digits and "._-": VS Code writes
// authorities in lower case. The query keeps everything but "%", "~", "#", "\\" and control
// characters. (Documents opened before this form put the escaped URI in the first path segment;
// those still parse.)
function escape(text: string, keep: RegExp): string {
  let out = '';
  for (const ch of text) {
    if (keep.test(ch)) {
      out += ch;
      continue;
    }
    for (const b of new TextEncoder().encode(ch)) out += `~${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function unescape(text: string): string {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < text.length; ) {
    const m = /^~([0-9A-Fa-f]{2})/.exec(text.slice(i, i + 3));
    if (m) {
      bytes.push(parseInt(m[1], 16));
      i += 3;
    } else {
      const cp = text.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes.push(...encoder.encode(ch));
      i += ch.length;
    }
  }
  return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
}

const AUTHORITY_KEEP = /^[a-z0-9._-]$/;
const QUERY_KEEP = /^[^%~#\\\u0000-\u001f\u007f]$/u;

/**
 * The document URI of a resource. The exact resource URI is the query (any URI round-trips); the
 * path is the resource URI's scheme, authority and folders, readable, and then a file name, which
 * VS Code shows as the tab title and uses to pick an editor (so an image keeps its extension).
 */
export function resourceDocumentUri(serverName: string, resourceUri: string, options: { name?: string; mimeType?: string } = {}): vscode.Uri {
  const folders = readableFolders(resourceUri);
  return vscode.Uri.from({
    scheme: RESOURCE_SCHEME,
    authority: escape(serverName, AUTHORITY_KEEP),
    path: `/${[...folders, documentFileName(resourceUri, options.name, options.mimeType)].join('/')}`,
    query: escape(resourceUri, QUERY_KEEP),
  });
}

/** "mem://good/docs/a.txt" -> ["mem:", "good", "docs"]: what breadcrumbs show above the file name. */
function readableFolders(resourceUri: string): string[] {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*:)(?:\/\/([^/?#]*))?([^?#]*)/.exec(resourceUri);
  if (!match) return [];
  const [, scheme, authority, rest] = match;
  const pathParts = uriPath(rest).split('/').filter((p) => p.trim() !== '');
  const parts = [scheme, authority ?? '', ...pathParts.slice(0, -1)].filter((p) => p.trim() !== '');
  // No "%" (see above), no control characters, no "." or ".." folders, and a bounded length.
  return parts
    .slice(0, 12)
    .map((p) => p.replace(/[\u0000-\u001f\u007f\\]/g, '').replace(/%/g, '\uff05').slice(0, 80))
    .filter((p) => p !== '' && p !== '.' && p !== '..');
}

/** The server and resource URI of a document URI, or undefined if it is not one of ours. */
export function parseResourceDocumentUri(uri: vscode.Uri): ResourceAddress | undefined {
  if (uri.scheme !== RESOURCE_SCHEME) return undefined;
  try {
    if (uri.query !== '') return { serverName: unescape(uri.authority), resourceUri: unescape(uri.query) };
    // The earlier form: ['', escaped resource URI, file name].
    const segments = uri.path.split('/');
    if (segments.length !== 3 || segments[1] === '') return undefined;
    return { serverName: unescape(uri.authority), resourceUri: unescape(segments[1]) };
  } catch {
    return undefined;
  }
}

/**
 * A file name for the tab: the last part of the resource's name (else of its URI path), with an
 * extension from the MIME type when it has none.
 */
export function documentFileName(resourceUri: string, name?: string, mimeType?: string): string {
  const lastPart = (text: string) => text.split(/[/\\]/).filter((p) => p.trim() !== '').pop()?.trim();
  let base = (name && lastPart(name)) || lastPart(uriPath(resourceUri)) || 'resource';
  // No control characters, and no "%" (VS Code may decode it on the way, see above).
  base = base.replace(/[\u0000-\u001f]/g, '').replace(/%/g, '\uff05');
  if (base.length > 120) base = base.slice(0, 120);
  if (base === '.' || base === '..') base = 'resource';
  const ext = extensionFor(mimeType);
  if (ext && !/\.[A-Za-z0-9]{1,8}$/.test(base)) base += ext;
  return base;
}

function uriPath(uri: string): string {
  const withoutQuery = uri.replace(/[?#].*$/, '');
  const path = withoutQuery.replace(/^[A-Za-z][A-Za-z0-9+.-]*:(\/\/[^/]*)?/, '');
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
