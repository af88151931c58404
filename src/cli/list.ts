// `mcp-host list`: the server's tools, resources, templates, prompts and instructions.
import type { McpClient } from '../protocol/client';
import { RemoteError } from '../protocol/errors';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../protocol/schemas';
import type { Options } from './args';
import { stripCodePrefix } from './failure';
import { formatListing } from './format';
import type { CliIo } from './io';

/** The four lists `list` shows, by the key they have in the JSON output. */
type ListKey = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

/** A list the server refused (a JSON-RPC error), as `list --json` shows it. */
interface ListFailure {
  method: string;
  code: number;
  message: string;
}

/**
 * Every list the server declares, each on its own: a server that refuses one of them (e.g. -32601
 * for resources/templates/list while it declares resources) still has the others shown, with the
 * refusal named. A failure that is not an answer (the server died, a timeout) fails the run, and
 * so does a refusal of every list.
 */
async function fetchLists(client: McpClient): Promise<{ lists: Record<ListKey, unknown[]>; failures: Partial<Record<ListKey, ListFailure>> }> {
  const requests: Array<[ListKey, Promise<unknown[]> | undefined]> = [
    ['tools', client.hasCapability('tools') ? client.listAllTools() : undefined],
    ['resources', client.hasCapability('resources') ? client.listAllResources() : undefined],
    ['resourceTemplates', client.hasCapability('resources') ? client.listAllResourceTemplates() : undefined],
    ['prompts', client.hasCapability('prompts') ? client.listAllPrompts() : undefined],
  ];
  const settled = await Promise.allSettled(requests.map(([, request]) => request ?? Promise.resolve([])));
  const lists: Record<ListKey, unknown[]> = { tools: [], resources: [], resourceTemplates: [], prompts: [] };
  const failures: Partial<Record<ListKey, ListFailure>> = {};
  const refusals: RemoteError[] = [];
  for (const [i, outcome] of settled.entries()) {
    const key = requests[i][0];
    if (outcome.status === 'fulfilled') {
      lists[key] = outcome.value;
      continue;
    }
    const err: unknown = outcome.reason;
    if (!(err instanceof RemoteError)) throw err;
    refusals.push(err);
    failures[key] = { method: err.method, code: err.code, message: stripCodePrefix(err.message, err.code) };
  }
  const asked = requests.filter(([, request]) => request !== undefined).length;
  if (refusals.length > 0 && refusals.length === asked) throw refusals[0];
  return { lists, failures };
}

export async function runList(client: McpClient, options: Options, io: CliIo, label: string): Promise<void> {
  const { lists, failures } = await fetchLists(client);
  const tools = lists.tools as Tool[];
  const resources = lists.resources as Resource[];
  const resourceTemplates = lists.resourceTemplates as ResourceTemplate[];
  const prompts = lists.prompts as Prompt[];
  // A refused list is said on stderr too, so a script reading stdout still learns of it.
  for (const failure of Object.values(failures)) {
    io.stderr(`mcp-host: warning: ${label} answered ${failure.method} with error ${failure.code}: ${failure.message} (the other lists are shown)\n`);
  }
  const init = client.initializeResult!;
  if (options.json) {
    io.stdout(
      `${JSON.stringify(
        {
          serverInfo: init.serverInfo,
          protocolVersion: init.protocolVersion,
          era: client.era,
          capabilities: init.capabilities,
          instructions: init.instructions,
          tools,
          resources,
          resourceTemplates,
          prompts,
          errors: failures,
        },
        null,
        2,
      )}\n`,
    );
    return;
  }
  io.stdout(
    formatListing({
      title: init.serverInfo.title ?? init.serverInfo.name,
      version: init.serverInfo.version,
      protocolVersion: init.protocolVersion,
      era: client.era,
      capabilities: Object.keys(init.capabilities),
      instructions: init.instructions,
      tools,
      resources,
      resourceTemplates,
      prompts,
      errors: Object.fromEntries(Object.entries(failures).map(([key, f]) => [key, `the server answered ${f.method} with error ${f.code}: ${f.message}`])),
    }),
  );
}
