import * as fs from 'node:fs';
import { UsageError, eachArgument, readServerOption, splitAtDashDash, type ServerChoice } from './options';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpClient } from '../protocol/client';
import { McpError, RemoteError, describeClose } from '../protocol/errors';
import { parseConfigText, formatProblem, type ParsedConfig, type ServerDefinition } from '../host/config';
import { createTransport, describeLaunch, type LaunchSpec } from '../host/transportFactory';
import { Redactor, definitionSecrets, launchSecrets } from '../host/redact';
import { cliAuthorization } from './auth';
import { AuthorizationRequiredError } from '../auth/types';
import { findCause } from '../util/errorCause';
import { errorMessage } from '../util/errorMessage';
import { formatListing, formatPromptResult, formatReadResult, formatToolResult } from './format';
import { serverNameFromCommand, unknownNameHint } from './names';
import { VERSION } from '../version';
import { LoggingLevels, type LoggingLevel, type LoggingMessageParams, type Prompt, type Resource, type ResourceTemplate, type Tool } from '../protocol/schemas';
import { ClosedOnEraProbeError, MissingClientCapabilityError, type ProtocolEraSetting } from '../protocol/era';
import { InputNotOfferedError } from '../protocol/mrtr';
import { TaskInterrupt, callToolTask, callsAsTask } from './taskRun';
import { TraceFile } from './trace';
import { ExitCode, type CliIo } from './io';
import { checkOutput, describeOutputCheck, findTool } from './outputCheck';
import { displayConfigUrl } from '../util/displayUrl';

export { ExitCode, type CliIo };

/** --help: the usage goes to stdout and the run succeeds. */
class HelpRequested extends Error {}

const USAGE = `Usage:
  mcp-host list [--json] -- CMD [ARGS...]                 the server's tools (with their arguments),
                                                          resources, templates, prompts and instructions
  mcp-host call TOOL [--args JSON] [--json] [--task] -- CMD [ARGS...]
  mcp-host read URI [--json] -- CMD [ARGS...]
  mcp-host prompt NAME [--args JSON] [--json] -- CMD [ARGS...]
  mcp-host --config FILE                                  the servers a config file defines
  mcp-host report [--json] [--fail-on error|warning|info] -- CMD [ARGS...]
                                                          the server quality report (Markdown): tools,
                                                          tokens, schemas, names, descriptions, a grade;
                                                          --config FILE without --server: every server
                                                          of the file, duplicate names across them
                                                          (mcp-host report --help)
  mcp-host doctor [--config FILE] [--server NAME] [--json]
                                                          a checklist of what keeps a server from
                                                          starting, with a fix for each failed line;
                                                          every server of the file without --server
                                                          (also -- CMD, --url URL; mcp-host doctor --help)
  mcp-host search [QUERY] [--registry URL] [--json]
                                                          servers of an MCP registry (default the
                                                          official one; mcp-host search --help)
  mcp-host add NAME[@VERSION] [--registry URL] [--config FILE]
                                                          writes a registry server's entry into
                                                          mcp.json, version pinned, secrets as
                                                          \${input:} (mcp-host add --help)
  mcp-host list --registry NAME[@VERSION]                 tries a registry server without adding it
                                                          (secrets from the environment)
  mcp-host serve --config FILE [--server NAME]... [--port N] [--token T|--token-file F]
                                                          share the servers with other MCP clients over
                                                          loopback HTTP (mcp-host serve --help)
  mcp-host conformance SERVER_URL   (the client of the official MCP conformance suite)
  mcp-host --help

Instead of "-- CMD [ARGS...]":
  --config FILE --server NAME   a server of a VS Code mcp.json or an mcpServers file (stdio or http)
  --url URL                     a remote server (Streamable HTTP, falling back to HTTP+SSE)
Remote servers:
  --header "Name: value"        an HTTP header for every request (repeatable)
  --transport http|sse          http (default: Streamable HTTP, then HTTP+SSE) or sse (HTTP+SSE only)
  --no-token-store              keep OAuth tokens in memory only
  A server that needs OAuth sign-in gets a URL printed to open in a browser; tokens are kept in an
  owner-only file (MCP_HOST_TOKEN_FILE, default ~/.config/mcp-host/oauth-tokens.json).
Options:
  --timeout MS   timeout of every request (default 60000)
  --era auto|modern|legacy   the protocol era: auto (default) asks with server/discover and falls
                 back to initialize; modern (2026-07-28) or legacy (initialize) skip that probe
  --verbose      show the server's stderr and its log messages (notifications/message), prefixed
                 with its name
  --log-level LEVEL   ask the server for log messages from LEVEL up (logging/setLevel: debug, info,
                 notice, warning, error, critical, alert, emergency) and show them on stderr
  --trace FILE   write every protocol message, both directions, to FILE as JSON Lines (the
                 traffic view's export format; secrets redacted)
  --args JSON    the tool's arguments, or the prompt's (a JSON object)
  --json         print the protocol result as JSON
  --task         run a tool that allows tasks as a task (one that requires them always is): its
                 status goes to stderr, Ctrl-C cancels it
Exit status: 0 ok; 1 the server answered with an error (a tool's isError, an unknown tool, prompt or
resource); 2 usage or config error; 3 the server failed (could not start, crashed, timed out).
list: 0 also when the server refuses some of its lists (each named on stderr and in --json "errors").
doctor: 0 no check failed (warnings allowed); 2 usage error; 3 a check failed for some server.`;

type Command = 'list' | 'call' | 'read' | 'prompt' | 'servers';
const COMMANDS: readonly string[] = ['list', 'call', 'read', 'prompt'];

interface Options extends ServerChoice {
  command: Command;
  target?: string;
  json: boolean;
  verbose: boolean;
  toolArgs: Record<string, unknown>;
  serverCommand: string[];
  tokenStore: boolean;
  task: boolean;
  /** --trace FILE: the protocol messages as JSON Lines. */
  traceFile?: string;
  /** --log-level: sent with logging/setLevel; the server's log messages are then shown. */
  logLevel?: LoggingLevel;
}

function parseArgs(argv: string[]): Options {
  const { own, serverCommand } = splitAtDashDash(argv);
  const positional: string[] = [];
  const options: Omit<Options, 'command'> & { command?: Options['command'] } = {
    json: false,
    verbose: false,
    timeoutMs: 60_000,
    toolArgs: {},
    serverCommand,
    headers: {},
    tokenStore: true,
    task: false,
  };
  for (const { arg, value } of eachArgument(own)) {
    switch (arg) {
      case '--task':
        options.task = true;
        break;
      case '--json':
        options.json = true;
        break;
      case '--verbose':
        options.verbose = true;
        break;
      case '--trace':
        options.traceFile = value();
        break;
      case '--log-level': {
        const v = value();
        if (!(LoggingLevels as readonly string[]).includes(v)) throw new UsageError(`--log-level is one of ${LoggingLevels.join(', ')}, not ${JSON.stringify(v)}`);
        options.logLevel = v as LoggingLevel;
        break;
      }
      case '--args': {
        const v = value();
        let parsed: unknown;
        try {
          parsed = JSON.parse(v);
        } catch (err) {
          throw new UsageError(`--args is not valid JSON (${(err as Error).message}): ${v}`);
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
          throw new UsageError('--args must be a JSON object, e.g. --args \'{"message":"hi"}\'');
        }
        options.toolArgs = parsed as Record<string, unknown>;
        break;
      }
      case '--no-token-store':
        options.tokenStore = false;
        break;
      case '-h':
      case '--help':
        throw new HelpRequested();
      default:
        if (readServerOption(arg, value, options)) break;
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
        positional.push(arg);
    }
  }
  const [given, target, ...rest] = positional;
  if (given === 'help') throw new HelpRequested();
  // `mcp-host --config FILE` (or `list --config FILE`) without --server: the servers in the file.
  if ((given === undefined || given === 'list') && options.configFile !== undefined && options.serverName === undefined && serverCommand.length === 0 && options.url === undefined) {
    if (given === 'list' && target) throw new UsageError(`unexpected argument ${JSON.stringify(target)}`);
    return { ...options, command: 'servers' };
  }
  if (given === undefined) throw new UsageError('missing command (list, call, read or prompt)');
  if (!COMMANDS.includes(given)) throw new UsageError(`unknown command ${JSON.stringify(given)} (list, call, read or prompt)`);
  const command = given as Exclude<Command, 'servers'>;
  const what = { call: 'a TOOL name', read: 'a resource URI', prompt: 'a prompt NAME', list: '' }[command];
  if (command !== 'list' && !target) throw new UsageError(`${command} needs ${what}`);
  if (command === 'list' && target) rest.unshift(target);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])} (put the server command after --)`);
  if (command === 'prompt') options.toolArgs = promptArguments(options.toolArgs);
  const hasConfig = options.configFile !== undefined || options.serverName !== undefined;
  const ways = [hasConfig, serverCommand.length > 0, options.url !== undefined].filter(Boolean).length;
  if (ways > 1) throw new UsageError('give one server: --config FILE --server NAME, --url URL, or -- CMD');
  if (hasConfig && !options.configFile) throw new UsageError('--server NAME needs --config FILE');
  if (hasConfig && !options.serverName) throw new UsageError(`${command} needs --server NAME with --config (mcp-host --config FILE lists its servers)`);
  if (ways === 0) throw new UsageError('no server: add -- CMD [ARGS...], --url URL, or --config FILE --server NAME');
  if (serverCommand.length > 0 && (Object.keys(options.headers).length > 0 || options.transport)) {
    throw new UsageError('--header and --transport are for remote servers (--url, or a config entry with "url")');
  }
  return { ...options, command, target: command === 'list' ? undefined : target };
}

/** Prompt arguments are strings: numbers and booleans are taken as their text. */
function promptArguments(args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
    else throw new UsageError(`prompt arguments are strings; ${JSON.stringify(key)} is ${value === null ? 'null' : typeof value}`);
  }
  return out;
}

function readConfigFile(file: string, io: CliIo): { absolute: string; parsed: ParsedConfig } {
  const absolute = path.resolve(io.cwd, file);
  let text: string;
  try {
    text = fs.readFileSync(absolute, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read config file ${absolute}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return { absolute, parsed: parseConfigText(text, { file: absolute, kind: 'import', workspaceFolder: path.dirname(path.dirname(absolute)) }) };
}

/** `mcp-host --config FILE`: one line per server (name, how it is reached), then the file's problems. */
function listConfigServers(file: string, io: CliIo): void {
  const { absolute, parsed } = readConfigFile(file, io);
  const out: string[] = [`Servers in ${absolute} (${parsed.servers.length})`];
  const width = Math.max(0, ...parsed.servers.map((s) => s.name.length));
  for (const server of parsed.servers) {
    const how = server.type === 'stdio' ? `stdio  ${describeLaunch({ type: 'stdio', command: server.command, args: server.args, env: {} })}` : `${server.type}  ${describeLaunch({ type: server.type, url: server.url, shownUrl: displayConfigUrl(server.url), headers: {} })}`;
    out.push(`  ${server.name.padEnd(width)}  ${how}`);
  }
  for (const problem of parsed.problems) out.push(`  problem: ${formatProblem(problem)}`);
  if (parsed.servers.length > 0) out.push('', `Use one with: mcp-host list --config ${JSON.stringify(file)} --server ${JSON.stringify(parsed.servers[0].name)}`);
  io.stdout(`${out.join('\n')}\n`);
}

function loadServerFromConfig(file: string, name: string, io: CliIo): ServerDefinition {
  const { absolute, parsed } = readConfigFile(file, io);
  const server = parsed.servers.find((s) => s.name === name);
  if (!server) {
    const problem = parsed.problems.find((p) => p.server === name) ?? parsed.problems.find((p) => p.server === undefined);
    if (problem) throw new UsageError(formatProblem(problem));
    const names = parsed.servers.map((s) => s.name);
    throw new UsageError(`no server named ${JSON.stringify(name)} in ${absolute}${names.length ? ` (it has: ${names.join(', ')})` : ''}`);
  }
  const templated = server.type === 'stdio' ? [server.command, ...server.args, server.cwd ?? ''] : [server.url, ...Object.values(server.headers), server.oauth?.clientSecret ?? ''];
  const unresolved = templated.find((s) => /\$\{input:/.test(s));
  if (unresolved) throw new UsageError(`server ${JSON.stringify(name)} uses ${unresolved.match(/\$\{input:[^}]*\}/)![0]}; the CLI cannot prompt for inputs`);
  return server;
}

/** Resolves the simple variables VS Code allows in mcp.json; the CLI has no prompts. */
function substituteCliVariables(value: string, workspaceFolder: string | undefined, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{(workspaceFolder|workspaceFolderBasename|userHome|env:([^}]+))\}/g, (whole, name: string, envName?: string) => {
    if (envName !== undefined) return env[envName] ?? '';
    if (name === 'userHome') return env.HOME ?? env.USERPROFILE ?? whole;
    if (!workspaceFolder) return whole;
    return name === 'workspaceFolder' ? workspaceFolder : path.basename(workspaceFolder);
  });
}

/** The server a CLI run talks to: how to reach it, and what to call it. */
interface CliTarget {
  label: string;
  spec: LaunchSpec;
  staticClient?: { clientId: string; clientSecret?: string; scopes?: readonly string[] };
  /** The folder offered as the root. */
  rootDir: string;
  /** Secret values of a config entry (its `${env:}` values and the like), hidden in every message. */
  secrets?: string[];
  /** The config entry's protocolEra. */
  protocolEra?: ProtocolEraSetting;
}

function resolveTarget(options: Options, io: CliIo): CliTarget {
  if (options.url !== undefined) {
    const host = URL.canParse(options.url) ? new URL(options.url).host : options.url;
    return { label: host, spec: { type: options.transport ?? 'http', url: options.url, headers: options.headers }, rootDir: io.cwd };
  }
  if (options.configFile && options.serverName) {
    const def = loadServerFromConfig(options.configFile, options.serverName, io);
    const secrets = definitionSecrets(def, io.env);
    const folder = def.source.workspaceFolder;
    const sub = (s: string) => substituteCliVariables(s, folder, io.env);
    if (def.type !== 'stdio') {
      const headers = { ...Object.fromEntries(Object.entries(def.headers).map(([k, v]) => [k, sub(v)])), ...options.headers };
      const oauth = def.oauth;
      const staticClient = oauth ? { clientId: oauth.clientId, clientSecret: oauth.clientSecret ? sub(oauth.clientSecret) : undefined, scopes: oauth.scopes } : undefined;
      return { label: def.name, spec: { type: options.transport ?? def.type, url: sub(def.url), shownUrl: displayConfigUrl(def.url), headers }, staticClient, rootDir: io.cwd, secrets, protocolEra: def.protocolEra };
    }
    const cwd = def.cwd ? path.resolve(folder ?? io.cwd, sub(def.cwd)) : io.cwd;
    const env = Object.fromEntries(Object.entries(def.env).map(([k, v]) => [k, v === null ? null : sub(v)]));
    return { label: def.name, spec: { type: 'stdio', command: sub(def.command), args: def.args.map(sub), env, cwd }, rootDir: cwd, secrets, protocolEra: def.protocolEra };
  }
  const [command, ...args] = options.serverCommand;
  return { label: serverNameFromCommand(command, args), spec: { type: 'stdio', command, args, env: {}, cwd: io.cwd }, rootDir: io.cwd };
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  // Loaded on demand: only the conformance suite runs it.
  if (argv[0] === 'conformance') return (await import('./conformance')).runConformance(argv.slice(1), io);
  // The server quality report: its own options and its own way of starting servers (src/cli/report.ts).
  if (argv[0] === 'report') return (await import('./report')).runReport(argv.slice(1), io);
  // The doctor: a checklist of what keeps a server from starting (src/cli/doctor.ts).
  if (argv[0] === 'doctor') return (await import('./doctor')).runDoctor(argv.slice(1), io);
  // The gateway: the configured servers shared with other MCP clients (src/cli/serve.ts).
  if (argv[0] === 'serve') return (await import('./serve')).runServe(argv.slice(1), io);
  // An MCP registry: search, add, list --registry NAME (src/cli/registry.ts).
  const registry = await import('./registry');
  if (registry.isRegistryCommand(argv)) return registry.runRegistryCommand(argv, io, runCli);
  // Every message on stderr is redacted: credential forms always, this run's secret values once known.
  const redactor = new Redactor();
  const rawStderr = io.stderr;
  io = { ...io, stderr: (text) => rawStderr(redactor.redact(text)) };
  let options: Options;
  let target: CliTarget;
  try {
    options = parseArgs(argv);
    if (options.command === 'servers') {
      listConfigServers(options.configFile!, io);
      return ExitCode.Ok;
    }
    target = resolveTarget(options, io);
    redactor.add([...launchSecrets(target.spec), ...(target.secrets ?? []), ...(target.staticClient?.clientSecret ? [target.staticClient.clientSecret] : [])]);
  } catch (err) {
    if (err instanceof HelpRequested) {
      io.stdout(`${USAGE}\n`);
      return ExitCode.Ok;
    }
    if (err instanceof UsageError) {
      // One line and a pointer: the whole usage would bury the reason.
      io.stderr(`mcp-host: ${oneLine(err.message)}; see 'mcp-host --help'\n`);
      return ExitCode.Usage;
    }
    throw err;
  }

  const label = `server '${target.label}'`;
  const spec = target.spec;
  let trace: TraceFile | undefined;
  try {
    trace = options.traceFile ? TraceFile.open(options.traceFile, io.cwd, target.label, (text) => redactor.redact(text)) : undefined;
  } catch (err) {
    io.stderr(`mcp-host: ${errorMessage(err)}\n`);
    return ExitCode.Usage;
  }
  trace?.event(`${spec.type === 'stdio' ? 'starting' : 'connecting to'} ${describeLaunch(spec)}`);
  const auth =
    spec.type === 'stdio'
      ? undefined
      : cliAuthorization({ serverName: target.label, url: spec.url, staticClient: target.staticClient, persist: options.tokenStore, io });
  const makeTransport = () => {
    const made = createTransport(spec, {
      label: target.label,
      // A command-line user waits for the exit: shorter grace than the editor's default.
      shutdown: { closeStdinGraceMs: 500, sigtermGraceMs: 1000 },
      auth,
    });
    if (options.verbose) made.onLog((line) => io.stderr(`[${target.label}] ${line}\n`));
    return made;
  };
  if (options.verbose) io.stderr(`mcp-host: ${spec.type === 'stdio' ? 'starting' : 'connecting to'} ${describeLaunch(spec)}\n`);
  let transport = makeTransport();
  let interrupted = false;
  const taskInterrupt = new TaskInterrupt();
  io.onInterrupt?.(() => {
    interrupted = true;
    // A task is cancelled first (tasks/cancel), then the run ends and the server stops as usual.
    if (taskInterrupt.cancel()) {
      io.stderr('mcp-host: interrupted; cancelling the task\n');
      setTimeout(() => void transport.close(), 5000).unref();
      return;
    }
    io.stderr(`mcp-host: interrupted; ${spec.type === 'stdio' ? 'stopping the server' : 'closing the session'}\n`);
    void transport.close();
  });
  const warn = (message: string) => options.verbose && io.stderr(`mcp-host: ${message}\n`);
  const makeBareClient = (era: ProtocolEraSetting | undefined) =>
    new McpClient(
      transport,
      {
        label,
        clientInfo: { name: 'mcp-host-cli', version: VERSION },
        requestTimeoutMs: options.timeoutMs,
        protocolEra: era,
        logger: { trace() {}, debug() {}, info() {}, warn, error: warn },
        onTrace: trace ? (direction, message) => trace.message(direction, message) : undefined,
      },
      // Roots are answered here (the folder of the run); forms and sampling are not offered, so a
      // modern server that needs them ends the request with InputNotOfferedError or -32021.
      { listRoots: () => [{ uri: pathToFileURL(target.rootDir).href, name: path.basename(target.rootDir) }] },
    );
  const showLogs = options.verbose || options.logLevel !== undefined;
  const makeClient = (era: ProtocolEraSetting | undefined) => {
    const made = makeBareClient(era);
    // Some servers put their whole diagnosis in log messages: shown like stderr (redacted and
    // stripped of control characters by io.stderr), each cut short.
    if (showLogs) made.onLogMessage((m) => io.stderr(`[${target.label}] ${describeLogMessage(m)}\n`));
    return made;
  };
  let client = makeClient(options.era ?? target.protocolEra);

  let connected = false;
  try {
    try {
      await client.connect();
    } catch (err) {
      if (!(err instanceof ClosedOnEraProbeError) || interrupted) throw err;
      // A legacy server that exits on unknown methods: once more, a new process, no probe.
      // Said with --verbose only: a failure stays one line, a success prints nothing on stderr.
      warn(`${label} closed when probed with server/discover (the 2026-07-28 era probe); starting it again with --era ${err.retryEra}`);
      trace?.event(`restarted as ${err.retryEra} after server/discover ended the process (the 2026-07-28 era probe)${err.closeInfo ? `: ${describeClose(err.closeInfo)}` : ''}`);
      client.dispose();
      await transport.close().catch(() => undefined);
      transport = makeTransport();
      client = makeClient(err.retryEra);
      await client.connect();
    }
    connected = true;
    if (options.logLevel) await requestLogLevel(client, options.logLevel, label, io);
    return await runCommand(client, options, label, io, taskInterrupt);
  } catch (err) {
    if (interrupted) return ExitCode.Interrupted;
    const failedTo = connected ? 'failed' : spec.type === 'stdio' ? 'could not be started' : 'could not be reached';
    io.stderr(`mcp-host: ${oneLine(describeFailure(err, label, failedTo))}\n`);
    // An error answer from a server that works is the request's failure, not the server's; so is
    // a request that needs input the CLI does not give.
    return connected && (err instanceof RemoteError || err instanceof InputNotOfferedError || err instanceof MissingClientCapabilityError) ? ExitCode.ToolError : ExitCode.ServerFailed;
  } finally {
    client.dispose();
    await transport.close().catch(() => undefined);
    trace?.event('closed');
    trace?.close();
  }
}

async function runCommand(client: McpClient, options: Options, label: string, io: CliIo, taskInterrupt: TaskInterrupt): Promise<number> {
  const print = (result: unknown, readable: () => string) => io.stdout(options.json ? `${JSON.stringify(result, null, 2)}\n` : readable());
  switch (options.command) {
    case 'list':
      await runList(client, options, io, label);
      return ExitCode.Ok;
    case 'call': {
      const name = options.target!;
      let result;
      try {
        result = (await callsAsTask(client, name, options.task))
          ? await callToolTask(client, name, options.toolArgs, io.stderr, taskInterrupt)
          : await client.callTool(name, options.toolArgs);
      } catch (err) {
        throw await withNameHint(err, client, 'tool', name, label);
      }
      const outputCheck = result.isError ? undefined : await checkOutput(await findTool(client, name), result);
      print(outputCheck ? { ...result, outputSchemaCheck: outputCheck } : result, () => formatToolResult(result));
      const outputVerdict = outputCheck ? describeOutputCheck(outputCheck, name) : '';
      if (outputVerdict) io.stderr(outputVerdict);
      // Some servers answer an unknown tool with isError rather than a JSON-RPC error.
      if (result.isError) {
        const hint = await unknownName(client, 'tool', name);
        if (hint) io.stderr(`mcp-host: ${label} has no tool ${JSON.stringify(name)}; ${hint}\n`);
      }
      return result.isError ? ExitCode.ToolError : ExitCode.Ok;
    }
    case 'read': {
      const result = await client.readResource(options.target!);
      print(result, () => formatReadResult(result));
      return ExitCode.Ok;
    }
    case 'prompt': {
      const name = options.target!;
      let result;
      try {
        result = await client.getPrompt(name, options.toolArgs as Record<string, string>);
      } catch (err) {
        throw await withNameHint(err, client, 'prompt', name, label);
      }
      print(result, () => formatPromptResult(result));
      return ExitCode.Ok;
    }
    case 'servers':
      return ExitCode.Usage;
  }
}

/** "did you mean …" when `name` is not among the server's tools or prompts; undefined when it is. */
async function unknownName(client: McpClient, kind: 'tool' | 'prompt', name: string): Promise<string | undefined> {
  if (!client.hasCapability(kind === 'tool' ? 'tools' : 'prompts')) return `the server offers no ${kind}s`;
  try {
    const items = kind === 'tool' ? await client.listAllTools() : await client.listAllPrompts();
    const names = items.map((i) => i.name);
    return names.includes(name) ? undefined : unknownNameHint(kind, name, names);
  } catch {
    return undefined;
  }
}

/** A JSON-RPC error about an unknown tool or prompt, with the names the server does have. */
async function withNameHint(err: unknown, client: McpClient, kind: 'tool' | 'prompt', name: string, label: string): Promise<unknown> {
  if (!(err instanceof RemoteError)) return err;
  const hint = await unknownName(client, kind, name);
  if (!hint) return err;
  return new RemoteError(err.method, err.code, `${label} has no ${kind} ${JSON.stringify(name)}; ${hint} (${stripCodePrefix(err.message, err.code)})`, err.data);
}

/** SDK servers put "MCP error -32602: " in front of their messages; the code is printed once. */
function stripCodePrefix(message: string, code: number): string {
  return message.replace(new RegExp(`^(MCP error )?${code}:\\s*`), '');
}

function describeFailure(err: unknown, label: string, failedTo: string): string {
  if (err instanceof InputNotOfferedError) {
    const what = { 'elicitation/create': 'input from you (a form)', 'sampling/createMessage': 'a language model (sampling)' }[err.request.method] ?? err.request.method;
    const asked = err.question ? `: it asks ${JSON.stringify(err.question)}` : '';
    return (
      `${label} needs ${what} to complete ${err.forMethod}${asked} [${err.request.method}]. ` +
      'mcp-host answers roots itself but declines forms and sampling on the command line; use MCP Host in VS Code (Run Tool…, Get Prompt…, Read Resource…) for this one'
    );
  }
  if (err instanceof RemoteError && err.message.startsWith(`${label} has no `)) return `${err.message} [${err.method}, error ${err.code}]`;
  if (err instanceof RemoteError) return `${label} answered ${err.method} with error ${err.code}: ${stripCodePrefix(err.message, err.code)}`;
  const signIn = findCause(err, AuthorizationRequiredError);
  if (signIn) return `${signIn.message} Run mcp-host in a terminal to sign in (or set MCP_HOST_SIGN_IN=1).`;
  if (err instanceof McpError) return err.message;
  if (err instanceof Error) return `${label} ${failedTo}: ${err.message}`;
  return String(err);
}

/** How long one log message may be on stderr. */
const LOG_MESSAGE_CHARS = 2000;

/** A server's log message as one stderr line: level, logger, data (JSON unless text), cut short. */
function describeLogMessage(m: LoggingMessageParams): string {
  let data: string;
  try {
    data = typeof m.data === 'string' ? m.data : (JSON.stringify(m.data) ?? String(m.data));
  } catch {
    data = '(data that cannot be shown)';
  }
  if (data.length > LOG_MESSAGE_CHARS) data = `${data.slice(0, LOG_MESSAGE_CHARS)}… (${data.length} chars)`;
  return `log ${m.level}${m.logger ? ` ${m.logger}` : ''}: ${data.replace(/\r?\n/g, ' | ')}`;
}

/** --log-level: logging/setLevel when the server declares logging; a warning otherwise. */
async function requestLogLevel(client: McpClient, level: LoggingLevel, label: string, io: CliIo): Promise<void> {
  if (!client.hasCapability('logging')) {
    io.stderr(`mcp-host: warning: ${label} does not declare logging; --log-level ${level} not sent\n`);
    return;
  }
  try {
    await client.setLoggingLevel(level);
  } catch (err) {
    io.stderr(`mcp-host: warning: logging/setLevel ${level} failed: ${oneLine(errorMessage(err))}\n`);
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' | ');
}

/** The four lists `list` shows, by the key they have in the JSON output. */
type ListKey = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

/** A list the server refused (a JSON-RPC error), as `list --json` shows it. */
interface ListFailure {
  method: string;
  code: number;
  message: string;
}

/**
 * Every list the server declares, each on its own: a server that refuses one of them (e.g. -32601
 * for resources/templates/list while it declares resources) still has the others shown, with the
 * refusal named. A failure that is not an answer (the server died, a timeout) fails the run, and
 * so does a refusal of every list.
 */
async function fetchLists(client: McpClient): Promise<{ lists: Record<ListKey, unknown[]>; failures: Partial<Record<ListKey, ListFailure>> }> {
  const requests: Array<[ListKey, Promise<unknown[]> | undefined]> = [
    ['tools', client.hasCapability('tools') ? client.listAllTools() : undefined],
    ['resources', client.hasCapability('resources') ? client.listAllResources() : undefined],
    ['resourceTemplates', client.hasCapability('resources') ? client.listAllResourceTemplates() : undefined],
    ['prompts', client.hasCapability('prompts') ? client.listAllPrompts() : undefined],
  ];
  const settled = await Promise.allSettled(requests.map(([, request]) => request ?? Promise.resolve([])));
  const lists: Record<ListKey, unknown[]> = { tools: [], resources: [], resourceTemplates: [], prompts: [] };
  const failures: Partial<Record<ListKey, ListFailure>> = {};
  const refusals: RemoteError[] = [];
  for (const [i, outcome] of settled.entries()) {
    const key = requests[i][0];
    if (outcome.status === 'fulfilled') {
      lists[key] = outcome.value;
      continue;
    }
    const err: unknown = outcome.reason;
    if (!(err instanceof RemoteError)) throw err;
    refusals.push(err);
    failures[key] = { method: err.method, code: err.code, message: stripCodePrefix(err.message, err.code) };
  }
  const asked = requests.filter(([, request]) => request !== undefined).length;
  if (refusals.length > 0 && refusals.length === asked) throw refusals[0];
  return { lists, failures };
}

async function runList(client: McpClient, options: Options, io: CliIo, label: string): Promise<void> {
  const { lists, failures } = await fetchLists(client);
  const tools = lists.tools as Tool[];
  const resources = lists.resources as Resource[];
  const resourceTemplates = lists.resourceTemplates as ResourceTemplate[];
  const prompts = lists.prompts as Prompt[];
  // A refused list is said on stderr too, so a script reading stdout still learns of it.
  for (const failure of Object.values(failures)) {
    io.stderr(`mcp-host: warning: ${label} answered ${failure.method} with error ${failure.code}: ${failure.message} (the other lists are shown)\n`);
  }
  const init = client.initializeResult!;
  if (options.json) {
    io.stdout(
      `${JSON.stringify(
        {
          serverInfo: init.serverInfo,
          protocolVersion: init.protocolVersion,
          era: client.era,
          capabilities: init.capabilities,
          instructions: init.instructions,
          tools,
          resources,
          resourceTemplates,
          prompts,
          errors: failures,
        },
        null,
        2,
      )}\n`,
    );
    return;
  }
  io.stdout(
    formatListing({
      title: init.serverInfo.title ?? init.serverInfo.name,
      version: init.serverInfo.version,
      protocolVersion: init.protocolVersion,
      era: client.era,
      capabilities: Object.keys(init.capabilities),
      instructions: init.instructions,
      tools,
      resources,
      resourceTemplates,
      prompts,
      errors: Object.fromEntries(Object.entries(failures).map(([key, f]) => [key, `the server answered ${f.method} with error ${f.code}: ${f.message}`])),
    }),
  );
}
