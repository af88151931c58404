// The arguments of list, call, read and prompt (and `--config FILE` alone, which lists the file's
// servers). report, doctor, serve and the registry commands read their own (in their files).
import { UsageError, eachArgument, readRunFlag, readServerOption, splitAtDashDash, type RunFlags, type ServerChoice } from './options';
import { LoggingLevels, type LoggingLevel } from '../protocol/schemas';

/** --help: the usage goes to stdout and the run succeeds. */
export class HelpRequested extends Error {}

export type Command = 'list' | 'call' | 'read' | 'prompt' | 'servers';
const COMMANDS: readonly string[] = ['list', 'call', 'read', 'prompt'];

export interface Options extends ServerChoice, RunFlags {
  command: Command;
  target?: string;
  toolArgs: Record<string, unknown>;
  serverCommand: string[];
  task: boolean;
  /** --trace FILE: the protocol messages as JSON Lines. */
  traceFile?: string;
  /** --log-level: sent with logging/setLevel; the server's log messages are then shown. */
  logLevel?: LoggingLevel;
}

export function parseArgs(argv: string[]): Options {
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
      case '-h':
      case '--help':
        throw new HelpRequested();
      default:
        if (readServerOption(arg, value, options) || readRunFlag(arg, options)) break;
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
