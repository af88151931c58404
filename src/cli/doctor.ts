// `mcp-host doctor`: the checklist of one server, or of every server of a config file, with a
// verdict and a fix for each failed line (src/host/doctor does the checking).
import * as fs from 'node:fs';
import { UsageError, eachArgument, readServerOption, splitAtDashDash, type ServerChoice } from './options';
import * as path from 'node:path';
import { parseConfigText, type ConfigSource, type ServerDefinition } from '../host/config';
import { diagnoseServer, formatReportText, type DoctorEnvironment, type DoctorReport, type DoctorSubject } from '../host/doctor';
import { readLoginShellPath } from '../host/doctor/commandLookup';
import { VERSION } from '../version';
import { cliAuthorization } from './auth';
import { ExitCode, type CliIo } from './io';
import { serverNameFromCommand } from './names';
import { displayUrl } from '../util/displayUrl';

export const DOCTOR_USAGE = `Usage: mcp-host doctor [--config FILE] [--server NAME] [--json] [--timeout MS]
       mcp-host doctor [--json] -- CMD [ARGS...]
       mcp-host doctor [--json] --url URL [--header "Name: value"] [--transport http|sse]
  Checks a server step by step and prints a checklist (✔ passed, ✖ failed, ⚠ warning, – skipped)
  with a fix for each failed line: the configuration entry; the variables it uses (\${env:},
  \${input:}: whether they have a value, never the value); the command (where on PATH, and whether
  your login shell's PATH has it when the PATH here does not); npx/uvx and which package version
  they would run; cwd; envFile; for remote servers DNS, TLS and authentication (whether a token is
  held); then a dry handshake (era, protocol version, capabilities, first stderr lines, time;
  a remote server is always probed afresh, whatever earlier runs remembered).
  Without --server, every server of the file; without --config, .vscode/mcp.json of this folder.
  --json         the reports as JSON: {"verdict": …, "servers": [{server, source, transport,
                 checks: [{id, title, status, detail, fix?}], verdict, summary}]}
  --timeout MS   how long the handshake and each network check may take (default 15000)
  --era auto|modern|legacy   the protocol era of the handshake (default: each entry's protocolEra)
Exit status: 0 no check failed (warnings allowed); 2 usage error (no such file or server);
3 a check failed for at least one server.`;


/** `era`: the era of the dry handshake, instead of each entry's protocolEra. */
interface DoctorOptions extends ServerChoice {
  json: boolean;
  serverCommand: string[];
}

function parseDoctorArgs(argv: string[]): DoctorOptions | 'help' {
  const { own, serverCommand } = splitAtDashDash(argv);
  const options: DoctorOptions = { json: false, timeoutMs: 15_000, headers: {}, serverCommand };
  for (const { arg, value } of eachArgument(own)) {
    switch (arg) {
      case '--json':
        options.json = true;
        break;
      case '-h':
      case '--help':
        return 'help';
      default:
        if (readServerOption(arg, value, options)) break;
        throw new UsageError(arg.startsWith('-') ? `unknown option ${arg}` : `unexpected argument ${JSON.stringify(arg)} (put a server command after --)`);
    }
  }
  const ways = [options.configFile !== undefined || options.serverName !== undefined, options.url !== undefined, options.serverCommand.length > 0].filter(Boolean).length;
  if (ways > 1) throw new UsageError('give one of --config FILE [--server NAME], --url URL, or -- CMD');
  if (options.serverCommand.length > 0 && (Object.keys(options.headers).length > 0 || options.transport)) {
    throw new UsageError('--header and --transport are for remote servers (--url)');
  }
  return options;
}

const COMMAND_LINE_SOURCE = (io: CliIo): ConfigSource => ({ file: '(command line)', kind: 'import', workspaceFolder: io.cwd });

/** The servers to check: from the command line, or every (or one) server of a config file, with its problems. */
function subjectsOf(options: DoctorOptions, io: CliIo): { subjects: DoctorSubject[]; inputsByFile: Map<string, ReturnType<typeof parseConfigText>['inputs']> } {
  const inputsByFile = new Map<string, ReturnType<typeof parseConfigText>['inputs']>();
  if (options.url !== undefined) {
    const source = COMMAND_LINE_SOURCE(io);
    const definition: ServerDefinition = { type: options.transport ?? 'http', name: new URL(options.url).host, url: options.url, headers: options.headers, source };
    return { subjects: [{ name: definition.name, source, definition }], inputsByFile };
  }
  if (options.serverCommand.length > 0) {
    const [command, ...args] = options.serverCommand;
    const source = COMMAND_LINE_SOURCE(io);
    const definition: ServerDefinition = { type: 'stdio', name: serverNameFromCommand(command, args), command, args, env: {}, source };
    return { subjects: [{ name: definition.name, source, definition }], inputsByFile };
  }
  const file = options.configFile ?? path.join('.vscode', 'mcp.json');
  const absolute = path.resolve(io.cwd, file);
  let text: string;
  try {
    text = fs.readFileSync(absolute, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new UsageError(
      options.configFile === undefined ? `no --config FILE given and ${absolute} cannot be read (${code})` : `cannot read config file ${absolute}: ${code}`,
    );
  }
  // As `list --config`: the file is taken to sit in <folder>/.vscode/, so ${workspaceFolder} is <folder>.
  const source: ConfigSource = { file: absolute, kind: 'import', workspaceFolder: path.dirname(path.dirname(absolute)) };
  const parsed = parseConfigText(text, source);
  inputsByFile.set(absolute, parsed.inputs);
  const subjects: DoctorSubject[] = parsed.servers.map((definition) => ({ name: definition.name, source, definition }));
  for (const problem of parsed.problems) {
    const subject = { name: problem.server ?? path.basename(absolute), source, problem: { message: problem.message, field: problem.field, line: problem.line } };
    if (problem.server === undefined || !subjects.some((s) => s.name === problem.server)) subjects.push(subject);
  }
  if (options.serverName === undefined) {
    if (subjects.length === 0) throw new UsageError(`${absolute} defines no servers`);
    return { subjects, inputsByFile };
  }
  const chosen = subjects.filter((s) => s.name === options.serverName);
  if (chosen.length === 0) {
    const names = subjects.map((s) => s.name);
    throw new UsageError(`no server named ${JSON.stringify(options.serverName)} in ${absolute}${names.length ? ` (it has: ${names.join(', ')})` : ''}`);
  }
  return { subjects: chosen, inputsByFile };
}

/** The CLI's side of the doctor: its environment, no stored inputs, tokens in the CLI's token file. */
function cliDoctorEnvironment(subject: DoctorSubject, options: DoctorOptions, io: CliIo, inputsByFile: ReadonlyMap<string, DoctorEnvironment['inputs']>, loginShellPath: () => Promise<string | undefined>): DoctorEnvironment {
  const file = subject.source.file;
  const how = options.url !== undefined ? `--url ${JSON.stringify(displayUrl(options.url))}` : options.configFile !== undefined || file !== '(command line)' ? `--config ${JSON.stringify(path.relative(io.cwd, file) || file)} --server ${JSON.stringify(subject.name)}` : '';
  return {
    processEnv: io.env,
    defaultCwd: io.cwd,
    inputs: inputsByFile.get(file) ?? [],
    // The CLI keeps no input values and cannot ask for them.
    storedInput: () => Promise.resolve(undefined),
    missingInputHint: 'The CLI cannot ask for ${input:} values: use the server in VS Code (MCP Host asks once and keeps the value), or use ${env:NAME} instead.',
    authorization: (server) => cliAuthorization({ serverName: server.name, url: server.url, staticClient: server.staticClient, persist: true, io: { ...io, interactive: false } }),
    signInHint: () => `Sign in from a terminal: mcp-host list ${how} (it prints the address to open in a browser and keeps the token), or use Sign In in VS Code.`,
    clientInfo: { name: 'mcp-host-doctor', version: VERSION },
    timeoutMs: options.timeoutMs,
    loginShellPath,
  };
}

export async function runDoctor(argv: string[], io: CliIo): Promise<number> {
  let options: DoctorOptions;
  let subjects: DoctorSubject[];
  let inputsByFile: Map<string, DoctorEnvironment['inputs']>;
  try {
    const parsed = parseDoctorArgs(argv);
    if (parsed === 'help') {
      io.stdout(`${DOCTOR_USAGE}\n`);
      return ExitCode.Ok;
    }
    options = parsed;
    ({ subjects, inputsByFile } = subjectsOf(options, io));
    const era = options.era;
    if (era) subjects = subjects.map((subject) => (subject.definition ? { ...subject, definition: { ...subject.definition, protocolEra: era } } : subject));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`mcp-host doctor: ${err.message}; see 'mcp-host doctor --help'\n`);
    return ExitCode.Usage;
  }
  // The login shell is asked at most once per run, whatever the number of servers.
  let loginPath: Promise<string | undefined> | undefined;
  const loginShellPath = () => (loginPath ??= readLoginShellPath(io.env));
  const reports: DoctorReport[] = [];
  // One server at a time: their handshakes start processes, and the output follows the file's order.
  for (const subject of subjects) {
    const report = await diagnoseServer(subject, cliDoctorEnvironment(subject, options, io, inputsByFile, loginShellPath));
    reports.push(report);
    if (!options.json) io.stdout(`${reports.length > 1 ? '\n' : ''}${formatReportText(report)}`);
  }
  const verdict = reports.some((r) => r.verdict === 'fail') ? 'fail' : reports.some((r) => r.verdict === 'warn') ? 'warn' : 'pass';
  if (options.json) {
    io.stdout(`${JSON.stringify({ verdict, servers: reports }, null, 2)}\n`);
  } else if (reports.length > 1) {
    const count = (v: DoctorReport['verdict']) => reports.filter((r) => r.verdict === v).length;
    io.stdout(`\n${reports.length} servers: ${count('pass')} healthy, ${count('warn')} with warnings, ${count('fail')} failing.\n`);
  }
  return verdict === 'fail' ? ExitCode.ServerFailed : ExitCode.Ok;
}
