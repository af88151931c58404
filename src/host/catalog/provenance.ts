// Where an mcp.json entry came from: the fields VS Code's own MCP gallery writes on an entry it
// installed (`"gallery": string`, `"version": string`), so VS Code itself still accepts the file.
// `gallery` is the server's address in the registry, from which the registry and name are read back.
import { versionProblem } from './packageNames';

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

/**
 * Why a registry's "latest" version cannot become a pin, or undefined: it goes on the command line
 * (`pkg@VERSION`), so it must be a plain version, as when the entry was added. A URL, `file:` or
 * `git+` source would be fetched instead, and `${` (outside the plain characters) would be expanded.
 */
export function repinProblem(to: string): string | undefined {
  return versionProblem(to, 'the latest version');
}

/**
 * The entry pinned to another version: the arguments that end in the old pin (`pkg@1.0.0`,
 * `pkg==1.0.0`, `image:1.0.0`) and `version`. Nothing else of the entry changes. Throws when `to`
 * is not a plain version ({@link repinProblem}).
 */
export function repinEntry(entry: Readonly<Record<string, unknown>>, from: string, to: string): Record<string, unknown> {
  const problem = repinProblem(to);
  if (problem) throw new Error(`${problem}; the pin was not changed`);
  const pins = [`@${from}`, `==${from}`, `:${from}`];
  const args = Array.isArray(entry.args)
    ? entry.args.map((arg: unknown) => {
        if (typeof arg !== 'string') return arg;
        const pin = pins.find((p) => arg.endsWith(p) && arg.length > p.length);
        return pin ? `${arg.slice(0, arg.length - from.length)}${to}` : arg;
      })
    : undefined;
  return { ...entry, ...(args ? { args } : {}), version: to };
}
