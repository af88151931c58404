'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const vscode = require('vscode');

const EXTENSION_ID = 'mcp-host-test.vscode-host-smoke';
const WORKSPACE = path.resolve(__dirname, '..', 'workspace');

/** @param {() => boolean} cond @param {number} ms */
async function waitFor(cond, ms) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

suite('vscode-host smoke', () => {
  suiteSetup(() => {
    console.log(`VS Code ${vscode.version}, uiKind ${vscode.UIKind[vscode.env.uiKind]}, appName ${vscode.env.appName}, node ${process.version}`);
  });

  test('the extension activated on startup (without being asked)', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not loaded`);
    assert.equal(ext.extensionKind, vscode.ExtensionKind.Workspace);
    assert.ok(await waitFor(() => ext.isActive, 15000), 'not active 15 s after startup');
    assert.equal(typeof ext.exports.activatedAt, 'number');
  });

  test('its command runs', async () => {
    const text = await vscode.commands.executeCommand('vscodeHostSmoke.hello');
    assert.match(String(text), /^Hello from the smoke extension/);
  });

  test('the extension host can spawn node and read its stdout', async () => {
    const child = spawn('node', ['-e', 'process.stdout.write(JSON.stringify({ pid: process.pid, sum: 40 + 2 }))'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    assert.equal(code, 0, `node exited with ${code}: ${err}`);
    const parsed = JSON.parse(out);
    assert.equal(parsed.sum, 42);
    assert.equal(parsed.pid, child.pid);
  });

  test('the workspace folder is the one passed on the command line', () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.equal(folders.length, 1, `folders: ${folders.map((f) => f.uri.toString()).join(', ')}`);
    assert.equal(folders[0].uri.scheme, 'file');
    assert.equal(folders[0].uri.fsPath, WORKSPACE);
  });

  test('environment given to the runner reaches the extension host', () => {
    assert.equal(process.env.VSCODE_HOST_SMOKE_MARKER, 'passed-through', 'run with --env VSCODE_HOST_SMOKE_MARKER=passed-through');
  });
});
