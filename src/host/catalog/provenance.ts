// Where an mcp.json entry came from: the fields VS Code's own MCP gallery writes on an entry it
// installed (`"gallery": string`, `"version": string`), so VS Code itself still accepts the file.
// `gallery` is the server's address in the registry, from which the registry and name are read back.

/** Where an entry came from, in the fields VS Code's own gallery writes (`gallery`, `version`). */
export interface Provenance {
  /** The registry's base URL, e.g. https://registry.modelcontextprotocol.io */
  readonly registry: string;
  /** The server's registry name, e.g. io.github.user/weather */
  readonly name: string;
  readonly version: string;
}

const GALLERY_PATH = /\/v0(?:\.1)?\/servers\//;

export function galleryUrl(p: Provenance): string {
  return `${p.registry}/v0.1/servers/${encodeURIComponent(p.name)}`;
}

/** Reads `gallery` + `version` back; undefined for entries not added from a registry. */
export function provenanceOf(entry: { readonly gallery?: unknown; readonly version?: unknown }): Provenance | undefined {
  if (typeof entry.gallery !== 'string' || typeof entry.version !== 'string') return undefined;
  const match = GALLERY_PATH.exec(entry.gallery);
  if (!match) return undefined;
  const registry = entry.gallery.slice(0, match.index);
  let name: string;
  try {
    name = decodeURIComponent(entry.gallery.slice(match.index + match[0].length));
  } catch {
    return undefined;
  }
  return registry && name ? { registry, name, version: entry.version } : undefined;
}

