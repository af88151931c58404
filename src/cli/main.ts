import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpClient } from '../protocol/client';
import { McpError, RemoteError } from '../protocol/errors';
import type { CallToolResult, ContentBlock, ReadResourceResult, UnknownContent } from '../protocol/schemas';
import { parseConfigText, formatProblem, type ServerDefinition } from '../host/config';
import { createTransport, describeLaunch, type LaunchSpec } from '../host/transportFactory';
import { cliAuthorization } from './auth';
import { AuthorizationRequiredError } from '../auth/types';
import { findCause } from '../util/errorCause';
import { describeContentBlock } from '../protocol/content';

/** Exit statuses, as documented in the README. */
export const ExitCode = { Ok: 0, ToolError: 1, Usage: 2, ServerFailed: 3, Interrupted: 130 } as const;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** True when a person sits at the terminal: only then may a server ask to sign in. */
  interactive?: boolean;
  /** Called with a handler to run on Ctrl-C / SIGTERM (the server runs in its own process group). */
  onInterrupt?: (handler: () => void) => void;
}

class UsageError extends Error {}

const USAGE = `Usage:
  mcp-host list [--json] -- CMD [ARGS...]
  mcp-host call TOOL [--args JSON] [--json] -- CMD [ARGS...]
  mcp-host read URI [--json] -- CMD [ARGS...]
  mcp-host conformance SERVER_URL   (the client of the official MCP conformance suite)

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
  --verbose      show the server's stderr, prefixed with its name
  --json         print the protocol result as JSON
Exit status: 0 ok; 1 the tool reported an error (isError); 2 usage or config error; 3 the server failed.`;

interface Options {
  command: 'list' | 'call' | 'read';
  target?: string;
  json: boolean;
  verbose: boolean;
  timeoutMs: number;
  toolArgs: Record<string, unknown>;
  configFile?: string;
  serverName?: string;
  serverCommand: string[];
  url?: string;
  headers: Record<string, string>;
  transport?: 'http' | 'sse';
  tokenStore: boolean;
}

function parseArgs(argv: string[]): Options {
  const dashDash = argv.indexOf('--');
  const own = dashDash === -1 ? argv : argv.slice(0, dashDash);
  const serverCommand = dashDash === -1 ? [] : argv.slice(dashDash + 1);
  const positional: string[] = [];
  const options: Omit<Options, 'command'> & { command?: Options['command'] } = {
    json: false,
    verbose: false,
    timeoutMs: 60_000,
    toolArgs: {},
    serverCommand,
    headers: {},
    tokenStore: true,
  };
  for (let i = 0; i < own.length; i++) {
    const arg = own[i];
    const value = () => {
      const v = own[++i];
      if (v === undefined) throw new UsageError(`${arg} needs a value`);
      return v;
    };
    switch (arg) {
      case '--json':
        options.json = true;
        break;
      case '--verbose':
        options.verbose = true;
        break;
      case '--timeout': {
        const v = value();
        const ms = Number(v);
        if (!Number.isFinite(ms) || ms <= 0) throw new UsageError(`--timeout takes a positive number of milliseconds, not ${JSON.stringify(v)}`);
        options.timeoutMs = ms;
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
      case '--config':
        options.configFile = value();
        break;
      case '--server':
        options.serverName = value();
        break;
      case '--url': {
        const v = value();
        if (!/^https?:\/\//i.test(v) || !URL.canParse(v)) throw new UsageError(`--url takes an http:// or https:// URL, not ${JSON.stringify(v)}`);
        options.url = v;
        break;
      }
      case '--header': {
        const v = value();
        const colon = v.indexOf(':');
        const name = colon > 0 ? v.slice(0, colon).trim() : '';
        if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError('--header takes "Name: value", e.g. --header "X-Api-Key: $KEY"');
        options.headers[name] = v.slice(colon + 1).trim();
        break;
      }
      case '--transport': {
        const v = value();
        if (v !== 'http' && v !== 'sse') throw new UsageError(`--transport is http or sse, not ${JSON.stringify(v)}`);
        options.transport = v;
        break;
      }
      case '--no-token-store':
        options.tokenStore = false;
        break;
      case '-h':
      case '--help':
        throw new UsageError('');
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
        positional.push(arg);
    }
  }
  const [command, target, ...rest] = positional;
  if (command !== 'list' && command !== 'call' && command !== 'read') {
    throw new UsageError(command ? `unknown command ${JSON.stringify(command)}` : 'missing command');
  }
  if (command !== 'list' && !target) throw new UsageError(`${command} needs ${command === 'call' ? 'a TOOL name' : 'a resource URI'}`);
  if (command === 'list' && target) rest.unshift(target);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])} (put the server command after --)`);
  const hasConfig = options.configFile !== undefined || options.serverName !== undefined;
  const ways = [hasConfig, serverCommand.length > 0, options.url !== undefined].filter(Boolean).length;
  if (ways > 1) throw new UsageError('give one server: --config FILE --server NAME, --url URL, or -- CMD');
  if (hasConfig && (!options.configFile || !options.serverName)) throw new UsageError('--config and --server go together');
  if (ways === 0) throw new UsageError('no server: add -- CMD [ARGS...], --url URL, or --config FILE --server NAME');
  if (serverCommand.length > 0 && (Object.keys(options.headers).length > 0 || options.transport)) {
    throw new UsageError('--header and --transport are for remote servers (--url, or a config entry with "url")');
  }
  return { ...options, command, target: command === 'list' ? undefined : target };
}

function loadServerFromConfig(file: string, name: string, io: CliIo): ServerDefinition {
  const absolute = path.resolve(io.cwd, file);
  let text: string;
  try {
    text = fs.readFileSync(absolute, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read config file ${absolute}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const parsed = parseConfigText(text, { file: absolute, kind: 'import', workspaceFolder: path.dirname(path.dirname(absolute)) });
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
}

function resolveTarget(options: Options, io: CliIo): CliTarget {
  if (options.url !== undefined) {
    const host = URL.canParse(options.url) ? new URL(options.url).host : options.url;
    return { label: host, spec: { type: options.transport ?? 'http', url: options.url, headers: options.headers }, rootDir: io.cwd };
  }
  if (options.configFile && options.serverName) {
    const def = loadServerFromConfig(options.configFile, options.serverName, io);
    const folder = def.source.workspaceFolder;
    const sub = (s: string) => substituteCliVariables(s, folder, io.env);
    if (def.type !== 'stdio') {
      const headers = { ...Object.fromEntries(Object.entries(def.headers).map(([k, v]) => [k, sub(v)])), ...options.headers };
      const oauth = def.oauth;
      const staticClient = oauth ? { clientId: oauth.clientId, clientSecret: oauth.clientSecret ? sub(oauth.clientSecret) : undefined, scopes: oauth.scopes } : undefined;
      return { label: def.name, spec: { type: options.transport ?? def.type, url: sub(def.url), headers }, staticClient, rootDir: io.cwd };
    }
    const cwd = def.cwd ? path.resolve(folder ?? io.cwd, sub(def.cwd)) : io.cwd;
    const env = Object.fromEntries(Object.entries(def.env).map(([k, v]) => [k, v === null ? null : sub(v)]));
    return { label: def.name, spec: { type: 'stdio', command: sub(def.command), args: def.args.map(sub), env, cwd }, rootDir: cwd };
  }
  const [command, ...args] = options.serverCommand;
  return { label: path.basename(command), spec: { type: 'stdio', command, args, env: {}, cwd: io.cwd }, rootDir: io.cwd };
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  // Loaded on demand: only the conformance suite runs it.
  if (argv[0] === 'conformance') return (await import('./conformance')).runConformance(argv.slice(1), io);
  let options: Options;
  let target: CliTarget;
  try {
    options = parseArgs(argv);
    target = resolveTarget(options, io);
  } catch (err) {
    if (err instanceof UsageError) {
      if (err.message) io.stderr(`mcp-host: ${err.message}\n\n`);
      io.stderr(`${USAGE}\n`);
      return ExitCode.Usage;
    }
    throw err;
  }

  const label = `server '${target.label}'`;
  const spec = target.spec;
  const auth =
    spec.type === 'stdio'
      ? undefined
      : cliAuthorization({ serverName: target.label, url: spec.url, staticClient: target.staticClient, persist: options.tokenStore, io });
  const transport = createTransport(spec, {
    label: target.label,
    // A command-line user waits for the exit: shorter grace than the editor's default.
    shutdown: { closeStdinGraceMs: 500, sigtermGraceMs: 1000 },
    auth,
  });
  if (options.verbose) {
    io.stderr(`mcp-host: ${spec.type === 'stdio' ? 'starting' : 'connecting to'} ${describeLaunch(spec)}\n`);
    transport.onLog((line) => io.stderr(`[${target.label}] ${line}\n`));
  }
  let interrupted = false;
  io.onInterrupt?.(() => {
    interrupted = true;
    io.stderr(`mcp-host: interrupted; ${spec.type === 'stdio' ? 'stopping the server' : 'closing the session'}\n`);
    void transport.close();
  });
  const warn = (message: string) => options.verbose && io.stderr(`mcp-host: ${message}\n`);
  const client = new McpClient(
    transport,
    {
      label,
      clientInfo: { name: 'mcp-host-cli', version: '0.1.0' },
      requestTimeoutMs: options.timeoutMs,
      logger: { trace() {}, debug() {}, info() {}, warn, error: warn },
    },
    { listRoots: () => [{ uri: pathToFileURL(target.rootDir).href, name: path.basename(target.rootDir) }] },
  );

  try {
    await client.connect();
    switch (options.command) {
      case 'list':
        await runList(client, options, io);
        return ExitCode.Ok;
      case 'call': {
        const result = await client.callTool(options.target!, options.toolArgs);
        io.stdout(options.json ? `${JSON.stringify(result, null, 2)}\n` : formatToolResult(result));
        return result.isError ? ExitCode.ToolError : ExitCode.Ok;
      }
      case 'read': {
        const result = await client.readResource(options.target!);
        io.stdout(options.json ? `${JSON.stringify(result, null, 2)}\n` : formatReadResult(result));
        return ExitCode.Ok;
      }
    }
  } catch (err) {
    if (interrupted) return ExitCode.Interrupted;
    io.stderr(`mcp-host: ${oneLine(describeFailure(err, label, spec.type === 'stdio' ? 'could not be started' : 'could not be reached'))}\n`);
    return ExitCode.ServerFailed;
  } finally {
    client.dispose();
    await transport.close().catch(() => undefined);
  }
}

function describeFailure(err: unknown, label: string, failedTo: string): string {
  if (err instanceof RemoteError) return `${label} answered ${err.method} with error ${err.code}: ${err.message}`;
  const signIn = findCause(err, AuthorizationRequiredError);
  if (signIn) return `${signIn.message} Run mcp-host in a terminal to sign in (or set MCP_HOST_SIGN_IN=1).`;
  if (err instanceof McpError) return err.message;
  if (err instanceof Error) return `${label} ${failedTo}: ${err.message}`;
  return String(err);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' | ');
}

async function runList(client: McpClient, options: Options, io: CliIo): Promise<void> {
  const [tools, resources, resourceTemplates, prompts] = await Promise.all([
    client.hasCapability('tools') ? client.listAllTools() : [],
    client.hasCapability('resources') ? client.listAllResources() : [],
    client.hasCapability('resources') ? client.listAllResourceTemplates() : [],
    client.hasCapability('prompts') ? client.listAllPrompts() : [],
  ]);
  const init = client.initializeResult!;
  if (options.json) {
    io.stdout(
      `${JSON.stringify(
        {
          serverInfo: init.serverInfo,
          protocolVersion: init.protocolVersion,
          capabilities: init.capabilities,
          instructions: init.instructions,
          tools,
          resources,
          resourceTemplates,
          prompts,
        },
        null,
        2,
      )}\n`,
    );
    return;
  }
  const out: string[] = [];
  out.push(`${init.serverInfo.title ?? init.serverInfo.name} ${init.serverInfo.version} (protocol ${init.protocolVersion})`);
  out.push(`Capabilities: ${Object.keys(init.capabilities).join(', ') || 'none'}`);
  if (init.instructions) out.push(`Instructions: ${init.instructions.split('\n')[0]}`);
  const section = <T>(title: string, items: T[], line: (item: T) => string) => {
    out.push('', `${title} (${items.length})`);
    for (const item of items) out.push(`  ${line(item)}`);
  };
  const desc = (d?: string) => (d ? ` - ${d.split('\n')[0]}` : '');
  section('Tools', tools, (t) => `${t.name}${desc(t.description)}`);
  section('Resources', resources, (r) => `${r.uri}  ${r.name}${r.mimeType ? ` (${r.mimeType})` : ''}`);
  section('Resource templates', resourceTemplates, (t) => `${t.uriTemplate}  ${t.name}${desc(t.description)}`);
  section('Prompts', prompts, (p) => {
    const args = (p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ');
    return `${p.name}(${args})${desc(p.description)}`;
  });
  io.stdout(`${out.join('\n')}\n`);
}

export function formatToolResult(result: CallToolResult): string {
  const parts: string[] = [];
  if (result.isError) parts.push('Tool error:');
  for (const block of result.content as Array<ContentBlock | UnknownContent>) parts.push(describeContentBlock(block));
  if (result.structuredContent !== undefined) {
    parts.push(`structuredContent:\n${JSON.stringify(result.structuredContent, null, 2)}`);
  }
  return `${parts.join('\n')}\n`;
}

function formatReadResult(result: ReadResourceResult): string {
  return `${result.contents
    .map((c) => ('text' in c ? c.text : `[binary ${c.mimeType ?? 'data'} from ${c.uri}, ${Buffer.byteLength(c.blob, 'base64')} bytes]`))
    .join('\n')}\n`;
}
