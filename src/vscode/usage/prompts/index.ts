import * as vscode from 'vscode';
import type { ServerConnection } from '../../../host/serverConnection';
import type { Prompt } from '../../../protocol/schemas';
import { errorMessage } from '../../../util/errorMessage';
import type { HostController } from '../../hostController';
import type { TreeNode } from '../../serverTree';
import type { PickItem } from '../../prompter';
import { usageServices } from '../../services';
import { freshListsOf } from '../../freshLists';
import { completionSuggester } from '../resources/completion';
import { serverByName } from '../resources';
import { renderPromptResult } from './render';
import { Commands } from '../../commandIds';

/** Read-only documents of prompt results: `mcp-host-prompt://<server>/<n>/<prompt>.md`. */
export const PROMPT_SCHEME = 'mcp-host-prompt';
const KEEP = 50;

class PromptDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private counter = 0;

  add(serverName: string, promptName: string, markdown: string): vscode.Uri {
    const safeName = promptName.replace(/[/\\\u0000-\u001f]/g, '_') || 'prompt';
    const uri = vscode.Uri.from({ scheme: PROMPT_SCHEME, authority: encodeURIComponent(serverName), path: `/${++this.counter}/${safeName}.md` });
    this.texts.set(uri.toString(), markdown);
    while (this.texts.size > KEEP) {
      const oldest = this.texts.keys().next().value as string;
      this.texts.delete(oldest);
    }
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '# This prompt result is no longer kept\n\nRun **MCP Host: Get Prompt…** again.\n';
  }
}

type PromptPick = PickItem & { server?: ServerConnection; prompt?: Prompt };

async function pickPrompt(controller: HostController): Promise<PromptPick | undefined> {
  const items: PromptPick[] = [];
  await freshListsOf(controller.registry.servers.filter((s) => s.state.kind === 'running'), ['prompts']);
  const servers = controller.registry.servers.filter((s) => s.state.kind === 'running' && s.lists.prompts.length > 0).sort((a, b) => a.name.localeCompare(b.name));
  for (const server of servers) {
    items.push({ label: server.name, kind: vscode.QuickPickItemKind.Separator });
    for (const prompt of server.lists.prompts) {
      const args = prompt.arguments ?? [];
      items.push({
        label: `$(comment-discussion) ${prompt.title ?? prompt.name}`,
        description: args.length ? args.map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ') : 'no arguments',
        detail: prompt.description,
        server,
        prompt,
      });
    }
  }
  if (items.length === 0) {
    void usageServices.prompter.message('info', vscode.l10n.t('MCP Host: no running server offers prompts.'), { key: 'prompt.none' });
    return undefined;
  }
  return usageServices.prompter.pick(items, { key: 'prompt.pick', title: vscode.l10n.t('Get Prompt'), placeHolder: vscode.l10n.t('A prompt of any running server'), matchOnDescription: true, matchOnDetail: true });
}

/**
 * Asks for a prompt's arguments (with completion/complete suggestions where the server offers
 * them; earlier answers go along as context), gets it, and opens the messages as Markdown.
 */
async function getPrompt(docs: PromptDocuments, server: ServerConnection, prompt: Prompt, preset: Record<string, string> = {}): Promise<vscode.Uri | undefined> {
  if (server.state.kind !== 'running') {
    void usageServices.prompter.message('error', vscode.l10n.t('MCP Host: the server "{0}" is not running.', server.name), { key: 'prompt.error' });
    return undefined;
  }
  const args: Record<string, string> = {};
  const declared = prompt.arguments ?? [];
  for (let i = 0; i < declared.length; i++) {
    const a = declared[i];
    if (preset[a.name] !== undefined) {
      args[a.name] = preset[a.name];
      continue;
    }
    const answer = await usageServices.prompter.inputWithSuggestions({
      key: `prompt.arg:${a.name}`,
      title: `${server.name} · ${prompt.title ?? prompt.name} (${i + 1}/${declared.length})`,
      prompt: `${a.title ?? a.name}${a.description ? `: ${a.description}` : ''}${a.required ? '' : ' (optional: leave empty to skip)'}`,
      placeHolder: a.description ?? a.name,
      validate: (v) => (a.required && v === '' ? `${a.title ?? a.name} is required.` : undefined),
      suggest: completionSuggester(server, { type: 'ref/prompt', name: prompt.name }, a.name, () => ({ ...args })),
    });
    if (answer === undefined) return undefined;
    if (answer !== '') args[a.name] = answer;
  }
  for (const [k, v] of Object.entries(preset)) if (!(k in args)) args[k] = v;
  let result;
  try {
    result = await server.getPrompt(prompt.name, args);
  } catch (err) {
    void usageServices.prompter.message('error', vscode.l10n.t('MCP Host: "{0}" could not get the prompt {1}: {2}', server.name, prompt.name, errorMessage(err)), {
      key: 'prompt.error',
    });
    return undefined;
  }
  const uri = docs.add(server.name, prompt.name, renderPromptResult(server.name, prompt, args, result));
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: false });
  return uri;
}

interface PromptArgument {
  /** A server name. */
  server: string;
  prompt: string;
  /** Arguments given in advance (the rest are asked). */
  arguments?: Record<string, string>;
}

export function registerPrompts(controller: HostController): vscode.Disposable[] {
  const docs = new PromptDocuments();
  return [
    vscode.workspace.registerTextDocumentContentProvider(PROMPT_SCHEME, docs),
    vscode.commands.registerCommand(Commands.getPrompt, async (arg?: unknown): Promise<vscode.Uri | undefined> => {
      const node = arg as TreeNode | PromptArgument | undefined;
      if (node && typeof node === 'object' && 'kind' in node && node.kind === 'prompt') return getPrompt(docs, node.server, node.prompt);
      if (node && typeof node === 'object' && 'prompt' in node && typeof node.server === 'string' && typeof node.prompt === 'string') {
        const server = serverByName(controller, node.server);
        const prompt = server?.lists.prompts.find((p) => p.name === node.prompt);
        if (!server || !prompt) {
          void usageServices.prompter.message('error', vscode.l10n.t('MCP Host: no prompt "{0}" on a server named "{1}".', node.prompt, node.server), { key: 'prompt.error' });
          return undefined;
        }
        return getPrompt(docs, server, prompt, node.arguments);
      }
      const picked = await pickPrompt(controller);
      return picked?.server && picked.prompt ? getPrompt(docs, picked.server, picked.prompt) : undefined;
    }),
  ];
}
