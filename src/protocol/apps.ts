// MCP Apps (the extension `io.modelcontextprotocol/ui`, SEP-1865): the identifiers a client
// advertises and what a tool's `_meta.ui` says. Pure data, no I/O: the host floor
// (src/host/apps/) runs the views' protocol.
import type { Tool } from './schemas';
import { isRecord } from '../util/isRecord';

/** The extension's identifier in the `extensions` field of capabilities (both eras). */
export const MCP_APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';
/** The MIME type of an app's HTML resource. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The settings object a client advertises under MCP_APPS_EXTENSION_ID. */
export const MCP_APPS_CLIENT_SETTINGS = { mimeTypes: [MCP_APP_MIME_TYPE] };

/** Who may call a tool: the model (here: the person, through Run Tool) and/or its app. */
export type ToolVisibility = 'model' | 'app';

/** What a tool's `_meta.ui` says, normalised. */
export interface ToolUi {
  /** The `ui://` resource of its view, if it has one. */
  resourceUri?: string;
  /** Defaults to both ('model' and 'app') when the tool says nothing. */
  visibility: readonly ToolVisibility[];
}

const BOTH: readonly ToolVisibility[] = ['model', 'app'];

/**
 * A tool's `_meta.ui`: `resourceUri` (or the older flat key `_meta["ui/resourceUri"]`) and
 * `visibility`. Malformed values count as absent: a server's typo must not hide its tool.
 */
export function toolUi(tool: Pick<Tool, '_meta'>): ToolUi {
  const meta = tool._meta;
  const ui = isRecord(meta?.ui) ? meta.ui : undefined;
  const uri = typeof ui?.resourceUri === 'string' ? ui.resourceUri : typeof meta?.['ui/resourceUri'] === 'string' ? meta['ui/resourceUri'] : undefined;
  const listed = Array.isArray(ui?.visibility) ? ui.visibility.filter((v): v is ToolVisibility => v === 'model' || v === 'app') : undefined;
  const result: ToolUi = { visibility: listed && listed.length > 0 ? listed : BOTH };
  if (uri !== undefined && uri.startsWith('ui://')) result.resourceUri = uri;
  return result;
}

/** Whether running the tool shows a view. */
export function hasAppView(tool: Pick<Tool, '_meta'>): boolean {
  return toolUi(tool).resourceUri !== undefined;
}

/** Only its app may call it: hidden from Run Tool's picker. */
export function isAppOnly(tool: Pick<Tool, '_meta'>): boolean {
  return !toolUi(tool).visibility.includes('model');
}

/** Whether an app may call it (the default). */
export function isVisibleToApp(tool: Pick<Tool, '_meta'>): boolean {
  return toolUi(tool).visibility.includes('app');
}

