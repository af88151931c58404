// The `mcp-host` CLI's entry: which subcommand runs. Each subcommand is a file of its own beside this
// one (list.ts, call.ts, read.ts, prompt.ts, servers.ts, report.ts, doctor.ts, serve.ts,
// registry.ts, conformance.ts); session.ts connects list, call, read and prompt to their server.
import { Redactor } from '../host/redact';
import type { McpClient } from '../protocol/client';
import { HelpRequested, parseArgs, type Options } from './args';
import { runCall } from './call';
import { rememberErasAcrossRuns } from './eraFile';
import { oneLine } from './failure';
import { ExitCode, type CliIo } from './io';
import { runList } from './list';
import { UsageError } from './options';
import { runPrompt } from './prompt';
import { runRead } from './read';
import { listConfigServers } from './servers';
import { runOnServer, type RunContext } from './session';
import { resolveTarget, targetSecrets, type CliTarget } from './target';
import { USAGE } from './usage';

export { ExitCode, type CliIo };

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  // Loaded on demand: only the conformance suite runs it.
  if (argv[0] === 'conformance') return (await import('./conformance')).runConformance(argv.slice(1), io);
  // The server quality report: its own options and its own way of starting servers (src/cli/report.ts).
  if (argv[0] === 'report') return (await import('./report')).runReport(argv.slice(1), io);
  // The doctor: a checklist of what keeps a server from starting (src/cli/doctor.ts).
  if (argv[0] === 'doctor') return (await import('./doctor')).runDoctor(argv.slice(1), io);
  // The doctor and the report (above) probe each server as it is now; every other command uses
  // the eras that earlier runs learned (eraFile.ts).
  rememberErasAcrossRuns(io.env);
  // The gateway: the configured servers shared with other MCP clients (src/cli/serve.ts).
  if (argv[0] === 'serve') return (await import('./serve')).runServe(argv.slice(1), io);
  // An MCP registry: search, add, list --registry NAME (src/cli/registry.ts).
  const registry = await import('./registry');
  if (registry.isRegistryCommand(argv)) return registry.runRegistryCommand(argv, io, runCli);
  // Every message on stderr is redacted: credential forms always, this run's secret values once known.
  const redactor = new Redactor();
  const rawStderr = io.stderr;
  io = { ...io, stderr: (text) => rawStderr(redactor.redact(text)) };
  let options: Options;
  let target: CliTarget;
  try {
    options = parseArgs(argv);
    if (options.command === 'servers') {
      listConfigServers(options.configFile!, io);
      return ExitCode.Ok;
    }
    target = resolveTarget(options, io);
    redactor.add(targetSecrets(target));
  } catch (err) {
    if (err instanceof HelpRequested) {
      io.stdout(`${USAGE}\n`);
      return ExitCode.Ok;
    }
    if (err instanceof UsageError) {
      // One line and a pointer: the whole usage would bury the reason.
      io.stderr(`mcp-host: ${oneLine(err.message)}; see 'mcp-host --help'\n`);
      return ExitCode.Usage;
    }
    throw err;
  }
  return runOnServer(options, target, io, redactor, (client, context) => runCommand(client, options, io, context));
}

async function runCommand(client: McpClient, options: Options, io: CliIo, context: RunContext): Promise<number> {
  switch (options.command) {
    case 'list':
      await runList(client, options, io, context.label);
      return ExitCode.Ok;
    case 'call':
      return runCall(client, options, io, context);
    case 'read':
      return runRead(client, options, io);
    case 'prompt':
      return runPrompt(client, options, io, context);
    case 'servers':
      return ExitCode.Usage;
  }
}
