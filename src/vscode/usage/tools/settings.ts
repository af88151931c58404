import * as vscode from 'vscode';
import type { Tool } from '../../../protocol/schemas';

const section = () => vscode.workspace.getConfiguration('mcpHost.tools');

/** How long a tool call may go without an answer or a progress notification, in ms. */
export function toolTimeoutMs(serverName: string): number {
  const perServer = section().get<Record<string, unknown>>('serverTimeoutSeconds', {}) ?? {};
  const own = perServer[serverName];
  const seconds = typeof own === 'number' && own > 0 ? own : section().get<number>('timeoutSeconds', 120);
  return Math.max(1, seconds) * 1000;
}

/** The upper bound of a call whose timeout is restarted by progress notifications, in ms. */
export function toolMaxTotalMs(serverName: string): number {
  return Math.max(toolTimeoutMs(serverName), Math.max(1, section().get<number>('maxTotalTimeoutSeconds', 3600)) * 1000);
}

export type ArgumentsInput = 'auto' | 'form' | 'quickInput';

export function argumentsInput(): ArgumentsInput {
  const value = section().get<string>('argumentsInput', 'auto');
  return value === 'form' || value === 'quickInput' ? value : 'auto';
}

/** A destructive tool (destructiveHint true, readOnlyHint not true) asks before it runs. */
export function isDestructive(tool: Tool): boolean {
  return tool.annotations?.destructiveHint === true && tool.annotations?.readOnlyHint !== true;
}

/** Entries of mcpHost.tools.trusted: "server" trusts all of a server's tools, "server/tool" one tool. */
export function isTrusted(serverName: string, toolName: string): boolean {
  const trusted = section().get<unknown[]>('trusted', []) ?? [];
  return trusted.some((entry) => typeof entry === 'string' && (entry === serverName || entry === `${serverName}/*` || entry === `${serverName}/${toolName}`));
}

export async function trust(entry: string): Promise<void> {
  const current = (section().get<unknown[]>('trusted', []) ?? []).filter((e): e is string => typeof e === 'string');
  if (current.includes(entry)) return;
  await section().update('trusted', [...current, entry], vscode.ConfigurationTarget.Global);
}
