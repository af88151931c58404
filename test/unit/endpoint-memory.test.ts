// What the process remembers of HTTP endpoints (#21): the key of an endpoint, the era cache with
// its single-flight probe (protocol/eraCache.ts), and the GET-stream memory with the expiry of a
// 405 (transport/endpointMemory.ts). The round trips they save are counted against a real server
// in test/process/http-round-trips.test.ts.
import { test, describe } from 'node:test';
import * as assert from 'node:assert/strict';
import { EraCache } from '../../src/protocol/eraCache';
import { GET_UNSUPPORTED_MEMORY_MS, GetStreamMemory, LEGACY_SSE_MEMORY_MS, LegacySseEndpoints, endpointKeyOf, type LegacySseStore } from '../../src/transport/endpointMemory';

describe('endpointKeyOf', () => {
  test('origin, path and a digest of the query: the fragment and credentials are left out; paths and queries of one origin differ', () => {
    assert.equal(endpointKeyOf('https://example.test/mcp#x'), 'https://example.test/mcp');
    const withKey = endpointKeyOf('https://example.test/mcp?server=a&key=s3cret');
    assert.ok(withKey.startsWith('https://example.test/mcp?#'), withKey);
    assert.ok(!withKey.includes('s3cret') && !withKey.includes('server=a'), 'the query only as a digest');
    assert.equal(endpointKeyOf('https://example.test/mcp?server=a&key=s3cret#frag'), withKey);
    assert.notEqual(endpointKeyOf('https://example.test/mcp?server=b&key=s3cret'), withKey);
    assert.equal(endpointKeyOf('https://example.test:443/mcp'), 'https://example.test/mcp');
    assert.equal(endpointKeyOf('https://user:secret@example.test/mcp'), 'https://example.test/mcp');
    assert.notEqual(endpointKeyOf('https://example.test/github/mcp'), endpointKeyOf('https://example.test/jira/mcp'));
    assert.notEqual(endpointKeyOf('http://example.test/mcp'), endpointKeyOf('https://example.test/mcp'));
  });

  test('the key of a URL is remembered (bounded): past the bound, evicted URLs get the same key again', () => {
    const first = endpointKeyOf('https://example.test/mcp?server=0');
    const keys = new Set<string>();
    for (let i = 0; i < 1_000; i++) keys.add(endpointKeyOf(`https://example.test/mcp?server=${i}`));
    assert.equal(keys.size, 1_000, 'each query its own key');
    assert.equal(endpointKeyOf('https://example.test/mcp?server=0'), first);
    assert.equal(endpointKeyOf('not a url'), endpointKeyOf('not a url'), 'an unparsable URL keeps its digest key');
  });
});

describe('EraCache', () => {
  test('one probe at a time per endpoint: the others get its answer, which is remembered', async () => {
    const cache = new EraCache();
    assert.equal(cache.probeUnderWay('a'), undefined);
    const claim = cache.claimProbe('a');
    const waiting = cache.probeUnderWay('a');
    assert.ok(waiting);
    assert.equal(cache.probeUnderWay('b'), undefined, 'another endpoint is not affected');
    claim.settle('legacy');
    assert.equal(await waiting, 'legacy');
    assert.equal(cache.eraOf('a'), 'legacy');
    assert.equal(cache.probeUnderWay('a'), undefined);
    claim.settle('modern');
    assert.equal(cache.eraOf('a'), 'legacy', 'a claim settles once');
  });

  test('a failed probe remembers nothing and releases its waiters; forget takes a wrong memory back', async () => {
    const cache = new EraCache();
    cache.remember('a', 'modern');
    cache.forget('a');
    assert.equal(cache.eraOf('a'), undefined);
    const claim = cache.claimProbe('a');
    const waiting = cache.probeUnderWay('a');
    claim.settle(undefined);
    assert.equal(await waiting, undefined);
    assert.equal(cache.eraOf('a'), undefined);
  });

  test('remembers a bounded number of endpoints, the oldest forgotten first', () => {
    const cache = new EraCache();
    for (let i = 0; i <= 512; i++) cache.remember(`https://e${i}.test/mcp`, 'legacy');
    assert.equal(cache.eraOf('https://e0.test/mcp'), undefined);
    assert.equal(cache.eraOf('https://e1.test/mcp'), 'legacy');
    assert.equal(cache.eraOf('https://e512.test/mcp'), 'legacy');
  });
});

describe('GetStreamMemory', () => {
  test('the first session finds out; the others wait; a 405 is believed for a while, then asked again', async () => {
    const memory = new GetStreamMemory();
    const first = memory.decide('a');
    assert.equal(first.kind, 'find-out');
    const second = memory.decide('a');
    assert.equal(second.kind, 'wait');
    if (first.kind !== 'find-out' || second.kind !== 'wait') return;
    first.settle('unsupported');
    await second.known;
    const now = performance.now();
    assert.equal(memory.decide('a', now).kind, 'skip');
    assert.equal(memory.decide('a', now + GET_UNSUPPORTED_MEMORY_MS + 1).kind, 'find-out', 'forgotten after its time');
  });

  test('a supported stream is opened by every later session; a renewal forgets a 405 at once', () => {
    const memory = new GetStreamMemory();
    const first = memory.decide('a');
    if (first.kind !== 'find-out') assert.fail('the first session finds out');
    first.settle('supported');
    assert.equal(memory.decide('a').kind, 'open');
    memory.rememberUnsupported('a');
    assert.equal(memory.decide('a').kind, 'skip', 'a server that dropped its stream');
    memory.forgetUnsupported('a');
    assert.notEqual(memory.decide('a').kind, 'skip');
  });

  test("an 'unknown' outcome (5xx, network) lets the next session find out", () => {
    const memory = new GetStreamMemory();
    const first = memory.decide('a');
    if (first.kind !== 'find-out') assert.fail('the first session finds out');
    first.settle('unknown');
    assert.equal(memory.decide('a').kind, 'find-out');
  });
});

describe('endpoints remembered as HTTP+SSE', () => {
  test('believed for an hour, then the next session tries POST first again; forget() at once', () => {
    const memory = new LegacySseEndpoints();
    const now = performance.now();
    memory.remember('http://a.example/sse');
    assert.equal(memory.has('http://a.example/sse', now + 1000), true);
    assert.equal(memory.has('http://a.example/sse', now + LEGACY_SSE_MEMORY_MS + 1000), false);
    assert.equal(memory.has('http://a.example/sse'), false, 'an expired entry is gone');
    memory.remember('http://b.example/sse');
    memory.forget('http://b.example/sse');
    assert.equal(memory.has('http://b.example/sse'), false);
  });
});

describe('endpoints remembered as HTTP+SSE across processes (the CLI keeps them in its era file)', () => {
  function memoryStore(): LegacySseStore & { held: unknown; writes: number } {
    const store = {
      held: undefined as unknown,
      writes: 0,
      read: () => store.held,
      write: (learned: Record<string, unknown>) => {
        store.writes++;
        store.held = { ...learned };
      },
    };
    return store;
  }
  const URL_A = 'https://a.example/sse?key=sk-secret';

  test('a later process opens the stream at once; the store holds a digest and a time, no part of the URL; forget() clears it there too', () => {
    const store = memoryStore();
    const first = new LegacySseEndpoints();
    first.persistIn(store);
    first.remember(URL_A);
    const saved = JSON.stringify(store.held);
    for (const part of ['a.example', 'sse', 'sk-secret', 'https']) assert.ok(!saved.includes(part), `no ${part} in ${saved}`);
    assert.equal(Object.keys(store.held as object).length, 1);

    const later = new LegacySseEndpoints();
    assert.equal(later.has(URL_A), false, 'without the store: not known');
    later.persistIn(store);
    assert.equal(later.has(URL_A), true);
    assert.equal(later.has('https://b.example/sse'), false);

    later.forget(URL_A);
    assert.deepEqual(store.held, {});
    const third = new LegacySseEndpoints();
    third.persistIn(store);
    assert.equal(third.has(URL_A), false);
  });

  test('believed for the rest of the hour after it was learned, by a clock not set back; malformed entries are ignored', () => {
    const store = memoryStore();
    const writer = new LegacySseEndpoints();
    writer.persistIn(store);
    writer.remember(URL_A);
    const [digest] = Object.keys(store.held as object);
    const wall = Date.now();
    const now = performance.now();

    store.held = { [digest!]: { learnedAt: wall - 50 * 60_000 } };
    const memory = new LegacySseEndpoints();
    memory.persistIn(store);
    assert.equal(memory.has(URL_A, now, wall), true, 'learned 50 minutes ago');
    assert.equal(memory.has(URL_A, now + 9 * 60_000, wall + 9 * 60_000), true);
    assert.equal(memory.has(URL_A, now + 11 * 60_000, wall + 11 * 60_000), false, 'the hour is over in this process too');

    store.held = { [digest!]: { learnedAt: wall - LEGACY_SSE_MEMORY_MS - 1000 } };
    const old = new LegacySseEndpoints();
    old.persistIn(store);
    assert.equal(old.has(URL_A), false, 'learned over an hour ago');

    store.held = { [digest!]: { learnedAt: wall + 30 * 60_000 } };
    const future = new LegacySseEndpoints();
    future.persistIn(store);
    assert.equal(future.has(URL_A), false, 'learned "in the future": written under a clock since set back');

    for (const held of [[], 'x', { [digest!]: 'yes' }, { [digest!]: { learnedAt: 'now' } }, { [digest!]: { learnedAt: Number.NaN } }]) {
      store.held = held;
      const memory2 = new LegacySseEndpoints();
      memory2.persistIn(store);
      assert.equal(memory2.has(URL_A), false, JSON.stringify(held));
    }
  });

  test('each write merges into what the store holds now (another process may have written since); using an entry writes nothing', () => {
    const store = memoryStore();
    const one = new LegacySseEndpoints();
    const two = new LegacySseEndpoints();
    one.persistIn(store);
    two.persistIn(store);
    one.remember('https://a.example/sse');
    two.remember('https://b.example/sse');
    assert.equal(Object.keys(store.held as object).length, 2);
    const writes = store.writes;
    const reader = new LegacySseEndpoints();
    reader.persistIn(store);
    assert.equal(reader.has('https://a.example/sse'), true);
    assert.equal(reader.has('https://b.example/sse'), true);
    assert.equal(store.writes, writes, 'a session that used the memory did not renew it');
  });
});
