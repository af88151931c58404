import * as vscode from 'vscode';
import * as path from 'node:path';
import type { McpHostApi } from '../../src/extension';
import type { ServerConnection } from '../../src/host/serverConnection';

export const EXTENSION_ID = 'mcp-host.mcp-host';
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');

export async function activateExtension(): Promise<McpHostApi> {
  const ext = vscode.extensions.getExtension<McpHostApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not installed in this VS Code`);
  const api = ext.isActive ? ext.exports : await ext.activate();
  await api.ready;
  return api;
}

export async function waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function server(api: McpHostApi, name: string): ServerConnection {
  const s = api.controller.registry.findByName(name);
  if (!s) throw new Error(`no server "${name}"; have ${api.controller.registry.servers.map((x) => x.name).join(', ')}`);
  return s;
}

export async function waitForState(api: McpHostApi, name: string, kind: string, timeoutMs = 20_000): Promise<ServerConnection> {
  return waitFor(() => {
    const s = api.controller.registry.findByName(name);
    return s && s.state.kind === kind ? s : undefined;
  }, `server "${name}" to be ${kind} (is ${api.controller.registry.findByName(name)?.state.kind ?? 'absent'})`, timeoutMs);
}

export { isAlive } from '../helpers/process';

type Answer = (kind: string, arg: unknown, options: unknown) => unknown;

/**
 * A UserPrompter that answers from a script, in order, and fails loudly when the
 * extension asks something the test did not expect.
 */
export class ScriptedPrompter {
  readonly asked: Array<{ kind: string; title?: string; prompt?: string }> = [];
  private readonly answers: Answer[] = [];

  answer(...answers: Answer[]): this {
    this.answers.push(...answers);
    return this;
  }

  get remaining(): number {
    return this.answers.length;
  }

  private next(kind: string, arg: unknown, options: any): any {
    this.asked.push({ kind, title: options?.title, prompt: options?.prompt ?? options?.placeHolder });
    const answer = this.answers.shift();
    if (!answer) throw new Error(`unexpected ${kind}: ${JSON.stringify(options?.title ?? options?.prompt ?? options?.placeHolder ?? arg)}`);
    return answer(kind, arg, options);
  }

  showInputBox(options: vscode.InputBoxOptions): Thenable<string | undefined> {
    return Promise.resolve(this.next('input', undefined, options));
  }

  showQuickPick<T extends vscode.QuickPickItem>(items: readonly T[], options: vscode.QuickPickOptions): Thenable<T | undefined> {
    return Promise.resolve(this.next('pick', items, options));
  }

  showQuickPickMany<T extends vscode.QuickPickItem>(items: readonly T[], options: vscode.QuickPickOptions): Thenable<readonly T[] | undefined> {
    return Promise.resolve(this.next('pickMany', items, options));
  }

  showWarningMessage(message: string, options: vscode.MessageOptions, ...actions: string[]): Thenable<string | undefined> {
    return Promise.resolve(this.next('warning', { message, actions }, options));
  }
}

/** Picks the first item whose label matches. */
export const pick = (pattern: RegExp): Answer => (_kind, items) => {
  const found = (items as vscode.QuickPickItem[]).find((i) => pattern.test(i.label));
  if (!found) throw new Error(`no item matches ${pattern}: ${(items as vscode.QuickPickItem[]).map((i) => i.label).join(', ')}`);
  return found;
};

export const type = (text: string): Answer => (_kind, _arg, options) => {
  const validate = (options as vscode.InputBoxOptions | undefined)?.validateInput;
  const problem = validate ? validate(text) : undefined;
  if (problem && typeof problem === 'string') throw new Error(`the input "${text}" was refused: ${problem}`);
  return text;
};

export const accept = (): Answer => (_kind, _arg, options) => (options as vscode.InputBoxOptions).value;
