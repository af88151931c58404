import * as vscode from 'vscode';
import { extensionFor } from './mime';

/** The URI scheme of resource documents: `mcp-resource://<server>/<encoded resource URI>/<file name>`. */
export const RESOURCE_SCHEME = 'mcp-resource';

export interface ResourceAddress {
  serverName: string;
  /** The resource's own URI, exactly as the server gave it. */
  resourceUri: string;
}

// The authority holds the server name; everything outside the unreserved characters is
// percent-encoded, so "@", ":" or spaces in a name cannot change how the URI parses.
function encodeServerName(name: string): string {
  return Array.from(new TextEncoder().encode(name), (b) => {
    const c = String.fromCharCode(b);
    return /[A-Za-z0-9._~-]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
}

/**
 * The document URI of a resource. The resource URI is one path segment (encodeURIComponent:
 * any URI round-trips, "/" included); the last segment is a readable file name, which VS Code
 * shows as the tab title and uses to pick an editor (so an image keeps its extension).
 */
export function resourceDocumentUri(serverName: string, resourceUri: string, options: { name?: string; mimeType?: string } = {}): vscode.Uri {
  return vscode.Uri.from({
    scheme: RESOURCE_SCHEME,
    authority: encodeServerName(serverName),
    path: `/${encodeURIComponent(resourceUri)}/${documentFileName(resourceUri, options.name, options.mimeType)}`,
  });
}

/** The server and resource URI of a document URI, or undefined if it is not one of ours. */
export function parseResourceDocumentUri(uri: vscode.Uri): ResourceAddress | undefined {
  if (uri.scheme !== RESOURCE_SCHEME) return undefined;
  const segments = uri.path.split('/');
  // ['', encoded resource URI, file name]
  if (segments.length !== 3 || segments[1] === '') return undefined;
  try {
    return { serverName: decodeURIComponent(uri.authority), resourceUri: decodeURIComponent(segments[1]) };
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
  base = base.replace(/[\u0000-\u001f]/g, '');
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
