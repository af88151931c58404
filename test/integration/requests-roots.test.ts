// notifications/roots/list_changed inside a real VS Code: adding and removing a workspace folder
// tells every running server, which then asks roots/list again and sees the change.
//
// Runs only in a multi-root workspace (test/fixtures/roots.code-workspace): in a single-folder
// workspace VS Code refuses to add folders during tests. Run it with
//   node scripts/vscode-host/run-integration.mjs --flavour old|new --extensionTestsPath out/test/integration/index.js \
//     --extensionDevelopmentPath . --workspace test/fixtures/roots.code-workspace --env MCP_HOST_TEST_FILES=requests-roots
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import type { CallToolResult } from '../../src/protocol/schemas';
import { REPO_ROOT, activateExtension, server, waitFor, waitForState } from './helpers';

function textOf(result: CallToolResult): string {
  return result.content.map((b) => (b.type === 'text' ? (b as unknown as { text: string }).text : '')).join('\n');
}

async function eventually<T>(probe: () => Promise<T | false | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function nextFolderChange(): Promise<vscode.WorkspaceFoldersChangeEvent> {
  return new Promise((resolve) => {
    const d = vscode.workspace.onDidChangeWorkspaceFolders((e) => {
      d.dispose();
      resolve(e);
    });
  });
}

(vscode.workspace.workspaceFile?.scheme === 'file' ? describe : describe.skip)('roots/list_changed when the workspace folders change', function () {
  this.timeout(60_000);
  let api: McpHostApi;
  let original: Buffer | undefined;
  const call = async (name: string, tool: string) => textOf(await server(api, name).client!.callTool(tool));

  before(async function () {
    this.timeout(90_000);
    // VS Code rewrites the workspace file when folders change: put it back as it was afterwards.
    original = fs.readFileSync(vscode.workspace.workspaceFile!.fsPath);
    api = await activateExtension();
    for (const name of ['good', 'everything']) {
      const s = server(api, name);
      if (s.state.kind !== 'running') await s.start();
      await waitForState(api, name, 'running', 30_000);
      await waitFor(() => server(api, name).lists.tools.length > 0, `${name} tools`);
    }
  });

  after(() => {
    if (original) fs.writeFileSync(vscode.workspace.workspaceFile!.fsPath, original);
  });

  it('a folder added and removed is announced, and the servers see the new roots', async () => {
    const first = vscode.workspace.workspaceFolders![0];
    assert.equal(vscode.workspace.workspaceFolders!.length, 1);
    assert.deepEqual(JSON.parse(await call('good', 'ask-roots')), [{ uri: first.uri.toString(), name: first.name }]);
    await eventually(async () => /Current MCP Roots \(1 total\)/.test(await call('everything', 'get-roots-list')), 'server-everything to know one root');

    const extra = vscode.Uri.file(path.join(REPO_ROOT, 'test', 'fixtures'));
    const added = nextFolderChange();
    assert.ok(vscode.workspace.updateWorkspaceFolders(1, 0, { uri: extra, name: 'fixtures' }));
    await added;
    // server-everything keeps the roots it was given, and asks again only when told they changed.
    const seen = await eventually(async () => {
      const listed = await call('everything', 'get-roots-list');
      return /Current MCP Roots \(2 total\)/.test(listed) && listed;
    }, 'server-everything to see two roots');
    assert.ok(seen.includes(extra.toString()), seen);
    assert.deepEqual(JSON.parse(await call('good', 'ask-roots')), [
      { uri: first.uri.toString(), name: first.name },
      { uri: extra.toString(), name: 'fixtures' },
    ]);

    const removed = nextFolderChange();
    assert.ok(vscode.workspace.updateWorkspaceFolders(1, 1));
    await removed;
    await eventually(async () => /Current MCP Roots \(1 total\)/.test(await call('everything', 'get-roots-list')), 'server-everything to see one root again');
  });
});
