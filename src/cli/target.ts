// The one server a list, call, read or prompt run talks to: a config entry (its variables resolved
// as far as the CLI can), a URL, or the command after --.
import * as path from 'node:path';
import { formatProblem, type ServerDefinition } from '../host/config';
import type { LaunchSpec } from '../host/transportFactory';
import { definitionSecrets, launchSecrets } from '../host/redact';
import type { ProtocolEraSetting } from '../protocol/era';
import { displayConfigUrl } from '../util/displayUrl';
import type { Options } from './args';
import { readConfigFile } from './configFile';
import type { CliIo } from './io';
import { serverNameFromCommand } from './names';
import { UsageError } from './options';

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
export interface CliTarget {
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

export function resolveTarget(options: Options, io: CliIo): CliTarget {
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

/** Every secret value of the target, hidden in every message of the run. */
export function targetSecrets(target: CliTarget): string[] {
  return [...launchSecrets(target.spec), ...(target.secrets ?? []), ...(target.staticClient?.clientSecret ? [target.staticClient.clientSecret] : [])];
}
