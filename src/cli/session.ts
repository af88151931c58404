// One run of list, call, read or prompt against one server: the trace file, the transport, the
// client (started once more as legacy when it exits on the era probe), Ctrl-C, and how a failure
// becomes an exit status. What the run asks of the server is the `command` main.ts gives.
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Redactor } from '../host/redact';
import { createTransport, describeLaunch } from '../host/transportFactory';
import { McpClient } from '../protocol/client';
import { ClosedOnEraProbeError, MissingClientCapabilityError, type ProtocolEraSetting } from '../protocol/era';
import { RemoteError, describeClose } from '../protocol/errors';
import { InputNotOfferedError } from '../protocol/mrtr';
import { errorMessage } from '../util/errorMessage';
import { VERSION } from '../version';
import type { Options } from './args';
import { cliAuthorization } from './auth';
import { describeFailure, oneLine } from './failure';
import { ExitCode, type CliIo } from './io';
import { describeLogMessage, requestLogLevel } from './serverLog';
import type { CliTarget } from './target';
import { TaskInterrupt } from './taskRun';
import { TraceFile } from './trace';

/** What a command gets besides the connected client. */
export interface RunContext {
  /** The server as messages name it: `server 'NAME'`. */
  label: string;
  /** Ctrl-C cancels a running task through it. */
  taskInterrupt: TaskInterrupt;
}

/** Connects to the target, runs `command`, closes; the exit status. */
export async function runOnServer(
  options: Options,
  target: CliTarget,
  io: CliIo,
  redactor: Redactor,
  command: (client: McpClient, context: RunContext) => Promise<number>,
): Promise<number> {
  const label = `server '${target.label}'`;
  const spec = target.spec;
  let trace: TraceFile | undefined;
  try {
    trace = options.traceFile ? TraceFile.open(options.traceFile, io.cwd, target.label, (text) => redactor.redact(text)) : undefined;
  } catch (err) {
    io.stderr(`mcp-host: ${errorMessage(err)}\n`);
    return ExitCode.Usage;
  }
  trace?.event(`${spec.type === 'stdio' ? 'starting' : 'connecting to'} ${describeLaunch(spec)}`);
  const auth =
    spec.type === 'stdio'
      ? undefined
      : cliAuthorization({ serverName: target.label, url: spec.url, staticClient: target.staticClient, persist: options.tokenStore, io });
  const makeTransport = () => {
    const made = createTransport(spec, {
      label: target.label,
      // A command-line user waits for the exit: shorter grace than the editor's default.
      shutdown: { closeStdinGraceMs: 500, sigtermGraceMs: 1000 },
      auth,
    });
    if (options.verbose) made.onLog((line) => io.stderr(`[${target.label}] ${line}\n`));
    return made;
  };
  if (options.verbose) io.stderr(`mcp-host: ${spec.type === 'stdio' ? 'starting' : 'connecting to'} ${describeLaunch(spec)}\n`);
  let transport = makeTransport();
  let interrupted = false;
  const taskInterrupt = new TaskInterrupt();
  io.onInterrupt?.(() => {
    interrupted = true;
    // A task is cancelled first (tasks/cancel), then the run ends and the server stops as usual.
    if (taskInterrupt.cancel()) {
      io.stderr('mcp-host: interrupted; cancelling the task\n');
      setTimeout(() => void transport.close(), 5000).unref();
      return;
    }
    io.stderr(`mcp-host: interrupted; ${spec.type === 'stdio' ? 'stopping the server' : 'closing the session'}\n`);
    void transport.close();
  });
  const warn = (message: string) => options.verbose && io.stderr(`mcp-host: ${message}\n`);
  const makeBareClient = (era: ProtocolEraSetting | undefined) =>
    new McpClient(
      transport,
      {
        label,
        clientInfo: { name: 'mcp-host-cli', version: VERSION },
        requestTimeoutMs: options.timeoutMs,
        protocolEra: era,
        logger: { trace() {}, debug() {}, info() {}, warn, error: warn },
        onTrace: trace ? (direction, message) => trace.message(direction, message) : undefined,
      },
      // Roots are answered here (the folder of the run); forms and sampling are not offered, so a
      // modern server that needs them ends the request with InputNotOfferedError or -32021.
      { listRoots: () => [{ uri: pathToFileURL(target.rootDir).href, name: path.basename(target.rootDir) }] },
    );
  const showLogs = options.verbose || options.logLevel !== undefined;
  const makeClient = (era: ProtocolEraSetting | undefined) => {
    const made = makeBareClient(era);
    // Some servers put their whole diagnosis in log messages: shown like stderr (redacted and
    // stripped of control characters by io.stderr), each cut short.
    if (showLogs) made.onLogMessage((m) => io.stderr(`[${target.label}] ${describeLogMessage(m)}\n`));
    return made;
  };
  let client = makeClient(options.era ?? target.protocolEra);

  let connected = false;
  try {
    try {
      await client.connect();
    } catch (err) {
      if (!(err instanceof ClosedOnEraProbeError) || interrupted) throw err;
      // A legacy server that exits on unknown methods: once more, a new process, no probe.
      // Said with --verbose only: a failure stays one line, a success prints nothing on stderr.
      warn(`${label} closed when probed with server/discover (the 2026-07-28 era probe); starting it again with --era ${err.retryEra}`);
      trace?.event(`restarted as ${err.retryEra} after server/discover ended the process (the 2026-07-28 era probe)${err.closeInfo ? `: ${describeClose(err.closeInfo)}` : ''}`);
      client.dispose();
      await transport.close().catch(() => undefined);
      transport = makeTransport();
      client = makeClient(err.retryEra);
      await client.connect();
    }
    connected = true;
    if (options.logLevel) await requestLogLevel(client, options.logLevel, label, io);
    return await command(client, { label, taskInterrupt });
  } catch (err) {
    if (interrupted) return ExitCode.Interrupted;
    const failedTo = connected ? 'failed' : spec.type === 'stdio' ? 'could not be started' : 'could not be reached';
    io.stderr(`mcp-host: ${oneLine(describeFailure(err, label, failedTo))}\n`);
    // An error answer from a server that works is the request's failure, not the server's; so is
    // a request that needs input the CLI does not give.
    return connected && (err instanceof RemoteError || err instanceof InputNotOfferedError || err instanceof MissingClientCapabilityError) ? ExitCode.ToolError : ExitCode.ServerFailed;
  } finally {
    client.dispose();
    await transport.close().catch(() => undefined);
    trace?.event('closed');
    trace?.close();
  }
}
