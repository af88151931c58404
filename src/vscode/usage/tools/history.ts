import type * as vscode from 'vscode';

const LAST_ARGS_KEY = 'mcpHost.tools.lastArguments';
const MAX_REMEMBERED = 200;

type Remembered = Record<string, Record<string, unknown>>;

/** The last arguments each tool of each server ran with, in globalState; the oldest go past MAX_REMEMBERED. */
export class ArgumentHistory {
  constructor(private readonly state: vscode.Memento) {}

  last(server: string, tool: string): Record<string, unknown> | undefined {
    return this.state.get<Remembered>(LAST_ARGS_KEY, {})[historyKey(server, tool)];
  }

  async remember(server: string, tool: string, args: Record<string, unknown>): Promise<void> {
    const all = { ...this.state.get<Remembered>(LAST_ARGS_KEY, {}) };
    const key = historyKey(server, tool);
    // Re-inserted so that it is the newest (object keys keep insertion order).
    delete all[key];
    all[key] = args;
    const keys = Object.keys(all);
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_REMEMBERED))) delete all[k];
    await this.state.update(LAST_ARGS_KEY, all);
  }
}

function historyKey(server: string, tool: string): string {
  return `${server}\u0000${tool}`;
}
