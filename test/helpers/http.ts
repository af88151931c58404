import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { McpClient, type ClientRequestHandlers } from '../../src/protocol/client';
import type { MessageDirection } from '../../src/protocol/connection';
import { createHttpTransport, type HttpTransportOptions } from '../../src/transport/http';
import type { Transport, TransportCloseInfo, TransportWarning } from '../../src/transport/transport';
import { FIXTURES_DIR, NODE_MODULES } from './paths';
import { recordingLogger } from './servers';

export const HTTP_FIXTURES = path.join(FIXTURES_DIR, 'http');
export const BIND_LOOPBACK = path.join(HTTP_FIXTURES, 'bind-loopback.mjs');

export interface HttpServerProcess {
  readonly port: number;
  readonly base: string;
  readonly child: ChildProcess;
  readonly output: string[];
  stats(): Promise<any>;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (closed again before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `node SCRIPT ARGS` and waits until `ready(line)` matches a line of stdout or stderr. */
export async function startServerProcess(
  args: string[],
  ready: (line: string) => number | undefined,
  env: Record<string, string> = {},
  timeoutMs = 15_000,
): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const output: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${timeoutMs} ms: ${output.join(' | ')}`));
    }, timeoutMs);
    const onLine = (line: string): void => {
      output.push(line);
      const found = ready(line);
      if (found !== undefined) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    for (const stream of [child.stdout!, child.stderr!]) {
      let buffered = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        buffered += chunk;
        let index: number;
        while ((index = buffered.indexOf('\n')) >= 0) {
          onLine(buffered.slice(0, index));
          buffered = buffered.slice(index + 1);
        }
      });
    }
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with code ${code} before listening: ${output.join(' | ')}`));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    port,
    base,
    child,
    output,
    async stats() {
      const res = await fetch(`${base}/stats`);
      return res.json();
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Starts a fixture from test/fixtures/http (it prints `PORT <n>`). */
export function startHttpFixture(name: string, env: Record<string, string> = {}): Promise<HttpServerProcess> {
  return startServerProcess([path.join(HTTP_FIXTURES, name)], (line) => {
    const match = /^PORT (\d+)$/.exec(line.trim());
    return match ? Number(match[1]) : undefined;
  }, env);
}

export interface HttpStarted {
  client: McpClient;
  transport: Transport;
  trace: Array<{ direction: MessageDirection; message: any }>;
  logs: string[];
  transportLogs: string[];
  warnings: TransportWarning[];
  closes: TransportCloseInfo[];
  stop(): Promise<void>;
}

/** An McpClient over createHttpTransport(kind, …), not yet connected. */
export function makeHttpClient(
  kind: 'http' | 'sse',
  url: string,
  options: { handlers?: ClientRequestHandlers; transport?: Partial<HttpTransportOptions>; requestTimeoutMs?: number; label?: string } = {},
): HttpStarted {
  const trace: HttpStarted['trace'] = [];
  const logs: string[] = [];
  const transportLogs: string[] = [];
  const warnings: TransportWarning[] = [];
  const closes: TransportCloseInfo[] = [];
  const label = `server '${options.label ?? 'http'}'`;
  const transport = createHttpTransport(kind, { url, label, ...options.transport });
  transport.onLog((line) => transportLogs.push(line));
  transport.onWarning((w) => warnings.push(w));
  transport.onClose((info) => closes.push(info));
  const client = new McpClient(
    transport,
    {
      label,
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
    transportLogs,
    warnings,
    closes,
    async stop() {
      await transport.close();
      client.dispose();
    },
  };
}

const EVERYTHING_MAIN = path.join(NODE_MODULES, '@modelcontextprotocol/server-everything/dist/index.js');

/** server-everything in `mode` (Streamable HTTP or legacy SSE) on a free port, bound to 127.0.0.1 by the preload. */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse'): Promise<HttpServerProcess> {
  const port = await freePort();
  return startServerProcess(
    ['--import', BIND_LOOPBACK, EVERYTHING_MAIN, mode],
    (line) => (/listening on port|running on port/i.test(line) ? port : undefined),
    { PORT: String(port) },
  );
}

/** How `promise` settled within `ms`, or 'pending' (a hang fails the test instead of stalling the runner). */
export async function settledWithin(promise: Promise<unknown>, ms = 5_000): Promise<{ value: unknown } | { error: unknown } | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  try {
    return await Promise.race([promise.then((value) => ({ value }), (error: unknown) => ({ error })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A test server's POST: `onMessage` gets its body parsed as JSON. Any other method (DELETE) is
 * answered 200 at once. For the small hand-written servers of the HTTP tests.
 */
export function onPostedJson<T>(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, onMessage: (message: T) => void): void {
  if (req.method !== 'POST') {
    res.writeHead(200).end();
    return;
  }
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => onMessage(JSON.parse(body) as T));
}
