import { McpClient } from '../../protocol/client';
import type { ProtocolEraSetting } from '../../protocol/era';
import type { ServerAuthorization } from '../../auth/types';
import type { Transport, TransportCloseInfo } from '../../transport/transport';
import type { DisposableStore } from '../../util/disposable';
import type { Logger } from '../../util/logger';
import { createTransport } from '../transportFactory';
import type { ConnectionEnvironment } from './environment';
import type { PreparedSpec } from './launch';
import type { ProtocolTrace } from './protocolTrace';

/** How many stderr lines of a start are kept for its failure message. */
const START_STDERR_LINES = 20;

/** What one launch of a server gives each of its connect attempts. */
export interface AttemptContext {
  readonly serverName: string;
  readonly env: ConnectionEnvironment;
  /** The server's redacting log. */
  readonly log: Logger;
  readonly trace: ProtocolTrace;
  /** The launch's scope: the transport, the client and their listeners are disposed with it. */
  readonly launch: DisposableStore;
  readonly spec: PreparedSpec;
  readonly auth: ServerAuthorization | undefined;
  /** The last lines the server logged while starting (for its failure message). */
  readonly startStderr: string[];
  isStarting(): boolean;
  onClose(info: TransportCloseInfo): void;
  onResourceUpdated(uri: string): void;
}

/** One transport and client for a launch (a launch has two when the era probe closed the first). */
export function openAttempt(ctx: AttemptContext, era: ProtocolEraSetting | undefined): { transport: Transport; client: McpClient } {
  const { env, launch, log } = ctx;
  const transport = createTransport(ctx.spec, {
    label: ctx.serverName,
    maxMessageBytes: env.maxMessageBytes,
    maxMessageBytesHint: env.maxMessageBytesHint,
    shutdown: env.shutdown,
    auth: ctx.auth,
  });
  launch.add({ dispose: () => void transport.close() });
  const logPrefix = ctx.spec.type === 'stdio' ? '[stderr] ' : '';
  launch.add(
    transport.onLog((line) => {
      log.info(`${logPrefix}${line}`);
      if (ctx.isStarting() && ctx.startStderr.push(line) > START_STDERR_LINES) ctx.startStderr.shift();
    }),
  );
  const client = new McpClient(
    transport,
    {
      label: `server '${ctx.serverName}'`,
      protocolEra: era,
      clientInfo: env.clientInfo,
      extensions: env.clientExtensions,
      logger: log,
      requestTimeoutMs: env.requestTimeoutMs(),
      onTrace: (direction, message) => ctx.trace.onMessage(direction, message),
    },
    env.handlers,
  );
  launch.add(client);
  launch.add(client.onClose((info) => ctx.onClose(info)));
  launch.add(client.onLogMessage((m) => ctx.trace.logServerMessage(m.level, m.logger, m.data)));
  launch.add(client.onResourceUpdated((uri) => ctx.onResourceUpdated(uri)));
  return { transport, client };
}
