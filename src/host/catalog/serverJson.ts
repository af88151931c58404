// The `server.json` document of the MCP Registry and the list responses around it, as the
// registry's OpenAPI document (docs/reference/api/openapi.yaml, version 2025-12-01) defines them.
// Everything here comes from a registry we do not control: each list item is validated on its
// own, and one that does not fit becomes a "malformed" item with the reason instead of failing
// the whole list.
import * as z from '../../protocol/zod';
import { isRecord } from '../../util/isRecord';

const opt = z.optional;

/** A value the user may be asked for: an argument, an environment variable, a header, a URL variable. */
const InputFields = {
  description: opt(z.string()),
  isRequired: opt(z.boolean()),
  format: opt(z.string()),
  value: opt(z.string()),
  isSecret: opt(z.boolean()),
  default: opt(z.string()),
  placeholder: opt(z.string()),
  choices: opt(z.array(z.string())),
};
const InputSchema = z.object(InputFields);
export type RegistryInput = z.infer<typeof InputSchema>;

const WithVariables = { ...InputFields, variables: opt(z.record(z.string(), InputSchema)) };

const KeyValueSchema = z.object({ ...WithVariables, name: z.string().check(z.minLength(1)) });
export type KeyValueInput = z.infer<typeof KeyValueSchema>;

const PositionalSchema = z.object({ ...WithVariables, type: z.literal('positional'), valueHint: opt(z.string()), isRepeated: opt(z.boolean()) });
const NamedSchema = z.object({ ...WithVariables, type: z.literal('named'), name: z.string().check(z.minLength(1)), isRepeated: opt(z.boolean()) });
const ArgumentSchema = z.discriminatedUnion('type', [PositionalSchema, NamedSchema]);
export type PositionalArgument = z.infer<typeof PositionalSchema>;
export type NamedArgument = z.infer<typeof NamedSchema>;
export type RegistryArgument = z.infer<typeof ArgumentSchema>;

const RemoteFields = {
  url: z.string().check(z.minLength(1)),
  headers: opt(z.array(KeyValueSchema)),
  /** `{name}` parts of `url` (2025-12-11 schema). */
  variables: opt(z.record(z.string(), InputSchema)),
};
const StdioTransportSchema = z.object({ type: z.literal('stdio') });
const HttpTransportSchema = z.object({ type: z.literal('streamable-http'), ...RemoteFields });
const SseTransportSchema = z.object({ type: z.literal('sse'), ...RemoteFields });
const RemoteSchema = z.discriminatedUnion('type', [HttpTransportSchema, SseTransportSchema]);
export type RegistryRemote = z.infer<typeof RemoteSchema>;

const PackageSchema = z.object({
  /** npm, pypi, oci, nuget, mcpb; another type is kept and shown as one we cannot run. */
  registryType: z.string().check(z.minLength(1)),
  registryBaseUrl: opt(z.string()),
  identifier: z.string().check(z.minLength(1)),
  version: opt(z.string()),
  fileSha256: opt(z.string()),
  runtimeHint: opt(z.string()),
  transport: z.discriminatedUnion('type', [StdioTransportSchema, HttpTransportSchema, SseTransportSchema]),
  runtimeArguments: opt(z.array(ArgumentSchema)),
  packageArguments: opt(z.array(ArgumentSchema)),
  environmentVariables: opt(z.array(KeyValueSchema)),
});
export type RegistryPackage = z.infer<typeof PackageSchema>;

/** A server name is reverse-DNS, one slash: `io.github.user/weather` (the schema's pattern; linear). */
const SERVER_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

const ServerDetailSchema = z.object({
  name: z.string().check(z.minLength(3), z.maxLength(200), z.regex(SERVER_NAME, 'must be reverse-DNS with one slash, e.g. io.github.user/weather')),
  description: z.string(),
  title: opt(z.string()),
  version: z.string().check(z.minLength(1), z.maxLength(255)),
  websiteUrl: opt(z.string()),
  repository: opt(z.object({ url: z.string(), source: opt(z.string()), subfolder: opt(z.string()) })),
  packages: opt(z.array(PackageSchema)),
  remotes: opt(z.array(RemoteSchema)),
});
export type ServerDetail = z.infer<typeof ServerDetailSchema>;

export type RegistryStatus = 'active' | 'deprecated' | 'deleted';

/** The registry's own word on one version of a server (`_meta["io.modelcontextprotocol.registry/official"]`). */
export interface OfficialMeta {
  readonly status?: RegistryStatus;
  readonly isLatest?: boolean;
  readonly publishedAt?: string;
  readonly updatedAt?: string;
}

export const OFFICIAL_META_KEY = 'io.modelcontextprotocol.registry/official';

export type CatalogEntry =
  | { readonly kind: 'server'; readonly server: ServerDetail; readonly meta: OfficialMeta }
  | { readonly kind: 'malformed'; readonly name?: string; readonly version?: string; readonly reason: string };

/** The list envelope's `metadata`; the items are checked one by one by {@link parseEntry}. */
const ListMetadataSchema = opt(z.object({ nextCursor: opt(z.nullable(z.string())), next_cursor: opt(z.nullable(z.string())), count: opt(z.number()) }));

export interface ParsedList {
  readonly entries: CatalogEntry[];
  readonly nextCursor?: string;
}

/**
 * Reads a `/servers` (or `/versions`) answer; an error when it is not a list at all, or when it
 * holds more than `maxItems` servers (a registry that ignores the page size it was asked for: its
 * items are counted, never read one by one; a 4 MiB answer holds over a million `{}`).
 */
export function parseList(body: unknown, maxItems: number): ParsedList | { error: string } {
  if (!isRecord(body) || !Array.isArray(body.servers)) return { error: 'the answer is not a server list ({"servers": [...]})' };
  const items: unknown[] = body.servers;
  if (items.length > maxItems) return { error: `the answer lists ${items.length} servers, more than the ${maxItems} accepted in one answer; not read` };
  const metadata = ListMetadataSchema.safeParse(body.metadata);
  if (!metadata.success) return { error: 'the answer is not a server list ({"servers": [...]})' };
  const cursor = metadata.data?.nextCursor ?? metadata.data?.next_cursor ?? undefined;
  return { entries: items.map((item) => parseEntry(item)), ...(cursor ? { nextCursor: cursor } : {}) };
}

/**
 * One item of a list or a single-version answer: `{server, _meta}` (v0.1, and v0 since 2025-10), or
 * the older flat form whose registry metadata sits in the server's own `_meta`.
 */
export function parseEntry(item: unknown): CatalogEntry {
  if (!isRecord(item)) return { kind: 'malformed', reason: 'not an object' };
  const wrapped = isRecord(item.server);
  const detail = wrapped ? item.server : item;
  const metaHolder = wrapped ? item._meta : item._meta;
  const parsed = ServerDetailSchema.safeParse(detail);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length ? issue.path.map(String).join('.') : 'server';
    const name = isRecord(detail) && typeof detail.name === 'string' ? detail.name : undefined;
    const version = isRecord(detail) && typeof detail.version === 'string' ? detail.version : undefined;
    return { kind: 'malformed', ...(name !== undefined ? { name } : {}), ...(version !== undefined ? { version } : {}), reason: `${where}: ${issue.message}` };
  }
  return { kind: 'server', server: parsed.data, meta: officialMeta(metaHolder) };
}

function officialMeta(meta: unknown): OfficialMeta {
  const official = isRecord(meta) ? meta[OFFICIAL_META_KEY] : undefined;
  if (!isRecord(official)) return {};
  const status = official.status === 'active' || official.status === 'deprecated' || official.status === 'deleted' ? official.status : undefined;
  return {
    ...(status ? { status } : {}),
    ...(typeof official.isLatest === 'boolean' ? { isLatest: official.isLatest } : {}),
    ...(typeof official.publishedAt === 'string' ? { publishedAt: official.publishedAt } : {}),
    ...(typeof official.updatedAt === 'string' ? { updatedAt: official.updatedAt } : {}),
  };
}
