// The pieces of `mcp-host conformance` that the official suite only sees from outside:
// the headless "browser" that follows an authorization redirect to the loopback listener,
// the elicitation defaults, and the command's usage errors. (The suite itself is the
// `conformance` layer of npm test: scripts/conformance.mjs.)
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { REPO_ROOT } from '../helpers/paths';
import { defaultsOf, followRedirectsInteraction, planFor } from '../../src/cli/conformance';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

/** A server on 127.0.0.1 whose routes answer as given; records every request's path and query. */
async function server(routes: Record<string, (url: URL, base: string) => { status: number; location?: string }>) {
  const seen: URL[] = [];
  const srv = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', base());
    seen.push(url);
    const route = routes[url.pathname];
    const answer = route ? route(url, base()) : { status: 404 };
    res.writeHead(answer.status, answer.location ? { location: answer.location } : {}).end('body');
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const base = () => `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { base: base(), seen, close: () => new Promise<void>((resolve) => srv.close(() => resolve())) };
}

describe('mcp-host conformance', () => {
  test('the browser follows redirects by hand to the loopback callback, and logs no query string', async () => {
    const s = await server({
      '/authorize': (url) => ({ status: 302, location: `/login?state=${url.searchParams.get('state')}` }),
      '/login': (url, base) => ({ status: 303, location: `${base}/callback?code=SECRET-CODE&state=${url.searchParams.get('state')}` }),
      '/callback': () => ({ status: 200 }),
    });
    try {
      const lines: string[] = [];
      await followRedirectsInteraction((l) => lines.push(l)).openBrowser(new URL(`${s.base}/authorize?state=S1&code_challenge=C`));
      assert.deepEqual(
        s.seen.map((u) => u.pathname),
        ['/authorize', '/login', '/callback'],
      );
      assert.equal(s.seen[2].searchParams.get('code'), 'SECRET-CODE');
      assert.equal(s.seen[2].searchParams.get('state'), 'S1');
      assert.equal(lines.length, 3);
      for (const line of lines) assert.doesNotMatch(line, /SECRET|S1|code_challenge|\?/);
    } finally {
      await s.close();
    }
  });

  test('the browser stops on an error page and on a redirect loop', async () => {
    const s = await server({
      '/denied': () => ({ status: 400 }),
      '/loop': () => ({ status: 302, location: '/loop' }),
    });
    try {
      const interaction = followRedirectsInteraction(() => undefined, 4);
      await assert.rejects(interaction.openBrowser(new URL(`${s.base}/denied`)), /answered 400/);
      const before = s.seen.length;
      await assert.rejects(interaction.openBrowser(new URL(`${s.base}/loop`)), /more than 4 times/);
      assert.equal(s.seen.length - before, 4);
    } finally {
      await s.close();
    }
  });

  test('an accepted elicitation carries every default of the form and nothing else', () => {
    assert.deepEqual(
      defaultsOf({
        type: 'object',
        properties: {
          name: { type: 'string', default: 'John Doe' },
          age: { type: 'integer', default: 30 },
          verified: { type: 'boolean', default: false },
          status: { type: 'string', enum: ['a', 'b'], default: 'b' },
          free: { type: 'string' },
        },
      }),
      { name: 'John Doe', age: 30, verified: false, status: 'b' },
    );
    assert.deepEqual(defaultsOf(undefined), {});
    assert.deepEqual(defaultsOf({ properties: [] }), {});
  });

  test('every auth scenario signs in and calls the tool; unknown scenarios are refused', () => {
    assert.deepEqual(planFor('auth/some-future-scenario')?.tool, { name: 'test-tool', args: {} });
    assert.equal(planFor('tools_call')?.tool?.name, 'add_numbers');
    assert.equal(planFor('no-such-scenario'), undefined);
    const r = spawnSync(process.execPath, [CLI, 'conformance', 'http://127.0.0.1:9/mcp'], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, MCP_CONFORMANCE_SCENARIO: 'no-such-scenario' },
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /unknown scenario "no-such-scenario"/);
    const noUrl = spawnSync(process.execPath, [CLI, 'conformance'], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, MCP_CONFORMANCE_SCENARIO: 'initialize' } });
    assert.equal(noUrl.status, 2);
    assert.match(noUrl.stderr, /Usage: MCP_CONFORMANCE_SCENARIO=<scenario> mcp-host conformance <serverUrl>/);
  });
});
