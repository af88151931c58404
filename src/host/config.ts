import * as z from '../protocol/zod';
import type { ProtocolEraSetting } from '../protocol/era';

const opt = z.optional;
import { provenanceOf, type Provenance } from './catalog/provenance';
import { parseTree, findNodeAtLocation, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser';

/** Where a server definition came from, shown to the user as its origin. */
export interface ConfigSource {
  /** Absolute path of the file, or a pseudo-path such as `settings:mcpHost.servers`. */
  readonly file: string;
  readonly kind: 'workspace' | 'user' | 'import';
  /** The workspace folder the file belongs to, for variables like ${workspaceFolder}. */
  readonly workspaceFolder?: string;
  /** How the origin is shown to a person, e.g. "Cursor (.cursor/mcp.json)". */
  readonly label?: string;
}

export interface StdioServerDefinition {
  readonly type: 'stdio';
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** `null` removes a variable from the inherited environment. */
  readonly env: Readonly<Record<string, string | null>>;
  readonly envFile?: string;
  readonly cwd?: string;
  /** Which protocol era to speak; absent means 'auto' (probe with server/discover). */
  readonly protocolEra?: ProtocolEraSetting;
  readonly source: ConfigSource;
  /** The MCP registry entry it was added from (`gallery` + `version`, as VS Code writes them). */
  readonly registry?: Provenance;
}

export interface HttpServerDefinition {
  readonly type: 'http' | 'sse';
  readonly name: string;
  readonly url: string;
  /** Sent with every request; values may hold `${input:}` and `${env:}` variables. */
  readonly headers: Readonly<Record<string, string>>;
  /** A client registered beforehand with the server's authorization server. */
  readonly oauth?: OAuthClientDefinition;
  /** Which protocol era to speak; absent means 'auto' (probe with server/discover). */
  readonly protocolEra?: ProtocolEraSetting;
  readonly source: ConfigSource;
  /** The MCP registry entry it was added from (`gallery` + `version`, as VS Code writes them). */
  readonly registry?: Provenance;
}

export interface OAuthClientDefinition {
  readonly clientId: string;
  /** May hold `${input:}` or `${env:}`, so the secret itself lives in SecretStorage or the environment. */
  readonly clientSecret?: string;
  readonly scopes?: readonly string[];
}

export type ServerDefinition = StdioServerDefinition | HttpServerDefinition;

export interface InputDefinition {
  readonly id: string;
  readonly type: 'promptString' | 'pickString' | 'command';
  readonly description?: string;
  readonly password?: boolean;
  readonly default?: string;
  readonly options?: readonly string[];
}

/** A problem in a configuration file: which file, which server, which field, which line, what to do. */
export interface ConfigProblem {
  readonly file: string;
  readonly server?: string;
  readonly field?: string;
  /** 1-based line, where it could be found. */
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
}

export interface ParsedConfig {
  readonly servers: ServerDefinition[];
  readonly inputs: InputDefinition[];
  readonly problems: ConfigProblem[];
  /** The text is no JSON (syntax errors), or the file could not be read: servers and inputs are those of its last valid save, if any. */
  readonly unreadable?: boolean;
}

/** Every spelling of a transport that MCP hosts write, mapped to ours. */
const TRANSPORT_ALIASES: Record<string, 'stdio' | 'http' | 'sse'> = {
  stdio: 'stdio',
  http: 'http',
  streamableHttp: 'http',
  'streamable-http': 'http',
  streamablehttp: 'http',
  sse: 'sse',
};

/** `protocolEra`: for servers that misbehave on the era probe, the era to speak without it. */
const ProtocolEraSchema = z.enum(['auto', 'modern', 'legacy'], {
  error: (issue) =>
    `must be "auto" (the default: ask the server with server/discover), "modern" (2026-07-28) or "legacy" (the initialize handshake, 2025-11-25 and older), not ${JSON.stringify(issue.input)}`,
});

const StdioEntrySchema = z.object({
  type: opt(z.string()),
  command: z.string().check(z.minLength(1, 'must be a non-empty string: the program to start (e.g. "npx" or an absolute path)')),
  args: opt(z.array(z.string(), { error: 'must be an array of strings' })),
  env: opt(z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]), { error: 'must be an object of NAME: "value" pairs' })),
  envFile: opt(z.string()),
  cwd: opt(z.string()),
  protocolEra: opt(ProtocolEraSchema),
});

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const HttpEntrySchema = z.object({
  type: opt(z.string()),
  url: z.url({ protocol: /^https?$/, error: 'must be a full http:// or https:// URL such as "https://example.com/mcp"' }),
  headers: opt(
    z
      .record(z.string(), z.string({ error: 'values must be strings (use "${input:id}" for a secret)' }), { error: 'must be an object of "Header-Name": "value" pairs' })
      .check(
        z.refine((headers) => Object.keys(headers).every((name) => HEADER_NAME.test(name)), {
          error: 'has a header name that is not a valid HTTP token (letters, digits and !#$%&\'*+.^_`|~- only)',
        }),
        z.refine((headers) => Object.values(headers).every((value) => !/[\r\n\0]/.test(value)), {
          error: 'has a header value with a line break or NUL character, which HTTP does not allow',
        }),
      ),
  ),
  oauth: opt(
    z.object(
      {
        clientId: z.string().check(z.minLength(1, 'must be the client id registered with the authorization server')),
        clientSecret: opt(z.string()),
        scopes: opt(z.array(z.string(), { error: 'must be an array of scope strings' })),
      },
      { error: 'must be an object such as {"clientId": "…"}' },
    ),
  ),
  protocolEra: opt(ProtocolEraSchema),
});

const InputSchema = z.object({
  id: z.string().check(z.minLength(1)),
  type: z.enum(['promptString', 'pickString', 'command']),
  description: opt(z.string()),
  password: opt(z.boolean()),
  default: opt(z.string()),
  options: opt(z.array(z.string())),
});

/** JSON with comments and trailing commas, as VS Code reads mcp.json (parseConfigText, firstSyntaxErrorLine). */
const JSONC_OPTIONS = { allowTrailingComma: true, disallowComments: false } as const;

/**
 * Parses one configuration file's text: VS Code's `{"servers": …, "inputs": …}`
 * or the `{"mcpServers": …}` format of Claude Desktop, Cursor and Cline. JSON with
 * comments and trailing commas is accepted. A bad entry becomes a problem naming
 * its field and line; the good entries are still returned.
 *
 * `lastReadable`: what the same file gave at its last valid save (no syntax error). A file with
 * one (a save half-way through an edit, a read while another program writes it) then keeps those
 * servers and inputs, so that they keep running, rather than stopping every server of the file.
 */
export function parseConfigText(text: string, source: ConfigSource, lastReadable?: ParsedConfig): ParsedConfig {
  const problems: ConfigProblem[] = [];
  const servers: ServerDefinition[] = [];
  const inputs: InputDefinition[] = [];
  const lines = lineStarts(text);

  const parseErrors: ParseError[] = [];
  const root = parseTree(text, parseErrors, JSONC_OPTIONS);
  const consequence = lastReadable && lastReadable.servers.length > 0
    ? 'Changes to this file are not applied until it is fixed; its servers keep running as configured at its last valid save.'
    : 'Fix the file; servers from it cannot start until then.';
  for (const e of parseErrors.slice(0, 5)) {
    const pos = positionOf(lines, e.offset);
    problems.push({
      file: source.file,
      line: pos.line,
      column: pos.column,
      message: `JSON syntax error: ${describeParseError(printParseErrorCode(e.error))}. ${consequence}`,
    });
  }
  if (parseErrors.length > 0) return { servers: lastReadable?.servers ?? servers, inputs: lastReadable?.inputs ?? inputs, problems, unreadable: true };
  if (!root || root.type !== 'object') {
    problems.push({ file: source.file, line: 1, message: 'The file must contain a JSON object such as {"servers": {}}.' });
    return { servers, inputs, problems };
  }

  const serversKey = findNodeAtLocation(root, ['servers']) ? 'servers' : findNodeAtLocation(root, ['mcpServers']) ? 'mcpServers' : undefined;
  if (!serversKey) {
    // An empty file with no servers is not an error; a file of another shape is worth saying.
    if (root.children && root.children.length > 0 && !findNodeAtLocation(root, ['inputs'])) {
      problems.push({
        file: source.file,
        line: 1,
        message: 'No "servers" (VS Code format) or "mcpServers" (Claude Desktop/Cursor format) object found; no servers were read from this file.',
      });
    }
  } else {
    const serversNode = findNodeAtLocation(root, [serversKey])!;
    if (serversNode.type !== 'object') {
      problems.push({ file: source.file, field: serversKey, line: positionOf(lines, serversNode.offset).line, message: `"${serversKey}" must be an object of name: definition pairs.` });
    } else {
      for (const property of serversNode.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (!keyNode || !valueNode) continue;
        const name = String(keyNode.value);
        const result = parseServerEntry(name, valueNode, source, lines, serversKey);
        if ('problem' in result) problems.push(result.problem);
        else servers.push(result.server);
      }
    }
  }

  const inputsNode = findNodeAtLocation(root, ['inputs']);
  if (inputsNode) {
    const value = nodeValue(inputsNode);
    if (!Array.isArray(value)) {
      problems.push({ file: source.file, field: 'inputs', line: positionOf(lines, inputsNode.offset).line, message: '"inputs" must be an array.' });
    } else {
      value.forEach((entry, index) => {
        const parsed = InputSchema.safeParse(entry);
        if (parsed.success) {
          inputs.push(parsed.data);
        } else {
          const issue = parsed.error.issues[0];
          const path = ['inputs', index, ...issue.path] as (string | number)[];
          const node = findNodeAtLocation(root, path) ?? findNodeAtLocation(root, ['inputs', index]);
          problems.push({
            file: source.file,
            field: path.join('.'),
            line: node ? positionOf(lines, node.offset).line : undefined,
            message: `inputs[${index}].${issue.path.join('.')}: ${issue.message}`,
          });
        }
      });
    }
  }
  return { servers, inputs, problems };
}

function parseServerEntry(
  name: string,
  node: JsonNode,
  source: ConfigSource,
  lines: number[],
  serversKey: string,
): { server: ServerDefinition } | { problem: ConfigProblem } {
  const at = (path: (string | number)[]) => {
    const found = findNodeAtLocation(node, path) ?? node;
    return positionOf(lines, found.offset).line;
  };
  const problem = (field: string | undefined, message: string, path: (string | number)[] = []): { problem: ConfigProblem } => ({
    problem: { file: source.file, server: name, field: field ? `${serversKey}.${name}.${field}` : `${serversKey}.${name}`, line: at(path), message },
  });

  const value = nodeValue(node);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return problem(undefined, `Server "${name}" must be an object with "command" (stdio) or "url" (http).`);
  }
  const entry = value as Record<string, unknown>;
  let type: 'stdio' | 'http' | 'sse';
  if (entry.type !== undefined) {
    const alias = typeof entry.type === 'string' ? TRANSPORT_ALIASES[entry.type] ?? TRANSPORT_ALIASES[entry.type.toLowerCase()] : undefined;
    if (!alias) {
      return problem('type', `Server "${name}": unknown "type" ${JSON.stringify(entry.type)}; use "stdio", "http" or "sse".`, ['type']);
    }
    type = alias;
  } else if ('command' in entry) {
    type = 'stdio';
  } else if ('url' in entry || 'serverUrl' in entry) {
    type = 'http';
  } else {
    return problem(undefined, `Server "${name}" has neither "command" (to start a local process) nor "url" (to connect over HTTP). Add one.`);
  }

  if (type === 'stdio') {
    const parsed = StdioEntrySchema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue.path.map(String).join('.') || 'command';
      const message =
        issue.code === 'invalid_type' && issue.path.length === 1 && issue.path[0] === 'command' && entry.command === undefined
          ? `Server "${name}" has type "stdio" but no "command". Add the program to start, e.g. "command": "npx".`
          : `Server "${name}": "${field}" ${issue.message}.`;
      return problem(field, message, issue.path as (string | number)[]);
    }
    const env: Record<string, string | null> = {};
    for (const [key, v] of Object.entries(parsed.data.env ?? {})) env[key] = v === null ? null : String(v);
    return {
      server: {
        type: 'stdio',
        name,
        command: parsed.data.command,
        args: parsed.data.args ?? [],
        env,
        envFile: parsed.data.envFile,
        cwd: parsed.data.cwd,
        ...(parsed.data.protocolEra !== undefined ? { protocolEra: parsed.data.protocolEra } : {}),
        ...registryOf(entry),
        source,
      },
    };
  }
  // Windsurf writes "serverUrl" where everyone else writes "url".
  const httpEntry = entry.url === undefined && entry.serverUrl !== undefined ? { ...entry, url: entry.serverUrl } : entry;
  if (httpEntry.url === undefined) {
    return problem('url', `Server "${name}" has type "${type}" but no "url". Add the server's address, e.g. "url": "https://example.com/mcp".`);
  }
  const parsed = HttpEntrySchema.safeParse(httpEntry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.map(String).join('.') || 'url';
    return problem(field, `Server "${name}": "${field}" ${issue.message}.`, issue.path as (string | number)[]);
  }
  const oauth = parsed.data.oauth;
  return {
    server: {
      type,
      name,
      url: parsed.data.url,
      headers: parsed.data.headers ?? {},
      oauth: oauth ? { clientId: oauth.clientId, clientSecret: oauth.clientSecret, scopes: oauth.scopes } : undefined,
      ...(parsed.data.protocolEra !== undefined ? { protocolEra: parsed.data.protocolEra } : {}),
      ...registryOf(entry),
      source,
    },
  };
}

function registryOf(entry: Record<string, unknown>): { registry?: Provenance } {
  const registry = provenanceOf(entry);
  return registry ? { registry } : {};
}

function nodeValue(node: JsonNode): unknown {
  switch (node.type) {
    case 'object': {
      const result: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [k, v] = property.children ?? [];
        if (k && v) result[String(k.value)] = nodeValue(v);
      }
      return result;
    }
    case 'array':
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function positionOf(starts: number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo] + 1 };
}

function describeParseError(code: string): string {
  // printParseErrorCode gives identifiers like "CommaExpected"; make them read as words.
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** The line of the first JSON syntax error of a configuration file's text; undefined when it has none. */
export function firstSyntaxErrorLine(text: string): number | undefined {
  const errors: ParseError[] = [];
  parseTree(text, errors, JSONC_OPTIONS);
  return errors.length > 0 ? positionOf(lineStarts(text), errors[0].offset).line : undefined;
}

/** One line a person can act on: `file:line: server "x" (field): message`. */
export function formatProblem(problem: ConfigProblem): string {
  const where = problem.line !== undefined ? `${problem.file}:${problem.line}` : problem.file;
  return `${where}: ${problem.message}`;
}
