// The report's rules: each looks at one kind of item and says what is wrong and what to change.
import type { Prompt, Resource, ResourceTemplate, Tool } from '../../protocol/schemas';
import type { Finding, ReportInput } from './model';
import { DEFAULT_DIALECT, DIALECT_URIS, type SchemaValidator } from './schemaValidity';
import { estimateTokens } from './tokens';

/** What OpenAI's and Anthropic's APIs accept as a function name. */
export const MODEL_API_NAME = /^[a-zA-Z0-9_-]+$/;
export const MODEL_API_NAME_MAX = 64;
/** What the MCP specification asks of tool names (server/tools.mdx, "Tool Names"). */
export const SPEC_NAME = /^[a-zA-Z0-9_.-]+$/;
export const SPEC_NAME_MAX = 128;
/** A description longer than this is worth shortening: it is sent with every request. */
export const LONG_DESCRIPTION = 1024;
/** The first protocol version whose outputSchema may be any schema, not only `type: "object"`. */
const OUTPUT_SCHEMA_ANY_TYPE_SINCE = '2026-07-28';

const NAME_RULE_TEXT = `common model APIs (OpenAI, Anthropic) accept only letters, digits, "_" and "-", at most ${MODEL_API_NAME_MAX} characters; the MCP specification allows 1–${SPEC_NAME_MAX} characters and also "."`;

type ToolFinding = Omit<Finding, 'subject'>;

const toolFinding = (tool: { name: string }, finding: ToolFinding): Finding => ({ ...finding, subject: { kind: 'tool', name: tool.name } });

/** A name models accept, made from a name they do not. */
export function suggestedName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  return (cleaned || 'tool').slice(0, MODEL_API_NAME_MAX);
}

export function checkToolName(tool: Tool): Finding[] {
  const findings: Finding[] = [];
  const { name } = tool;
  const suggestion = suggestedName(name);
  if (name.length === 0 || name.length > MODEL_API_NAME_MAX) {
    const beyondSpec = name.length === 0 || name.length > SPEC_NAME_MAX;
    findings.push(
      toolFinding(tool, {
        severity: beyondSpec ? 'error' : 'warning',
        rule: 'tool-name-length',
        message: name.length === 0 ? 'The tool has an empty name.' : `The name is ${name.length} characters long; ${NAME_RULE_TEXT}.`,
        fix: `Rename it to at most ${MODEL_API_NAME_MAX} characters, e.g. "${suggestion}".`,
      }),
    );
  }
  if (name.length > 0 && !MODEL_API_NAME.test(name)) {
    const odd = [...new Set(name.replace(/[a-zA-Z0-9_-]/g, ''))];
    findings.push(
      toolFinding(tool, {
        // Only "." is within the specification; anything else is outside both rules.
        severity: SPEC_NAME.test(name) ? 'warning' : 'error',
        rule: 'tool-name-characters',
        message: `The name contains ${odd.map((c) => JSON.stringify(c)).join(', ')}; ${NAME_RULE_TEXT}.`,
        fix: `Rename it using only letters, digits, "_" and "-", e.g. "${suggestion}".`,
      }),
    );
  }
  return findings;
}

/** Names used twice by one server: a client can call only one of them. */
export function checkDuplicateNames(tools: readonly Tool[]): Finding[] {
  const counts = new Map<string, number>();
  for (const tool of tools) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
  return [...counts]
    .filter(([, count]) => count > 1)
    .map(([name, count]) =>
      toolFinding(
        { name },
        {
          severity: 'error',
          rule: 'tool-name-duplicate',
          message: `${count} tools of this server are named "${name}"; a call by name reaches only one of them.`,
          fix: 'Give each tool a name of its own (tool names must be unique within a server).',
        },
      ),
    );
}

/**
 * A peer with at least this many of the server's tool names, and at least half of them, is most
 * likely the same server configured twice: one finding for it, not one per tool.
 */
const SAME_SERVER_MIN_SHARED = 3;

/** Names this server shares with servers that run together with it. */
export function checkNamesSharedWithPeers(tools: readonly Tool[], peers: ReportInput['peers']): Finding[] {
  const findings: Finding[] = [];
  const names = [...new Set(tools.map((t) => t.name))];
  const perTool: Array<ReportInput['peers'][number]> = [];
  for (const peer of peers) {
    const shared = names.filter((name) => peer.tools.some((t) => t.name === name));
    if (shared.length >= SAME_SERVER_MIN_SHARED && shared.length * 2 >= names.length) {
      findings.push({
        severity: 'warning',
        subject: { kind: 'peer', name: peer.name },
        rule: 'tool-name-shared-with-peer',
        message: `"${peer.name}", running beside this server, has ${shared.length} of its ${names.length} tool names (${shared.slice(0, 5).map((n) => `"${n}"`).join(', ')}${shared.length > 5 ? ', …' : ''}): it looks like the same server configured twice, and a model given both sees each of these tools twice.`,
        fix: `Keep one of the two running (stop or remove "${peer.name}" or this one), or give the tools of one of them distinct names.`,
      });
    } else if (shared.length > 0) {
      perTool.push(peer);
    }
  }
  for (const name of names) {
    const sharing = perTool.filter((peer) => peer.tools.some((t) => t.name === name)).map((peer) => `"${peer.name}"`);
    if (sharing.length === 0) continue;
    findings.push(
      toolFinding(
        { name },
        {
          severity: 'warning',
          rule: 'tool-name-shared-with-peer',
          message: `Server${sharing.length > 1 ? 's' : ''} ${sharing.join(', ')} running beside this one also ${sharing.length > 1 ? 'have' : 'has'} a tool named "${name}"; a model given both cannot tell them apart, and a host must rename one.`,
          fix: `Give the tool a more specific name (e.g. with the server's subject as a prefix: "${suggestedName(`myserver_${name}`)}"), or rename the other server's tool.`,
        },
      ),
    );
  }
  return findings;
}

function dialectText(schema: object): string {
  return '$schema' in schema ? 'the dialect its "$schema" names' : `no "$schema": MCP's default dialect`;
}

/** inputSchema and outputSchema: valid for their dialect, and objects where arguments and results are objects. */
export function checkToolSchemas(tool: Tool, validator: SchemaValidator, protocolVersion: string | undefined): Finding[] {
  const findings: Finding[] = [];
  const inputType = (tool.inputSchema as { type?: unknown }).type;
  if (inputType !== 'object') {
    findings.push(
      toolFinding(tool, {
        severity: 'error',
        rule: 'input-schema-not-object',
        message: `inputSchema has ${inputType === undefined ? 'no "type"' : `"type": ${JSON.stringify(inputType)}`}; a tool's arguments are a JSON object.`,
        fix: 'Put "type": "object" at the root of inputSchema (a tool without arguments: {"type": "object", "additionalProperties": false}).',
      }),
    );
  }
  const outputType = tool.outputSchema ? (tool.outputSchema as { type?: unknown }).type : 'object';
  if (outputType !== 'object' && (protocolVersion === undefined || protocolVersion < OUTPUT_SCHEMA_ANY_TYPE_SINCE)) {
    findings.push(
      toolFinding(tool, {
        severity: 'warning',
        rule: 'output-schema-not-object',
        message: `outputSchema has ${outputType === undefined ? 'no "type"' : `"type": ${JSON.stringify(outputType)}`}; in protocol ${protocolVersion ?? 'versions before 2026-07-28'} structuredContent is an object and outputSchema is restricted to "type": "object" at its root.`,
        fix: 'Make outputSchema an object schema ("type": "object"), wrapping the value in a property if need be.',
      }),
    );
  }
  for (const [field, schema] of [
    ['inputSchema', tool.inputSchema],
    ['outputSchema', tool.outputSchema],
  ] as const) {
    if (schema === undefined) continue;
    const verdict = validator.check(schema);
    if (verdict.kind === 'unknown-dialect') {
      findings.push(
        toolFinding(tool, {
          severity: 'warning',
          rule: 'schema-dialect-unknown',
          message: `${field} declares "$schema": ${JSON.stringify(verdict.declared)}, a dialect this report cannot check (it checks ${Object.keys(DIALECT_URIS).join(', ')}); a client that does not support it must refuse the schema.`,
          fix: `Use JSON Schema ${DEFAULT_DIALECT}: set "$schema": "${DIALECT_URIS[DEFAULT_DIALECT]}" or leave "$schema" out (MCP's default is ${DEFAULT_DIALECT}).`,
        }),
      );
    } else if (verdict.kind === 'valid' && verdict.unchecked) {
      findings.push(
        toolFinding(tool, {
          severity: 'warning',
          rule: 'schema-pattern-unchecked',
          message: `${field}: ${verdict.unchecked.join('; ')}. Clients that run patterns in linear time (RE2, as MCP Host does) cannot check it.`,
          fix: 'Write the pattern without backreferences and lookaround (RE2 syntax), or check the value in the tool itself.',
        }),
      );
    } else if (verdict.kind === 'invalid') {
      findings.push(
        toolFinding(tool, {
          severity: 'error',
          rule: 'schema-invalid',
          message: `${field} is not valid JSON Schema ${verdict.dialect} (${dialectText(schema)}): ${verdict.problems.join('; ')}.`,
          fix: `Correct ${field} so that it validates against the ${verdict.dialect} meta-schema (${DIALECT_URIS[verdict.dialect]}), or declare the dialect it was written for in "$schema".`,
        }),
      );
    }
  }
  return findings;
}

export function checkToolDescription(tool: Tool): Finding[] {
  const description = tool.description?.trim() ?? '';
  if (description.length === 0) {
    return [
      toolFinding(tool, {
        severity: 'warning',
        rule: 'tool-description-missing',
        message: 'The tool has no description; a model chooses tools by their descriptions.',
        fix: 'Add a "description": what the tool does, when to use it, and what it returns.',
      }),
    ];
  }
  if (description.length > LONG_DESCRIPTION) {
    return [
      toolFinding(tool, {
        severity: 'info',
        rule: 'tool-description-long',
        message: `The description is ${description.length} characters long (about ${estimateTokens(description.length)} tokens), sent to the model with every request.`,
        fix: `Shorten it to what the model needs to choose the tool (under ${LONG_DESCRIPTION} characters); put details about arguments in their own descriptions.`,
      }),
    ];
  }
  return [];
}

/** Top-level arguments without a description: the model has to guess what to pass. */
export function checkArgumentDescriptions(tool: Tool): Finding[] {
  const properties = (tool.inputSchema as { properties?: unknown }).properties;
  if (properties === null || typeof properties !== 'object') return [];
  const bare = Object.entries(properties as Record<string, unknown>)
    .filter(([, schema]) => schema !== null && typeof schema === 'object' && !(typeof (schema as { description?: unknown }).description === 'string' && (schema as { description: string }).description.trim()))
    .map(([name]) => `"${name}"`);
  if (bare.length === 0) return [];
  return [
    toolFinding(tool, {
      severity: 'info',
      rule: 'tool-argument-description-missing',
      message: `Argument${bare.length > 1 ? 's' : ''} ${bare.join(', ')} ${bare.length > 1 ? 'have' : 'has'} no description.`,
      fix: 'Add a "description" to each argument in inputSchema.properties: what it means, its unit or format, an example.',
    }),
  ];
}

/** The behaviour hints of a tool; what a client assumes when one is missing is the spec's default. */
const HINT_DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true } as const;
type Hint = keyof typeof HINT_DEFAULTS;

export function checkAnnotations(tool: Tool): Finding[] {
  const annotations = tool.annotations ?? {};
  // destructiveHint and idempotentHint mean something only for a tool that is not read-only.
  const applicable: Hint[] = annotations.readOnlyHint === true ? ['readOnlyHint', 'openWorldHint'] : ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
  const missing = applicable.filter((hint) => typeof annotations[hint] !== 'boolean');
  if (missing.length === 0) return [];
  const none = missing.length === applicable.length && typeof annotations.readOnlyHint !== 'boolean';
  const assumed = missing.map((hint) => `${hint}: ${HINT_DEFAULTS[hint]}`).join(', ');
  return [
    toolFinding(tool, {
      severity: none ? 'warning' : 'info',
      rule: 'tool-annotations-missing',
      message: `${none ? 'The tool has no behaviour annotations' : `The annotations lack ${missing.join(', ')}`}; clients then assume the defaults (${assumed}), e.g. ask before every call.`,
      fix: `Add to "annotations": ${missing.map((hint) => `"${hint}": true|false`).join(', ')}, saying what the tool really does.`,
    }),
  ];
}

export function checkPrompt(prompt: Prompt): Finding[] {
  const findings: Finding[] = [];
  const subject = { kind: 'prompt', name: prompt.name } as const;
  if (!prompt.description?.trim()) {
    findings.push({
      severity: 'warning',
      subject,
      rule: 'prompt-description-missing',
      message: 'The prompt has no description; a person picking prompts sees only its name.',
      fix: 'Add a "description" saying what the prompt is for.',
    });
  }
  const bare = (prompt.arguments ?? []).filter((a) => !a.description?.trim()).map((a) => `"${a.name}"`);
  if (bare.length > 0) {
    findings.push({
      severity: 'info',
      subject,
      rule: 'prompt-argument-description-missing',
      message: `Argument${bare.length > 1 ? 's' : ''} ${bare.join(', ')} ${bare.length > 1 ? 'have' : 'has'} no description.`,
      fix: 'Add a "description" to each prompt argument: what to fill in.',
    });
  }
  return findings;
}

export function checkResource(resource: Resource): Finding[] {
  if (resource.description?.trim()) return [];
  return [
    {
      severity: 'info',
      subject: { kind: 'resource', name: resource.name },
      rule: 'resource-description-missing',
      message: `The resource ${resource.uri} has no description.`,
      fix: 'Add a "description" saying what the resource holds, so a model or a person can choose it.',
    },
  ];
}

export function checkTemplate(template: ResourceTemplate): Finding[] {
  if (template.description?.trim()) return [];
  return [
    {
      severity: 'info',
      subject: { kind: 'template', name: template.name },
      rule: 'template-description-missing',
      message: `The resource template ${template.uriTemplate} has no description.`,
      fix: 'Add a "description" saying what the template reads and what its variables mean.',
    },
  ];
}

const LIST_METHOD = { tools: 'tools/list', prompts: 'prompts/list', resources: 'resources/list', resourceTemplates: 'resources/templates/list' } as const;

export function checkListErrors(errors: ReportInput['lists']['errors']): Finding[] {
  return Object.entries(errors ?? {}).map(([list, why]) => ({
    severity: 'error' as const,
    subject: { kind: 'server' as const, name: LIST_METHOD[list as keyof typeof LIST_METHOD] ?? list },
    rule: 'list-failed' as const,
    message: `${LIST_METHOD[list as keyof typeof LIST_METHOD] ?? list} failed: ${why}`,
    fix: 'Make the request succeed (the server\'s log says more); its items could not be checked.',
  }));
}

/**
 * More tools than this are refused or cut by several clients (and model APIs cap the tools of a
 * request at 128): a server beyond it is not usable whole.
 */
export const TOOL_COUNT_LIMIT = 128;
/** Beyond this many tools, models choose worse (and some clients warn): worth splitting or trimming. */
export const TOOL_COUNT_MANY = 40;
/** Estimated tokens of all tool definitions that are worth a warning, and an error. */
export const DEFINITION_TOKENS_MANY = 15_000;
export const DEFINITION_TOKENS_TOO_MANY = 40_000;

/**
 * What the server's size costs a model: every tool definition is sent with every request, so many
 * tools, or large ones, crowd out the conversation and make the right tool harder to pick.
 */
export function checkSize(server: string, toolCount: number, definitionTokens: number): Finding[] {
  const findings: Finding[] = [];
  const subject = { kind: 'size' as const, name: server };
  if (toolCount > TOOL_COUNT_MANY) {
    const overLimit = toolCount > TOOL_COUNT_LIMIT;
    findings.push({
      severity: overLimit ? 'error' : 'warning',
      subject,
      rule: 'tool-count-high',
      message: overLimit
        ? `The server has ${toolCount} tools; several clients and model APIs accept at most ${TOOL_COUNT_LIMIT} (the rest are cut or the request refused).`
        : `The server has ${toolCount} tools; beyond about ${TOOL_COUNT_MANY}, models pick the right one less often.`,
      fix: 'Offer fewer tools: merge similar ones, split the server by subject, or let the user enable groups of tools.',
    });
  }
  if (definitionTokens >= DEFINITION_TOKENS_MANY) {
    const tooMany = definitionTokens >= DEFINITION_TOKENS_TOO_MANY;
    findings.push({
      severity: tooMany ? 'error' : 'warning',
      subject,
      rule: 'tool-definitions-large',
      message: `The tool definitions cost about ${definitionTokens.toLocaleString('en-US')} tokens, sent with every request to the model${tooMany ? ': a large part of a context window before the conversation starts' : ''}.`,
      fix: 'Shorten the longest descriptions and schemas (see the largest tools), and drop tools that are rarely used.',
    });
  }
  return findings;
}

/** Every tool rule for one tool. */
export function checkTool(tool: Tool, validator: SchemaValidator, protocolVersion: string | undefined): Finding[] {
  return [
    ...checkToolName(tool),
    ...checkToolSchemas(tool, validator, protocolVersion),
    ...checkToolDescription(tool),
    ...checkAnnotations(tool),
    ...checkArgumentDescriptions(tool),
  ];
}

