// What a remote server teaches the extension, kept in globalState for later windows of VS Code:
// a server configured as `type: http` that speaks only the legacy HTTP+SSE transport
// (test/fixtures/http/legacy-only.mjs) costs its first session two refused POSTs (the era probe, initialize); the extension keeps
// that it speaks HTTP+SSE under a digest of its endpoint (never the URL), so that the next window
// opens the event stream at once (that a store read at start is used is shown across processes by
// the CLI's tests in test/process/http-round-trips.test.ts, with the same mechanism).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpHostApi } from '../../src/extension';
import type { CallToolResult } from '../../src/protocol/schemas';
import { endpointKeyOf } from '../../src/transport/endpointMemory';
import { ENDPOINT_DIGEST_LENGTH, textDigest } from '../../src/util/digest';
import { ERA_STATE_KEY, LEGACY_SSE_STATE_KEY } from '../../src/vscode/endpointStores';
import { startHttpFixture, type HttpServerProcess } from '../helpers/http';
import { activateExtension, waitFor, waitForState } from './helpers';

describe('What remote servers teach, kept for later windows', function () {
  this.timeout(60_000);
  let api: McpHostApi;
  let legacy: HttpServerProcess;
  let url: string;
  const config = () => vscode.workspace.getConfiguration('mcpHost');

  before(async () => {
    api = await activateExtension();
    legacy = await startHttpFixture('legacy-only.mjs');
    url = `${legacy.base}/sse`;
    await config().update('servers', { 'legacy-sse': { type: 'http', url } }, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await config().update('servers', undefined, vscode.ConfigurationTarget.Global);
    // Gone from the registry before the next file looks at it (the reload follows the change event).
    await waitFor(() => api.controller.registry.findByName('legacy-sse') === undefined, 'legacy-sse removed');
    await legacy?.stop();
  });

  it('a server that speaks only HTTP+SSE is kept in globalState under a digest of its endpoint, without its URL', async () => {
    await waitForState(api, 'legacy-sse', 'running');
    // The era probe and initialize, refused: what a later window is spared.
    assert.equal((await legacy.stats()).postsToSse, 2, 'the first session POSTed to the event stream URL twice');
    const digest = textDigest(endpointKeyOf(url), ENDPOINT_DIGEST_LENGTH);
    const held = await waitFor(
      () => {
        const value = api.globalState.get<Record<string, { learnedAt: number }>>(LEGACY_SSE_STATE_KEY);
        return value?.[digest] !== undefined ? value : undefined;
      },
      () => `an entry for the endpoint in ${LEGACY_SSE_STATE_KEY}: ${JSON.stringify(api.globalState.get(LEGACY_SSE_STATE_KEY))}`,
    );
    const learnedAt = held[digest]!.learnedAt;
    assert.ok(Math.abs(Date.now() - learnedAt) < 60_000, `learned just now (${learnedAt})`);
    const eras = api.globalState.get<Record<string, { era: string }>>(ERA_STATE_KEY) ?? {};
    assert.equal(eras[digest]?.era, 'legacy', 'its era is kept too: the next window sends no server/discover probe');
    for (const key of [LEGACY_SSE_STATE_KEY, ERA_STATE_KEY]) {
      const text = JSON.stringify(api.globalState.get(key) ?? {});
      assert.ok(!text.includes(String(legacy.port)) && !text.includes('127.0.0.1') && !text.includes('/sse'), `no URL in ${key}: ${text}`);
    }
  });

  it('a restart in the same window opens the event stream at once: no second POST', async () => {
    const before = await legacy.stats();
    await vscode.commands.executeCommand('mcpHost.restartServer', 'legacy-sse');
    let stats = await legacy.stats();
    for (const until = Date.now() + 20_000; stats.gets <= before.gets && Date.now() < until; stats = await legacy.stats()) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(stats.gets > before.gets, `the restart opened a new event stream (${stats.gets} GETs, ${before.gets} before)`);
    await waitForState(api, 'legacy-sse', 'running');
    const result = await vscode.commands.executeCommand<CallToolResult | undefined>('mcpHost.runTool', { server: 'legacy-sse', tool: 'echo', arguments: { text: 'again' } });
    assert.match(JSON.stringify(result?.content), /legacy: again/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.equal((await legacy.stats()).postsToSse, before.postsToSse, 'no POST to the event stream URL since the first session');
  });
});
