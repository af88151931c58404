import * as vscode from 'vscode';
import type { ServerConnection } from '../../../host/serverConnection';
import type { Tool } from '../../../protocol/schemas';
import { errorMessage } from '../../../util/errorMessage';
import { Commands } from '../../commandIds';
import type { RunToolRequest } from './request';
import { resourceView, toolResultModel } from './resultModel';
import { ResultViews } from './resultView';
import { toolLabel, type FinishedCall, type ToolCalls } from './runner';

/** The result views, wired to what their pages ask for: following a link, running the tool again. */
export function createResultViews(findServer: (name: string) => ServerConnection | undefined, calls: ToolCalls): ResultViews {
  const views: ResultViews = new ResultViews({
    openLink: (serverName, uri) => openLink(views, findServer, calls, serverName, uri),
    runAgain: async (serverName, toolName, args) => {
      await vscode.commands.executeCommand(Commands.runTool, { server: serverName, tool: toolName, arguments: args, form: true } satisfies RunToolRequest);
    },
  });
  return views;
}

/** Shows a finished call in its tool's view; a failure (not a cancel) is a notification too. */
export async function showCallResult(views: ResultViews, server: ServerConnection, tool: Tool, finished: FinishedCall): Promise<void> {
  const { record, outcome } = finished;
  const model = await toolResultModel(record, outcome);
  views.show(`tool\u0000${server.id}\u0000${tool.name}`, `${toolLabel(tool)} — ${server.name}`, { model, result: 'result' in outcome ? outcome.result : undefined, args: record.args });
  if ('error' in outcome && !outcome.cancelled) {
    void vscode.window.showErrorMessage(vscode.l10n.t('MCP Host: "{0}" on "{1}" failed: {2}', tool.name, server.name, server.redact(outcome.error)));
  }
}

/** A link in a result: web and mail addresses open outside; anything else is read from the server. */
async function openLink(views: ResultViews, findServer: (name: string) => ServerConnection | undefined, calls: ToolCalls, serverName: string, uri: string): Promise<void> {
  if (/^(https?|mailto):/i.test(uri)) {
    await vscode.env.openExternal(vscode.Uri.parse(uri));
    return;
  }
  const server = findServer(serverName);
  if (!server || server.state.kind !== 'running') {
    void vscode.window.showErrorMessage(vscode.l10n.t('MCP Host: cannot read {0}: server "{1}" is not running.', uri, serverName));
    return;
  }
  await showLinkedResource(views, calls, server, uri);
}

async function showLinkedResource(views: ResultViews, calls: ToolCalls, server: ServerConnection, uri: string): Promise<void> {
  const started = Date.now();
  try {
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Reading {0}', uri) }, () => server.readResource(uri));
    const model = {
      runId: calls.nextRunId(),
      tool: 'resources/read',
      server: server.name,
      argumentsJson: JSON.stringify({ uri }),
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      status: 'ok' as const,
      blocks: result.contents.map(resourceView),
      resourceUri: uri,
      rawJsonBytes: Buffer.byteLength(JSON.stringify(result)),
    };
    views.show(`resource\u0000${server.id}\u0000${uri}`, `${uri.split('/').pop() || uri} — ${server.name}`, { model, result });
  } catch (err) {
    void vscode.window.showErrorMessage(vscode.l10n.t('MCP Host: reading {0} from "{1}" failed: {2}', uri, server.name, server.redact(errorMessage(err))));
  }
}
