import * as vscode from 'vscode';

/** A sampling/createMessage request, reduced to what a chat model takes. */
export interface SamplingRequest {
  messages: Array<{ role: 'user' | 'assistant'; text: string }>;
  systemPrompt?: string;
  maxTokens: number;
  temperature?: number;
  stopSequences?: string[];
  /** modelPreferences.hints[].name, in order of preference. */
  hints: string[];
  /** The server that asks (for the model's justification text). */
  serverName: string;
}

export interface SamplingAnswer {
  text: string;
  /** MCP stopReason: endTurn, stopSequence, maxTokens, or another string. */
  stopReason?: string;
  /** The model that answered, if different from the chosen one's id. */
  model?: string;
}

export interface ChosenModel {
  id: string;
  /** For people: "GPT-4.1 (copilot)". */
  label: string;
  send(request: SamplingRequest, signal: AbortSignal): Promise<SamplingAnswer>;
}

/**
 * Where sampling requests get their answers. Production: VS Code's language model API
 * (`vscode.lm`); the integration tests install a model of their own through `UsageTestHooks`.
 */
export interface SamplingModel {
  /** The model for these hints, or undefined when no model is available at all. */
  choose(hints: readonly string[]): Promise<ChosenModel | undefined>;
}

/** The chat models of VS Code (Copilot or any other provider the person has installed). */
export class LanguageModelSampling implements SamplingModel {
  async choose(hints: readonly string[]): Promise<ChosenModel | undefined> {
    // vscode.lm is absent from editors that do not implement it (some VS Code forks).
    const lm = (vscode as { lm?: typeof vscode.lm }).lm;
    if (!lm) return undefined;
    const models = await lm.selectChatModels();
    if (models.length === 0) return undefined;
    const model = preferredModel(models, hints);
    return {
      id: model.id,
      label: `${model.name} (${model.vendor})`,
      send: (request, signal) => sendToModel(model, request, signal),
    };
  }
}

/** Hints are substrings of model names, tried in order (MCP's modelPreferences); else the first model. */
export function preferredModel<M extends { id: string; name: string; family: string }>(models: readonly M[], hints: readonly string[]): M {
  for (const hint of hints) {
    const h = hint.toLowerCase();
    if (!h) continue;
    const match = models.find((m) => m.id.toLowerCase().includes(h) || m.family.toLowerCase().includes(h) || m.name.toLowerCase().includes(h));
    if (match) return match;
  }
  return models[0];
}

async function sendToModel(model: vscode.LanguageModelChat, request: SamplingRequest, signal: AbortSignal): Promise<SamplingAnswer> {
  const messages: vscode.LanguageModelChatMessage[] = [];
  // The stable API has no system role: the system prompt goes first, as a user message.
  if (request.systemPrompt) messages.push(vscode.LanguageModelChatMessage.User(`System instructions:\n${request.systemPrompt}`));
  for (const m of request.messages) {
    messages.push(m.role === 'user' ? vscode.LanguageModelChatMessage.User(m.text) : vscode.LanguageModelChatMessage.Assistant(m.text));
  }
  const cts = new vscode.CancellationTokenSource();
  const abort = () => cts.cancel();
  signal.addEventListener('abort', abort, { once: true });
  try {
    const response = await model.sendRequest(
      messages,
      { justification: `The MCP server "${request.serverName}" asked for a completion (sampling/createMessage), and you allowed it.` },
      cts.token,
    );
    let text = '';
    const stops = request.stopSequences?.filter((s) => s.length > 0) ?? [];
    for await (const chunk of response.text) {
      text += chunk;
      const cut = firstStop(text, stops);
      if (cut !== undefined) {
        cts.cancel();
        return { text: text.slice(0, cut), stopReason: 'stopSequence', model: model.id };
      }
    }
    return { text, stopReason: 'endTurn', model: model.id };
  } catch (err) {
    if (err instanceof vscode.LanguageModelError) {
      throw new Error(`the language model ${model.name} refused the request (${err.code || 'error'}): ${err.message}`);
    }
    throw err;
  } finally {
    signal.removeEventListener('abort', abort);
    cts.dispose();
  }
}

function firstStop(text: string, stops: readonly string[]): number | undefined {
  let best: number | undefined;
  for (const s of stops) {
    const i = text.indexOf(s);
    if (i >= 0 && (best === undefined || i < best)) best = i;
  }
  return best;
}
