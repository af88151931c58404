// Turns a CallToolResult (or a resources/read result) into what the result view shows: blocks with
// their size limits applied, structuredContent checked against the tool's outputSchema.
import type { CallToolResult, ContentBlock, ResourceContents, Tool, UnknownContent } from '../../../protocol/schemas';
import { base64ByteLength } from '../../../protocol/content';
import { compileSchema } from '../../webview/validation';
import type { ResultBlock, ResultViewModel, StructuredView } from '../../webview/protocol';

/** Text blocks longer than this are cut in the view (with "Show all in an editor"). */
export const TEXT_LIMIT = 1024 * 1024;
/** Images, audio and blobs larger than this (decoded) are not inlined. */
export const MEDIA_LIMIT = 16 * 1024 * 1024;

/** Guesses how to show a text: JSON when it parses as an object or array, Markdown when it looks like it. */
export function textFormat(text: string, mimeType?: string): 'markdown' | 'json' | 'plain' {
  if (mimeType) {
    if (/markdown/i.test(mimeType)) return 'markdown';
    if (/json/i.test(mimeType)) return 'json';
    if (!/^text\/plain/i.test(mimeType)) return 'plain';
  }
  const trimmed = text.trimStart();
  if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && text.length <= TEXT_LIMIT) {
    try {
      JSON.parse(text);
      return 'json';
    } catch {
      // not JSON
    }
  }
  if (mimeType === undefined && looksLikeMarkdown(text)) return 'markdown';
  return 'plain';
}

export function looksLikeMarkdown(text: string): boolean {
  const sample = text.length > 20_000 ? text.slice(0, 20_000) : text;
  const signals = [
    /^#{1,6} \S/m, // heading
    /^\s{0,3}[-*+] \S/m, // bullet list
    /^\s{0,3}\d+\. \S/m, // numbered list
    /^```/m, // code fence
    /\[[^\]\n]+\]\([^)\s]+\)/, // link
    /(\*\*|__)[^*_\n]+\1/, // bold
    /^\|.*\|\s*$/m, // table row
    /^> \S/m, // quote
    /`[^`\n]+`/, // inline code
  ];
  return signals.filter((re) => re.test(sample)).length >= 1;
}

function cut(text: string): { text: string; truncatedFrom?: number } {
  return text.length > TEXT_LIMIT ? { text: text.slice(0, TEXT_LIMIT), truncatedFrom: text.length } : { text };
}

function audienceOf(block: { annotations?: { audience?: string[]; priority?: number } }): { audience?: string[]; priority?: number } {
  return { audience: block.annotations?.audience, priority: block.annotations?.priority };
}

export function blockView(block: ContentBlock | UnknownContent): ResultBlock {
  switch (block.type) {
    case 'text': {
      const b = block as Extract<ContentBlock, { type: 'text' }>;
      return { kind: 'text', ...cut(b.text), format: textFormat(b.text), ...audienceOf(b) };
    }
    case 'image':
    case 'audio': {
      const b = block as Extract<ContentBlock, { type: 'image' | 'audio' }>;
      const bytes = base64ByteLength(b.data);
      const tooLarge = bytes > MEDIA_LIMIT;
      return { kind: block.type, mimeType: b.mimeType, data: tooLarge ? '' : b.data, bytes, tooLarge: tooLarge || undefined, audience: b.annotations?.audience };
    }
    case 'resource_link': {
      const b = block as Extract<ContentBlock, { type: 'resource_link' }>;
      return { kind: 'resource_link', uri: b.uri, name: b.name, title: b.title, description: b.description, mimeType: b.mimeType, size: b.size };
    }
    case 'resource':
      return resourceView((block as Extract<ContentBlock, { type: 'resource' }>).resource);
    default:
      return { kind: 'unknown', type: String(block.type), json: cut(JSON.stringify(block, null, 2)).text };
  }
}

export function resourceView(resource: ResourceContents): ResultBlock {
  if ('text' in resource && typeof resource.text === 'string') {
    return { kind: 'resource', uri: resource.uri, mimeType: resource.mimeType, ...cut(resource.text), format: textFormat(resource.text, resource.mimeType) };
  }
  const blob = (resource as { blob?: string }).blob ?? '';
  const bytes = base64ByteLength(blob);
  const tooLarge = bytes > MEDIA_LIMIT;
  return { kind: 'resource', uri: resource.uri, mimeType: resource.mimeType, blob: tooLarge ? undefined : blob, bytes, tooLarge: tooLarge || undefined };
}

export async function structuredView(tool: Tool | undefined, result: CallToolResult): Promise<StructuredView | undefined> {
  if (result.structuredContent === undefined) return undefined;
  const full = JSON.stringify(result.structuredContent, null, 2);
  const { text, truncatedFrom } = cut(full);
  if (!tool?.outputSchema) return { json: text, truncatedFrom, check: 'none', issues: [] };
  const compiled = await compileSchema(tool.outputSchema);
  if (compiled.kind !== 'ok') return { json: text, truncatedFrom, check: 'unchecked', issues: [], note: compiled.message };
  const issues = compiled.validate(result.structuredContent).map(({ path, message }) => ({ path, message }));
  const note = compiled.notes.length > 0 ? `Not every pattern was checked: ${compiled.notes.join('; ')}.` : undefined;
  return { json: text, truncatedFrom, check: issues.length ? 'invalid' : 'valid', issues, ...(note ? { note } : {}) };
}

export interface RunRecord {
  runId: number;
  server: string;
  tool: Tool;
  args: Record<string, unknown>;
  startedAt: number;
  durationMs: number;
}

export async function toolResultModel(run: RunRecord, outcome: { result: CallToolResult } | { error: string; cancelled?: boolean }): Promise<ResultViewModel> {
  const base = {
    runId: run.runId,
    tool: run.tool.name,
    toolTitle: run.tool.title ?? run.tool.annotations?.title,
    server: run.server,
    argumentsJson: JSON.stringify(run.args, null, 2),
    startedAt: new Date(run.startedAt).toISOString(),
    durationMs: Math.round(run.durationMs),
  };
  if ('error' in outcome) {
    return { ...base, status: outcome.cancelled ? 'cancelled' : 'failed', errorMessage: outcome.error, blocks: [], rawJsonBytes: 0 };
  }
  const { result } = outcome;
  const structured = await structuredView(run.tool, result);
  return {
    ...base,
    status: result.isError === true ? 'tool-error' : 'ok',
    blocks: result.content.map(blockView),
    structured,
    missingStructured: run.tool.outputSchema !== undefined && result.structuredContent === undefined && result.isError !== true ? true : undefined,
    rawJsonBytes: Buffer.byteLength(JSON.stringify(result)),
  };
}
