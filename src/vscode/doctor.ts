// MCP Host: Diagnose Server…: the doctor's checklist of one server (host/doctor), opened as a
// Markdown preview named after the server. Offered on every server's menu, inline on a server in
// the error state, and by a click on that row.
import * as vscode from 'vscode';
import type { DoctorCheck, DoctorEnvironment, DoctorReport, DoctorSubject } from '../host/doctor';
import { loadInspect } from '../host/loadInspect';
import type { ServerConnection } from '../host/serverConnection';
import { errorMessage } from '../util/errorMessage';
import { VERSION } from '../version';
import { Commands } from './commandIds';
import { pickServer } from './commands';
import type { HostController } from './hostController';
import { startVeto } from './configLoader';
import { MarkdownDocuments } from './markdownDocuments';
import { createServerAuthorization } from './signIn';

/** The scheme of the diagnosis documents: read-only, made from memory. */
export const DOCTOR_SCHEME = 'mcp-host-doctor';

/** The longest the handshake and each network check may take, whatever the request timeout. */
const DOCTOR_TIMEOUT_CAP_MS = 20_000;

/** What the command returns (for tests and other extensions): the document and the report. */
export interface DiagnoseResult {
  readonly uri: string;
  readonly report: DoctorReport;
}

export function registerDoctor(controller: HostController, context: vscode.ExtensionContext): vscode.Disposable[] {
  const documents = new MarkdownDocuments(DOCTOR_SCHEME);
  const command = vscode.commands.registerCommand(Commands.diagnoseServer, async (arg?: unknown): Promise<DiagnoseResult | undefined> => {
    const server = await pickServer(controller, arg, vscode.l10n.t('Diagnose which server?'));
    if (!server) return undefined;
    let report: DoctorReport;
    try {
      report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('MCP Host: diagnosing "{0}"…', server.name) }, () =>
        loadInspect().diagnoseServer(subjectOf(server, controller), doctorEnvironment(server, controller, context)),
      );
    } catch (err) {
      void vscode.window.showErrorMessage(vscode.l10n.t('MCP Host: "{0}" could not be diagnosed: {1}', server.name, server.redact(errorMessage(err))));
      return undefined;
    }
    // The report is redacted by the doctor; the server's own redactor also knows the values of its last start.
    const uri = await documents.show(vscode.l10n.t('Diagnosis of {0}', server.name), server.redact(loadInspect().formatDiagnosisMarkdown(report)));
    return { uri: uri.toString(), report };
  });
  return [documents, command];
}

/** The server as its configuration gave it: its definition, or the problem that kept one from being read. */
function subjectOf(server: ServerConnection, controller: HostController): DoctorSubject {
  return {
    name: server.name,
    source: server.source,
    definition: server.definition,
    problem: server.problem !== undefined ? { message: server.problem } : undefined,
    unappliedFile: controller.unappliedProblem(server.source.file),
  };
}

/** The editor's side of the doctor: inputs and tokens in SecretStorage (asked whether held, never shown). */
function doctorEnvironment(server: ServerConnection, controller: HostController, context: vscode.ExtensionContext): DoctorEnvironment {
  const file = server.source.file;
  const requestTimeoutMs = Math.max(1, vscode.workspace.getConfiguration('mcpHost').get<number>('requestTimeoutSeconds', 60)) * 1000;
  let loginPath: Promise<string | undefined> | undefined;
  return {
    processEnv: process.env,
    defaultCwd: server.source.workspaceFolder,
    inputs: controller.declaredInputs.filter((d) => d.file === file).map((d) => d.input),
    storedInput: async (input) => context.secrets.get(controller.inputKey(file, input.id)),
    missingInputHint: vscode.l10n.t('Start the server: MCP Host asks for the value once and keeps it in its secret storage (MCP Host: Change a Stored Input Value… changes it).'),
    authorization: (s) => createServerAuthorization(context.secrets, s, server.logger),
    signInHint: (name) => vscode.l10n.t('Use Sign In on "{0}" in the MCP Servers view (or run MCP Host: Sign In to Server).', name),
    clientInfo: { name: 'mcp-host-vscode-doctor', title: 'MCP Host for VS Code (doctor)', version: VERSION },
    timeoutMs: Math.min(requestTimeoutMs, DOCTOR_TIMEOUT_CAP_MS),
    loginShellPath: () => (loginPath ??= loadInspect().readLoginShellPath(process.env)),
    runningSession: () => runningSession(server),
    untrusted: startVeto(server.source),
  };
}

/** A running server's handshake, from its state: the doctor does not start a second copy of it. */
function runningSession(server: ServerConnection): DoctorCheck | undefined {
  const state = server.state;
  if (state.kind !== 'running') return undefined;
  const caps = Object.keys(state.capabilities);
  const detail =
    `Running now (so no second copy was started): ${state.serverInfo.name} ${state.serverInfo.version}, protocol ${state.protocolVersion} (${state.era} era). ` +
    `Capabilities: ${caps.length ? caps.join(', ') : 'none'}. Its log (Show Server Logs) has what it wrote on stderr.`;
  const learned = server.learnedProtocolEra;
  if (learned) {
    // As the CLI's doctor says after its own restart (src/host/doctor/handshake.ts).
    return {
      id: 'handshake',
      title: 'Handshake',
      status: 'warn',
      detail: `${detail} It ended its process when probed with server/discover (the 2026-07-28 era probe) and was started again as ${learned}.`,
      fix: `Add "protocolEra": "${learned}" to the server in ${server.source.file}: it starts once, without the probe.`,
    };
  }
  return { id: 'handshake', title: 'Handshake', status: 'pass', detail };
}
