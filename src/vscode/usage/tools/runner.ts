import * as vscode from 'vscode';
import { ServerNotRunningError, type ServerConnection } from '../../../host/serverConnection';
import { RequestCancelledError, RequestTimeoutError } from '../../../protocol/errors';
import type { ProgressUpdate } from '../../../protocol/connection';
import type { CallToolResult, Tool } from '../../../protocol/schemas';
import { errorMessage } from '../../../util/errorMessage';
import type { RunRecord } from './resultModel';
import { toolMaxTotalMs, toolTimeoutMs } from './settings';

/** How a call ended: the server's result, or why there is none. */
export type CallOutcome = { result: CallToolResult } | { error: string; cancelled?: boolean };

/** One finished call: what was asked, and how it ended. */
export interface FinishedCall {
  record: RunRecord;
  outcome: CallOutcome;
}

/** The title a person knows a tool by. */
export function toolLabel(tool: Tool): string {
  return tool.title ?? tool.annotations?.title ?? tool.name;
}

/**
 * Runs tool calls with a progress notification that has a Cancel button (which sends
 * notifications/cancelled), the timeouts of the settings, and a log line for each call. Run ids
 * number the result views' runs, tool calls and resource reads alike.
 */
export class ToolCalls {
  private readonly running = new Set<AbortController>();
  private runCounter = 0;

  nextRunId(): number {
    return ++this.runCounter;
  }

  get runningCount(): number {
    return this.running.size;
  }

  /** Presses Cancel on every running call; returns how many there were. */
  cancelAll(): number {
    const n = this.running.size;
    for (const c of this.running) c.abort('cancelled by the user');
    return n;
  }

  async call(server: ServerConnection, tool: Tool, args: Record<string, unknown>): Promise<FinishedCall> {
    // Thrown to the command's caller, as before any call: there is no run to show.
    if (server.state.kind !== 'running') throw new ServerNotRunningError(server.name, server.state.kind);
    const runId = this.nextRunId();
    const abort = new AbortController();
    this.running.add(abort);
    const started = Date.now();
    const t0 = performance.now();
    const log = server.logger;
    // Arguments may hold what a person typed (a key, a password): only at trace, and redacted before the cut.
    log.info(`Tool call ${tool.name} (by hand)`);
    log.trace(`Tool call ${tool.name} arguments: ${truncate(server.redact(JSON.stringify(args)), 500)}`);
    let outcome: CallOutcome;
    try {
      const result = await this.callWithProgress(server, tool, args, abort);
      outcome = { result };
      log.info(`Tool call ${tool.name}: ${result.isError ? 'tool error (isError)' : 'ok'} in ${Math.round(performance.now() - t0)} ms`);
    } catch (err) {
      outcome = failedOutcome(server, err);
      log.warn(`Tool call ${tool.name}: ${'cancelled' in outcome && outcome.cancelled ? 'cancelled' : `failed: ${errorMessage(err)}`}`);
    } finally {
      this.running.delete(abort);
    }
    return { record: { runId, server: server.name, tool, args, startedAt: started, durationMs: performance.now() - t0 }, outcome };
  }

  private callWithProgress(server: ServerConnection, tool: Tool, args: Record<string, unknown>, abort: AbortController): Thenable<CallToolResult> {
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `${toolLabel(tool)} — ${server.name}`, cancellable: true },
      (progress, token) => {
        token.onCancellationRequested(() => abort.abort('cancelled by the user'));
        progress.report({ message: vscode.l10n.t('running…') });
        return server.callTool(tool.name, args, {
          signal: abort.signal,
          timeoutMs: toolTimeoutMs(server.name),
          maxTotalTimeoutMs: toolMaxTotalMs(server.name),
          resetTimeoutOnProgress: true,
          onProgress: progressReporter(progress),
        });
      },
    );
  }
}

/** Turns notifications/progress into the notification's bar (increments of a percentage) and message. */
function progressReporter(progress: vscode.Progress<{ message?: string; increment?: number }>): (update: ProgressUpdate) => void {
  let reported = 0;
  return (update) => {
    let increment: number | undefined;
    if (update.total && update.total > 0) {
      const percent = Math.min(100, (update.progress / update.total) * 100);
      increment = Math.max(0, percent - reported);
      reported = percent;
    }
    const amount = update.total ? `${update.progress}/${update.total}` : `${update.progress}`;
    progress.report({ message: update.message ? `${update.message}` : amount, increment });
  };
}

/** Why a call has no result, in words that say what to do about it. */
function failedOutcome(server: ServerConnection, err: unknown): CallOutcome {
  if (err instanceof RequestCancelledError) return { error: vscode.l10n.t('Cancelled: the server was sent notifications/cancelled.'), cancelled: true };
  const message = errorMessage(err);
  if (err instanceof RequestTimeoutError) {
    return { error: vscode.l10n.t('{0}. Raise mcpHost.tools.timeoutSeconds (or mcpHost.tools.serverTimeoutSeconds for "{1}") for slow tools.', message, server.name), cancelled: false };
  }
  return { error: message, cancelled: false };
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
