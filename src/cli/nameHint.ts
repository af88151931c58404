// "did you mean …" for a tool or prompt name the server does not have.
import type { McpClient } from '../protocol/client';
import { RemoteError } from '../protocol/errors';
import { stripCodePrefix } from './failure';
import { unknownNameHint } from './names';

/** "did you mean …" when `name` is not among the server's tools or prompts; undefined when it is. */
export async function unknownName(client: McpClient, kind: 'tool' | 'prompt', name: string): Promise<string | undefined> {
  if (!client.hasCapability(kind === 'tool' ? 'tools' : 'prompts')) return `the server offers no ${kind}s`;
  try {
    const items = kind === 'tool' ? await client.listAllTools() : await client.listAllPrompts();
    const names = items.map((i) => i.name);
    return names.includes(name) ? undefined : unknownNameHint(kind, name, names);
  } catch {
    return undefined;
  }
}

/** A JSON-RPC error about an unknown tool or prompt, with the names the server does have. */
export async function withNameHint(err: unknown, client: McpClient, kind: 'tool' | 'prompt', name: string, label: string): Promise<unknown> {
  if (!(err instanceof RemoteError)) return err;
  const hint = await unknownName(client, kind, name);
  if (!hint) return err;
  return new RemoteError(err.method, err.code, `${label} has no ${kind} ${JSON.stringify(name)}; ${hint} (${stripCodePrefix(err.message, err.code)})`, err.data);
}
