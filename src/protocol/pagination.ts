// Paged lists (tools/list, resources/list, ...): every page collected, a cursor loop stopped, and
// the caching hints of the pages merged (server/utilities/caching.mdx).
import { McpError, ErrorCode } from './errors';
import type { CacheHints } from './schemas';

/** A guard against servers whose `nextCursor` never ends. */
export const MAX_LIST_PAGES = 10_000;

/** The caching hints of a complete list, with when it arrived (performance.now()). */
export type ReceivedCacheHints = CacheHints & { receivedAt: number };

/**
 * Every item of a paged list. The hints of the complete list are kept in `hints` under `method`
 * (deleted when no page had any).
 */
export async function collectPages<R extends { nextCursor?: string }, I>(
  label: string,
  method: string,
  fetchPage: (cursor: string | undefined) => Promise<R>,
  items: (page: R) => I[],
  hints: Map<string, ReceivedCacheHints>,
): Promise<I[]> {
  let all: I[] | undefined;
  const seen = new Set<string>();
  let cursor: string | undefined;
  let merged: CacheHints | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await fetchPage(cursor);
    const pageItems = items(result);
    // Performance: the first (usually the only) page is copied by slice(), not item by item in a
    // loop that would run unoptimised through a first list of thousands.
    if (all === undefined) all = pageItems.slice();
    else for (let i = 0; i < pageItems.length; i++) all.push(pageItems[i]);
    merged = mergeHints(merged, result as CacheHints);
    cursor = result.nextCursor;
    if (cursor === undefined) {
      if (merged) hints.set(method, { ...merged, receivedAt: performance.now() });
      else hints.delete(method);
      return all;
    }
    if (seen.has(cursor)) {
      throw new McpError(ErrorCode.InvalidResult, `${label} returned the cursor ${JSON.stringify(cursor)} of ${method} twice; stopped paging to avoid an endless loop`);
    }
    seen.add(cursor);
  }
  throw new McpError(ErrorCode.InvalidResult, `${label} returned more than ${MAX_LIST_PAGES} pages for ${method}; stopped`);
}

/** The hints of a list of pages: the shortest freshness, and private if any page is (caching.mdx). */
function mergeHints(sofar: CacheHints | undefined, page: CacheHints): CacheHints | undefined {
  if (page.ttlMs === undefined && page.cacheScope === undefined) return sofar;
  const ttl = typeof page.ttlMs === 'number' ? Math.max(0, page.ttlMs) : 0;
  const merged: CacheHints = { ttlMs: sofar?.ttlMs === undefined ? ttl : Math.min(sofar.ttlMs, ttl) };
  const scope = sofar?.cacheScope === 'private' || page.cacheScope === 'private' ? 'private' : (page.cacheScope ?? sofar?.cacheScope);
  if (scope !== undefined) merged.cacheScope = scope;
  return merged;
}

/** The params of a page request. */
export function cursorParams(cursor: string | undefined): Record<string, unknown> | undefined {
  return cursor === undefined ? undefined : { cursor };
}
