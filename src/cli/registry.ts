// `mcp-host search`, `mcp-host add` and `mcp-host list --registry NAME`: find a server in an MCP
// registry, write its mcp.json entry, or try it without adding it. Secrets are never written into
// a file: they become `${input:}` entries (VS Code asks once and keeps them in SecretStorage); a
// try-run reads them from environment variables MCP_HOST_SECRET_<NAME>, set for it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { OFFICIAL_REGISTRY_URL, RegistryError, displayText, entryLabel, registryClient, suggestEntryName, transportsOf, type CatalogEntry, type ServerDetail } from '../host/catalog';
import {
  AddCancelled,
  UnsupportedServerError,
  buildEntry,
  defaultsOnly,
  installOptions,
  needsOf,
  preferredOption,
  type BuiltEntry,
  type InstallOption,
  type ValuePrompter,
  type ValueQuestion,
} from '../host/catalog/toEntry';
import { EntryExistsError, addEntryToText } from '../host/catalog/configEdit';
import { LAUNCHER_REQUESTS_RISK, launcherRequestsHeadline } from '../host/catalog/launcherRequests';
import type { OfficialMeta } from '../host/catalog/serverJson';
import { errorMessage } from '../util/errorMessage';
import { ExitCode, type CliIo } from './io';
import { UsageError, eachArgument } from './options';

export const SEARCH_USAGE = `Usage: mcp-host search [QUERY] [--registry URL] [--header "Name: value"] [--json] [--cursor C] [--limit N]
  Servers of an MCP registry whose name contains QUERY (their latest versions), with what each
  offers (npm, pypi, oci, nuget, remote) and needs (secrets, values). The registry is
  --registry URL, else $MCP_HOST_REGISTRY, else ${OFFICIAL_REGISTRY_URL}.`;

export const ADD_USAGE = `Usage: mcp-host add NAME[@VERSION] [--registry URL] [--config FILE] [--name ENTRY] [--force]
                   [--use npm|pypi|oci|nuget|remote] [--value KEY=VALUE ...]
  Writes the server's entry (version pinned) into FILE (default .vscode/mcp.json here), keeping
  the file's comments. Secrets become "\${input:…}" inputs (VS Code asks once and stores them in
  its SecretStorage); they are never written into the file. Required values are asked here when a
  person is at the terminal, else taken from --value (keys: env:NAME, arg:--flag, arg:HINT,
  header:Name, var:NAME) or their defaults. An existing entry is never replaced without --force.
  An entry that asks npx, uvx, dnx or docker for more than running its package (such as
  --network host, a mount, a forwarded variable, NODE_OPTIONS) is refused, naming what it asks,
  unless --accept-launcher-options (also for list --registry).`;

interface RegistryOptions {
  registry: string;
  headers: Record<string, string>;
  json: boolean;
  values: Record<string, string>;
  use?: string;
  /** --accept-launcher-options: what the entry asks of npx/uvx/dnx/docker beyond its package is accepted. */
  acceptLauncherOptions?: boolean;
}

function baseOptions(io: CliIo): RegistryOptions {
  return { registry: io.env.MCP_HOST_REGISTRY || OFFICIAL_REGISTRY_URL, headers: {}, json: false, values: {} };
}

/** Reads an option every registry command shares; false for any other. */
function readCommonOption(arg: string, value: () => string, options: RegistryOptions): boolean {
  switch (arg) {
    case '--registry':
    case '--registry-url':
      options.registry = value();
      return true;
    case '--header': {
      const v = value();
      const colon = v.indexOf(':');
      if (colon <= 0) throw new UsageError('--header takes "Name: value"');
      options.headers[v.slice(0, colon).trim()] = v.slice(colon + 1).trim();
      return true;
    }
    case '--json':
      options.json = true;
      return true;
    case '--value': {
      const v = value();
      const eq = v.indexOf('=');
      if (eq <= 0) throw new UsageError('--value takes KEY=VALUE, e.g. --value env:REGION=eu');
      options.values[v.slice(0, eq)] = v.slice(eq + 1);
      return true;
    }
    case '--use':
      options.use = value();
      return true;
    default:
      return false;
  }
}

function statusNote(meta: OfficialMeta): string {
  return meta.status && meta.status !== 'active' ? ` [${meta.status}]` : '';
}

/** The JSON shape of one search result (also what `--json` prints). */
function resultJson(entry: CatalogEntry): Record<string, unknown> {
  if (entry.kind === 'malformed') return { malformed: true, name: entry.name, version: entry.version, reason: entry.reason };
  const { server, meta } = entry;
  const options = installOptions(server);
  const preferred = options.find((o) => !o.unsupported);
  return {
    name: server.name,
    version: server.version,
    title: server.title,
    description: server.description,
    status: meta.status ?? 'active',
    repository: server.repository?.url,
    transports: transportsOf(server),
    options: options.map((o) => ({ label: o.label, ...(o.unsupported ? { unsupported: o.unsupported } : {}) })),
    needs: preferred ? needsOf(preferred) : undefined,
  };
}

function resultText(entry: CatalogEntry): string {
  if (entry.kind === 'malformed') return `  ✖ ${displayText(entryLabel(entry), 120)}  malformed: ${displayText(entry.reason, 160)}`;
  const { server, meta } = entry;
  const preferred = preferredOption(server);
  const needs = preferred ? needsOf(preferred) : undefined;
  const needText = needs && (needs.secrets.length || needs.values.length) ? `  needs: ${[...needs.secrets.map((s) => `${s} (secret)`), ...needs.values].map((s) => displayText(s, 60)).join(', ')}` : '';
  const lines = [
    `  ${displayText(server.name, 200)}@${displayText(server.version, 60)}${statusNote(meta)}${server.title ? `  ${displayText(server.title, 80)}` : ''}`,
    `    ${displayText(server.description, 200)}`,
    `    ${displayText(transportsOf(server), 200)}${preferred ? '' : '  (nothing MCP Host can install)'}${needText}`,
  ];
  if (server.repository?.url) lines.push(`    ${displayText(server.repository.url, 200)}`);
  return lines.join('\n');
}

export async function runSearch(argv: string[], io: CliIo): Promise<number> {
  const options = baseOptions(io);
  let query = '';
  let cursor: string | undefined;
  let limit = 20;
  try {
    for (const { arg, value } of eachArgument(argv)) {
      if (readCommonOption(arg, value, options)) continue;
      if (arg === '--help' || arg === '-h') {
        io.stdout(`${SEARCH_USAGE}\n`);
        return ExitCode.Ok;
      } else if (arg === '--cursor') cursor = value();
      else if (arg === '--limit') limit = Number(value());
      else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
      else query = query ? `${query} ${arg}` : arg;
    }
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit takes a positive whole number');
  } catch (err) {
    return usageFailure('search', err, io);
  }
  try {
    const client = registryClient(options.registry, options.headers);
    const page = await client.search(query, { cursor, limit });
    if (options.json) {
      io.stdout(`${JSON.stringify({ registry: client.baseUrl, servers: page.entries.map(resultJson), nextCursor: page.nextCursor ?? null }, null, 2)}\n`);
      return ExitCode.Ok;
    }
    const out = [`${page.entries.length === 0 ? 'No servers' : `Servers`} in ${client.baseUrl}${query ? ` matching "${displayText(query, 80)}"` : ''}${page.entries.length ? ` (${page.entries.length})` : ''}`];
    for (const entry of page.entries) out.push(resultText(entry));
    if (page.nextCursor) out.push('', `More: mcp-host search ${query ? `${JSON.stringify(query)} ` : ''}--cursor ${JSON.stringify(page.nextCursor)}${options.registry !== OFFICIAL_REGISTRY_URL ? ` --registry ${options.registry}` : ''}`);
    else if (page.entries.some((e) => e.kind === 'server')) out.push('', 'Add one with: mcp-host add NAME  (or try it first: mcp-host list --registry NAME)');
    io.stdout(`${out.join('\n')}\n`);
    return ExitCode.Ok;
  } catch (err) {
    return registryFailure('search', err, io);
  }
}

/** NAME[@VERSION]: the version is after the last @ (names have no @). */
function splitNameVersion(spec: string): { name: string; version: string } {
  const at = spec.lastIndexOf('@');
  return at > 0 ? { name: spec.slice(0, at), version: spec.slice(at + 1) || 'latest' } : { name: spec, version: 'latest' };
}

/** The server.json of NAME[@VERSION], and how it will be installed. */
async function resolveServer(spec: string, options: RegistryOptions, io: CliIo): Promise<{ server: ServerDetail; option: InstallOption; registry: string }> {
  const { name, version } = splitNameVersion(spec);
  const client = registryClient(options.registry, options.headers);
  let entry: CatalogEntry;
  try {
    entry = await client.get(name, version);
  } catch (err) {
    if (err instanceof RegistryError && err.status === 404) {
      throw new UsageError(`${client.baseUrl} has no server ${JSON.stringify(name)}${version !== 'latest' ? ` version ${JSON.stringify(version)}` : ''} (find names with: mcp-host search ${JSON.stringify(name.slice(name.lastIndexOf('/') + 1))})`);
    }
    throw err;
  }
  if (entry.kind === 'malformed') throw new UsageError(`${client.baseUrl} has ${displayText(entryLabel(entry), 120)}, but its server.json is malformed: ${displayText(entry.reason, 200)}`);
  if (entry.meta.status === 'deleted') throw new UsageError(`${entry.server.name}@${displayText(entry.server.version, 60)} was deleted from ${client.baseUrl}; not added`);
  if (entry.meta.status === 'deprecated') io.stderr(`mcp-host: note: ${entry.server.name}@${displayText(entry.server.version, 60)} is deprecated in ${client.baseUrl}\n`);
  const options_ = installOptions(entry.server);
  const option = options.use
    ? options_.find((o) => (options.use === 'remote' ? o.kind === 'remote' : o.kind === 'package' && o.pkg.registryType === options.use) && !o.unsupported)
    : options_.find((o) => !o.unsupported);
  if (!option) {
    const why = options_.map((o) => `${o.label}: ${o.unsupported ?? 'available'}`).join('; ');
    throw new UsageError(`${entry.server.name}@${displayText(entry.server.version, 60)} has no ${options.use ? `installable "${options.use}" option` : 'package or remote MCP Host can install'}${why ? ` (${displayText(why, 400)})` : ''}`);
  }
  return { server: entry.server, option, registry: client.baseUrl };
}

/** Answers from --value first; then the terminal when a person is there; else the defaults. */
function cliPrompter(values: Record<string, string>, io: CliIo): ValuePrompter {
  return {
    ask: async (q: ValueQuestion) => {
      if (Object.hasOwn(values, q.key)) return values[q.key];
      if (!io.interactive || !process.stdin.isTTY) {
        const fallback = await defaultsOnly.ask(q);
        if (fallback === undefined) io.stderr(`mcp-host: ${displayText(q.label, 80)} is required; give it with --value ${displayText(q.key, 90)}=VALUE\n`);
        return fallback;
      }
      return askTerminal(q, io);
    },
  };
}

async function askTerminal(q: ValueQuestion, io: CliIo): Promise<string | undefined> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    if (q.description) io.stderr(`${displayText(q.description, 300)}\n`);
    const choices = q.choices?.length ? ` (${q.choices.map((c) => displayText(c, 60)).join(' | ')})` : '';
    for (;;) {
      const answer = (await rl.question(`${displayText(q.label, 80)}${choices}${q.default !== undefined ? ` [${displayText(q.default, 80)}]` : ''}: `)).trim() || q.default;
      if (!answer) continue;
      if (q.choices?.length && !q.choices.includes(answer)) {
        io.stderr(`  one of: ${q.choices.join(', ')}\n`);
        continue;
      }
      return answer;
    }
  } catch {
    return undefined;
  } finally {
    rl.close();
  }
}

export async function runAdd(argv: string[], io: CliIo): Promise<number> {
  const options = baseOptions(io);
  let spec: string | undefined;
  let configFile = path.join('.vscode', 'mcp.json');
  let entryName: string | undefined;
  let force = false;
  try {
    for (const { arg, value } of eachArgument(argv)) {
      if (readCommonOption(arg, value, options)) continue;
      if (arg === '--help' || arg === '-h') {
        io.stdout(`${ADD_USAGE}\n`);
        return ExitCode.Ok;
      } else if (arg === '--config') configFile = value();
      else if (arg === '--name') entryName = value();
      else if (arg === '--force') force = true;
      else if (arg === '--accept-launcher-options') options.acceptLauncherOptions = true;
      else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
      else if (spec === undefined) spec = arg;
      else throw new UsageError(`one server at a time (got ${JSON.stringify(spec)} and ${JSON.stringify(arg)})`);
    }
    if (!spec) throw new UsageError('name the server to add, e.g. mcp-host add io.github.user/weather');
  } catch (err) {
    return usageFailure('add', err, io);
  }
  try {
    const { server, option, registry } = await resolveServer(spec, options, io);
    const file = path.resolve(io.cwd, configFile);
    const name = entryName ?? suggestEntryName(server.name);
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    const built = await buildEntry(server, option, { registry, name: server.name, version: server.version }, name, cliPrompter(options.values, io));
    if (!launcherOptionsAccepted('add', server.name, built, options, io, 'nothing written')) return ExitCode.Usage;
    const updated = addEntryToText(text, name, built.entry, built.inputs, force);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, updated);
    const lines = [`Added "${name}" (${server.name}@${displayText(server.version, 60)}, ${displayText(option.label, 200)}) to ${file}.`];
    if (built.secrets.length) {
      lines.push(`Secrets (not written to the file): ${built.secrets.map((n) => displayText(n, 80)).join(', ')}. VS Code asks for each when the server first starts and keeps it in its SecretStorage.`);
    } else {
      lines.push(`Try it: mcp-host list --config ${JSON.stringify(configFile)} --server ${JSON.stringify(name)}`);
    }
    io.stdout(`${lines.join('\n')}\n`);
    return ExitCode.Ok;
  } catch (err) {
    return registryFailure('add', err, io);
  }
}

/**
 * `mcp-host list --registry NAME[@VERSION] [LIST OPTIONS]`: the server's tools without adding it.
 * The entry is written to a temporary mcp.json whose secrets are `${env:MCP_HOST_SECRET_NAME}`
 * references; the ordinary `list --config` runs it; the file is removed after.
 */
export async function runListFromRegistry(argv: string[], io: CliIo, runCli: (argv: string[], io: CliIo) => Promise<number>): Promise<number> {
  const options = baseOptions(io);
  let spec: string | undefined;
  const passThrough: string[] = [];
  try {
    for (const { arg, value } of eachArgument(argv)) {
      if (arg === '--registry') spec = value();
      else if (arg === '--registry-url') options.registry = value();
      else if (arg === '--registry-header' || arg === '--use' || arg === '--value') readCommonOption(arg === '--registry-header' ? '--header' : arg, value, options);
      else if (arg === '--accept-launcher-options') options.acceptLauncherOptions = true;
      else if (arg === '--timeout' || arg === '--era' || arg === '--trace') passThrough.push(arg, value());
      else passThrough.push(arg);
    }
    if (!spec) throw new UsageError('list --registry takes a server name, e.g. list --registry io.github.user/weather');
  } catch (err) {
    return usageFailure('list', err, io);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-try-'));
  try {
    const { server, option, registry } = await resolveServer(spec, options, io);
    const name = suggestEntryName(server.name);
    const built = await buildEntry(server, option, { registry, name: server.name, version: server.version }, name, cliPrompter(options.values, io));
    if (!launcherOptionsAccepted('list', server.name, built, options, io, 'nothing started')) return ExitCode.Usage;
    const entry = secretsFromEnvironment(built, io);
    const file = path.join(dir, 'mcp.json');
    fs.writeFileSync(file, addEntryToText(undefined, name, entry, []), { mode: 0o600 });
    return await runCli(['list', ...passThrough, '--config', file, '--server', name], io);
  } catch (err) {
    return registryFailure('list', err, io);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An entry that asks its launcher for more than running its package goes on only with
 * --accept-launcher-options; else each request is printed on a line of its own (shown, bounded
 * and escaped, by launcherRequests) and nothing happens.
 */
function launcherOptionsAccepted(command: string, serverName: string, built: BuiltEntry, options: RegistryOptions, io: CliIo, outcome: string): boolean {
  if (built.launcherRequests.length === 0 || options.acceptLauncherOptions) return true;
  io.stderr(
    [
      `mcp-host ${command}: ${launcherRequestsHeadline(serverName, built.entry.command)}:`,
      ...built.launcherRequests.map((r) => `  ${r}`),
      `${LAUNCHER_REQUESTS_RISK}; ${outcome}.`,
      'Add --accept-launcher-options if you expect them.',
      '',
    ].join('\n'),
  );
  return false;
}

/**
 * What a try-run's secret variables start with. The registry names the secrets: read by those names
 * alone (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY), a variable set for something else would be sent to
 * the registry's server without asking; one with this prefix was set for a try-run.
 */
export const TRY_SECRET_PREFIX = 'MCP_HOST_SECRET_';

/** The entry with each `${input:id}` replaced by `${env:MCP_HOST_SECRET_NAME}`; a variable not set is a usage error. */
function secretsFromEnvironment(built: BuiltEntry, io: CliIo): Record<string, unknown> {
  let json = JSON.stringify(built.entry);
  const missing: Array<{ secret: string; variable: string }> = [];
  built.inputs.forEach((input, index) => {
    const variable = TRY_SECRET_PREFIX + built.secrets[index].replace(/[^A-Za-z0-9_]/g, '_').toUpperCase();
    if (io.env[variable] === undefined) missing.push({ secret: displayText(built.secrets[index], 80), variable });
    json = json.split(`\${input:${input.id}}`).join(`\${env:${variable}}`);
  });
  if (missing.length > 0) {
    const secrets = missing.map((m) => m.secret).join(', ');
    const variables = missing.map((m) => m.variable).join(', ');
    throw new UsageError(
      `the server needs ${missing.length === 1 ? 'the secret' : 'the secrets'} ${secrets}: give ${missing.length === 1 ? 'it' : 'them'} for this run as ${variables} ` +
        `(e.g. ${missing[0].variable}=… mcp-host list --registry …); a try-run reads secrets only from variables named ${TRY_SECRET_PREFIX}<NAME>`,
    );
  }
  return JSON.parse(json) as Record<string, unknown>;
}

function usageFailure(command: string, err: unknown, io: CliIo): number {
  if (!(err instanceof UsageError)) throw err;
  io.stderr(`mcp-host ${command}: ${err.message}; see 'mcp-host ${command} --help'\n`);
  return ExitCode.Usage;
}

function registryFailure(command: string, err: unknown, io: CliIo): number {
  if (err instanceof UsageError || err instanceof EntryExistsError || err instanceof UnsupportedServerError) {
    // Registry text (a package type, a name) can be part of these: no control characters reach the terminal.
    io.stderr(`mcp-host ${command}: ${displayText(err.message, 2000)}\n`);
    return ExitCode.Usage;
  }
  if (err instanceof AddCancelled) {
    io.stderr(`mcp-host ${command}: cancelled; nothing written\n`);
    return ExitCode.Usage;
  }
  if (err instanceof RegistryError) {
    io.stderr(`mcp-host ${command}: ${err.message}\n`);
    return ExitCode.ServerFailed;
  }
  io.stderr(`mcp-host ${command}: ${errorMessage(err)}\n`);
  return ExitCode.ServerFailed;
}

/** True for the commands this module runs: search, add, and list with --registry (before any --). */
export function isRegistryCommand(argv: readonly string[]): boolean {
  const own = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  return argv[0] === 'search' || argv[0] === 'add' || (argv[0] === 'list' && own.includes('--registry'));
}

export function runRegistryCommand(argv: string[], io: CliIo, runCli: (argv: string[], io: CliIo) => Promise<number>): Promise<number> {
  if (argv[0] === 'search') return runSearch(argv.slice(1), io);
  if (argv[0] === 'add') return runAdd(argv.slice(1), io);
  return runListFromRegistry(argv.slice(1), io, runCli);
}
