/** MIME types to VS Code language ids and file extensions, for resource documents. */

const LANGUAGES: Record<string, string> = {
  'text/plain': 'plaintext',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'text/css': 'css',
  'text/csv': 'plaintext',
  'text/javascript': 'javascript',
  'application/javascript': 'javascript',
  'application/x-javascript': 'javascript',
  'text/typescript': 'typescript',
  'application/typescript': 'typescript',
  'application/json': 'json',
  'application/ld+json': 'json',
  'application/schema+json': 'json',
  'application/jsonl': 'jsonl',
  'application/x-ndjson': 'jsonl',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'image/svg+xml': 'xml',
  'application/yaml': 'yaml',
  'application/x-yaml': 'yaml',
  'text/yaml': 'yaml',
  'text/x-yaml': 'yaml',
  'application/toml': 'toml',
  'text/x-python': 'python',
  'application/x-python': 'python',
  'text/x-shellscript': 'shellscript',
  'application/x-sh': 'shellscript',
  'text/x-c': 'c',
  'text/x-c++': 'cpp',
  'text/x-java': 'java',
  'text/x-go': 'go',
  'text/x-rust': 'rust',
  'application/sql': 'sql',
  'text/x-sql': 'sql',
  'text/x-diff': 'diff',
  'text/x-patch': 'diff',
  'application/graphql': 'graphql',
};

const EXTENSIONS: Record<string, string> = {
  'text/plain': '.txt',
  'text/markdown': '.md',
  'text/html': '.html',
  'text/css': '.css',
  'text/csv': '.csv',
  'application/json': '.json',
  'application/xml': '.xml',
  'text/xml': '.xml',
  'application/yaml': '.yaml',
  'text/yaml': '.yaml',
  'text/javascript': '.js',
  'application/javascript': '.js',
  'text/x-python': '.py',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'image/bmp': '.bmp',
  'image/x-icon': '.ico',
  'image/vnd.microsoft.icon': '.ico',
  'image/svg+xml': '.svg',
  'image/avif': '.avif',
  'audio/mpeg': '.mp3',
  'audio/wav': '.wav',
  'audio/x-wav': '.wav',
  'audio/ogg': '.ogg',
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'application/pdf': '.pdf',
  'application/zip': '.zip',
  'application/gzip': '.gz',
  'application/octet-stream': '.bin',
};

/** The essence of a MIME type: lower case, without parameters (`text/plain; charset=utf-8` → `text/plain`). */
export function mimeEssence(mimeType: string | undefined): string | undefined {
  const essence = mimeType?.split(';')[0].trim().toLowerCase();
  return essence || undefined;
}

/** The language of a text resource by its MIME type (structured suffixes +json/+xml/+yaml too). */
export function languageFor(mimeType: string | undefined): string | undefined {
  const m = mimeEssence(mimeType);
  if (!m) return undefined;
  if (LANGUAGES[m]) return LANGUAGES[m];
  if (m.endsWith('+json')) return 'json';
  if (m.endsWith('+xml')) return 'xml';
  if (m.endsWith('+yaml')) return 'yaml';
  return undefined;
}

export function extensionFor(mimeType: string | undefined): string | undefined {
  const m = mimeEssence(mimeType);
  if (!m) return undefined;
  return EXTENSIONS[m] ?? (m.endsWith('+json') ? '.json' : m.endsWith('+xml') ? '.xml' : undefined);
}

/** Markdown code-fence language for embedded text. */
export function fenceLanguageFor(mimeType: string | undefined): string {
  const lang = languageFor(mimeType);
  return lang && lang !== 'plaintext' ? lang : '';
}
