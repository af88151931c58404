// The era cache's store (versioning.mdx: clients MAY persist an endpoint's era across restarts):
// two VS Code windows share one globalState, so each write merges into what the store holds now.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EraCache, type EraStore } from '../../src/protocol/eraCache';

function sharedStore(): EraStore & { held: unknown } {
  const store = {
    held: undefined as unknown,
    read: () => store.held,
    write: (eras: Record<string, string>) => {
      store.held = { ...eras };
    },
  };
  return store;
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
    assert.deepEqual(Object.values(store.held as object).sort(), ['legacy', 'modern']);

    second.forget('http://a.example/mcp');
    first.remember('http://c.example/mcp', 'legacy');
    assert.deepEqual(Object.values(store.held as object).sort(), ['legacy', 'modern'], 'a is gone, b and c are kept');

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
