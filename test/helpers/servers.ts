import * as path from 'node:path';
import { McpClient, type ClientRequestHandlers } from '../../src/protocol/client';
import { StdioTransport, type StdioTransportOptions } from '../../src/transport/stdio';
import type { MessageDirection } from '../../src/protocol/connection';
import type { Logger } from '../../src/util/logger';
import { NODE_MODULES, fixture } from './paths';

/** The real npm servers the process tests run against. */
export const EVERYTHING = [path.join(NODE_MODULES, '@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'];
export const FILESYSTEM = [path.join(NODE_MODULES, '@modelcontextprotocol/server-filesystem/dist/index.js')];
export const MEMORY = [path.join(NODE_MODULES, '@modelcontextprotocol/server-memory/dist/index.js')];

export interface Started {
  client: McpClient;
  transport: StdioTransport;
  trace: Array<{ direction: MessageDirection; message: any }>;
  logs: string[];
  stderr: string[];
  stop(): Promise<void>;
}

export function recordingLogger(into: string[]): Logger {
  const log = (level: string) => (m: string) => into.push(`${level}: ${m}`);
  return { trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/** Builds a client for `node ARGS...` (a script path and its arguments) without connecting. */
export function makeClient(
  nodeArgs: string[],
  options: { handlers?: ClientRequestHandlers; transport?: Partial<StdioTransportOptions>; requestTimeoutMs?: number; label?: string } = {},
): Started {
  const trace: Started['trace'] = [];
  const logs: string[] = [];
  const stderr: string[] = [];
  const transport = new StdioTransport({
    command: process.execPath,
    args: nodeArgs,
    shutdown: { closeStdinGraceMs: 500, sigtermGraceMs: 500 },
    ...options.transport,
  });
  transport.onLog((line) => stderr.push(line));
  const client = new McpClient(
    transport,
    {
      label: `server '${options.label ?? path.basename(nodeArgs[0])}'`,
      clientInfo: { name: 'mcp-host-tests', version: '0.0.0' },
      logger: recordingLogger(logs),
      requestTimeoutMs: options.requestTimeoutMs ?? 15_000,
      onTrace: (direction, message) => trace.push({ direction, message }),
    },
    options.handlers,
  );
  return {
    client,
    transport,
    trace,
    logs,
    stderr,
    async stop() {
      await transport.close();
      client.dispose();
    },
  };
}

export async function startFixture(name: string, options: Parameters<typeof makeClient>[1] = {}): Promise<Started> {
  const started = makeClient([fixture(name)], { label: name, ...options });
  await started.client.connect();
  return started;
}

/** Polls until `predicate` holds, or fails after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export { isAlive } from './process';
