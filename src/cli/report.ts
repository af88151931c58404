// `mcp-host report`: the server quality report of one server, or of every server of a config file
// (which then run together, so duplicate tool names across them are found). The servers run as
// ServerConnections, as in the editor, so the report is gathered the same way in both.
import { UsageError, eachArgument, readRunFlag, readServerOption, splitAtDashDash, type RunFlags, type ServerChoice } from './options';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatProblem, type ConfigSource, type InputDefinition, type ServerDefinition } from '../host/config';
import { ServerConnection, serverId, type ConnectionEnvironment } from '../host/serverConnection';
import { formatReportsMarkdown, reportOnServer, type ServerReport, type Severity, type UnreportedServer } from '../host/report';
import { VERSION } from '../version';
import { cliAuthorization } from './auth';
import { ExitCode, type CliIo } from './io';
import { serverNameFromCommand } from './names';
import { readConfigFile } from './configFile';
import { oneLine } from './failure';
import { serverLogger } from './serverLog';

export const REPORT_USAGE = `Usage: mcp-host report [--json] [--fail-on error|warning|info] ( -- CMD [ARGS...] | --config FILE [--server NAME] | --url URL )
  The server quality report as Markdown (--json: the report as JSON): tool count and the tokens
  their definitions cost (characters / 4), the largest tools, invalid schemas, tool names models
  reject, duplicate names, missing descriptions and annotations, with a grade.
  --config FILE without --server reports every server of the file, started together: duplicate
  tool names across them are findings (--json then prints {"reports": [...], "unreported": [...]}).
  --fail-on SEVERITY   exit 1 when a finding of that severity or worse is found
  Also: --header, --transport, --timeout, --era, --verbose, --no-token-store (as for list).
Exit status: 0 reported (whatever the findings, unless --fail-on); 1 --fail-on matched;
2 usage or config error; 3 a server could not be started (the others are still reported).`;


interface ReportOptions extends ServerChoice, RunFlags {
  failOn?: Severity;
  serverCommand: string[];
}

const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

function parseReportArgs(argv: readonly string[]): ReportOptions | 'help' {
  const { own, serverCommand } = splitAtDashDash(argv);
  const options: ReportOptions = { json: false, verbose: false, timeoutMs: 60_000, headers: {}, tokenStore: true, serverCommand };
  for (const { arg, value } of eachArgument(own)) {
    switch (arg) {
      case '--fail-on': {
        const v = value();
        if (!SEVERITIES.includes(v as Severity)) throw new UsageError(`--fail-on is error, warning or info, not ${JSON.stringify(v)}`);
        options.failOn = v as Severity;
        break;
      }
      case '-h':
      case '--help':
        return 'help';
      default:
        if (readServerOption(arg, value, options) || readRunFlag(arg, options)) break;
        throw new UsageError(arg.startsWith('-') ? `unknown option ${arg}` : `unexpected argument ${JSON.stringify(arg)} (put the server command after --)`);
    }
  }
  const ways = [options.configFile !== undefined || options.serverName !== undefined, options.serverCommand.length > 0, options.url !== undefined].filter(Boolean).length;
  if (ways === 0) throw new UsageError('no server: add -- CMD [ARGS...], --url URL, or --config FILE [--server NAME]');
  if (ways > 1) throw new UsageError('give one server: --config FILE [--server NAME], --url URL, or -- CMD');
  if (options.serverName !== undefined && options.configFile === undefined) throw new UsageError('--server NAME needs --config FILE');
  if (options.serverCommand.length > 0 && (Object.keys(options.headers).length > 0 || options.transport)) {
    throw new UsageError('--header and --transport are for remote servers (--url, or a config entry with "url")');
  }
  return options;
}

/** The servers to report on, as definitions (what the editor gets from its configuration). */
interface Targets {
  servers: ServerDefinition[];
  inputs: readonly InputDefinition[];
  /** Config entries that cannot be started at all. */
  unreported: UnreportedServer[];
}

function commandLineSource(io: CliIo): ConfigSource {
  return { file: '(command line)', kind: 'import', workspaceFolder: io.cwd };
}

function targetsOf(options: ReportOptions, io: CliIo): Targets {
  if (options.serverCommand.length > 0) {
    const [command, ...args] = options.serverCommand;
    const name = serverNameFromCommand(command, args);
    return { servers: [{ type: 'stdio', name, command, args, env: {}, source: commandLineSource(io), protocolEra: options.era }], inputs: [], unreported: [] };
  }
  if (options.url !== undefined) {
    const name = new URL(options.url).host;
    return { servers: [{ type: options.transport ?? 'http', name, url: options.url, headers: options.headers, source: commandLineSource(io), protocolEra: options.era }], inputs: [], unreported: [] };
  }
  const { absolute, parsed } = readConfigFile(options.configFile!, io);
  const adjusted = parsed.servers.map((def): ServerDefinition => {
    const era = options.era ?? def.protocolEra;
    return def.type === 'stdio' ? { ...def, protocolEra: era } : { ...def, type: options.transport ?? def.type, headers: { ...def.headers, ...options.headers }, protocolEra: era };
  });
  if (options.serverName !== undefined) {
    const server = adjusted.find((s) => s.name === options.serverName);
    if (!server) {
      const problem = parsed.problems.find((p) => p.server === options.serverName) ?? parsed.problems.find((p) => p.server === undefined);
      if (problem) throw new UsageError(formatProblem(problem));
      const names = adjusted.map((s) => s.name);
      throw new UsageError(`no server named ${JSON.stringify(options.serverName)} in ${absolute}${names.length ? ` (it has: ${names.join(', ')})` : ''}`);
    }
    return { servers: [server], inputs: parsed.inputs, unreported: [] };
  }
  const fileProblem = parsed.problems.find((p) => p.server === undefined);
  if (adjusted.length === 0) throw new UsageError(fileProblem ? formatProblem(fileProblem) : `${absolute} defines no servers`);
  const unreported = parsed.problems.filter((p) => p.server !== undefined).map((p) => ({ name: p.server!, reason: formatProblem(p) }));
  return { servers: adjusted, inputs: parsed.inputs, unreported };
}

/** A connection for the CLI: no restarts (each server starts once), roots = the folder of the run. */
function cliConnection(def: ServerDefinition, inputs: readonly InputDefinition[], options: ReportOptions, io: CliIo): ServerConnection {
  const rootDir = def.type === 'stdio' ? (def.source.workspaceFolder ?? io.cwd) : io.cwd;
  const env: ConnectionEnvironment = {
    clientInfo: { name: 'mcp-host-cli', version: VERSION },
    logger: serverLogger(def.name, options.verbose, io),
    traceEnabled: () => false,
    requestTimeoutMs: () => options.timeoutMs,
    serverLogLevel: () => undefined,
    inputs: () => inputs,
    handlers: { listRoots: () => [{ uri: pathToFileURL(rootDir).href, name: path.basename(rootDir) }] },
    processEnv: io.env,
    shutdown: { closeStdinGraceMs: 500, sigtermGraceMs: 1000 },
    authorization: ({ name, url, staticClient }) => cliAuthorization({ serverName: name, url, staticClient, persist: options.tokenStore, io }),
    // A report run starts each server once: a crash is reported, not retried.
    schedule: () => ({ dispose() {} }),
  };
  return new ServerConnection(def, serverId(def), def.name, def.source, env);
}

/** Why a connection is not running, as a person reads it (already redacted by the connection). */
function notRunningReason(connection: ServerConnection): string {
  const state = connection.state;
  if (state.kind === 'needs-sign-in') return `${state.message} Run mcp-host in a terminal to sign in (or set MCP_HOST_SIGN_IN=1).`;
  if (state.kind === 'error') return state.message;
  if (state.kind === 'stopped' && state.reason) return state.reason;
  return `it is ${state.kind}`;
}

function meetsFailOn(reports: readonly ServerReport[], failOn: Severity | undefined): boolean {
  if (!failOn) return false;
  const worst = SEVERITIES.slice(0, SEVERITIES.indexOf(failOn) + 1);
  return reports.some((r) => r.findings.some((f) => worst.includes(f.severity)));
}

export async function runReport(argv: readonly string[], io: CliIo): Promise<number> {
  let options: ReportOptions;
  let targets: Targets;
  try {
    const parsed = parseReportArgs(argv);
    if (parsed === 'help') {
      io.stdout(`${REPORT_USAGE}\n`);
      return ExitCode.Ok;
    }
    options = parsed;
    targets = targetsOf(options, io);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`mcp-host report: ${err.message}; see 'mcp-host report --help'\n`);
    return ExitCode.Usage;
  }
  const connections = targets.servers.map((def) => cliConnection(def, targets.inputs, options, io));
  let interrupted = false;
  io.onInterrupt?.(() => {
    interrupted = true;
    io.stderr('mcp-host: interrupted; stopping the servers\n');
    for (const connection of connections) void connection.stop('interrupted');
  });
  try {
    // Together, as they would run in an editor: each one's report names the others' tool names.
    await Promise.all(connections.map((c) => (io.interactive && c.canSignIn ? c.signIn() : c.start())));
    if (interrupted) return ExitCode.Interrupted;
    const running = connections.filter((c) => c.state.kind === 'running');
    const reports = await Promise.all(running.map((c) => reportOnServer(c, running)));
    const unreported = [...targets.unreported, ...connections.filter((c) => c.state.kind !== 'running').map((c) => ({ name: c.name, reason: notRunningReason(c) }))];
    for (const u of unreported) io.stderr(`mcp-host: server '${u.name}' was not reported on: ${oneLine(u.reason)}\n`);
    const several = options.configFile !== undefined && options.serverName === undefined;
    // Server names and failure reasons come from configuration: no secret of any server rides along.
    const redact = (text: string) => connections.reduce((out, c) => c.redact(out), text);
    if (reports.length > 0 || several) {
      if (options.json) io.stdout(redact(`${JSON.stringify(several ? { reports, unreported } : reports[0], null, 2)}\n`));
      else io.stdout(redact(formatReportsMarkdown(reports, several ? unreported : [])));
    }
    if (unreported.length > 0) return ExitCode.ServerFailed;
    return meetsFailOn(reports, options.failOn) ? ExitCode.ToolError : ExitCode.Ok;
  } finally {
    await Promise.all(connections.map((c) => c.stop('the report is done')));
    for (const connection of connections) connection.dispose();
  }
}
