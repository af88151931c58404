import type * as vscode from 'vscode';
import { McpError, ErrorCode } from '../../../protocol/errors';
import type { IncomingRequestContext } from '../../../protocol/connection';
import type { Logger } from '../../../util/logger';
import { usageServices } from '../../services';
import { QuestionDeclinedError } from '../../../host/questionQueue';
import type { SamplingRequest } from './samplingModel';
import { errorMessage } from '../../../util/errorMessage';

/** The server a request comes from. */
export interface ServerRef {
  readonly id: string;
  readonly name: string;
}

/** The consent dialog's choice that denies this and every further request of the server until it restarts. */
export const DENY_ALL_LABEL = 'Deny All from This Server for Now';

/** MCP: "User rejected sampling request". */
export const USER_REJECTED = -1;

const CONSENT_KEY = 'mcpHost.sampling.consent';

type ConsentRecord = Record<string, { name: string; decision: 'always'; at: string }>;

/** The servers a person allowed to sample without asking again, kept in globalState. */
export class SamplingConsent {
  constructor(private readonly state: vscode.Memento) {}

  isAlwaysAllowed(server: ServerRef): boolean {
    return this.records()[server.id]?.decision === 'always';
  }

  async allowAlways(server: ServerRef): Promise<void> {
    await this.state.update(CONSENT_KEY, { ...this.records(), [server.id]: { name: server.name, decision: 'always', at: new Date().toISOString() } });
  }

  /** Forgets every remembered decision; returns the names of the servers it forgot. */
  async reset(): Promise<string[]> {
    const names = Object.values(this.records()).map((r) => r.name);
    await this.state.update(CONSENT_KEY, undefined);
    return names;
  }

  private records(): ConsentRecord {
    return this.state.get<ConsentRecord>(CONSENT_KEY) ?? {};
  }
}

/** Reads sampling/createMessage params; a malformed request is -32602. */
export function parseSamplingParams(params: Record<string, unknown>, serverName: string): SamplingRequest {
  const invalid = (why: string) => new McpError(ErrorCode.InvalidParams, `Invalid sampling/createMessage: ${why}`);
  if (!Array.isArray(params.messages)) throw invalid('"messages" must be an array');
  const messages = params.messages.map((m: unknown, i) => {
    if (!m || typeof m !== 'object') throw invalid(`messages[${i}] is not an object`);
    const { role, content } = m as { role?: unknown; content?: unknown };
    if (role !== 'user' && role !== 'assistant') throw invalid(`messages[${i}].role must be "user" or "assistant"`);
    const blocks = Array.isArray(content) ? content : [content];
    return { role, text: blocks.map((b) => blockText(b)).join('\n') } as const;
  });
  if (typeof params.maxTokens !== 'number' || !(params.maxTokens > 0)) throw invalid('"maxTokens" must be a positive number');
  const prefs = params.modelPreferences as { hints?: Array<{ name?: unknown }> } | undefined;
  const hints = Array.isArray(prefs?.hints) ? prefs.hints.map((h) => (typeof h?.name === 'string' ? h.name : '')).filter(Boolean) : [];
  return {
    messages,
    systemPrompt: typeof params.systemPrompt === 'string' && params.systemPrompt ? params.systemPrompt : undefined,
    maxTokens: params.maxTokens,
    temperature: typeof params.temperature === 'number' ? params.temperature : undefined,
    stopSequences: Array.isArray(params.stopSequences) ? params.stopSequences.filter((s): s is string => typeof s === 'string') : undefined,
    hints,
    serverName,
  };
}

function blockText(block: unknown): string {
  if (!block || typeof block !== 'object') return '';
  const b = block as { type?: unknown; text?: unknown; mimeType?: unknown; data?: unknown };
  if (b.type === 'text' && typeof b.text === 'string') return b.text;
  if (b.type === 'image' || b.type === 'audio') {
    const bytes = typeof b.data === 'string' ? Buffer.byteLength(b.data, 'base64') : 0;
    return `[${String(b.type)} ${typeof b.mimeType === 'string' ? b.mimeType : ''}, ${bytes} bytes: not passed to the model, MCP Host sends text only]`;
  }
  return `[${String(b.type)}: ${JSON.stringify(block)}]`;
}

/** What the consent dialog shows of a request: the model, the limits, the prompt. */
export function describeRequest(request: SamplingRequest, modelLabel: string): string {
  const lines = [`Model: ${modelLabel}, at most ${request.maxTokens} tokens${request.temperature !== undefined ? `, temperature ${request.temperature}` : ''}.`];
  if (request.systemPrompt) lines.push(`System prompt: ${clip(request.systemPrompt, 300)}`);
  const shown = request.messages.slice(-4);
  if (shown.length < request.messages.length) lines.push(`(${request.messages.length - shown.length} earlier messages)`);
  for (const m of shown) lines.push(`${m.role === 'user' ? 'User' : 'Assistant'}: ${clip(m.text, 400)}`);
  return lines.join('\n\n');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * sampling/createMessage for one server: a model must exist (else a clear error to the server),
 * the person must agree (once, or always for this server), then the model answers.
 */
export function createSamplingHandler(server: ServerRef, consent: SamplingConsent, log: () => Logger) {
  return async (params: Record<string, unknown>, ctx: IncomingRequestContext): Promise<Record<string, unknown>> => {
    const request = parseSamplingParams(params, server.name);
    const model = await usageServices.samplingModel.choose(request.hints);
    if (!model) {
      log().warn('sampling/createMessage: no language model available in VS Code; answered with an error');
      throw new McpError(
        ErrorCode.InternalError,
        'No language model available: MCP Host answers sampling requests with VS Code\'s language models (vscode.lm), and none is installed or signed in. Install a chat model provider (for example GitHub Copilot Chat), then try again.',
      );
    }
    if (!consent.isAlwaysAllowed(server)) {
      let answer: string | undefined;
      try {
        answer = await usageServices.questions.ask(
          server.id,
          () =>
            usageServices.prompter.message(
              'warning',
              `The MCP server "${server.name}" wants to use a language model (sampling).`,
              { key: 'sampling.consent', modal: true, detail: describeRequest(request, model.label), signal: ctx.signal },
              'Allow Once',
              'Always Allow',
              'Deny',
              DENY_ALL_LABEL,
            ),
          ctx.signal,
        );
      } catch (err) {
        if (!(err instanceof QuestionDeclinedError)) throw err;
        log().info('Sampling: denied without asking (the user denies this server until it restarts)');
        throw new McpError(USER_REJECTED, 'User rejected sampling request');
      }
      if (answer === DENY_ALL_LABEL) {
        usageServices.questions.declineAll(server.id);
        log().info('Sampling: the user denied this and every further question from this server until it restarts');
        throw new McpError(USER_REJECTED, 'User rejected sampling request');
      }
      if (answer === 'Always Allow') {
        await consent.allowAlways(server);
        log().info(`Sampling: always allowed for "${server.name}" (MCP Host: Reset Sampling Consent forgets it)`);
      } else if (answer !== 'Allow Once') {
        log().info('Sampling: the request was denied');
        throw new McpError(USER_REJECTED, 'User rejected sampling request');
      }
    }
    log().info(`Sampling: asking ${model.label} (${request.messages.length} messages, max ${request.maxTokens} tokens)`);
    let answer;
    try {
      answer = await model.send(request, ctx.signal);
    } catch (err) {
      const message = errorMessage(err);
      log().error(`Sampling failed: ${message}`);
      throw new McpError(ErrorCode.InternalError, `Sampling failed: ${message}`);
    }
    log().info(`Sampling: ${model.label} answered ${answer.text.length} characters (${answer.stopReason ?? 'endTurn'})`);
    return {
      role: 'assistant',
      content: { type: 'text', text: answer.text },
      model: answer.model ?? model.id,
      stopReason: answer.stopReason ?? 'endTurn',
    };
  };
}
