import type { ListKind, ServerConnection } from '../host/serverConnection';

/** How long a picker waits for stale lists before it opens with what it has. */
const FRESH_LISTS_WAIT_MS = 3_000;

/**
 * Before a picker shows lists: the stale ones (their ttlMs has passed) are fetched again, waited
 * for a few seconds at most, so a slow server does not hold the picker up (it then shows the
 * cached list, as caching.mdx allows).
 */
export async function freshListsOf(servers: readonly ServerConnection[], kinds: readonly ListKind[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, FRESH_LISTS_WAIT_MS);
  });
  try {
    await Promise.race([Promise.all(servers.map((s) => s.freshLists(kinds))), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
