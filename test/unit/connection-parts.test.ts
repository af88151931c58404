// The parts of a server's connection that need no server: launch preparation
// (host/connection/launch.ts), the era memory (eraMemory.ts) and paging (protocol/pagination.ts).
import { test, describe } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HttpServerDefinition, StdioServerDefinition } from '../../src/host/config';
import { EraMemory } from '../../src/host/connection/eraMemory';
import { prepareLaunch } from '../../src/host/connection/launch';
import { Redactor } from '../../src/host/redact';
import { VariableError } from '../../src/host/variables';
import { collectPages, MAX_LIST_PAGES, type ReceivedCacheHints } from '../../src/protocol/pagination';
import { McpError } from '../../src/protocol/errors';
import { testEnvironment } from '../helpers/host';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-launch-'));
}

function stdioDef(dir: string, overrides: Partial<StdioServerDefinition> = {}): StdioServerDefinition {
  return { type: 'stdio', name: 's', command: 'node', args: [], env: {}, source: { file: path.join(dir, 'mcp.json'), kind: 'user' }, ...overrides };
}

function httpDef(overrides: Partial<HttpServerDefinition> = {}): HttpServerDefinition {
  return { type: 'http', name: 'h', url: 'https://example.test/mcp', headers: {}, source: { file: '/nowhere/mcp.json', kind: 'user' }, ...overrides };
}

describe('launch preparation (host/connection/launch.ts)', () => {
  test('stdio: envFile beside the config, its values under env, cwd and args resolved, secrets to the redactor', async () => {
    const dir = tempDir();
    try {
      fs.writeFileSync(path.join(dir, 'server.env'), 'FROM_FILE=one\nOVERRIDDEN=file\n');
      const redactor = new Redactor();
      const env = testEnvironment([], { processEnv: { HOME_TOKEN: 'tok-from-env-123456' } });
      const spec = await prepareLaunch(
        stdioDef(dir, { envFile: 'server.env', cwd: 'work', args: ['--token', '${env:HOME_TOKEN}'], env: { OVERRIDDEN: 'def', API_KEY: 'key-value-abcdef', GONE: null } }),
        env,
        redactor,
      );
      assert.equal(spec.type, 'stdio');
      if (spec.type !== 'stdio') return;
      assert.deepEqual(spec.env, { FROM_FILE: 'one', OVERRIDDEN: 'def', API_KEY: 'key-value-abcdef', GONE: null });
      assert.equal(spec.cwd, path.join(dir, 'work'));
      assert.deepEqual(spec.args, ['--token', 'tok-from-env-123456']);
      const shown = redactor.redact('key-value-abcdef tok-from-env-123456 one');
      assert.doesNotMatch(shown, /key-value-abcdef|tok-from-env-123456/);
      assert.match(shown, /one$/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('stdio: an envFile that cannot be read is a configuration error naming it', async () => {
    const dir = tempDir();
    try {
      await assert.rejects(prepareLaunch(stdioDef(dir, { envFile: 'missing.env' }), testEnvironment(), new Redactor()), (err: unknown) => {
        assert.ok(err instanceof VariableError);
        assert.match(err.message, /missing\.env cannot be read \(ENOENT\)/);
        return true;
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('http: the url as written is shown, credential headers and the client secret go to the redactor', async () => {
    const redactor = new Redactor();
    const env = testEnvironment([], { processEnv: { TOKEN: 'bearer-secret-value-1' } });
    const spec = await prepareLaunch(
      httpDef({ url: 'https://example.test/${env:TOKEN}/mcp', headers: { Authorization: 'Bearer ${env:TOKEN}', 'X-Plain': 'visible' }, oauth: { clientId: 'c', clientSecret: 'client-secret-xyz' } }),
      env,
      redactor,
    );
    assert.equal(spec.type, 'http');
    assert.equal(spec.url, 'https://example.test/bearer-secret-value-1/mcp');
    assert.equal(spec.shownUrl, 'https://example.test/${env:TOKEN}/mcp');
    assert.deepEqual(spec.headers, { Authorization: 'Bearer bearer-secret-value-1', 'X-Plain': 'visible' });
    assert.equal(spec.clientSecret, 'client-secret-xyz');
    assert.doesNotMatch(redactor.redact('bearer-secret-value-1 client-secret-xyz'), /bearer-secret-value-1|client-secret-xyz/);
  });

  test('http: a url that is not http(s) once its variables are filled in is refused', async () => {
    await assert.rejects(prepareLaunch(httpDef({ url: '${env:NOPE}/mcp' }), testEnvironment([], { processEnv: {} }), new Redactor()), VariableError);
  });
});

describe('era memory (host/connection/eraMemory.ts)', () => {
  test('remembers an era for the definition it was learned with, until the definition changes', () => {
    const memory = new EraMemory();
    const def = httpDef();
    assert.equal(memory.forDefinition(def), undefined);
    memory.remember(def, 'legacy');
    assert.equal(memory.forDefinition(httpDef()), 'legacy'); // an equal definition, reloaded
    assert.equal(memory.forDefinition(httpDef({ url: 'https://example.test/other' })), undefined);
    assert.equal(memory.forDefinition(undefined), undefined);
  });
});

describe('paging (protocol/pagination.ts)', () => {
  test('collects every page; the hints: the shortest ttl, private if any page is', async () => {
    const pages = [
      { items: [1, 2], nextCursor: 'a', ttlMs: 5000 },
      { items: [3], nextCursor: 'b', ttlMs: 2000, cacheScope: 'private' },
      { items: [4], ttlMs: 9000, cacheScope: 'public' },
    ];
    const hints = new Map<string, ReceivedCacheHints>();
    const seen: Array<string | undefined> = [];
    const all = await collectPages('server t', 'tools/list', (cursor) => (seen.push(cursor), Promise.resolve(pages[seen.length - 1])), (p) => p.items, hints);
    assert.deepEqual(all, [1, 2, 3, 4]);
    assert.deepEqual(seen, [undefined, 'a', 'b']);
    const got = hints.get('tools/list');
    assert.equal(got?.ttlMs, 2000);
    assert.equal(got?.cacheScope, 'private');
  });

  test('a list without hints forgets the hints of the previous one', async () => {
    const hints = new Map<string, ReceivedCacheHints>([['prompts/list', { ttlMs: 1, receivedAt: 0 }]]);
    await collectPages('server t', 'prompts/list', (): Promise<{ items: number[]; nextCursor?: string }> => Promise.resolve({ items: [] }), (p) => p.items, hints);
    assert.equal(hints.has('prompts/list'), false);
  });

  test('a cursor sent twice stops the paging with an error naming the list', async () => {
    let n = 0;
    await assert.rejects(
      collectPages('server t', 'resources/list', () => Promise.resolve({ items: [n++], nextCursor: n > 1 ? 'same' : 'first' }), (p) => p.items, new Map()),
      (err: unknown) => err instanceof McpError && /returned the cursor "same" of resources\/list twice/.test(err.message),
    );
    assert.ok(n < MAX_LIST_PAGES);
  });
});
