import type { McpClient } from '../../protocol/client';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../../protocol/schemas';
import type { DisposableStore } from '../../util/disposable';
import { errorMessage } from '../../util/errorMessage';
import { Emitter, type Event } from '../../util/event';
import type { Logger } from '../../util/logger';

export interface ServerLists {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  /** A list that failed to load, with why (shown instead of silently empty). */
  errors: Partial<Record<'tools' | 'resources' | 'resourceTemplates' | 'prompts', string>>;
}

/** A cached list of a connection (resources: with its templates). */
export type ListKind = 'tools' | 'resources' | 'prompts';

const emptyLists = (): ServerLists => ({ tools: [], resources: [], resourceTemplates: [], prompts: [], errors: {} });

/** The methods behind each cached list, whose caching hints say whether it is still fresh. */
const LIST_METHODS: Record<ListKind, readonly string[]> = {
  tools: ['tools/list'],
  resources: ['resources/list', 'resources/templates/list'],
  prompts: ['prompts/list'],
};

/** A list's fetch in flight for one launch, and whether a change signal came since it began. */
interface ListFetch {
  readonly launch: DisposableStore;
  again: boolean;
  done?: Promise<void>;
}

/**
 * The cached lists of one server, fetched per launch: fetches of a list are coalesced, and an
 * answer that arrives after its launch was disposed is dropped.
 */
export class ListCache {
  private value: ServerLists = emptyLists();
  /** The fetch in flight of each list (see refresh). */
  private readonly fetches = new Map<ListKind, ListFetch>();
  private readonly emitter = new Emitter<ServerLists>();
  readonly onDidChange: Event<ServerLists> = this.emitter.event;

  constructor(private readonly log: Logger) {}

  get current(): ServerLists {
    return this.value;
  }

  /** Empties the lists (the launch is over), telling listeners. */
  clear(): void {
    this.value = emptyLists();
    this.emitter.fire(this.value);
  }

  /** Empties the lists, telling listeners only when something was listed. */
  clearIfAny(): void {
    if (this.value.tools.length + this.value.resources.length + this.value.prompts.length + this.value.resourceTemplates.length > 0) this.clear();
  }

  /**
   * Fetches again the cached lists that are stale, and resolves when they are in (at once when
   * every list is fresh). In the 2026-07-28 era a list says how long it may be served from a cache
   * (`ttlMs`, server/utilities/caching.mdx): a stale list is fetched again when it is next needed,
   * not by polling, so the editor calls this where it needs lists (pickers opening, the tree
   * expanding a server). A list without hints (every legacy list) stays cached until a change
   * signal. `cacheScope` needs nothing more: the lists belong to one connection (one authorization
   * context), are never shared, and are dropped when it stops. Never rejects.
   */
  fresh(launch: DisposableStore, client: McpClient, kinds: readonly ListKind[]): Promise<void> {
    const now = performance.now();
    const work: Array<Promise<void>> = [];
    for (const kind of kinds) {
      if (!client.hasCapability(kind)) continue;
      const current = this.fetches.get(kind);
      if (current?.launch === launch && current.done) {
        work.push(current.done); // a fetch in flight is as fresh as it gets
        continue;
      }
      const stale = LIST_METHODS[kind].some((method) => {
        const hints = client.cacheHints(method);
        return hints !== undefined && now >= hints.receivedAt + (hints.ttlMs ?? 0);
      });
      if (stale) {
        this.log.debug(`The ${kind} list is stale (its ttlMs has passed): fetching it again`);
        work.push(this.refresh(launch, client, kind));
      }
    }
    return Promise.all(work).then(() => undefined);
  }

  async refreshAll(launch: DisposableStore, client: McpClient): Promise<void> {
    await Promise.all([this.refresh(launch, client, 'tools'), this.refresh(launch, client, 'resources'), this.refresh(launch, client, 'prompts')]);
  }

  /**
   * Fetches one list. Change signals that come while its fetch is in flight ask for one more
   * fetch after it, however many they are: fetches of a list never overlap (where the slowest
   * answer would win) and the last one starts after the last signal.
   */
  refresh(launch: DisposableStore, client: McpClient, kind: ListKind): Promise<void> {
    const current = this.fetches.get(kind);
    if (current?.launch === launch && current.done) {
      current.again = true;
      return current.done;
    }
    const fetch: ListFetch = { launch, again: false };
    this.fetches.set(kind, fetch);
    fetch.done = (async () => {
      do {
        fetch.again = false;
        await this.fetchList(launch, client, kind);
      } while (fetch.again && !launch.isDisposed);
    })().finally(() => {
      if (this.fetches.get(kind) === fetch) this.fetches.delete(kind);
    });
    return fetch.done;
  }

  private async fetchList(launch: DisposableStore, client: McpClient, kind: ListKind): Promise<void> {
    const capability = kind;
    if (!client.hasCapability(capability)) return;
    const next: Partial<ServerLists> = {};
    const failed: ServerLists['errors'] = {};
    const load = async <K extends 'tools' | 'resources' | 'resourceTemplates' | 'prompts'>(key: K, fetch: () => Promise<ServerLists[K]>) => {
      try {
        next[key] = await fetch();
      } catch (err) {
        failed[key] = errorMessage(err);
        this.log.warn(`Could not list ${key}: ${errorMessage(err)}`);
      }
    };
    if (kind === 'tools') await load('tools', () => client.listAllTools());
    if (kind === 'prompts') await load('prompts', () => client.listAllPrompts());
    if (kind === 'resources') {
      await Promise.all([load('resources', () => client.listAllResources()), load('resourceTemplates', () => client.listAllResourceTemplates())]);
    }
    if (launch.isDisposed) return; // a late answer for a launch that has ended
    // The errors as they are now, not as they were when this fetch began: the fetches of the other
    // lists run at the same time, and an error one of them set must not be undone by this one.
    const errors = { ...this.value.errors };
    for (const key of Object.keys(next) as Array<keyof ServerLists['errors']>) delete errors[key];
    Object.assign(errors, failed);
    this.value = { ...this.value, ...next, errors };
    this.emitter.fire(this.value);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
