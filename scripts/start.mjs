#!/usr/bin/env node
// `npm start`: builds the extension, makes sure the local VS Code is installed, then opens a real
// VS Code with the extension and the demo workspace (demo/), whose servers start on activation
// (two over stdio, one over Streamable HTTP that this script serves on 127.0.0.1:3001).
// This machine has no desktop VS Code, so the workbench is served on localhost and its URL printed:
// open it in a browser. Extra arguments go to scripts/vscode-host/start.mjs (e.g. --flavour old,
// --port 8765, --screenshot out.png).
import { spawnSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const step = (what, cmd, args) => {
  console.log(`[npm start] ${what}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`[npm start] ${what} failed (exit ${r.status})`);
    process.exit(r.status ?? 1);
  }
};
step('building the extension', process.execPath, ['esbuild.mjs']);
const extra = process.argv.slice(2);
const flavour = extra.includes('--flavour') ? extra[extra.indexOf('--flavour') + 1] : 'new';
if (!existsSync(join(root, '.vscode-test-host', flavour, '.installed.json'))) {
  step(`installing VS Code (${flavour}) into .vscode-test-host (once)`, process.execPath, ['scripts/vscode-host/install.mjs', flavour]);
}
// The demo's remote server: server-everything over Streamable HTTP on 127.0.0.1:3001 (demo/.vscode/mcp.json).
// The preload makes it listen on 127.0.0.1 only (on its own it listens on every interface).
const remote = spawn(process.execPath, ['--import', join(root, 'test/fixtures/http/bind-loopback.mjs'), join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'streamableHttp'], {
  cwd: root,
  env: { ...process.env, PORT: process.env.MCP_HOST_DEMO_PORT ?? '3001' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
remote.on('exit', (code, signal) => {
  if (signal !== 'SIGTERM') console.error(`[npm start] the demo's remote server (everything-remote) exited (${signal ?? `exit ${code}`})`);
});
process.on('exit', () => remote.kill('SIGTERM'));
const args = ['scripts/vscode-host/start.mjs', '--folder', join(root, 'demo'), ...(extra.includes('--flavour') ? [] : ['--flavour', flavour]), ...extra];
const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code) => process.exit(code ?? 0));
