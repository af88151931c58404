import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import { EXTENSION_ID, REPO_ROOT, RESULTS_DIR, activateExtension, isAlive, waitFor, waitForState } from './helpers';

// Runs last (file order): it shuts the extension's servers down.
describe('shutdown', function () {
  let api: McpHostApi;

  before(async function () {
    this.timeout(60_000);
    api = await activateExtension();
  });

  it('deactivation stops every server and leaves no process alive, grandchildren included', async function () {
    this.timeout(30_000);
    await waitForState(api, 'tree', 'running');
    // A server that ignores stdin EOF: it must get SIGTERM (logged to this file) within the time
    // VS Code gives deactivate() (5 s).
    const signalLog = path.join(RESULTS_DIR, 'deactivate-signals.log');
    fs.rmSync(signalLog, { force: true });
    await vscode.workspace.getConfiguration('mcpHost').update(
      'servers',
      { stays: { type: 'stdio', command: process.execPath, args: [path.join(REPO_ROOT, 'test', 'fixtures', 'sigterm-logger.mjs')], env: { SIGNAL_LOG_FILE: signalLog } } },
      vscode.ConfigurationTarget.Global,
    );
    await waitForState(api, 'stays', 'running');
    const pidFile = path.join(RESULTS_DIR, 'grandchild.pid');
    const grandchild = await waitFor(() => (fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').trim()) || undefined : undefined), 'grandchild pid');
    const pids = api.controller.registry.servers.flatMap((s) => (s.state.kind === 'running' && s.state.pid ? [s.state.pid] : []));
    assert.ok(pids.length >= 4, `running pids: ${pids.join(', ')}`);
    assert.ok(isAlive(grandchild));
    // The same function VS Code calls when it shuts the extension down.
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const main = require(path.join(extension.extensionPath, 'dist', 'extension.js')) as { deactivate(): Promise<void> };
    const started = Date.now();
    await main.deactivate();
    const took = Date.now() - started;
    assert.ok(took < 5000, `deactivate took ${took} ms`);
    const signals = fs.readFileSync(signalLog, 'utf8');
    assert.match(signals, /^stdin-closed \d+\nSIGTERM \d+\n$/, signals);
    for (const pid of [...pids, grandchild]) {
      await waitFor(() => !isAlive(pid), `process ${pid} to be gone`, 5000);
    }
    const states = api.controller.registry.servers.map((s) => `${s.name}:${s.state.kind}`);
    assert.deepEqual(states.filter((s) => /:(running|starting|stopping)$/.test(s)), [], states.join(', '));
  });
});
