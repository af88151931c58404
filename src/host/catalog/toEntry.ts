// server.json -> one mcp.json entry in VS Code's format, as a person would write it by hand:
// `npx -y pkg@1.2.3`, `uvx pkg==1.2.3`, `docker run -i --rm -e NAME image:tag`, `dnx Pkg@1.2.3 --yes`,
// or `{type: http|sse, url, headers}` for a remote. Every secret becomes an `inputs` entry
// (password: true) referenced as `${input:id}`, so its value lives in SecretStorage, never in the
// file. Required values that are not secret are asked through a small prompter.
import { zoneOfUrl } from '../../util/networkZone';
import { nugetIdProblem, npmNameProblem, ociReferenceProblem, pypiNameProblem, versionProblem } from './packageNames';
import { shownServerText } from '../../util/serverText';
import { galleryUrl, type Provenance } from './provenance';
import { MAX_LAUNCHER_REQUESTS, launcherRequests } from './launcherRequests';
import type { KeyValueInput, RegistryArgument, RegistryInput, RegistryPackage, RegistryRemote, ServerDetail } from './serverJson';

/** What kind of install a choice is: one package, or one remote endpoint. */
export type InstallOption =
  | { readonly kind: 'package'; readonly index: number; readonly pkg: RegistryPackage; readonly label: string; readonly unsupported?: string }
  | { readonly kind: 'remote'; readonly index: number; readonly remote: RegistryRemote; readonly label: string; readonly unsupported?: string };

/** A value to ask a person for: never a secret (those become `${input:}`). */
export interface ValueQuestion {
  /** Stable key for scripted answers: `env:NAME`, `arg:--flag`, `arg:hint`, `header:Name`, `var:name`. */
  readonly key: string;
  /** What it is called: an environment variable, a flag, a header, a URL variable. */
  readonly label: string;
  readonly description?: string;
  readonly choices?: readonly string[];
  readonly default?: string;
  readonly placeholder?: string;
  readonly format?: string;
}

/** Answers the questions; undefined means the person cancelled. */
export interface ValuePrompter {
  ask(question: ValueQuestion): Promise<string | undefined>;
}

/** The prompter of a run without a person: defaults, else the first choice, else cancel. */
export const defaultsOnly: ValuePrompter = {
  ask: (q) => Promise.resolve(q.default ?? q.choices?.[0]),
};

export interface McpJsonInput {
  readonly id: string;
  readonly type: 'promptString';
  readonly description: string;
  readonly password: true;
}

export type McpJsonEntry = Record<string, unknown>;

export interface BuiltEntry {
  readonly entry: McpJsonEntry;
  readonly inputs: McpJsonInput[];
  /** The secrets' names (for "needs: X_API_KEY"), in order. */
  readonly secrets: string[];
  /**
   * What the entry asks of its launcher beyond running the pinned package (launcherRequests.ts:
   * "--network host", "NODE_OPTIONS (environment)"): written only once the person accepts them.
   */
  readonly launcherRequests: string[];
}

export { galleryUrl, provenanceOf, type Provenance } from './provenance';

/** Adding was abandoned (a question was dismissed). */
export class AddCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'AddCancelled';
  }
}

/** A server.json that cannot be turned into an entry; the message says why and what to do. */
export class UnsupportedServerError extends Error {
  override name = 'UnsupportedServerError';
}

/** Every way a server can be installed, packages first (in the publisher's order), then remotes. */
export function installOptions(server: ServerDetail): InstallOption[] {
  const options: InstallOption[] = [];
  (server.packages ?? []).forEach((pkg, index) => {
    const unsupported = whyUnsupportedPackage(pkg);
    options.push({ kind: 'package', index, pkg, label: packageLabel(pkg), ...(unsupported ? { unsupported } : {}) });
  });
  (server.remotes ?? []).forEach((remote, index) => {
    // A URL with {variables} is checked once they are filled in.
    const unsupported = remote.url.includes('{') ? undefined : remoteUrlProblem(remote.url);
    options.push({ kind: 'remote', index, remote, label: `${remote.type} ${remote.url}`, ...(unsupported ? { unsupported } : {}) });
  });
  return options;
}

/** The option used when none is chosen: the first one that can be installed. */
export function preferredOption(server: ServerDetail): InstallOption | undefined {
  return installOptions(server).find((o) => !o.unsupported);
}

function packageLabel(pkg: RegistryPackage): string {
  switch (pkg.registryType) {
    case 'npm':
      return `npm ${pkg.identifier}${pkg.version ? `@${pkg.version}` : ''}`;
    case 'pypi':
      return `PyPI ${pkg.identifier}${pkg.version ? `==${pkg.version}` : ''}`;
    case 'oci':
      return `container ${ociReference(pkg)}`;
    case 'nuget':
      return `NuGet ${pkg.identifier}${pkg.version ? `@${pkg.version}` : ''}`;
    case 'mcpb':
      return `MCP bundle ${pkg.identifier}`;
    default:
      return `${pkg.registryType} ${pkg.identifier}`;
  }
}

function whyUnsupportedPackage(pkg: RegistryPackage): string | undefined {
  if (pkg.registryType === 'mcpb') {
    return 'an MCP bundle (.mcpb) must be downloaded, checked against its SHA-256 and unpacked; MCP Host does not install bundles yet (use another package or a remote)';
  }
  if (!['npm', 'pypi', 'oci', 'nuget'].includes(pkg.registryType)) return `package type "${pkg.registryType}" is not one MCP Host can start (npm, pypi, oci, nuget)`;
  if (pkg.transport.type !== 'stdio') {
    return `the package serves ${pkg.transport.type} on a local port; MCP Host starts packages that speak stdio (add its URL as a remote server instead)`;
  }
  if (pkg.registryType !== 'oci' && !pkg.version) return 'the package has no version to pin';
  return packageProblem(pkg);
}

/**
 * Why the package's identifier or version cannot go on a command line, or undefined: each must be a
 * name of its ecosystem and a plain version, never an option (`--call=…`, `--privileged`), a URL or a path.
 */
function packageProblem(pkg: RegistryPackage): string | undefined {
  switch (pkg.registryType) {
    case 'npm':
      return npmNameProblem(pkg.identifier) ?? versionProblem(pkg.version ?? '', 'the package version');
    case 'pypi':
      return pypiNameProblem(pkg.identifier) ?? versionProblem(pkg.version ?? '', 'the package version');
    case 'nuget':
      return nugetIdProblem(pkg.identifier) ?? versionProblem(pkg.version ?? '', 'the package version');
    case 'oci':
      return ociReferenceProblem(ociReference(pkg));
    default:
      return undefined;
  }
}

/** `image:tag` (the 2025-12 schema puts the tag in the identifier; older documents had `version`). */
function ociReference(pkg: RegistryPackage): string {
  const lastSegment = pkg.identifier.slice(pkg.identifier.lastIndexOf('/') + 1);
  const tagged = lastSegment.includes(':') || pkg.identifier.includes('@');
  return tagged || !pkg.version ? pkg.identifier : `${pkg.identifier}:${pkg.version}`;
}

/**
 * Builds the entry for one install option. `inputPrefix` keeps input ids of different servers apart
 * (e.g. the entry's name). Values the registry fixes are written as given; a value holding `${`
 * is refused, since our config would expand it (a registry entry must not read `${env:…}` secrets).
 */
export async function buildEntry(server: ServerDetail, option: InstallOption, provenance: Provenance, inputPrefix: string, prompter: ValuePrompter): Promise<BuiltEntry> {
  // Asked again: an option may have been made without installOptions.
  const unsupported = option.unsupported ?? (option.kind === 'package' ? whyUnsupportedPackage(option.pkg) : undefined);
  if (unsupported) throw new UnsupportedServerError(`${server.name}: ${unsupported}`);
  const ctx = new EntryContext(inputPrefix, prompter);
  let entry: McpJsonEntry;
  let requests: string[] = [];
  try {
    if (option.kind === 'package') ({ entry, requests } = await packageEntry(option.pkg, ctx));
    else entry = await remoteEntry(option.remote, ctx);
  } catch (err) {
    // Which server a refused value belongs to.
    if (err instanceof UnsupportedServerError) throw new UnsupportedServerError(`${server.name}: ${err.message}`);
    throw err;
  }
  const urlProblem = typeof entry.url === 'string' ? remoteUrlProblem(entry.url) : undefined;
  if (urlProblem) throw new UnsupportedServerError(`${server.name}: ${urlProblem}; not added`);
  return { entry: { ...entry, gallery: galleryUrl(provenance), version: provenance.version }, inputs: ctx.inputs, secrets: ctx.secrets, launcherRequests: requests };
}

/**
 * Why a remote's URL is not one to connect to, or undefined: `https:`, or `http:` to this machine
 * only (a local server); anything else would send the requests and their secrets in the clear, or
 * is not a server at all.
 */
function remoteUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `the URL ${shownServerText(url, 80)} is not a valid URL`;
  }
  if (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && zoneOfUrl(parsed) === 'loopback')) return undefined;
  return `the URL ${shownServerText(url, 80)} is neither https: nor http: to this machine (localhost)`;
}

/** `{name}` in a server.json template: a name without braces (so a match is found in one pass). */
const TEMPLATE_VARIABLE = /\{([^{}]*)\}/g;

/** The questions and `${input:}` references gathered while one entry is built. */
class EntryContext {
  readonly inputs: McpJsonInput[] = [];
  readonly secrets: string[] = [];

  constructor(
    private readonly prefix: string,
    private readonly prompter: ValuePrompter,
  ) {}

  /** `${input:prefix.NAME}` for a secret, declared once ({@link inputId}). */
  secret(name: string, description: string | undefined): string {
    const id = inputId(this.prefix, name);
    if (!this.inputs.some((i) => i.id === id)) {
      this.inputs.push({ id, type: 'promptString', description: description?.trim() || name, password: true });
      this.secrets.push(name);
    }
    return `\${input:${id}}`;
  }

  async ask(key: string, label: string, input: RegistryInput): Promise<string> {
    const answer = await this.prompter.ask({
      key,
      label,
      ...(input.description ? { description: input.description } : {}),
      ...(input.choices?.length ? { choices: input.choices } : {}),
      ...(input.default !== undefined ? { default: input.default } : {}),
      ...(input.placeholder ? { placeholder: input.placeholder } : {}),
      ...(input.format ? { format: input.format } : {}),
    });
    if (answer === undefined) throw new AddCancelled();
    return answer;
  }

  /**
   * The value of one input, or undefined to leave it out: the fixed `value` with its `{variables}`
   * filled in; a secret as `${input:}`; a required value asked; an optional one left out.
   */
  async valueOf(key: string, label: string, input: RegistryInput & { variables?: Record<string, RegistryInput> }): Promise<string | undefined> {
    if (input.value !== undefined) return this.fill(input.value, input.variables ?? {}, label);
    if (input.isSecret) return this.secret(label, input.description);
    if (!input.isRequired) return undefined;
    return literal(await this.ask(key, label, input), label);
  }

  /**
   * Replaces `{name}` with each variable's value (asked, or `${input:}` for a secret); unknown names
   * stay. The template and each value are checked alone, and then the text they make together:
   * `{d}{env:SECRET}` with d = "$" must not become `${env:SECRET}`.
   */
  async fill(template: string, variables: Record<string, RegistryInput>, label: string): Promise<string> {
    literal(template, label);
    // The pieces of the result, and the same with each secret's `${input:}` (ours) as a space:
    // what the registry wrote and the values, joined, for the check of the whole.
    const out: string[] = [];
    const joined: string[] = [];
    let at = 0;
    // One pass: each `{` is looked at once (the name between braces has neither brace).
    for (const match of template.matchAll(TEMPLATE_VARIABLE)) {
      const name = match[1];
      const variable = Object.hasOwn(variables, name) ? variables[name] : undefined;
      if (!variable) continue;
      const text = template.slice(at, match.index);
      const value = variable.isSecret ? undefined : literal(variable.value ?? (await this.ask(`var:${name}`, name, variable)), name);
      out.push(text, value ?? this.secret(name, variable.description));
      joined.push(text, value ?? ' ');
      at = match.index + match[0].length;
    }
    out.push(template.slice(at));
    joined.push(template.slice(at));
    literal(joined.join(''), `${label} with its {variables} filled in`);
    return out.join('');
  }
}

/**
 * The id of a secret's input: the entry's name, ".", the secret's name (`brave-search.BRAVE_API_KEY`),
 * each part kept to letters, digits, "-" and "_" with the other characters escaped, so two different
 * pairs never make the same id: `my` + `server-API_KEY` and `my-server` + `API_KEY` once both made
 * `my-server-API_KEY`, and the second server was given the first one's stored secret. The entry's
 * part has no ".", so the first "." ends it; it escapes a character as `_HEX_` (and "_" as `__`),
 * the secret's part as `.HEX.`. The ids stay within what `${input:…}` reads everywhere.
 */
export function inputId(entryName: string, secretName: string): string {
  return `${escaped(entryName, '_', /[A-Za-z0-9-]/)}.${escaped(secretName, '.', /[A-Za-z0-9_-]/)}`;
}

function escaped(text: string, escape: string, kept: RegExp): string {
  let out = '';
  for (const ch of text) {
    if (ch === escape) out += escape + escape;
    else if (kept.test(ch)) out += ch;
    else out += `${escape}${ch.codePointAt(0)!.toString(16)}${escape}`;
  }
  return out;
}

/** A value written to the file as it is; `${` would be read as one of our variables. */
function literal(value: string, label: string): string {
  if (value.includes('${')) throw new UnsupportedServerError(`the value of ${label} contains "\${", which mcp.json would read as a variable; not added`);
  if (hasControlCharacter(value)) throw new UnsupportedServerError(`the value of ${label} contains a control character (such as a line break); not added`);
  return value;
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** An environment variable name as shells and docker -e take it. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An HTTP header name (RFC 9110 token), as the config parser requires. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

async function argumentList(args: readonly RegistryArgument[] | undefined, ctx: EntryContext): Promise<string[]> {
  const out: string[] = [];
  for (const arg of args ?? []) {
    if (arg.type === 'positional') {
      const label = arg.valueHint ?? 'argument';
      const value = await ctx.valueOf(`arg:${label}`, label, arg);
      if (value !== undefined) out.push(value);
    } else {
      const value = await ctx.valueOf(`arg:${arg.name}`, arg.name, arg);
      if (value !== undefined) out.push(literal(arg.name, arg.name), value);
    }
  }
  return out;
}

async function environment(vars: readonly KeyValueInput[] | undefined, ctx: EntryContext): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const v of vars ?? []) {
    if (!ENV_NAME.test(v.name)) throw new UnsupportedServerError(`the environment variable name ${JSON.stringify(v.name.slice(0, 80))} is not a valid name; not added`);
    const value = await ctx.valueOf(`env:${v.name}`, v.name, v);
    if (value !== undefined) env[v.name] = value;
  }
  return env;
}

async function packageEntry(pkg: RegistryPackage, ctx: EntryContext): Promise<{ entry: McpJsonEntry; requests: string[] }> {
  const problem = packageProblem(pkg);
  if (problem) throw new UnsupportedServerError(`${problem}; not added`);
  const runtimeArgs = await argumentList(pkg.runtimeArguments, ctx);
  const env = await environment(pkg.environmentVariables, ctx);
  const packageArgs = await argumentList(pkg.packageArguments, ctx);
  const id = pkg.identifier;
  const version = pkg.version ?? '';
  let command: string;
  let args: string[];
  switch (pkg.registryType) {
    case 'npm':
      command = 'npx';
      args = [...(runtimeArgs.includes('-y') || runtimeArgs.includes('--yes') ? [] : ['-y']), ...runtimeArgs, `${id}@${version}`, ...packageArgs];
      break;
    case 'pypi':
      command = 'uvx';
      args = [...runtimeArgs, `${id}==${version}`, ...packageArgs];
      break;
    case 'nuget':
      // dnx (the .NET 10 SDK) runs a NuGet tool; --yes skips its confirmation; the tool's own
      // arguments follow `--`, as the registry's documentation shows.
      command = 'dnx';
      args = [...runtimeArgs, `${id}@${version}`, '--yes', ...(packageArgs.length ? ['--', ...packageArgs] : [])];
      break;
    case 'oci':
      // The values stay in `env`; docker forwards each named variable with `-e NAME`.
      command = 'docker';
      args = ['run', '-i', '--rm', ...runtimeArgs, ...Object.keys(env).flatMap((name) => ['-e', name]), ociReference(pkg), ...packageArgs];
      break;
    default:
      throw new UnsupportedServerError(`package type "${pkg.registryType}" is not supported`);
  }
  const entry: McpJsonEntry = { type: 'stdio', command, args, ...(Object.keys(env).length ? { env } : {}) };
  const requests = launcherRequests(pkg.registryType, runtimeArgs, env);
  if (requests.length > MAX_LAUNCHER_REQUESTS) {
    throw new UnsupportedServerError(`it asks ${command} for ${requests.length} options and variables beyond running its package, more than the ${MAX_LAUNCHER_REQUESTS} a person can review; not added`);
  }
  return { entry, requests };
}

async function remoteEntry(remote: RegistryRemote, ctx: EntryContext): Promise<McpJsonEntry> {
  const url = await ctx.fill(remote.url, remote.variables ?? {}, 'the URL');
  const headers: Record<string, string> = {};
  for (const header of remote.headers ?? []) {
    if (!HEADER_NAME.test(header.name)) throw new UnsupportedServerError(`the header name ${JSON.stringify(header.name.slice(0, 80))} is not a valid HTTP header name; not added`);
    const value = await ctx.valueOf(`header:${header.name}`, header.name, header);
    if (value !== undefined) headers[header.name] = value;
  }
  return { type: remote.type === 'sse' ? 'sse' : 'http', url, ...(Object.keys(headers).length ? { headers } : {}) };
}

/** What a server needs from the person adding it, for the list: its secrets and required values. */
export function needsOf(option: InstallOption): { secrets: string[]; values: string[] } {
  const secrets: string[] = [];
  const values: string[] = [];
  const visit = (label: string, input: RegistryInput & { variables?: Record<string, RegistryInput> }): void => {
    if (input.value !== undefined) {
      for (const [name, variable] of Object.entries(input.variables ?? {})) visit(name, variable);
    } else if (input.isSecret) secrets.push(label);
    else if (input.isRequired) values.push(label);
  };
  if (option.kind === 'package') {
    for (const a of [...(option.pkg.runtimeArguments ?? []), ...(option.pkg.packageArguments ?? [])]) visit(a.type === 'named' ? a.name : (a.valueHint ?? 'argument'), a);
    for (const v of option.pkg.environmentVariables ?? []) visit(v.name, v);
  } else {
    for (const [name, variable] of Object.entries(option.remote.variables ?? {})) visit(name, variable);
    for (const h of option.remote.headers ?? []) visit(h.name, h);
  }
  return { secrets, values };
}
