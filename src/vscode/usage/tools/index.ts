// Running tools by hand: "Run Tool…" (palette and tree), arguments from the input schema (quick
// inputs for flat schemas, the schema form otherwise), validation before sending, confirmation of
// destructive tools, progress with Cancel (notifications/cancelled), timeouts, and the result view.
import * as vscode from 'vscode';
import type { ServerConnection } from '../../../host/serverConnection';
import { RequestCancelledError, RequestTimeoutError } from '../../../protocol/errors';
import type { CallToolResult, Tool } from '../../../protocol/schemas';
import type { HostController } from '../../hostController';
import type { ServerTreeProvider, TreeNode } from '../../serverTree';
import { openSchemaForms, showSchemaForm, type SchemaFormHandle } from '../../webview/schemaForm';
import { compileSchema, formatIssues, type ValidationIssue } from '../../webview/validation';
import { askArgumentsQuickly } from './quickArguments';
import { resourceView, toolResultModel, type RunRecord } from './resultModel';
import { ResultViews, type ResultViewHandle } from './resultView';
import { flatFields } from './schemaShape';
import { argumentsInput, isDestructive, isTrusted, toolMaxTotalMs, toolTimeoutMs, trust } from './settings';

/** What `mcpHost.runTool` accepts besides a tree node: skips the pickers; with `arguments`, the form too. */
export interface RunToolRequest {
  server: string;
  tool: string;
  arguments?: Record<string, unknown>;
  /** Always open the form (even for flat schemas), with these values. */
  form?: boolean;
}

/** Arguments that do not fit the tool's input schema; nothing was sent. */
export class ToolArgumentsError extends Error {
  constructor(
    readonly issues: ValidationIssue[],
    tool: string,
  ) {
    super(`The arguments do not fit the input schema of "${tool}"; nothing was sent:\n${formatIssues(issues)}`);
    this.name = 'ToolArgumentsError';
  }
}

/** Test hook: what tests need to check and drive the real UI (see test/integration/tools.test.ts). */
export interface ToolsTestHook {
  resultViews(): ResultViewHandle[];
  latestResultView(): ResultViewHandle | undefined;
  forms(): SchemaFormHandle[];
  /** Presses Cancel on every running call (as the progress notification's Cancel button does). */
  cancelRunning(): number;
  runningCalls(): number;
}

const LAST_ARGS_KEY = 'mcpHost.tools.lastArguments';
const MAX_REMEMBERED = 200;

interface ToolItem extends vscode.QuickPickItem {
  server?: ServerConnection;
  tool?: Tool;
}

const HISTORY_BUTTON: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('history'), tooltip: 'Run Again with the Last Arguments' };

export function registerToolFeatures(context: vscode.ExtensionContext, controller: HostController, tree: ServerTreeProvider): vscode.Disposable[] {
  void tree;
  const running = new Set<AbortController>();
  let runCounter = 0;

  const lastArgs = (server: string, tool: string): Record<string, unknown> | undefined => {
    const all = context.globalState.get<Record<string, Record<string, unknown>>>(LAST_ARGS_KEY, {});
    return all[`${server}\u0000${tool}`];
  };
  const rememberArgs = async (server: string, tool: string, args: Record<string, unknown>) => {
    const all = { ...context.globalState.get<Record<string, Record<string, unknown>>>(LAST_ARGS_KEY, {}) };
    const key = `${server}\u0000${tool}`;
    delete all[key];
    all[key] = args;
    const keys = Object.keys(all);
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_REMEMBERED))) delete all[k];
    await context.globalState.update(LAST_ARGS_KEY, all);
  };

  const views = new ResultViews({
    openLink: (serverName, uri) => openLink(serverName, uri),
    runAgain: async (serverName, toolName, args) => {
      await vscode.commands.executeCommand('mcpHost.runTool', { server: serverName, tool: toolName, arguments: args, form: true } satisfies RunToolRequest);
    },
  });

  const findServer = (name: string) => controller.registry.findByName(name) ?? controller.registry.get(name);

  async function openLink(serverName: string, uri: string): Promise<void> {
    if (/^(https?|mailto):/i.test(uri)) {
      await vscode.env.openExternal(vscode.Uri.parse(uri));
      return;
    }
    const server = findServer(serverName);
    const client = server?.client;
    if (!server || !client) {
      void vscode.window.showErrorMessage(`MCP Host: cannot read ${uri}: server "${serverName}" is not running.`);
      return;
    }
    const started = Date.now();
    try {
      const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Reading ${uri}` }, () => client.readResource(uri));
      const model = {
        runId: ++runCounter,
        tool: 'resources/read',
        server: server.name,
        argumentsJson: JSON.stringify({ uri }),
        startedAt: new Date(started).toISOString(),
        durationMs: Date.now() - started,
        status: 'ok' as const,
        blocks: result.contents.map(resourceView),
        resourceUri: uri,
        rawJsonBytes: Buffer.byteLength(JSON.stringify(result)),
      };
      views.show(`resource\u0000${server.id}\u0000${uri}`, `${uri.split('/').pop() || uri} — ${server.name}`, { model, result });
    } catch (err) {
      void vscode.window.showErrorMessage(`MCP Host: reading ${uri} from "${server.name}" failed: ${server.redact(err instanceof Error ? err.message : String(err))}`);
    }
  }

  async function pickTool(): Promise<{ server: ServerConnection; tool: Tool; args?: Record<string, unknown> } | undefined> {
    const servers = controller.registry.servers.filter((s) => s.state.kind === 'running').sort((a, b) => a.name.localeCompare(b.name));
    const items: ToolItem[] = [];
    for (const server of servers) {
      const tools = server.lists.tools;
      if (tools.length === 0) continue;
      items.push({ label: server.name, kind: vscode.QuickPickItemKind.Separator });
      for (const tool of tools) {
        const title = tool.title ?? tool.annotations?.title;
        const destructive = isDestructive(tool);
        items.push({
          label: `${destructive ? '$(warning) ' : ''}${title ?? tool.name}`,
          description: `${title && title !== tool.name ? `${tool.name} · ` : ''}${server.name}`,
          detail: tool.description?.trim().split('\n')[0],
          buttons: lastArgs(server.name, tool.name) ? [HISTORY_BUTTON] : [],
          server,
          tool,
        });
      }
    }
    if (items.length === 0) {
      const stopped = controller.registry.servers.length - servers.length;
      void vscode.window.showInformationMessage(
        controller.registry.servers.length === 0 ? 'MCP Host: no servers are configured.' : `MCP Host: no running server offers tools${stopped ? ` (${stopped} not running)` : ''}.`,
      );
      return undefined;
    }
    const pick = vscode.window.createQuickPick<ToolItem>();
    pick.title = 'Run Tool';
    pick.placeholder = 'Pick a tool to run (type to filter by name, server or description)';
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    pick.items = items;
    return new Promise((resolve) => {
      const disposables: vscode.Disposable[] = [];
      let done = false;
      const finish = (value: { server: ServerConnection; tool: Tool; args?: Record<string, unknown> } | undefined) => {
        if (done) return;
        done = true;
        resolve(value);
        for (const d of disposables) d.dispose();
        pick.dispose();
      };
      disposables.push(
        pick.onDidAccept(() => {
          const item = pick.selectedItems[0] ?? pick.activeItems[0];
          if (item?.server && item.tool) finish({ server: item.server, tool: item.tool });
        }),
        pick.onDidTriggerItemButton((e) => {
          const { server, tool } = e.item;
          if (server && tool) finish({ server, tool, args: lastArgs(server.name, tool.name) });
        }),
        pick.onDidHide(() => finish(undefined)),
      );
      pick.show();
    });
  }

  /** Asks for the arguments: quick inputs for flat schemas, the form otherwise. Undefined = cancelled. */
  async function askArguments(server: ServerConnection, tool: Tool, initial: Record<string, unknown> | undefined, forceForm: boolean): Promise<Record<string, unknown> | undefined> {
    const schema = tool.inputSchema;
    const title = `Run ${tool.title ?? tool.annotations?.title ?? tool.name} — ${server.name}`;
    const fields = flatFields(schema);
    const mode = argumentsInput();
    let start = initial ?? {};
    if (!forceForm && fields && mode !== 'form') {
      if (fields.length === 0) return {};
      const quick = await askArgumentsQuickly(title, schema, fields, start);
      if (!quick) return undefined;
      if (quick.kind === 'done') return quick.value;
      start = quick.value;
    } else if (!forceForm && mode === 'quickInput' && !fields) {
      void vscode.window.setStatusBarMessage(`$(info) ${tool.name} has nested arguments: using the form`, 4000);
    }
    const compiled = await compileSchema(schema);
    const answer = await showSchemaForm<Record<string, unknown>>({
      title,
      subtitle: `Tool ${tool.name} on server ${server.name}${compiled.kind === 'ok' ? ` · input schema: JSON Schema ${compiled.dialect}` : ''}`,
      description: tool.description,
      schema,
      initial: start,
      submitLabel: isDestructive(tool) ? 'Run…' : 'Run',
      warning: isDestructive(tool) ? 'The server marks this tool as destructive: it may change or delete data. You will be asked to confirm.' : undefined,
      unusableSchema: 'allow',
      validate: (value) => (value && typeof value === 'object' && !Array.isArray(value) ? [] : [{ path: '', message: 'must be a JSON object (tool arguments are an object)' }]),
    });
    return answer.action === 'accept' ? answer.value : undefined;
  }

  async function confirmDestructive(server: ServerConnection, tool: Tool, args: Record<string, unknown>): Promise<boolean> {
    if (!isDestructive(tool) || isTrusted(server.name, tool.name)) return true;
    // A quick pick rather than a modal dialog: keyboard-first, shows the arguments, and offers to
    // trust the tool or the server (the setting mcpHost.tools.trusted) in the same place.
    let argsText = JSON.stringify(args);
    if (argsText.length > 300) argsText = `${argsText.slice(0, 300)}…`;
    type Choice = vscode.QuickPickItem & { answer: 'run' | 'tool' | 'server' | 'cancel' };
    const items: Choice[] = [
      { label: '$(play) Run', description: 'once', detail: `Arguments: ${argsText}`, answer: 'run' },
      { label: `$(pass) Always Run "${tool.name}"`, description: 'adds it to mcpHost.tools.trusted', answer: 'tool' },
      { label: `$(workspace-trusted) Trust All Tools of "${server.name}"`, description: 'adds the server to mcpHost.tools.trusted', answer: 'server' },
      { label: '$(close) Cancel', answer: 'cancel' },
    ];
    const pick = vscode.window.createQuickPick<Choice>();
    pick.title = `Run "${tool.title ?? tool.annotations?.title ?? tool.name}" on "${server.name}"? The server marks this tool as destructive: it may change or delete data.`;
    pick.placeholder = 'Confirm to run the tool (Escape cancels)';
    pick.items = items;
    pick.ignoreFocusOut = true;
    const choice = await new Promise<Choice['answer']>((resolve) => {
      const disposables: vscode.Disposable[] = [];
      const finish = (answer: Choice['answer']) => {
        for (const d of disposables) d.dispose();
        pick.dispose();
        resolve(answer);
      };
      disposables.push(
        pick.onDidAccept(() => finish((pick.selectedItems[0] ?? pick.activeItems[0])?.answer ?? 'cancel')),
        pick.onDidHide(() => finish('cancel')),
      );
      pick.show();
    });
    if (choice === 'tool') await trust(`${server.name}/${tool.name}`);
    if (choice === 'server') await trust(server.name);
    return choice !== 'cancel';
  }

  async function call(server: ServerConnection, tool: Tool, args: Record<string, unknown>): Promise<CallToolResult | undefined> {
    const client = server.client;
    if (!client) throw new Error(`Server "${server.name}" is not running.`);
    const runId = ++runCounter;
    const controllerAbort = new AbortController();
    running.add(controllerAbort);
    const started = Date.now();
    const t0 = performance.now();
    const label = tool.title ?? tool.annotations?.title ?? tool.name;
    const log = server.logger;
    // Arguments may hold what a person typed (a key, a password): only at trace, and redacted before the cut.
    log.info(`Tool call ${tool.name} (by hand)`);
    log.trace(`Tool call ${tool.name} arguments: ${truncate(server.redact(JSON.stringify(args)), 500)}`);
    let outcome: { result: CallToolResult } | { error: string; cancelled?: boolean };
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `${label} — ${server.name}`, cancellable: true },
        async (progress, token) => {
          token.onCancellationRequested(() => controllerAbort.abort('cancelled by the user'));
          progress.report({ message: 'running…' });
          let reported = 0;
          return client.callTool(tool.name, args, {
            signal: controllerAbort.signal,
            timeoutMs: toolTimeoutMs(server.name),
            maxTotalTimeoutMs: toolMaxTotalMs(server.name),
            resetTimeoutOnProgress: true,
            onProgress: (update) => {
              let increment: number | undefined;
              if (update.total && update.total > 0) {
                const percent = Math.min(100, (update.progress / update.total) * 100);
                increment = Math.max(0, percent - reported);
                reported = percent;
              }
              const amount = update.total ? `${update.progress}/${update.total}` : `${update.progress}`;
              progress.report({ message: update.message ? `${update.message}` : amount, increment });
            },
          });
        },
      );
      outcome = { result };
      log.info(`Tool call ${tool.name}: ${result.isError ? 'tool error (isError)' : 'ok'} in ${Math.round(performance.now() - t0)} ms`);
    } catch (err) {
      const cancelled = err instanceof RequestCancelledError;
      const message = err instanceof Error ? err.message : String(err);
      const text = cancelled
        ? 'Cancelled: the server was sent notifications/cancelled.'
        : err instanceof RequestTimeoutError
          ? `${message}. Raise mcpHost.tools.timeoutSeconds (or mcpHost.tools.serverTimeoutSeconds for "${server.name}") for slow tools.`
          : message;
      outcome = { error: text, cancelled };
      log.warn(`Tool call ${tool.name}: ${cancelled ? 'cancelled' : `failed: ${message}`}`);
    } finally {
      running.delete(controllerAbort);
    }
    const record: RunRecord = { runId, server: server.name, tool, args, startedAt: started, durationMs: performance.now() - t0 };
    const model = await toolResultModel(record, outcome);
    views.show(`tool\u0000${server.id}\u0000${tool.name}`, `${label} — ${server.name}`, { model, result: 'result' in outcome ? outcome.result : undefined, args });
    if ('error' in outcome && !outcome.cancelled) void vscode.window.showErrorMessage(`MCP Host: "${tool.name}" on "${server.name}" failed: ${server.redact(outcome.error)}`);
    return 'result' in outcome ? outcome.result : undefined;
  }

  async function runTool(arg?: unknown): Promise<CallToolResult | undefined> {
    let server: ServerConnection | undefined;
    let tool: Tool | undefined;
    let args: Record<string, unknown> | undefined;
    let programmatic = false;
    let forceForm = false;
    if (arg && typeof arg === 'object' && (arg as TreeNode).kind === 'tool' && 'server' in arg) {
      const node = arg as Extract<TreeNode, { kind: 'tool' }>;
      server = node.server;
      tool = node.tool;
    } else if (arg && typeof arg === 'object' && typeof (arg as RunToolRequest).server === 'string' && typeof (arg as RunToolRequest).tool === 'string') {
      const request = arg as RunToolRequest;
      server = findServer(request.server);
      if (!server) throw new Error(`MCP Host: no server named "${request.server}".`);
      if (server.state.kind !== 'running') throw new Error(`MCP Host: server "${server.name}" is not running (${server.state.kind}).`);
      tool = server.lists.tools.find((t) => t.name === request.tool);
      if (!tool) throw new Error(`MCP Host: server "${server.name}" has no tool "${request.tool}".`);
      forceForm = request.form === true;
      if (request.arguments !== undefined && !forceForm) {
        args = request.arguments;
        programmatic = true;
      } else if (request.arguments !== undefined) {
        args = request.arguments;
      }
    } else {
      const picked = await pickTool();
      if (!picked) return undefined;
      ({ server, tool } = picked);
      if (picked.args) {
        args = picked.args;
        forceForm = true;
      }
    }
    if (server.state.kind !== 'running') {
      void vscode.window.showErrorMessage(`MCP Host: server "${server.name}" is not running.`);
      return undefined;
    }

    if (!programmatic) {
      const asked = await askArguments(server, tool, args ?? lastArgs(server.name, tool.name), forceForm);
      if (asked === undefined) return undefined;
      args = asked;
    }
    args ??= {};

    // Validate before anything is sent (the form already did; arguments given by a caller too).
    const compiled = await compileSchema(tool.inputSchema);
    if (compiled.kind === 'ok') {
      const issues = compiled.validate(args);
      if (issues.length > 0) {
        const error = new ToolArgumentsError(issues, tool.name);
        void vscode.window.showErrorMessage(`MCP Host: ${error.message}`);
        throw error;
      }
    } else {
      server.logger.warn(`Tool ${tool.name}: arguments not checked: ${compiled.message}`);
    }

    if (!(await confirmDestructive(server, tool, args))) return undefined;
    await rememberArgs(server.name, tool.name, args);
    return call(server, tool, args);
  }

  const hook: ToolsTestHook = {
    resultViews: () => views.all,
    latestResultView: () => views.latest,
    forms: () => openSchemaForms(),
    cancelRunning: () => {
      const n = running.size;
      for (const c of running) c.abort('cancelled by the user');
      return n;
    },
    runningCalls: () => running.size,
  };

  return [
    views,
    vscode.commands.registerCommand('mcpHost.runTool', (arg?: unknown) => runTool(arg)),
    vscode.commands.registerCommand('mcpHost.runToolWithForm', (arg?: unknown) => {
      if (arg && typeof arg === 'object' && (arg as TreeNode).kind === 'tool') {
        const node = arg as Extract<TreeNode, { kind: 'tool' }>;
        return runTool({ server: node.server.name, tool: node.tool.name, arguments: lastArgs(node.server.name, node.tool.name), form: true } satisfies RunToolRequest);
      }
      return runTool(arg);
    }),
    // Not contributed to the palette: the integration tests reach the UI through it.
    vscode.commands.registerCommand('mcpHost.tools.testHook', () => hook),
  ];
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
