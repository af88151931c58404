// A client of the MCP Registry API (the official registry, or a company's own sub-registry):
// search with cursor paging, one server's versions, one version's server.json. The registry is
// another party's server: its answers are read with a byte limit, a timeout, and redirects only
// within its own origin.
import { networkError } from '../../transport/httpShared';
import { setBounded } from '../../util/boundedMap';
import { displayUrl } from '../../util/displayUrl';
import { errorMessage } from '../../util/errorMessage';
import { parseEntry, parseList, type CatalogEntry, type ParsedList } from './serverJson';

export const OFFICIAL_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';

/** The registry answers we read at most: a page of a few hundred server.json documents fits easily. */
export const MAX_REGISTRY_RESPONSE_BYTES = 4 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 5;
/**
 * The servers a page may hold: what was asked (`limit`), and at least this many (the API's own
 * largest page). A longer list is refused before its items are read (a registry that ignores the
 * limit could send a million items in 4 MiB, each checked against the schema).
 */
const MIN_PAGE_ITEMS = 100;
/** The versions of one server come in one answer, not paged: more than this many is refused. */
const MAX_VERSIONS = 1000;
/**
 * The session's memory of answers (parsed, never the raw body): at most 32 answers of at most
 * 512 KiB each (a larger one is read but not kept), the oldest dropped first. Browse Servers…
 * searches at each pause in typing; each query is one answer.
 */
const MAX_CACHED_ANSWERS = 32;
const MAX_CACHED_ANSWER_BYTES = 512 * 1024;

export interface RegistryClientOptions {
  /** Headers sent with every request (a private registry's key); values already resolved. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
}

/** Why a registry could not answer; its message names the registry and never holds a header value. */
export class RegistryError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RegistryError';
  }
}

/** `/v0.1` is the frozen API; registries deployed before it (and older copies of the code) only have `/v0`. */
type ApiPrefix = '/v0.1' | '/v0';

export class RegistryClient {
  readonly baseUrl: string;
  private prefix: Promise<ApiPrefix> | undefined;
  /** Parsed answers by path (see MAX_CACHED_ANSWERS): browsing the same query twice asks the registry once. */
  private readonly cache = new Map<string, Promise<ParsedList | CatalogEntry>>();

  constructor(
    baseUrl: string,
    private readonly options: RegistryClientOptions = {},
  ) {
    this.baseUrl = normaliseRegistryUrl(baseUrl);
  }

  /** One page of the latest versions whose name contains `query` (all servers when it is empty). */
  async search(query: string, options: { cursor?: string; limit?: number } = {}): Promise<ParsedList> {
    const params = new URLSearchParams();
    if (query.trim()) params.set('search', query.trim());
    params.set('version', 'latest');
    if (options.cursor) params.set('cursor', options.cursor);
    const limit = options.limit ?? 30;
    params.set('limit', String(limit));
    return this.list(`/servers?${params.toString()}`, Math.max(limit, MIN_PAGE_ITEMS));
  }

  /** Every published version of one server, newest first (as the registry orders them). */
  async versions(name: string): Promise<CatalogEntry[]> {
    return (await this.list(`/servers/${encodeURIComponent(name)}/versions`, MAX_VERSIONS)).entries;
  }

  /** One version of one server (`latest` for the newest). */
  async get(name: string, version = 'latest'): Promise<CatalogEntry> {
    return this.answer(`/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`, parseEntry);
  }

  private list(path: string, maxItems: number): Promise<ParsedList> {
    return this.answer(path, (body) => {
      const parsed = parseList(body, maxItems);
      if ('error' in parsed) throw new RegistryError(`Registry ${this.baseUrl}: ${parsed.error}`);
      return parsed;
    });
  }

  /** The answer to GET `path` as `read` makes it, from the session's memory when it is there. */
  private async answer<T extends ParsedList | CatalogEntry>(path: string, read: (body: unknown) => T): Promise<T> {
    const key = (await this.apiPrefix()) + path;
    const kept = this.cache.get(key) as Promise<T> | undefined;
    if (kept) return kept;
    const forget = (): void => {
      if (this.cache.get(key) === pending) this.cache.delete(key);
    };
    const pending: Promise<T> = this.fetchJson(new URL(this.baseUrl + key)).then(({ body, bytes }) => {
      if (bytes > MAX_CACHED_ANSWER_BYTES) forget();
      return read(body);
    });
    setBounded(this.cache, key, pending, MAX_CACHED_ANSWERS);
    // A failure is not remembered: the next try asks again.
    pending.catch(forget);
    return pending;
  }

  /** `/v0.1` when the registry has it, else `/v0`; asked once. */
  private apiPrefix(): Promise<ApiPrefix> {
    this.prefix ??= this.fetchJson(new URL(`${this.baseUrl}/v0.1/servers?limit=1`)).then(
      () => '/v0.1' as const,
      (err: unknown) => {
        if (err instanceof RegistryError && err.status === 404) return '/v0' as const;
        this.prefix = undefined;
        throw err;
      },
    );
    return this.prefix;
  }

  /** The answer's JSON and its length in bytes. */
  private async fetchJson(url: URL): Promise<{ body: unknown; bytes: number }> {
    const origin = url.origin;
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const signal = AbortSignal.timeout(timeoutMs);
    let current = url;
    for (let hop = 0; ; hop++) {
      let res: Response;
      try {
        res = await fetch(current, { headers: { accept: 'application/json', ...this.options.headers }, redirect: 'manual', signal });
      } catch (err) {
        if (signal.aborted) throw new RegistryError(`Registry ${this.baseUrl} did not answer within ${timeoutMs / 1000} s`, undefined, { cause: err });
        const detail = networkError({ label: 'registry', shownUrl: this.baseUrl }, 'GET', err).message;
        throw new RegistryError(`Registry ${this.baseUrl} cannot be reached: ${detail.slice(detail.indexOf('(GET): ') + 1 ? detail.indexOf('(GET): ') + 7 : 0)}`, undefined, { cause: err });
      }
      if (res.status >= 300 && res.status < 400 && res.headers.has('location')) {
        await res.body?.cancel();
        const location = res.headers.get('location')!;
        const next = URL.canParse(location, current.href) ? new URL(location, current.href) : undefined;
        if (!next || next.origin !== origin) throw new RegistryError(`Registry ${this.baseUrl} redirected to another origin (${next?.origin ?? 'an invalid URL'}); not followed`, res.status);
        if (hop >= MAX_REDIRECTS) throw new RegistryError(`Registry ${this.baseUrl} redirected more than ${MAX_REDIRECTS} times`, res.status);
        current = next;
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        const hint = res.status === 401 || res.status === 403 ? ' (a private registry needs its header: mcpHost.registries[].headers)' : res.status === 404 ? ' (not found)' : '';
        throw new RegistryError(`Registry ${this.baseUrl} answered HTTP ${res.status} for ${current.pathname}${hint}`, res.status);
      }
      const text = await readBounded(res, this.options.maxBytes ?? MAX_REGISTRY_RESPONSE_BYTES, this.baseUrl, (err) => {
        const what = `its answer to GET ${displayUrl(current)}`;
        if (signal.aborted) return new RegistryError(`Registry ${this.baseUrl} did not send all of ${what} within ${timeoutMs / 1000} s`, undefined, { cause: err });
        return new RegistryError(`Registry ${this.baseUrl} broke off ${what}: ${errorMessage(err)}`, undefined, { cause: err });
      });
      try {
        return { body: JSON.parse(text) as unknown, bytes: Buffer.byteLength(text) };
      } catch (err) {
        throw new RegistryError(`Registry ${this.baseUrl} answered with invalid JSON for ${current.pathname}: ${errorMessage(err)}`);
      }
    }
  }
}

/**
 * The body as text, counted while it arrives and cut off (as an error) past `maxBytes`. A read that
 * fails (the deadline passed, the connection broke) throws what `failed` makes of its error: the
 * stream's own says neither the registry nor what was read ("The operation was aborted due to timeout").
 */
async function readBounded(res: Response, maxBytes: number, registry: string, failed: (err: unknown) => Error): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((err: unknown) => {
      throw failed(err);
    });
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new RegistryError(`Registry ${registry} sent an answer larger than ${Math.round(maxBytes / 1024)} KiB; not read`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `https://r.example/` and `https://r.example` are one registry; the API paths are added by the client. */
export function normaliseRegistryUrl(url: string): string {
  const trimmed = url.trim();
  if (!URL.canParse(trimmed) || !/^https?:$/.test(new URL(trimmed).protocol)) {
    throw new RegistryError(`Registry URL ${JSON.stringify(trimmed)} is not an http:// or https:// URL`);
  }
  const parsed = new URL(trimmed);
  let path = parsed.pathname;
  while (path.endsWith('/')) path = path.slice(0, -1);
  return `${parsed.origin}${path}`;
}
