// Remote servers inside a real VS Code: a Streamable HTTP server (server-everything, started by the
// test) used from the tree and Run Tool, and a server behind OAuth (a real authorization server,
// oidc-provider) that shows "sign-in needed" until Sign In, which asks the person, opens the
// browser (it follows the authorization pages back to our loopback redirect), and then runs;
// Sign Out forgets the token. The browser is a real (headless) Chromium, and
// VS Code runs as in a browser behind a code-server-style port proxy (scripts/test-vscode.mjs), so
// the redirect comes back through asExternalUri's /proxy/PORT/ address.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import type { CallToolResult } from '../../src/protocol/schemas';
import type { UsageTestHooks } from '../../src/vscode/services';
import { startAuthorizationServer, startResourceServer, type TestAuthorizationServer, type TestResourceServer } from '../helpers/oauth-servers';
import { startEverythingHttp, type HttpServerProcess } from '../helpers/http';
import { RESULTS_DIR, activateExtension, server, waitFor, waitForState } from './helpers';
import { ScriptedPerson, testHooks } from './usagePrompter';

/**
 * The person's browser: headless Chromium (Debian's, driven by playwright-core) opens the sign-in
 * address VS Code hands out, follows the authorization server's pages and redirects, and lands on
 * MCP Host's loopback page. A screenshot of that page is kept in test-results/.
 */
class RealBrowser {
  readonly visits: string[] = [];
  finalText = '';

  async signIn(url: string): Promise<void> {
    const browser = await chromium.launch({
      executablePath: process.env.VSCODE_HOST_CHROMIUM || '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update'],
    });
    try {
      const page = await browser.newPage();
      // Every page the browser asked for, redirects included.
      page.on('request', (request) => {
        if (request.isNavigationRequest()) this.visits.push(request.url());
      });
      await page.goto(url, { timeout: 30_000 });
      await page.waitForURL(/\/callback\?/, { timeout: 30_000 });
      this.finalText = (await page.textContent('body', { timeout: 10_000 })) ?? '';
      fs.mkdirSync(RESULTS_DIR, { recursive: true });
      await page.screenshot({ path: path.join(RESULTS_DIR, 'sign-in-done.png') });
    } finally {
      await browser.close();
    }
  }
}

describe('Remote servers in a real VS Code', function () {
  this.timeout(90_000);
  let api: McpHostApi;
  let hooks: UsageTestHooks;
  let everything: HttpServerProcess | undefined;
  let everythingUrl: string;
  let as: TestAuthorizationServer;
  let rs: TestResourceServer;
  const config = () => vscode.workspace.getConfiguration('mcpHost');

  before(async function () {
    this.timeout(90_000);
    api = await activateExtension();
    hooks = await testHooks();
    everything = await startEverythingHttp('streamableHttp');
    everythingUrl = `${everything.base}/mcp`;
    as = await startAuthorizationServer();
    rs = await startResourceServer({ issuer: as.issuer, prm: 'header' });
    await config().update(
      'servers',
      { 'remote-everything': { type: 'http', url: everythingUrl }, protected: { type: 'http', url: rs.url } },
      vscode.ConfigurationTarget.Global,
    );
  });

  after(async () => {
    hooks?.setPrompter(undefined);
    await config().update('servers', undefined, vscode.ConfigurationTarget.Global);
    await everything?.stop();
    await rs?.stop();
    await as?.stop();
  });

  it('a Streamable HTTP server runs; the tree says where it is; Run Tool works on it', async () => {
    const s = await waitForState(api, 'remote-everything', 'running', 30_000);
    await waitFor(() => s.lists.tools.length > 0, 'its tools');
    const item = api.tree.getTreeItem({ kind: 'server', server: s });
    assert.match(String(item.description), /^running · \d+ tools/);
    assert.equal(item.contextValue, 'mcpHost.server.running.remote');
    const tooltip = (item.tooltip as vscode.MarkdownString).value;
    assert.ok(tooltip.includes(`Streamable HTTP: ${everythingUrl}`), tooltip);
    const result = await vscode.commands.executeCommand<CallToolResult | undefined>('mcpHost.runTool', {
      server: 'remote-everything',
      tool: 'echo',
      arguments: { message: 'from VS Code over HTTP' },
    });
    assert.match(JSON.stringify(result?.content), /Echo: from VS Code over HTTP/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a server behind OAuth: sign-in needed → Sign In asks, opens the browser, runs → Sign Out forgets the token', async () => {
    const s = await waitForState(api, 'protected', 'needs-sign-in', 30_000);
    const item = api.tree.getTreeItem({ kind: 'server', server: s });
    assert.equal(item.description, 'sign-in needed');
    assert.equal(item.contextValue, 'mcpHost.server.needs-sign-in.remote');
    assert.equal(item.command?.command, 'mcpHost.signIn', 'a click on the row signs in');

    const person = new ScriptedPerson();
    const browser = new RealBrowser();
    let visited: Promise<void> | undefined;
    person.once('signin.confirm', 'Sign In');
    person.once('openExternal', (q) => {
      // As VS Code hands it to the browser: the URI's own text, not re-encoded.
      if (q.method === 'openExternal') visited = browser.signIn(q.uri.toString(true));
      return undefined;
    });
    hooks.setPrompter(person);
    try {
      const signingIn = vscode.commands.executeCommand('mcpHost.signIn', 'protected');
      await waitFor(() => visited, 'the browser to be opened');
      await visited;
      // The browser ends on our loopback page ("you can close this tab"), not on an error page.
      assert.match(browser.finalText, /Signed in\. You can close this tab/, `the browser went through ${browser.visits.join(' → ')}`);
      await signingIn;
      await waitForState(api, 'protected', 'running', 30_000);
      const [confirm] = person.questions('signin.confirm');
      assert.ok(confirm && confirm.method === 'message' && confirm.options.modal, 'a modal asked first');
      assert.match(confirm.method === 'message' ? confirm.text : '', /"protected" wants you to sign in at 127\.0\.0\.1:\d+/);
      assert.ok(browser.visits.some((v) => v.startsWith(as.issuer)), 'the browser went to the authorization server');
      assert.ok(browser.visits.some((v) => v.includes('/proxy/') && v.includes('/callback?')), 'it came back through the port proxy');
      assert.ok(rs.authorizations.some((h) => h?.startsWith('Bearer ')), 'requests carried the token');
      assert.deepEqual(person.problems, []);

      await vscode.commands.executeCommand('mcpHost.signOut', 'protected');
      await waitForState(api, 'protected', 'stopped');
      await server(api, 'protected').start();
      await waitForState(api, 'protected', 'needs-sign-in');
    } finally {
      hooks.setPrompter(undefined);
    }
  });

  it('no token reaches the log of the server', async () => {
    const lines = api.controller.recentLog(server(api, 'protected').id).join('\n');
    assert.ok(lines.includes('Connecting to: HTTP'), 'the log was recorded');
    for (const header of rs.authorizations) {
      if (header) assert.ok(!lines.includes(header.slice('Bearer '.length)), 'no access token in the log');
    }
  });
});
