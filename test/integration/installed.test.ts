import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
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

  it('shows its manifest strings from package.nls.json, and carries the images its README shows', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const pkg = ext.packageJSON as { contributes: { commands: Array<{ command: string; title: string; category?: string }>; views: Record<string, Array<{ name: string }>> } };
    const runTool = pkg.contributes.commands.find((c) => c.command === 'mcpHost.runTool');
    assert.equal(runTool?.title, 'Run Tool…');
    assert.equal(runTool?.category, 'MCP Host');
    assert.equal(pkg.contributes.views.mcpHost[0].name, 'Servers');
    const readme = fs.readdirSync(ext.extensionPath).find((f) => f.toLowerCase() === 'readme.md')!;
    const images = [...fs.readFileSync(path.join(ext.extensionPath, readme), 'utf8').matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    assert.ok(images.length > 0, 'the README shows images');
    for (const image of images) assert.ok(fs.existsSync(path.join(ext.extensionPath, image)), `${image} is in the installed extension`);
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
