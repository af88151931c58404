// MCP Host: Server Report: the quality report of a running server (host/report), opened as a
// Markdown preview of a read-only document. Duplicate tool names are checked against every other
// server running in this window: a model is given all their tools together.
import * as vscode from 'vscode';
import { loadInspect } from '../host/loadInspect';
import type { HostController } from './hostController';
import { pickServer } from './commands';
import { Commands } from './commandIds';
import { MarkdownDocuments } from './markdownDocuments';
import { errorMessage } from '../util/errorMessage';

/** The scheme of the report documents: read-only, made from memory. */
export const REPORT_SCHEME = 'mcp-host-report';

export function registerServerReport(controller: HostController): vscode.Disposable[] {
  const documents = new MarkdownDocuments(REPORT_SCHEME);
  const command = vscode.commands.registerCommand(Commands.serverReport, async (arg?: unknown): Promise<string | undefined> => {
    const server = await pickServer(controller, arg, vscode.l10n.t('Report on which running server?'), (s) => s.state.kind === 'running');
    if (!server) return undefined;
    if (server.state.kind !== 'running') {
      void vscode.window.showInformationMessage(vscode.l10n.t('MCP Host: "{0}" is not running; start it to see its report.', server.name));
      return undefined;
    }
    let markdown: string;
    try {
      const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('MCP Host: checking "{0}"…', server.name) }, () =>
        loadInspect().reportOnServer(server, controller.registry.servers),
      );
      // Names of servers come from configuration: nothing secret may ride along.
      markdown = server.redact(loadInspect().formatServerReportMarkdown(report));
    } catch (err) {
      void vscode.window.showErrorMessage(vscode.l10n.t('MCP Host: the report of "{0}" could not be made: {1}', server.name, server.redact(errorMessage(err))));
      return undefined;
    }
    // One document per server, named after it (the preview's title); a new report replaces it.
    const uri = await documents.show(`${server.name} (server report)`, markdown);
    return uri.toString();
  });
  return [documents, command];
}
