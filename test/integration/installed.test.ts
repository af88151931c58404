import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, activateExtension, waitForState } from './helpers';

// Runs only against the packaged VSIX installed with --install-extension (scripts/test-vscode.mjs).
const expectedDir = process.env.MCP_HOST_EXPECT_EXTENSIONS_DIR;

(expectedDir ? describe : describe.skip)('the installed VSIX', () => {
  it('is the packaged build, installed from the extensions folder', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} installed`);
    assert.ok(path.resolve(ext.extensionPath).startsWith(path.resolve(expectedDir!)), `${ext.extensionPath} is inside ${expectedDir}`);
    assert.equal(ext.packageJSON.main, './dist/extension.js');
  });

  it('activates on start-up and shows the servers in the tree', async function () {
    this.timeout(60_000);
    const api = await activateExtension();
    await waitForState(api, 'good', 'running', 30_000);
    await waitForState(api, 'missing', 'error', 30_000);
    const names = api.tree.getChildren().map((n) => (n.kind === 'server' ? n.server.name : ''));
    assert.ok(names.includes('good') && names.includes('everything'), names.join(', '));
    await waitForState(api, 'everything', 'running', 30_000);
    await api.controller.shutdown();
  });
});
