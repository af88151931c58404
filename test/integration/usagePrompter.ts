// A person, scripted: answers the questions of the resources/prompts/requests features through
// the UsagePrompter test hook, records every question, and checks its own answers the way the
// real quick input would (an answer the input box would refuse fails the test).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import { REPO_ROOT, activateExtension, server, waitFor, waitForState } from './helpers';
import type {
  InputOptions,
  MessageOptions,
  PickItem,
  PickManyOptions,
  PickOptions,
  SuggestInputOptions,
  UsagePrompter,
} from '../../src/vscode/prompter';
import type { UsageTestHooks } from '../../src/vscode/services';
import type { ChosenModel, SamplingModel, SamplingRequest } from '../../src/vscode/usage/requests/samplingModel';

export type Question =
  | { method: 'pick'; key: string; items: readonly PickItem[]; options: PickOptions<PickItem> }
  | { method: 'pickMany'; key: string; items: readonly PickItem[]; options: PickManyOptions<PickItem> }
  | { method: 'input'; key: string; options: InputOptions | SuggestInputOptions }
  | { method: 'message'; key: string; severity: string; text: string; options: MessageOptions; buttons: string[] }
  | { method: 'openExternal'; key: 'openExternal'; uri: vscode.Uri };

/** An answer: for pick, an item or a label (exact, or a RegExp); for pickMany, labels or 'keep'; for input, text or KEEP; for message, a button. Undefined = dismissed. */
export type Answer = string | RegExp | string[] | symbol | PickItem | undefined;
export type Answerer = (q: Question) => Answer | Promise<Answer>;

export class ScriptedPerson implements UsagePrompter {
  readonly asked: Question[] = [];
  readonly problems: string[] = [];
  private readonly answers = new Map<string, Answerer[]>();
  private readonly standing = new Map<string, Answerer>();

  /** Answers the next question with this key (queued in order). */
  once(key: string, answer: Answerer | Answer): this {
    const list = this.answers.get(key) ?? [];
    list.push(typeof answer === 'function' ? (answer as Answerer) : () => answer);
    this.answers.set(key, list);
    return this;
  }

  /** Answers every question with this key (after the queued ones); a key ending in ':*' matches a prefix. */
  always(key: string, answer: Answerer | Answer): this {
    this.standing.set(key, typeof answer === 'function' ? (answer as Answerer) : () => answer);
    return this;
  }

  questions(key: string): Question[] {
    return this.asked.filter((q) => q.key === key);
  }

  private async answer(q: Question): Promise<Answer> {
    this.asked.push(q);
    const queued = this.answers.get(q.key);
    if (queued?.length) return queued.shift()!(q);
    const standing = this.standing.get(q.key) ?? [...this.standing].find(([k]) => k.endsWith(':*') && q.key.startsWith(k.slice(0, -1)))?.[1];
    if (standing) return standing(q);
    this.problems.push(`unexpected question ${q.key}${'text' in q ? `: ${q.text}` : ''}`);
    return undefined;
  }

  async pick<T extends PickItem>(items: readonly T[], options: PickOptions<T>): Promise<T | undefined> {
    const a = await this.answer({ method: 'pick', key: options.key, items, options: options as PickOptions<PickItem> });
    if (a === undefined) return undefined;
    if (typeof a === 'string' || a instanceof RegExp) {
      const found = items.find((i) => i.kind !== vscode.QuickPickItemKind.Separator && (typeof a === 'string' ? i.label === a : a.test(i.label) || a.test(i.description ?? '')));
      if (!found) this.problems.push(`${options.key}: no item ${String(a)} among ${items.map((i) => i.label).join(' | ')}`);
      return found;
    }
    return a as T;
  }

  async pickMany<T extends PickItem>(items: readonly T[], options: PickManyOptions<T>): Promise<readonly T[] | undefined> {
    const a = await this.answer({ method: 'pickMany', key: options.key, items, options: options as PickManyOptions<PickItem> });
    if (a === undefined) return undefined;
    if (a === 'keep') return options.selected ?? [];
    return (a as string[]).map((label) => {
      const found = items.find((i) => i.label === label);
      if (!found) this.problems.push(`${options.key}: no item ${label}`);
      return found!;
    });
  }

  async input(options: InputOptions): Promise<string | undefined> {
    return this.typed(options);
  }

  async inputWithSuggestions(options: SuggestInputOptions): Promise<string | undefined> {
    return this.typed(options);
  }

  private async typed(options: InputOptions | SuggestInputOptions): Promise<string | undefined> {
    const a = await this.answer({ method: 'input', key: options.key, options });
    if (a === undefined) return undefined;
    const text = a === KEEP ? (options.value ?? '') : String(a);
    const refused = options.validate?.(text);
    if (refused) this.problems.push(`${options.key}: the input box would refuse ${JSON.stringify(text)}: ${refused}`);
    return text;
  }

  async message(severity: 'info' | 'warning' | 'error', text: string, options: MessageOptions, ...buttons: string[]): Promise<string | undefined> {
    const a = await this.answer({ method: 'message', key: options.key, severity, text, options, buttons });
    if (a !== undefined && !buttons.includes(String(a))) this.problems.push(`${options.key}: no button ${String(a)} among ${buttons.join(', ')}`);
    return a === undefined ? undefined : String(a);
  }

  async openExternal(uri: vscode.Uri): Promise<boolean> {
    await this.answer({ method: 'openExternal', key: 'openExternal', uri });
    return true;
  }
}

/** Answer for an input: accept what is filled in already (the default). */
export const KEEP = Symbol('keep the value');

/** Suggestions the server makes for `value`, as the quick input would show them. */
export async function suggestionsFor(q: Question, value: string): Promise<readonly string[] | undefined> {
  if (q.method !== 'input') throw new Error(`${q.key} is not an input`);
  const suggest = (q.options as SuggestInputOptions).suggest;
  return suggest ? suggest(value, new AbortController().signal) : undefined;
}

/** A language model of the test's own: records what it is sent and answers with a fixed text. */
export class ScriptedModel implements SamplingModel {
  readonly requests: SamplingRequest[] = [];
  constructor(private readonly reply: (r: SamplingRequest) => string) {}

  async choose(hints: readonly string[]): Promise<ChosenModel> {
    void hints;
    return {
      id: 'test-model-1',
      label: 'Test Model (integration tests)',
      send: async (request) => {
        this.requests.push(request);
        return { text: this.reply(request), stopReason: 'endTurn' };
      },
    };
  }
}

export async function testHooks(): Promise<UsageTestHooks> {
  const hooks = await vscode.commands.executeCommand<UsageTestHooks>('mcpHost.internal.testHooks');
  if (!hooks) throw new Error('mcpHost.internal.testHooks is not registered (is the extension in test mode?)');
  return hooks;
}

/** What a usage suite's tests use; valid inside its tests (set by the suite's hooks). */
export interface UsageSuite {
  readonly api: McpHostApi;
  readonly hooks: UsageTestHooks;
  /** A fresh scripted person for each test; its surprises fail the test. */
  readonly person: ScriptedPerson;
}

export const RICH_SERVER = path.join(REPO_ROOT, 'test', 'fixtures', 'rich-server.mjs');

/**
 * The shared set-up of the usage suites: good, everything and rich-server (a user-level server)
 * running with their `list` loaded; a new scripted person before each test, the real UI and no
 * open editors after it.
 */
export function usageSuite(list: 'tools' | 'resources' | 'prompts', extraSetup?: (suite: UsageSuite) => Promise<void>): UsageSuite {
  const state: { api?: McpHostApi; hooks?: UsageTestHooks; person?: ScriptedPerson } = {};
  const suite: UsageSuite = {
    get api() {
      return state.api!;
    },
    get hooks() {
      return state.hooks!;
    },
    get person() {
      return state.person!;
    },
  };
  const config = () => vscode.workspace.getConfiguration('mcpHost');
  before(async function () {
    this.timeout(90_000);
    state.api = await activateExtension();
    state.hooks = await testHooks();
    await config().update('servers', { rich: { type: 'stdio', command: process.execPath, args: [RICH_SERVER] } }, vscode.ConfigurationTarget.Global);
    await waitFor(() => state.api!.controller.registry.findByName('rich'), 'the rich server to be configured');
    for (const name of ['good', 'everything', 'rich']) {
      const s = server(state.api, name);
      if (s.state.kind !== 'running') await s.start();
      await waitForState(state.api, name, 'running', 30_000);
      await waitFor(() => server(state.api!, name).lists[list].length > 0, `${name} ${list}`);
    }
    await extraSetup?.(suite);
  });
  beforeEach(() => {
    state.person = new ScriptedPerson();
    state.hooks!.setPrompter(state.person);
  });
  afterEach(async () => {
    state.hooks!.setPrompter(undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.deepEqual(state.person!.problems, [], 'the scripted person had no surprises');
  });
  after(async () => {
    await config().update('servers', undefined, vscode.ConfigurationTarget.Global);
  });
  return suite;
}
