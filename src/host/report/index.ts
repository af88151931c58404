// The server quality report of a running server: gathered from its connection, the same way in
// the editor (MCP Host: Server Report) and in the CLI (mcp-host report).
import { ServerNotRunningError, type ServerConnection } from '../serverConnection';
import { buildServerReport } from './build';
import type { ReportInput, ServerReport } from './model';
import { loadSchemaValidator } from './schemaValidity';

export type { Finding, ReportInput, ServerReport, Severity } from './model';
export { buildServerReport } from './build';
export { formatReportMarkdown, formatReportsMarkdown, type UnreportedServer } from './markdown';

/** What the report reads of a connection (ServerConnection has it all). */
export type ReportedConnection = Pick<ServerConnection, 'name' | 'state' | 'lists' | 'freshLists'>;

/** The input of a report, from a running connection and the others running beside it. */
export function reportInputOf(server: ReportedConnection, peers: readonly ReportedConnection[]): ReportInput {
  const state = server.state;
  if (state.kind !== 'running') throw new ServerNotRunningError(server.name, state.kind);
  const { tools, prompts, resources, resourceTemplates, errors } = server.lists;
  return {
    server: { name: server.name, serverInfo: state.serverInfo, protocolVersion: state.protocolVersion },
    lists: { tools, prompts, resources, resourceTemplates, errors },
    peers: peers.filter((peer) => peer !== server && peer.state.kind === 'running').map((peer) => ({ name: peer.name, tools: peer.lists.tools })),
  };
}

/** Brings the lists up to date (stale ones are fetched again), then makes the report. */
export async function reportOnServer(server: ReportedConnection, peers: readonly ReportedConnection[]): Promise<ServerReport> {
  await Promise.all([server.freshLists(), ...peers.filter((peer) => peer !== server).map((peer) => peer.freshLists(['tools']))]);
  return buildServerReport(reportInputOf(server, peers), loadSchemaValidator());
}
