import * as vscode from 'vscode';
import type { ServerConnection } from '../../../host/serverConnection';
import type { Tool } from '../../../protocol/schemas';
import type { TreeNode } from '../../serverTree';

/** What `mcpHost.runTool` accepts besides a tree node: skips the pickers; with `arguments`, the form too. */
export interface RunToolRequest {
  server: string;
  tool: string;
  arguments?: Record<string, unknown>;
  /** Always open the form (even for flat schemas), with these values. */
  form?: boolean;
}

/** The tool a run is for, and how its arguments are to be had. */
export interface RunTarget {
  server: ServerConnection;
  tool: Tool;
  /** Arguments to start from (or to send as they are, when `programmatic`). */
  args?: Record<string, unknown>;
  /** Arguments given by a caller: sent without asking. */
  programmatic: boolean;
  /** Always ask with the form, even for flat schemas. */
  forceForm: boolean;
}

export type ToolNode = Extract<TreeNode, { kind: 'tool' }>;

export function isToolNode(arg: unknown): arg is ToolNode {
  return !!arg && typeof arg === 'object' && (arg as TreeNode).kind === 'tool' && 'server' in arg;
}

export function isRunToolRequest(arg: unknown): arg is RunToolRequest {
  return !!arg && typeof arg === 'object' && typeof (arg as RunToolRequest).server === 'string' && typeof (arg as RunToolRequest).tool === 'string';
}

/** The target of a caller's request; throws (for the caller) when the server or tool cannot be used. */
export function targetOfRequest(request: RunToolRequest, findServer: (name: string) => ServerConnection | undefined): RunTarget {
  const server = findServer(request.server);
  if (!server) throw new Error(vscode.l10n.t('MCP Host: no server named "{0}".', request.server));
  if (server.state.kind !== 'running') throw new Error(vscode.l10n.t('MCP Host: server "{0}" is not running ({1}).', server.name, server.state.kind));
  const tool = server.lists.tools.find((t) => t.name === request.tool);
  if (!tool) throw new Error(vscode.l10n.t('MCP Host: server "{0}" has no tool "{1}".', server.name, request.tool));
  const forceForm = request.form === true;
  return { server, tool, args: request.arguments, programmatic: request.arguments !== undefined && !forceForm, forceForm };
}
