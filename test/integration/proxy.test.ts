// VS Code's proxy setting carries a remote server's requests: MCP Host sends through node:http,
// which the editor patches for extensions (`http.proxySupport`, default "override"), so with
// `http.proxy` set every request goes through that proxy (test/fixtures/http-proxy.mjs: the npm
// package `proxy`). VS Code never proxies localhost/127.0.0.1, so the server listens on the
// machine's own non-loopback address.
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import { startServerProcess, type HttpServerProcess } from '../helpers/http';
import { FIXTURES_DIR } from '../helpers/paths';
import { activateExtension, waitFor, waitForState } from './helpers';

/** An IPv4 address of this machine that is not loopback, if it has one. */
function nonLoopbackAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a !== undefined && !a.internal && a.family === 'IPv4')?.address;
}

describe('A proxy set in VS Code (http.proxy)', function () {
  this.timeout(90_000);
  let api: McpHostApi;
  let proxy: HttpServerProcess | undefined;
  let mcp: HttpServerProcess | undefined;
  let mcpUrl = '';
  const address = nonLoopbackAddress();

  before(async function () {
    if (address === undefined) this.skip();
    api = await activateExtension();
    proxy = await startServerProcess([path.join(FIXTURES_DIR, 'http-proxy.mjs')], (line) => {
      const m = /^PROXY_LISTENING (\d+)$/.exec(line);
      return m ? Number(m[1]) : undefined;
    });
    mcp = await startServerProcess([path.join(FIXTURES_DIR, 'bench-http-server.mjs'), `--host=${address}`], (line) => {
      const m = /^BENCH_HTTP_LISTENING http:\/\/[^:]+:(\d+)\/mcp$/.exec(line);
      return m ? Number(m[1]) : undefined;
    });
    mcpUrl = `http://${address}:${mcp.port}/mcp`;
    await vscode.workspace.getConfiguration('mcpHost').update('servers', { 'via-proxy': { type: 'http', url: mcpUrl } }, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('mcpHost').update('servers', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('http').update('proxy', undefined, vscode.ConfigurationTarget.Global);
    await Promise.all([proxy?.stop(), mcp?.stop()]);
  });

  const asked = () => proxy!.output.filter((line) => line.startsWith('PROXY_SAW '));

  it('without http.proxy the server is reached directly', async () => {
    const s = await waitForState(api, 'via-proxy', 'running', 30_000);
    await waitFor(() => s.lists.tools.length > 0, 'its tools');
    assert.deepEqual(asked(), []);
  });

  it("with http.proxy set, a remote server's requests go through the proxy", async () => {
    await vscode.workspace.getConfiguration('http').update('proxy', `http://127.0.0.1:${proxy!.port}`, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('mcpHost.restartServer', 'via-proxy');
    const s = await waitForState(api, 'via-proxy', 'running', 30_000);
    await waitFor(() => s.lists.tools.length > 0, 'its tools');
    assert.ok(asked().includes(`PROXY_SAW POST ${mcpUrl}`), `the proxy saw: ${asked().join(' | ') || 'nothing'}`);
  });

  it('with http.proxySupport "on" too (VS Code then proxies only requests that name no agent of their own)', async () => {
    const http = vscode.workspace.getConfiguration('http');
    await http.update('proxySupport', 'on', vscode.ConfigurationTarget.Global);
    try {
      const before = asked().length;
      await vscode.commands.executeCommand('mcpHost.restartServer', 'via-proxy');
      const s = await waitForState(api, 'via-proxy', 'running', 30_000);
      await waitFor(() => s.lists.tools.length > 0, 'its tools');
      assert.ok(asked().slice(before).includes(`PROXY_SAW POST ${mcpUrl}`), `the proxy saw: ${asked().slice(before).join(' | ') || 'nothing'}`);
    } finally {
      await http.update('proxySupport', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
