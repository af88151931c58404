import * as vscode from 'vscode';
import { ServerRegistry, type ServerEntry } from '../host/registry';
import type { ConnectionEnvironment } from '../host/serverConnection';
import type { RestartPolicyOptions } from '../host/restartPolicy';
import type { ConfigProblem, InputDefinition } from '../host/config';
import type { InputResolver } from '../host/variables';
import type { ClientRequestHandlers } from '../protocol/client';
import { MCP_APPS_CLIENT_SETTINGS, MCP_APPS_EXTENSION_ID } from '../protocol/apps';
import type { LoggingLevel } from '../protocol/schemas';
import type { Logger } from '../util/logger';
import { VERSION } from '../version';
import { ConfigLoader, startSetting, startVeto } from './configLoader';
import { usageServices } from './services';
import { createServerAuthorization } from './signIn';

/** Defined by esbuild.mjs: true in a development build, false (and what it guards dropped) in production. */
declare const MCP_HOST_TEST_HOOKS: boolean;

/**
 * The integration tests' crash-looping server waits at most MCP_HOST_TEST_MAX_RESTART_DELAY_MS
 * between restarts (its five crashes take 4 s, not 15): a test run of a development build only.
 */
function testRestartPolicy(context: vscode.ExtensionContext): RestartPolicyOptions | undefined {
  if (!MCP_HOST_TEST_HOOKS || context.extensionMode !== vscode.ExtensionMode.Test) return undefined;
  const maxDelayMs = Number(process.env.MCP_HOST_TEST_MAX_RESTART_DELAY_MS);
  return maxDelayMs > 0 ? { maxDelayMs } : undefined;
}

/**
 * Owns the registry and everything per server that lives in the editor: log
 * channels, inputs in SecretStorage, workspace trust, and reloading on change.
 */
export class HostController implements vscode.Disposable {
  readonly registry: ServerRegistry;
  readonly loader: ConfigLoader;
  private readonly channels = new Map<string, vscode.LogOutputChannel>();
  /** The last lines written to each server's log, for error details and for tests. */
  private readonly recent = new Map<string, string[]>();
  private inputsBySource = new Map<string, InputDefinition[]>();
  private unappliedFiles = new Map<string, ConfigProblem>();
  private readonly disposables: vscode.Disposable[] = [];
  private reloading: Promise<void> = Promise.resolve();
  /** Server requests handlers (roots, sampling, elicitation), installed by the editor floor. */
  handlers: ClientRequestHandlers = {};
  /** When set, each server gets its own handlers (so a question to the user can name the server). */
  handlersFor?: (server: { readonly id: string; readonly name: string }) => ClientRequestHandlers;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly mainLog: vscode.LogOutputChannel,
    diagnostics: vscode.DiagnosticCollection,
  ) {
    this.loader = new ConfigLoader(diagnostics, mainLog, context.globalStorageUri.fsPath);
    this.registry = new ServerRegistry((entry) => this.environmentFor(entry));
    this.disposables.push(
      this.loader,
      this.loader.onDidChange(() => void this.reload()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.reload({ startStopped: true })),
      this.registry.onDidChangeServers(() => this.disposeUnusedChannels()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('mcpHost.traffic.maxMessages')) for (const server of this.registry.servers) server.updateTrafficCapacity();
      }),
    );
  }

  /** Reads the configuration and reconciles the running servers with it. Serialised. */
  reload(options: { startStopped?: boolean } = {}): Promise<void> {
    this.reloading = this.reloading.then(async () => {
      try {
        const loaded = await this.loader.load();
        this.inputsBySource = loaded.inputsBySource;
        this.unappliedFiles = loaded.unapplied;
        const autoStart = startSetting('autoStart', true);
        const result = await this.registry.reconcile(loaded.entries, { autoStart });
        if (result.added.length + result.removed.length + result.changed.length > 0) {
          this.mainLog.info(
            `Configuration applied: ${result.added.length} added, ${result.removed.length} removed, ${result.changed.length} changed, ${result.unchanged.length} unchanged`,
          );
        }
        if (options.startStopped && autoStart) {
          await Promise.allSettled(this.registry.servers.filter((s) => s.state.kind === 'stopped').map((s) => s.start()));
        }
      } catch (err) {
        this.mainLog.error(`Reloading the configuration failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      }
    });
    return this.reloading;
  }

  /**
   * The log channel of a server. Keyed by the server's name, which is what the channel shows:
   * a server that moves between sources (removed from one file, added to another) keeps its log.
   */
  channelFor(entry: { name: string }): vscode.LogOutputChannel {
    let channel = this.channels.get(entry.name);
    if (!channel) {
      channel = vscode.window.createOutputChannel(`MCP: ${entry.name}`, { log: true });
      this.channels.set(entry.name, channel);
    }
    return channel;
  }

  private environmentFor(entry: ServerEntry): ConnectionEnvironment {
    const channel = this.channelFor(entry);
    const config = () => vscode.workspace.getConfiguration('mcpHost');
    const logger = this.teeLogger(entry.id, channel);
    return {
      clientInfo: { name: 'mcp-host-vscode', title: 'MCP Host for VS Code', version: VERSION },
      // The editor renders MCP Apps' views (src/vscode/apps/); the CLI does not advertise them.
      clientExtensions: { [MCP_APPS_EXTENSION_ID]: MCP_APPS_CLIENT_SETTINGS },
      logger,
      authorization: (server) => createServerAuthorization(this.context.secrets, server, server.log ?? logger),
      traceEnabled: () => channel.logLevel === vscode.LogLevel.Trace,
      requestTimeoutMs: () => Math.max(1, config().get<number>('requestTimeoutSeconds', 60)) * 1000,
      serverLogLevel: () => config().get<LoggingLevel>('serverLogLevel', 'info'),
      inputs: () => this.inputsBySource.get(entry.source.file) ?? [],
      inputResolver: this.inputResolverFor(entry.source.file),
      handlers: this.handlersFor?.(entry) ?? this.handlers,
      processEnv: process.env,
      // A getter: each start reads the setting as it is then.
      get maxMessageBytes() {
        return Math.round(Math.max(1, config().get<number>('maxMessageSizeMB', 64)) * 1024 * 1024);
      },
      maxMessageBytesHint: 'raise the setting mcpHost.maxMessageSizeMB (then restart the server)',
      trafficCapacity: trafficCapacitySetting,
      canStart: () => startVeto(entry.source),
      restartPolicy: testRestartPolicy(this.context),
    };
  }

  /** Lines recently written to a server's log (already redacted), oldest first. */
  recentLog(id: string): readonly string[] {
    return this.recent.get(id) ?? [];
  }

  private teeLogger(id: string, channel: vscode.LogOutputChannel): Logger {
    const lines = this.recent.get(id) ?? [];
    this.recent.set(id, lines);
    const keep = (level: string, message: string) => {
      lines.push(`[${level}] ${message}`);
      if (lines.length > 500) lines.splice(0, lines.length - 500);
    };
    // Writing a log line must never break what is being logged (e.g. a channel closed meanwhile).
    const write = (fn: () => void) => {
      try {
        fn();
      } catch {
        // The line is still kept in `recent`.
      }
    };
    return {
      trace: (m) => {
        write(() => channel.trace(m));
        if (channel.logLevel === vscode.LogLevel.Trace) keep('trace', m);
      },
      debug: (m) => {
        write(() => channel.debug(m));
        keep('debug', m);
      },
      info: (m) => {
        write(() => channel.info(m));
        keep('info', m);
      },
      warn: (m) => {
        write(() => channel.warn(m));
        keep('warning', m);
      },
      error: (m) => {
        write(() => channel.error(m));
        keep('error', m);
      },
    };
  }

  /** `${input:ID}` values: asked once, kept in SecretStorage, never logged. */
  private inputResolverFor(sourceFile: string): InputResolver {
    return {
      resolve: async (input, serverName) => {
        const key = inputSecretKey(sourceFile, input.id);
        const stored = await this.context.secrets.get(key);
        if (stored !== undefined) return stored;
        const prompter = usageServices.prompter;
        let value: string | undefined;
        if (input.type === 'pickString' && input.options?.length) {
          const picked = await prompter.pick(
            input.options.map((label) => ({ label })),
            { key: `input:${input.id}`, title: `MCP server "${serverName}"`, placeHolder: input.description ?? input.id, ignoreFocusOut: true },
          );
          value = picked?.label;
        } else {
          value = await prompter.input({
            key: `input:${input.id}`,
            title: `MCP server "${serverName}"`,
            prompt: input.description ?? `Value for \${input:${input.id}}`,
            password: input.password ?? false,
            value: input.default,
            ignoreFocusOut: true,
          });
        }
        if (value !== undefined) await this.context.secrets.store(key, value);
        return value;
      },
    };
  }

  /** Forgets stored input values (all, or those of one source file). */
  async forgetInputs(sourceFile?: string): Promise<number> {
    let count = 0;
    for (const [file, inputs] of this.inputsBySource) {
      if (sourceFile && file !== sourceFile) continue;
      for (const input of inputs) {
        const key = inputSecretKey(file, input.id);
        if ((await this.context.secrets.get(key)) !== undefined) {
          await this.context.secrets.delete(key);
          count++;
        }
      }
    }
    return count;
  }

  /** Why a configuration file is not applied as it is now (its servers are as at its last valid save), if it is not. */
  unappliedProblem(file: string): ConfigProblem | undefined {
    return this.unappliedFiles.get(file);
  }

  get declaredInputs(): Array<{ file: string; input: InputDefinition }> {
    return [...this.inputsBySource].flatMap(([file, inputs]) => inputs.map((input) => ({ file, input })));
  }

  inputKey(file: string, id: string): string {
    return inputSecretKey(file, id);
  }

  private disposeUnusedChannels(): void {
    const names = new Set(this.registry.servers.map((s) => s.name));
    for (const [name, channel] of this.channels) {
      if (!names.has(name)) {
        channel.dispose();
        this.channels.delete(name);
      }
    }
    const ids = new Set(this.registry.servers.map((s) => s.id));
    for (const id of this.recent.keys()) {
      if (!ids.has(id)) {
        this.recent.delete(id);
      }
    }
  }

  /** Stops every server (whole process trees); used on deactivate. */
  async shutdown(): Promise<void> {
    await this.registry.shutdown();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.registry.dispose();
    for (const c of this.channels.values()) c.dispose();
    this.channels.clear();
  }
}

/** How many messages of each server the traffic view keeps (mcpHost.traffic.maxMessages; 0: none). */
export function trafficCapacitySetting(): number {
  return Math.max(0, vscode.workspace.getConfiguration('mcpHost').get<number>('traffic.maxMessages', 1000));
}

function inputSecretKey(file: string, id: string): string {
  return `mcpHost.input:${file}:${id}`;
}
