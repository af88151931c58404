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

/** `what` may be a function, to describe the state found when the wait timed out. */
export async function waitFor<T>(probe: () => T | undefined | false, what: string | (() => string), timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A promise, or an error naming what did not happen in time (rather than mocha's bare timeout). */
export async function within<T>(promise: PromiseLike<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
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

