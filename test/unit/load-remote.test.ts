// The remote part (HTTP transports, OAuth) loads on first use; what must be set up on it waits
// for that (src/host/loadRemote.ts). The extension's wiring of the HTTP+SSE memory in globalState
// is disposed when the extension deactivates, which may come before the part ever loads.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { loadRemote, whenRemoteLoads } from '../../src/host/loadRemote';

test('a setup runs when the remote part loads, at once once it has, and never if disposed before', () => {
  const ran: string[] = [];
  const kept = whenRemoteLoads((remote) => ran.push(`kept:${typeof remote.legacySseEndpoints.has}`));
  const dropped = whenRemoteLoads(() => ran.push('dropped'));
  dropped.dispose();
  assert.deepEqual([...ran], [], 'nothing runs before the part loads');
  const remote = loadRemote();
  assert.deepEqual([...ran], ['kept:function']);
  assert.equal(loadRemote(), remote, 'loaded once');
  whenRemoteLoads(() => ran.push('late')).dispose();
  assert.deepEqual([...ran], ['kept:function', 'late'], 'a setup after the load runs at once');
  kept.dispose();
  dropped.dispose();
  assert.deepEqual([...ran], ['kept:function', 'late'], 'disposing a setup that ran changes nothing');
});
