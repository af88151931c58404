import { isDeepStrictEqual } from 'node:util';
import type { CallToolResult, ContentBlock, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool, UnknownContent } from '../protocol/schemas';
import { describeContentBlock } from '../protocol/content';

/** What `mcp-host list` prints about a server. */
export interface ServerListing {
  title: string;
  version: string;
  protocolVersion: string;
  /** 'modern' (server/discover) or 'legacy' (initialize). */
  era?: 'modern' | 'legacy';
  capabilities: string[];
  instructions?: string;
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  /** A list the server refused, with why: shown in its section instead of its items. */
  errors?: Partial<Record<'tools' | 'resources' | 'resourceTemplates' | 'prompts', string>>;
}

export function formatListing(listing: ServerListing): string {
  const out: string[] = [];
  out.push(`${listing.title} ${listing.version} (protocol ${listing.protocolVersion}${listing.era ? `, ${listing.era} era` : ''})`);
  out.push(`Capabilities: ${listing.capabilities.join(', ') || 'none'}`);
  // The whole text: instructions tell a model how to use the server, a first line is not enough.
  if (listing.instructions?.trim()) out.push('Instructions:', indent(listing.instructions.trim(), '  '));
  const section = <T>(title: string, items: T[], lines: (item: T) => string[], failed?: string) => {
    if (failed !== undefined) {
      out.push('', `${title} (not listed: ${failed})`);
      return;
    }
    out.push('', `${title} (${items.length})`);
    for (const item of items) out.push(...lines(item).map((l) => `  ${l}`));
  };
  const errors = listing.errors ?? {};
  const desc = (d?: string) => (d?.trim() ? ` - ${d.trim().split('\n')[0]}` : '');
  section('Tools', listing.tools, (t) => [`${t.name}${titleNote(t.name, t.title ?? t.annotations?.title)}${desc(t.description)}`, ...toolArguments(t)], errors.tools);
  section('Resources', listing.resources, (r) => [`${r.uri}  ${r.name}${r.mimeType ? ` (${r.mimeType})` : ''}`], errors.resources);
  section('Resource templates', listing.resourceTemplates, (t) => [`${t.uriTemplate}  ${t.name}${desc(t.description)}`], errors.resourceTemplates);
  section('Prompts', listing.prompts, (p) => {
    const args = (p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ');
    return [`${p.name}(${args})${desc(p.description)}`];
  }, errors.prompts);
  return `${out.join('\n')}\n`;
}

function titleNote(name: string, title: string | undefined): string {
  return title && title !== name ? ` "${title}"` : '';
}

/** One line per argument of a tool: name, type, and whether it is required. */
export function toolArguments(tool: Tool): string[] {
  const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: unknown };
  const properties = schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  return Object.entries(properties).map(([name, prop]) => {
    const p = (prop ?? {}) as { description?: unknown };
    const description = typeof p.description === 'string' && p.description.trim() ? ` - ${p.description.trim().split('\n')[0]}` : '';
    return `  ${name}: ${schemaType(prop)}${required.has(name) ? ' (required)' : ''}${description}`;
  });
}

function schemaType(prop: unknown): string {
  if (!prop || typeof prop !== 'object') return 'any';
  const p = prop as { type?: unknown; enum?: unknown; items?: unknown; anyOf?: unknown; oneOf?: unknown };
  if (Array.isArray(p.enum)) return p.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(p.type)) return p.type.join(' | ');
  if (p.type === 'array') return `${schemaType(p.items)}[]`;
  if (typeof p.type === 'string') return p.type;
  const union = Array.isArray(p.anyOf) ? p.anyOf : Array.isArray(p.oneOf) ? p.oneOf : undefined;
  return union ? union.map(schemaType).join(' | ') : 'any';
}

export function formatToolResult(result: CallToolResult): string {
  const parts: string[] = [];
  if (result.isError) parts.push('Tool error:');
  const blocks = result.content as Array<ContentBlock | UnknownContent>;
  for (const block of blocks) parts.push(describeContentBlock(block));
  // Servers are asked to repeat structured content as JSON text: print it once.
  if (result.structuredContent !== undefined && !blocks.some((b) => textHolds(b, result.structuredContent))) {
    parts.push(`structuredContent:\n${JSON.stringify(result.structuredContent, null, 2)}`);
  }
  return `${parts.join('\n')}\n`;
}

function textHolds(block: ContentBlock | UnknownContent, value: unknown): boolean {
  if (block.type !== 'text') return false;
  try {
    return isDeepStrictEqual(JSON.parse((block as { text: string }).text), value);
  } catch {
    return false;
  }
}

export function formatReadResult(result: ReadResourceResult): string {
  return `${result.contents
    .map((c) => ('text' in c ? c.text : `[binary ${c.mimeType ?? 'data'} from ${c.uri}, ${Buffer.byteLength(c.blob, 'base64')} bytes]`))
    .join('\n')}\n`;
}

/** A prompt as a conversation: its description, then each message under its role. */
export function formatPromptResult(result: GetPromptResult): string {
  const out: string[] = [];
  if (result.description?.trim()) out.push(result.description.trim(), '');
  for (const message of result.messages) {
    out.push(`[${message.role}]`, describeContentBlock(message.content as ContentBlock | UnknownContent), '');
  }
  if (result.messages.length === 0) out.push('(no messages)');
  return `${out.join('\n').trimEnd()}\n`;
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((l) => (l ? prefix + l : l))
    .join('\n');
}
