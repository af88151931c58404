// `mcp-host prompt NAME`: one prompt's messages, with --args as its (string) arguments.
import type { McpClient } from '../protocol/client';
import type { Options } from './args';
import { formatPromptResult } from './format';
import { ExitCode, printResult, type CliIo } from './io';
import { withNameHint } from './nameHint';
import type { RunContext } from './session';

export async function runPrompt(client: McpClient, options: Options, io: CliIo, { label }: RunContext): Promise<number> {
  const name = options.target!;
  let result;
  try {
    result = await client.getPrompt(name, options.toolArgs as Record<string, string>);
  } catch (err) {
    throw await withNameHint(err, client, 'prompt', name, label);
  }
  printResult(io, options.json, result, () => formatPromptResult(result));
  return ExitCode.Ok;
}
