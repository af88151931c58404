// `mcp-host read URI`: one resource's contents.
import type { McpClient } from '../protocol/client';
import type { Options } from './args';
import { formatReadResult } from './format';
import { ExitCode, printResult, type CliIo } from './io';

export async function runRead(client: McpClient, options: Options, io: CliIo): Promise<number> {
  const result = await client.readResource(options.target!);
  printResult(io, options.json, result, () => formatReadResult(result));
  return ExitCode.Ok;
}
