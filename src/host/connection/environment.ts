import type { ClientRequestHandlers } from '../../protocol/handlers';
import type { Implementation, LoggingLevel } from '../../protocol/schemas';
import type { ServerAuthorization, StaticClientConfig } from '../../auth/types';
import type { Disposable } from '../../util/disposable';
import type { Logger } from '../../util/logger';
import type { InputDefinition } from '../config';
import type { RestartPolicyOptions } from '../restartPolicy';
import type { InputResolver } from '../variables';

/** What the host gives every connection. The editor floor implements it with VS Code APIs. */
export interface ConnectionEnvironment {
  clientInfo: Implementation;
  /** Extensions advertised in our capabilities (the editor: MCP Apps; the CLI: none). */
  clientExtensions?: Record<string, Record<string, unknown>>;
  /** The server's own log (a LogOutputChannel in the editor). */
  logger: Logger;
  /** True when the log is at trace level: every protocol message is then logged. */
  traceEnabled(): boolean;
  requestTimeoutMs(): number;
  /** Level requested with logging/setLevel after the handshake, if any. */
  serverLogLevel(): LoggingLevel | undefined;
  inputs(): readonly InputDefinition[];
  inputResolver?: InputResolver;
  handlers: ClientRequestHandlers;
  processEnv: NodeJS.ProcessEnv;
  restartPolicy?: RestartPolicyOptions;
  shutdown?: { closeStdinGraceMs?: number; sigtermGraceMs?: number };
  /** How many protocol messages of each server the traffic view keeps (0 or absent: none are recorded). */
  trafficCapacity?(): number;
  /** Longest accepted message; read at each start. */
  maxMessageBytes?: number;
  /** How a person raises it (e.g. "raise the setting …"), shown when a message is refused. */
  maxMessageBytesHint?: string;
  /**
   * Authorization for one remote server (OAuth with its tokens in SecretStorage or a file).
   * Without it, a server that asks for authorization fails with an error saying so.
   */
  authorization?(server: { name: string; url: string; staticClient?: StaticClientConfig; /** The server's redacting log. */ log?: Logger }): ServerAuthorization;
  /** A start-time check that can veto a launch (e.g. an untrusted workspace). */
  canStart?(): string | undefined;
  schedule?: (fn: () => void, ms: number) => Disposable;
}
