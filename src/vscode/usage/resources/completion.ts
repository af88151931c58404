import type { ServerConnection } from '../../../host/serverConnection';
import type { CompletionReference } from '../../../protocol/schemas';
import { errorMessage } from '../../../util/errorMessage';

/**
 * Suggestions for one argument of a prompt or resource template from `completion/complete`,
 * or undefined when the server does not offer completions. `context` holds the arguments
 * already given (the spec's context.arguments), read when asked, so it sees earlier answers.
 */
export function completionSuggester(
  server: ServerConnection,
  ref: CompletionReference,
  argument: string,
  context: () => Record<string, string>,
): ((value: string, signal: AbortSignal) => Promise<readonly string[]>) | undefined {
  if (!server.hasCapability('completions')) return undefined;
  let warned = false;
  return async (value, signal) => {
    const known = context();
    try {
      const result = await server.complete(ref, { name: argument, value }, Object.keys(known).length ? { arguments: known } : undefined, { signal, timeoutMs: 10_000 });
      return result.completion.values.slice(0, 100);
    } catch (err) {
      if (!signal.aborted && !warned) {
        warned = true;
        server.logger.warn(`completion/complete for "${argument}" failed: ${errorMessage(err)}`);
      }
      return [];
    }
  };
}
