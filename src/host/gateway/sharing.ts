// Which servers the editor offers its chat agent, and which tools a person disabled: the settings
// read the same way in the editor and in tests.
import * as path from 'node:path';
import type { ConfigSource } from '../config';

/** `mcpHost.share`: "none" (default), "all", or the names of the servers to share. */
export type ShareSetting = 'none' | 'all' | readonly string[];

export function readShareSetting(value: unknown): ShareSetting {
  if (value === 'all') return 'all';
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return 'none';
}

/** A server of a workspace's `.vscode/mcp.json`: VS Code runs its own copy of it for the chat. */
export function definedByVsCode(source: ConfigSource): boolean {
  return source.kind === 'workspace' && path.basename(source.file) === 'mcp.json' && path.basename(path.dirname(source.file)) === '.vscode';
}

export type ShareDecision = 'shared' | 'not-shared' | 'defined-by-vscode';

/**
 * Nothing is shared unless the person chose it; "all" leaves out the servers VS Code already
 * defines (it would start them a second time), a name in the list shares even those.
 */
export function shareDecision(setting: ShareSetting, server: { name: string; source: ConfigSource }): ShareDecision {
  if (setting === 'none') return 'not-shared';
  if (setting === 'all') return definedByVsCode(server.source) ? 'defined-by-vscode' : 'shared';
  return setting.includes(server.name) ? 'shared' : 'not-shared';
}

/** `mcpHost.tools.disabled`: "server" disables every tool of a server, "server/tool" one tool. */
export function isToolDisabled(setting: unknown, server: string, tool: string): boolean {
  if (!Array.isArray(setting)) return false;
  return setting.some((entry) => entry === server || entry === `${server}/${tool}`);
}
