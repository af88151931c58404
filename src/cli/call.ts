// `mcp-host call TOOL`: one tool call (as a task with --task, or when the tool requires it), its
// result checked against the tool's outputSchema.
import type { McpClient } from '../protocol/client';
import type { Options } from './args';
import { formatToolResult } from './format';
import { ExitCode, printResult, type CliIo } from './io';
import { unknownName, withNameHint } from './nameHint';
import { checkOutput, describeOutputCheck, findTool } from './outputCheck';
import type { RunContext } from './session';
import { callToolTask, callsAsTask } from './taskRun';

export async function runCall(client: McpClient, options: Options, io: CliIo, { label, taskInterrupt }: RunContext): Promise<number> {
  const name = options.target!;
  let result;
  try {
    result = (await callsAsTask(client, name, options.task))
      ? await callToolTask(client, name, options.toolArgs, io.stderr, taskInterrupt)
      : await client.callTool(name, options.toolArgs);
  } catch (err) {
    throw await withNameHint(err, client, 'tool', name, label);
  }
  const outputCheck = result.isError ? undefined : await checkOutput(await findTool(client, name), result);
  printResult(io, options.json, outputCheck ? { ...result, outputSchemaCheck: outputCheck } : result, () => formatToolResult(result));
  const outputVerdict = outputCheck ? describeOutputCheck(outputCheck, name) : '';
  if (outputVerdict) io.stderr(outputVerdict);
  // Some servers answer an unknown tool with isError rather than a JSON-RPC error.
  if (result.isError) {
    const hint = await unknownName(client, 'tool', name);
    if (hint) io.stderr(`mcp-host: ${label} has no tool ${JSON.stringify(name)}; ${hint}\n`);
  }
  return result.isError ? ExitCode.ToolError : ExitCode.Ok;
}
