import type { ContentBlock, GetPromptResult, Prompt, UnknownContent } from '../../../protocol/schemas';
import { base64ByteLength } from '../../../protocol/content';
import { fenceLanguageFor } from '../resources/mime';

/**
 * A prompts/get result as Markdown a person can read: a heading per message with its role,
 * text as text, images inline (as data: references collected at the end, so the source stays
 * readable), embedded resources as fenced blocks, links and audio described.
 */
export function renderPromptResult(serverName: string, prompt: Pick<Prompt, 'name' | 'title' | 'description'>, args: Record<string, string>, result: GetPromptResult): string {
  const out: string[] = [];
  const images: string[] = [];
  out.push(`# ${prompt.title && prompt.title !== prompt.name ? `${prompt.title} (${prompt.name})` : prompt.name}`);
  out.push('');
  out.push(`Prompt of the MCP server **${escapeInline(serverName)}**  `);
  const argList = Object.entries(args);
  out.push(argList.length ? `Arguments: ${argList.map(([k, v]) => `\`${k}\` = ${escapeInline(JSON.stringify(v))}`).join(', ')}` : 'No arguments.');
  const description = result.description ?? prompt.description;
  if (description) {
    out.push('');
    out.push(...description.split('\n').map((l) => `> ${l}`));
  }
  if (result.messages.length === 0) {
    out.push('', '*The server returned no messages.*');
  }
  result.messages.forEach((message, i) => {
    out.push('', `## ${i + 1} · ${message.role === 'user' ? 'User' : message.role === 'assistant' ? 'Assistant' : message.role}`, '');
    out.push(renderBlock(message.content as ContentBlock | UnknownContent, images));
  });
  if (images.length) {
    out.push('', '<!-- images -->');
    images.forEach((data, i) => out.push(`[image-${i + 1}]: ${data}`));
  }
  return `${out.join('\n')}\n`;
}

function renderBlock(block: ContentBlock | UnknownContent, images: string[]): string {
  switch (block.type) {
    case 'text':
      return (block as { text: string }).text;
    case 'image': {
      const { data, mimeType } = block as { data: string; mimeType: string };
      images.push(`data:${mimeType};base64,${data}`);
      return `![image ${images.length}: ${mimeType}, ${base64ByteLength(data)} bytes][image-${images.length}]`;
    }
    case 'audio': {
      const { data, mimeType } = block as { data: string; mimeType: string };
      return `*Audio: ${mimeType}, ${base64ByteLength(data)} bytes (not playable here).*`;
    }
    case 'resource_link': {
      const link = block as { uri: string; name: string; title?: string; mimeType?: string; description?: string };
      return `*Resource link:* **${escapeInline(link.title ?? link.name)}** \`${link.uri}\`${link.mimeType ? ` (${link.mimeType})` : ''}${link.description ? ` — ${escapeInline(link.description)}` : ''}`;
    }
    case 'resource': {
      const resource = (block as { resource: { uri: string; mimeType?: string; text?: string; blob?: string } }).resource;
      const head = `*Embedded resource* \`${resource.uri}\`${resource.mimeType ? ` (${resource.mimeType})` : ''}`;
      if (typeof resource.text === 'string') return `${head}\n\n${fenced(resource.text, fenceLanguageFor(resource.mimeType))}`;
      const blob = resource.blob ?? '';
      if (resource.mimeType?.startsWith('image/')) {
        images.push(`data:${resource.mimeType};base64,${blob}`);
        return `${head}\n\n![image ${images.length}: ${resource.mimeType}][image-${images.length}]`;
      }
      return `${head}: binary, ${base64ByteLength(blob)} bytes.`;
    }
    default:
      return `*Content of type \`${block.type}\`:*\n\n${fenced(JSON.stringify(block, null, 2), 'json')}`;
  }
}

/** A fenced code block whose fence is longer than any run of backticks inside. */
export function fenced(text: string, language = ''): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}

function escapeInline(text: string): string {
  return text.replace(/([\\`*_[\]<>])/g, '\\$1');
}
