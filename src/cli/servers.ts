// `mcp-host --config FILE`: the servers a config file defines.
import { formatProblem } from '../host/config';
import { describeLaunch } from '../host/transportFactory';
import { displayConfigUrl } from '../util/displayUrl';
import { readConfigFile } from './configFile';
import type { CliIo } from './io';

/** `mcp-host --config FILE`: one line per server (name, how it is reached), then the file's problems. */
export function listConfigServers(file: string, io: CliIo): void {
  const { absolute, parsed } = readConfigFile(file, io);
  const out: string[] = [`Servers in ${absolute} (${parsed.servers.length})`];
  const width = Math.max(0, ...parsed.servers.map((s) => s.name.length));
  for (const server of parsed.servers) {
    const how = server.type === 'stdio' ? `stdio  ${describeLaunch({ type: 'stdio', command: server.command, args: server.args, env: {} })}` : `${server.type}  ${describeLaunch({ type: server.type, url: server.url, shownUrl: displayConfigUrl(server.url), headers: {} })}`;
    out.push(`  ${server.name.padEnd(width)}  ${how}`);
  }
  for (const problem of parsed.problems) out.push(`  problem: ${formatProblem(problem)}`);
  if (parsed.servers.length > 0) out.push('', `Use one with: mcp-host list --config ${JSON.stringify(file)} --server ${JSON.stringify(parsed.servers[0].name)}`);
  io.stdout(`${out.join('\n')}\n`);
}
