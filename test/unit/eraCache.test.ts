// The era cache's store (versioning.mdx: clients MAY persist an endpoint's era across restarts):
// two VS Code windows share one globalState, so each write merges into what the store holds now.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import * as path from 'node:path';
import { EraCache, PERSISTED_ERA_TTL_MS, type EraStore } from '../../src/protocol/eraCache';
import { eraFilePath, fileEraStore, fileLegacySseStore } from '../../src/cli/eraFile';
import { compileCacheDirectory } from '../../src/cli/compileCache';
import * as fs from 'node:fs';
import { tokenFilePath } from '../../src/cli/auth';
import { npmCacheDir } from '../../src/host/doctor/packageRunner';
import { homeDirectory } from '../../src/util/homeDirectory';

function sharedStore(): EraStore & { held: unknown } {
  const store = {
    held: undefined as unknown,
    read: () => store.held,
    write: (eras: Record<string, unknown>) => {
      store.held = { ...eras };
    },
  };
  return store;
}

function erasIn(held: unknown): string[] {
  return Object.values(held as Record<string, { era: string }>).map((entry) => entry.era);
}

describe('the era cache kept in a store', () => {
  test('two windows learning different endpoints both end up in the store; a forget in one is not undone by the other', () => {
    const store = sharedStore();
    const first = new EraCache();
    const second = new EraCache();
    first.persistIn(store);
    second.persistIn(store);
    first.remember('http://a.example/mcp', 'legacy');
    second.remember('http://b.example/mcp', 'modern');
    assert.deepEqual(erasIn(store.held).sort(), ['legacy', 'modern']);

    second.forget('http://a.example/mcp');
    first.remember('http://c.example/mcp', 'legacy');
    assert.deepEqual(erasIn(store.held).sort(), ['legacy', 'modern'], 'a is gone, b and c are kept');

    const third = new EraCache();
    third.persistIn(store);
    assert.equal(third.eraOf('http://a.example/mcp'), undefined);
    assert.equal(third.eraOf('http://b.example/mcp'), 'modern');
    assert.equal(third.eraOf('http://c.example/mcp'), 'legacy');
  });

  test('clear() stops persisting: what this process learns afterwards stays in it', () => {
    const store = sharedStore();
    const cache = new EraCache();
    cache.persistIn(store);
    cache.remember('http://a.example/mcp', 'legacy');
    cache.clear();
    cache.remember('http://b.example/mcp', 'legacy');
    assert.equal(Object.keys(store.held as object).length, 1);
    assert.equal(cache.eraOf('http://b.example/mcp'), 'legacy');
  });
});

describe('how long a persisted era is trusted', () => {
  const key = 'http://a.example/mcp';

  function storeHolding(entry: unknown): EraStore & { held: unknown } {
    const probe = sharedStore();
    const cache = new EraCache();
    cache.persistIn(probe);
    cache.remember(key, 'legacy');
    const [digest] = Object.keys(probe.held as object);
    probe.held = { [digest!]: entry };
    return probe;
  }

  function eraAfterRestart(store: EraStore): string | undefined {
    const cache = new EraCache();
    cache.persistIn(store);
    return cache.eraOf(key);
  }

  test('a day: an older entry is probed again, and so is one learned further "in the future" than a clock skew (written under a clock since set back); an entry of the old flat form is ignored', () => {
    const now = Date.now();
    assert.equal(eraAfterRestart(storeHolding({ era: 'legacy', learnedAt: now - 60_000 })), 'legacy');
    assert.equal(eraAfterRestart(storeHolding({ era: 'legacy', learnedAt: now - PERSISTED_ERA_TTL_MS - 1 })), undefined);
    assert.equal(eraAfterRestart(storeHolding({ era: 'legacy', learnedAt: now + 60_000 })), 'legacy', 'a minute ahead: another machine\'s clock');
    assert.equal(eraAfterRestart(storeHolding({ era: 'legacy', learnedAt: now + 10 * PERSISTED_ERA_TTL_MS })), undefined);
    assert.equal(eraAfterRestart(storeHolding('legacy')), undefined);
    assert.equal(eraAfterRestart(storeHolding({ era: 'legacy', learnedAt: Number.NaN })), undefined);
    assert.equal(eraAfterRestart(storeHolding({ era: 'medieval', learnedAt: now })), undefined);
  });

  test('an entry read when the process started is not taken once its day is over (an editor window or a gateway that runs for days)', () => {
    const store = storeHolding({ era: 'legacy', learnedAt: Date.now() - 60_000 });
    const cache = new EraCache();
    cache.persistIn(store);
    const realNow = Date.now;
    Date.now = () => realNow() + PERSISTED_ERA_TTL_MS;
    try {
      assert.equal(cache.eraOf(key), undefined);
    } finally {
      Date.now = realNow;
    }
  });

  test('an era this process learned is not taken once its day is over either', () => {
    const cache = new EraCache();
    cache.remember(key, 'legacy');
    assert.equal(cache.eraOf(key), 'legacy');
    const realNow = Date.now;
    Date.now = () => realNow() + PERSISTED_ERA_TTL_MS;
    try {
      assert.equal(cache.eraOf(key), undefined, 'probed again');
    } finally {
      Date.now = realNow;
    }
    cache.remember(key, 'modern');
    assert.equal(cache.eraOf(key), 'modern');
  });

  test('a probe that teaches the same era again restarts its day, but a modern endpoint (probed by every handshake) rewrites the store once an hour at most', () => {
    const store = sharedStore();
    let writes = 0;
    const write = store.write;
    store.write = (eras) => {
      writes++;
      write(eras);
    };
    const cache = new EraCache();
    cache.persistIn(store);
    cache.remember(key, 'modern');
    cache.remember(key, 'modern');
    cache.remember(key, 'modern');
    assert.equal(writes, 1);
    const [digest] = Object.keys(store.held as object);
    store.held = { [digest!]: { era: 'modern', learnedAt: Date.now() - 2 * 60 * 60 * 1000 } };
    cache.persistIn(store);
    cache.remember(key, 'modern');
    assert.equal(writes, 2, 'an entry over an hour old is written anew');
    assert.ok((store.held as Record<string, { learnedAt: number }>)[digest!]!.learnedAt > Date.now() - 60_000);
  });
});

describe("the CLI's era file (eraFilePath)", () => {
  test('MCP_HOST_ERA_FILE first (off, none, 0, false in any case: no file); then an absolute XDG_CACHE_HOME; then ~/.cache', () => {
    assert.equal(eraFilePath({ MCP_HOST_ERA_FILE: '/x/eras.json', XDG_CACHE_HOME: '/c', HOME: '/h' }), '/x/eras.json');
    for (const off of ['off', 'OFF', ' none ', '0', 'false', 'No']) assert.equal(eraFilePath({ MCP_HOST_ERA_FILE: off, HOME: '/h' }), undefined, off);
    assert.equal(eraFilePath({ XDG_CACHE_HOME: '/c', HOME: '/h' }), path.join('/c', 'mcp-host', 'endpoint-eras.json'));
    assert.equal(eraFilePath({ XDG_CACHE_HOME: 'relative/cache', HOME: '/h' }), path.join('/h', '.cache', 'mcp-host', 'endpoint-eras.json'), 'a relative XDG_CACHE_HOME is ignored');
    assert.equal(eraFilePath({ MCP_HOST_ERA_FILE: '', HOME: '/h' }), path.join('/h', '.cache', 'mcp-host', 'endpoint-eras.json'), 'empty: the default');
    assert.equal(compileCacheDirectory({ XDG_CACHE_HOME: '/c', HOME: '/h' }), path.join('/c', 'mcp-host', 'compile-cache'), 'the compiled code beside it');
    assert.equal(compileCacheDirectory({ HOME: '/h' }), path.join('/h', '.cache', 'mcp-host', 'compile-cache'));
  });
});

describe("the CLI's era file holds the HTTP+SSE endpoints too", () => {
  test('each store reads and rewrites only its own entries; a file of eras alone (older runs) still reads as eras', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-era-file-'));
    const file = path.join(dir, 'endpoint-eras.json');
    try {
      const now = Date.now();
      fs.writeFileSync(file, JSON.stringify({ abc: { era: 'legacy', learnedAt: now } }));
      const eras = fileEraStore(file);
      const sse = fileLegacySseStore(file);
      assert.deepEqual(eras.read(), { abc: { era: 'legacy', learnedAt: now } });
      assert.deepEqual(sse.read(), {});

      sse.write({ def: { learnedAt: now } });
      assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { abc: { era: 'legacy', learnedAt: now }, 'sse:def': { learnedAt: now } });
      assert.deepEqual(sse.read(), { def: { learnedAt: now } });
      assert.deepEqual(eras.read(), { abc: { era: 'legacy', learnedAt: now } }, 'the eras do not see the HTTP+SSE entries');

      eras.write({ ghi: { era: 'modern', learnedAt: now } });
      assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { ghi: { era: 'modern', learnedAt: now }, 'sse:def': { learnedAt: now } }, 'an era write keeps the HTTP+SSE entries');
      sse.write({});
      assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { ghi: { era: 'modern', learnedAt: now } }, 'and the other way round');

      fs.writeFileSync(file, '[1, 2]');
      assert.deepEqual(eras.read(), {});
      assert.deepEqual(sse.read(), {});

      // What a write keeps of the other store's entries: only what that store writes, so nothing
      // put there by hand grows the file past what is read.
      const long = 'x'.repeat(80);
      fs.writeFileSync(file, JSON.stringify({ abc: { era: 'legacy', learnedAt: now, note: 'y'.repeat(1000) }, bad: 'junk', [long]: { era: 'modern', learnedAt: now }, 'sse:def': { learnedAt: now, extra: [1, 2, 3] }, 'sse:bad': { learnedAt: 'soon' } }));
      sse.write({ jkl: { learnedAt: now } });
      assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { abc: { era: 'legacy', learnedAt: now }, 'sse:jkl': { learnedAt: now } });
      fs.writeFileSync(file, JSON.stringify({ 'sse:def': { learnedAt: now, extra: [1, 2, 3] }, 'sse:bad': { learnedAt: null } }));
      eras.write({ abc: { era: 'modern', learnedAt: now } });
      assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { 'sse:def': { learnedAt: now }, abc: { era: 'modern', learnedAt: now } });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('without a home directory (no HOME, and a user the system has no record of)', () => {
  test('the era file, the token file and npm cache lookup are simply not used: nothing throws', () => {
    const realHomedir = os.homedir;
    os.homedir = () => {
      throw new Error('uv_os_homedir returned ENOENT');
    };
    try {
      assert.equal(homeDirectory({}), undefined);
      assert.equal(eraFilePath({}), undefined);
      assert.equal(compileCacheDirectory({}), undefined, 'no compile cache either (Node would pick the shared temporary folder)');
      assert.equal(tokenFilePath({}), undefined);
      assert.equal(npmCacheDir({}, 'linux'), undefined);
      assert.equal(eraFilePath({ XDG_CACHE_HOME: '/c' }), path.join('/c', 'mcp-host', 'endpoint-eras.json'), 'XDG needs no home');
      assert.equal(homeDirectory({ HOME: '/h' }), '/h');
    } finally {
      os.homedir = realHomedir;
    }
  });
});
