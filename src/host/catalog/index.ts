// The MCP-registry catalog on the host floor: which registries are configured, one client per
// registry for the session, and the one-line texts a list shows. The editor floor and the CLI
// both use these; neither knows the registry API.
import { isRecord } from '../../util/isRecord';
// Registry text in a list's line (the CLI's and the editor's): the same as any server text.
export { displayText } from '../../util/serverText';
import { OFFICIAL_REGISTRY_URL, RegistryClient, normaliseRegistryUrl } from './client';
import type { CatalogEntry, ServerDetail } from './serverJson';

export { OFFICIAL_REGISTRY_URL, RegistryClient, RegistryError } from './client';
export type { CatalogEntry, ServerDetail } from './serverJson';

/** One configured registry; header values may hold `${input:}` / `${env:}` until resolved. */
export interface RegistrySetting {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** `mcpHost.registries`: URLs or `{url, headers}`; empty or absent means the official registry. */
export function readRegistrySettings(value: unknown): { registries: RegistrySetting[]; problems: string[] } {
  const problems: string[] = [];
  const registries: RegistrySetting[] = [];
  const items = Array.isArray(value) ? value : [];
  for (const item of items) {
    const url = typeof item === 'string' ? item : isRecord(item) && typeof item.url === 'string' ? item.url : undefined;
    if (url === undefined) {
      problems.push('mcpHost.registries: each item is a URL or {"url": …, "headers": {…}}');
      continue;
    }
    try {
      const headers = isRecord(item) && isRecord(item.headers) ? Object.fromEntries(Object.entries(item.headers).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};
      registries.push({ url: normaliseRegistryUrl(url), headers });
    } catch (err) {
      problems.push(`mcpHost.registries: ${(err as Error).message}`);
    }
  }
  if (registries.length === 0) registries.push({ url: OFFICIAL_REGISTRY_URL, headers: {} });
  return { registries, problems };
}

const clients = new Map<string, RegistryClient>();

/** The session's client for a registry (answers are cached per client); headers already resolved. */
export function registryClient(url: string, headers: Readonly<Record<string, string>> = {}): RegistryClient {
  const key = `${normaliseRegistryUrl(url)}\n${JSON.stringify(headers)}`;
  let client = clients.get(key);
  if (!client) {
    client = new RegistryClient(url, { headers });
    clients.set(key, client);
  }
  return client;
}

/** `io.github.user/weather` -> `weather`: the entry name a person would choose. */
export function suggestEntryName(serverName: string): string {
  const short = serverName.slice(serverName.lastIndexOf('/') + 1);
  return short.replace(/^mcp-server-|^server-|-mcp-server$|-mcp$/g, '') || short;
}

/** The transports a server offers, e.g. "stdio (npm), http". */
export function transportsOf(server: ServerDetail): string {
  const parts = [
    ...(server.packages ?? []).map((p) => `${p.transport.type === 'stdio' ? 'stdio' : p.transport.type} (${p.registryType})`),
    ...(server.remotes ?? []).map((r) => (r.type === 'streamable-http' ? 'http' : r.type)),
  ];
  return [...new Set(parts)].join(', ') || 'no package or remote';
}

/** The entries' names and versions, for messages: `name@version`, malformed ones included. */
export function entryLabel(entry: CatalogEntry): string {
  return entry.kind === 'server' ? `${entry.server.name}@${entry.server.version}` : `${entry.name ?? '(no name)'}${entry.version ? `@${entry.version}` : ''}`;
}
