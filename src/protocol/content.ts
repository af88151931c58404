import type { ContentBlock, UnknownContent } from './schemas';

/** Decoded size of base64 data, without decoding it. */
export function base64ByteLength(data: string): number {
  return Buffer.byteLength(data, 'base64');
}

/** A plain-text rendering of one content block: text as text, everything else described. */
export function describeContentBlock(block: ContentBlock | UnknownContent): string {
  switch (block.type) {
    case 'text':
      return (block as { text: string }).text;
    case 'image':
    case 'audio': {
      const media = block as { data: string; mimeType: string };
      return `[${block.type} ${media.mimeType}, ${base64ByteLength(media.data)} bytes]`;
    }
    case 'resource_link': {
      const link = block as { uri: string; name: string; mimeType?: string };
      return `[resource link ${link.uri} "${link.name}"${link.mimeType ? ` ${link.mimeType}` : ''}]`;
    }
    case 'resource': {
      const resource = (block as { resource: { uri: string; mimeType?: string; text?: string; blob?: string } }).resource;
      if (typeof resource.text === 'string') return `[embedded resource ${resource.uri}]\n${resource.text}`;
      return `[embedded resource ${resource.uri}${resource.mimeType ? ` ${resource.mimeType}` : ''}, ${base64ByteLength(resource.blob ?? '')} bytes]`;
    }
    default:
      return `[${block.type} content]`;
  }
}
