// `mcp-host serve`: the servers of a config file behind the gateway (src/host/gateway), for any other
// MCP client on this machine. One process per server, however many clients connect.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatProblem, type InputDefinition, type ServerDefinition } from '../host/config';
import { ServerConnection, serverId, type ConnectionEnvironment } from '../host/serverConnection';
import { Gateway, newGatewayToken } from '../host/gateway/gateway';
import { errorMessage } from '../util/errorMessage';
import { VERSION } from '../version';
import { cliAuthorization } from './auth';
import { ExitCode, type CliIo } from './io';
import { UsageError, eachArgument } from './options';
import { readConfigFile } from './configFile';
import { serverLogger } from './serverLog';

export const SERVE_USAGE = `Usage: mcp-host serve --config FILE [--server NAME]... [--port N] [--token T | --token-file F] [--verbose]
  Starts the servers of FILE (every one, or each --server NAME) and shares them over Streamable HTTP
  on 127.0.0.1, one endpoint per server (printed), for other MCP clients on this machine. Clients
  send "Authorization: Bearer TOKEN"; requests with another Origin or Host are refused.
  --port N         the port (default: a free one)
  --token T        the token (else one is generated); other users see it in the process list,
                   so prefer --token-file
  --token-file F   read the token from F, which must be yours and owner-only (chmod 600); when F
                   does not exist, a generated one is written there (owner-only). Without --token
                   or --token-file the generated token is written to an owner-only file whose path
                   is printed.
Ctrl-C stops the gateway and the servers. Exit status: 0 stopped; 2 usage or config error;
3 no server could be started.`;

interface ServeOptions {
  configFile?: string;
  servers: string[];
  port?: number;
  token?: string;
  tokenFile?: string;
  verbose: boolean;
  timeoutMs: number;
}

function parseServeArgs(argv: readonly string[]): ServeOptions | 'help' {
  const options: ServeOptions = { servers: [], verbose: false, timeoutMs: 60_000 };
  for (const { arg, value } of eachArgument(argv)) {
    switch (arg) {
      case '--config':
        options.configFile = value();
        break;
      case '--server':
        options.servers.push(value());
        break;
      case '--port': {
        const v = value();
        const port = Number(v);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port takes a port number, not ${JSON.stringify(v)}`);
        options.port = port;
        break;
      }
      case '--token':
        options.token = value();
        break;
      case '--token-file':
        options.tokenFile = value();
        break;
      case '--timeout': {
        const v = value();
        const ms = Number(v);
        if (!Number.isFinite(ms) || ms <= 0) throw new UsageError(`--timeout takes a positive number of milliseconds, not ${JSON.stringify(v)}`);
        options.timeoutMs = ms;
        break;
      }
      case '--verbose':
        options.verbose = true;
        break;
      case '-h':
      case '--help':
        return 'help';
      default:
        throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  if (!options.configFile) throw new UsageError('--config FILE is required');
  if (options.token !== undefined && options.tokenFile !== undefined) throw new UsageError('give --token or --token-file, not both');
  if (options.token !== undefined && options.token.length < 16) throw new UsageError('--token must be at least 16 characters');
  return options;
}

function loadServers(options: ServeOptions, io: CliIo): { servers: ServerDefinition[]; inputs: readonly InputDefinition[] } {
  const { absolute, parsed } = readConfigFile(options.configFile!, io);
  if (options.servers.length === 0) {
    if (parsed.servers.length === 0) throw new UsageError(`${absolute} defines no servers`);
    return { servers: parsed.servers, inputs: parsed.inputs };
  }
  const servers = options.servers.map((name) => {
    const server = parsed.servers.find((s) => s.name === name);
    if (server) return server;
    const problem = parsed.problems.find((p) => p.server === name);
    throw new UsageError(problem ? formatProblem(problem) : `no server named ${JSON.stringify(name)} in ${absolute}`);
  });
  return { servers, inputs: parsed.inputs };
}

/** The token, and where it was written when we made it. */
function resolveToken(options: ServeOptions): { token: string; writtenTo?: string } {
  if (options.token !== undefined) return { token: options.token };
  if (options.tokenFile !== undefined && fs.existsSync(options.tokenFile)) {
    const token = readOwnTokenFile(options.tokenFile).trim();
    if (token.length < 16) throw new UsageError(`the token in ${options.tokenFile} is shorter than 16 characters`);
    return { token };
  }
  const token = newGatewayToken();
  const file = options.tokenFile ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-serve-')), 'token');
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, writtenTo: file };
}

/**
 * The text of a token file only this user can have written or can read: a file of another user, or
 * one open to the group or to others, may hold a token someone else planted or knows. Checked on
 * the open file, so it cannot be swapped between the check and the read. POSIX only: Windows has
 * no mode bits to check.
 */
function readOwnTokenFile(file: string): string {
  const posix = process.platform !== 'win32';
  // Non-blocking: a planted FIFO would hold the open until someone writes to it.
  const fd = fs.openSync(file, posix ? fs.constants.O_RDONLY | fs.constants.O_NONBLOCK : 'r');
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new UsageError(`the token file ${file} is not a regular file`);
    const uid = posix ? process.getuid?.() : undefined;
    if (uid !== undefined && stat.uid !== uid) {
      throw new UsageError(`the token file ${file} belongs to another user (uid ${stat.uid}); use a file of your own, or remove it to have a new token written there`);
    }
    if (uid !== undefined && (stat.mode & 0o077) !== 0) {
      throw new UsageError(`the token file ${file} is open to other users (mode ${(stat.mode & 0o777).toString(8)}); make it owner-only with 'chmod 600 ${file}', or remove it to have a new token written there`);
    }
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

export async function runServe(argv: readonly string[], io: CliIo): Promise<number> {
  let options: ServeOptions;
  let loaded: { servers: ServerDefinition[]; inputs: readonly InputDefinition[] };
  let token: { token: string; writtenTo?: string };
  try {
    const parsed = parseServeArgs(argv);
    if (parsed === 'help') {
      io.stdout(`${SERVE_USAGE}\n`);
      return ExitCode.Ok;
    }
    options = parsed;
    loaded = loadServers(options, io);
    token = resolveToken(options);
    if (options.token !== undefined) io.stderr('mcp-host serve: warning: --token is visible to other users of this machine in the process list; --token-file F keeps it in an owner-only file\n');
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`mcp-host serve: ${err.message}; see 'mcp-host serve --help'\n`);
    return ExitCode.Usage;
  }
  const gateway = new Gateway({ token: token.token, port: options.port });
  const connections = loaded.servers.map((def) => {
    const rootDir = def.type === 'stdio' ? (def.source.workspaceFolder ?? io.cwd) : io.cwd;
    const roots = () => [{ uri: pathToFileURL(rootDir).href, name: path.basename(rootDir) }];
    const env: ConnectionEnvironment = {
      clientInfo: { name: 'mcp-host-serve', version: VERSION },
      logger: serverLogger(def.name, options.verbose, io),
      traceEnabled: () => false,
      requestTimeoutMs: () => options.timeoutMs,
      serverLogLevel: () => undefined,
      inputs: () => loaded.inputs,
      handlers: gateway.serverRequestHandlers(def.name, { listRoots: roots }),
      processEnv: io.env,
      shutdown: { closeStdinGraceMs: 500, sigtermGraceMs: 1000 },
      authorization: ({ name, url, staticClient }) => cliAuthorization({ serverName: name, url, staticClient, persist: true, io }),
    };
    return new ServerConnection(def, serverId(def), def.name, def.source, env);
  });
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  io.onInterrupt?.(() => {
    io.stderr('mcp-host serve: stopping the gateway and the servers\n');
    stop();
  });
  try {
    await gateway.listen();
  } catch (err) {
    io.stderr(`mcp-host serve: cannot listen on 127.0.0.1:${options.port ?? 0}: ${errorMessage(err)}\n`);
    return ExitCode.ServerFailed;
  }
  try {
    await Promise.all(connections.map((c) => c.start()));
    for (const c of connections) {
      gateway.share(c);
      if (c.state.kind !== 'running') io.stderr(`mcp-host serve: server '${c.name}' is ${c.state.kind}${c.state.kind === 'error' ? `: ${c.state.message}` : ''}\n`);
    }
    if (!connections.some((c) => c.state.kind === 'running')) return ExitCode.ServerFailed;
    const lines = connections.map((c) => `${c.name}\t${gateway.urlOf(c.name)}`);
    io.stdout(`${lines.join('\n')}\n`);
    io.stdout(token.writtenTo ? `token written to ${token.writtenTo}\n` : 'token: as given\n');
    io.stdout('ready\n');
    await stopped;
    return ExitCode.Ok;
  } finally {
    await gateway.close();
    await Promise.all(connections.map((c) => c.stop('mcp-host serve stopped')));
    for (const c of connections) c.dispose();
  }
}
