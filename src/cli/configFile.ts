// Reading a config file from the command line, as every subcommand that takes --config FILE does.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseConfigText, type ParsedConfig } from '../host/config';
import { errorMessage } from '../util/errorMessage';
import type { CliIo } from './io';
import { UsageError } from './options';

/**
 * The file (relative to the run's folder) read and parsed. As `mcp-host list --config` reads it: a
 * .vscode/mcp.json belongs to the folder above .vscode, which is its ${workspaceFolder}.
 */
export function readConfigFile(file: string, io: CliIo): { absolute: string; parsed: ParsedConfig } {
  const absolute = path.resolve(io.cwd, file);
  let text: string;
  try {
    text = fs.readFileSync(absolute, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read config file ${absolute}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`);
  }
  return { absolute, parsed: parseConfigText(text, { file: absolute, kind: 'import', workspaceFolder: path.dirname(path.dirname(absolute)) }) };
}
