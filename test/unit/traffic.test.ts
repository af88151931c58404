import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { TrafficRecorder, approximateBytes, buildTimeline, messageBytes, trafficJsonLine, type TrafficEntry } from '../../src/host/traffic';
import { buildTrafficModel, exportLines, rowCopyText, rowDetail, DETAIL_LIMIT, type TrafficSource } from '../../src/vscode/traffic/trafficRows';
import { Redactor } from '../../src/host/redact';
import { ProtocolTrace, sendOnBehalfOf } from '../../src/host/connection/protocolTrace';
import { nullLogger } from '../../src/util/logger';

function recorder(capacity = 100): TrafficRecorder {
  return new TrafficRecorder(capacity);
}

const request = (id: number | string, method: string, params: unknown = {}) => ({ jsonrpc: '2.0', id, method, params });
const result = (id: number | string, value: unknown = {}) => ({ jsonrpc: '2.0', id, result: value });
const failure = (id: number | string, code: number, message: string) => ({ jsonrpc: '2.0', id, error: { code, message } });
const notification = (method: string, params: unknown = {}) => ({ jsonrpc: '2.0', method, params });

function source(name: string, rec: TrafficRecorder, secrets: string[] = []): TrafficSource {
  const redactor = new Redactor();
  redactor.add(secrets);
  return { id: `/ws/.vscode/mcp.json#${name}`, name, traffic: rec, redact: (t) => redactor.redact(t) };
}

describe('the traffic recorder', () => {
  test('keeps the newest messages up to its capacity, oldest first', () => {
    const rec = recorder(3);
    for (let i = 1; i <= 5; i++) rec.recordMessage('send', request(i, 'ping'));
    const ids = rec.entries().map((e) => (e.kind === 'message' ? (e.message as { id: number }).id : undefined));
    assert.deepEqual(ids, [3, 4, 5]);
    assert.deepEqual(rec.entries().map((e) => e.seq), [3, 4, 5]);
  });

  test('records nothing when its capacity is 0, and starts when it is raised', () => {
    const rec = recorder(0);
    rec.recordMessage('send', request(1, 'ping'));
    rec.recordEvent('running');
    assert.equal(rec.entries().length, 0);
    assert.equal(rec.enabled, false);
    rec.setCapacity(2);
    rec.recordMessage('send', request(2, 'ping'));
    assert.equal(rec.entries().length, 1);
  });

  test('a smaller capacity keeps the newest entries that fit; 0 drops them all', () => {
    const rec = recorder(10);
    for (let i = 1; i <= 6; i++) rec.recordMessage('receive', result(i));
    rec.setCapacity(2);
    assert.deepEqual(rec.entries().map((e) => e.seq), [5, 6]);
    rec.recordMessage('receive', result(7));
    assert.deepEqual(rec.entries().map((e) => e.seq), [6, 7]);
    rec.setCapacity(0);
    assert.deepEqual(rec.entries(), []);
  });

  test('entries keep their seq, time, direction and origin through wrap-around and growth; the same object on every read', () => {
    const rec = recorder(150);
    const origin = { via: 'gateway' as const, name: 'client-a' };
    const before = Date.now();
    for (let i = 1; i <= 400; i++) {
      if (i % 7 === 0) rec.recordEvent(`event ${i}`);
      else rec.recordMessage(i % 2 === 0 ? 'send' : 'receive', request(i, 'ping'), i % 3 === 0 ? origin : undefined);
    }
    const entries = rec.entries();
    assert.equal(entries.length, 150);
    assert.deepEqual(entries.map((e) => e.seq), Array.from({ length: 150 }, (_, i) => 251 + i));
    for (const entry of entries) {
      assert.ok(entry.at >= before && entry.at <= Date.now());
      if (entry.seq % 7 === 0) {
        assert.deepEqual(entry, { seq: entry.seq, at: entry.at, kind: 'event', text: `event ${entry.seq}` });
        continue;
      }
      assert.equal(entry.kind, 'message');
      if (entry.kind !== 'message') continue;
      assert.equal(entry.direction, entry.seq % 2 === 0 ? 'send' : 'receive');
      assert.deepEqual(entry.message, request(entry.seq, 'ping'));
      // A slot once used by a relayed message must not lend its origin to the next one.
      assert.equal(entry.origin, entry.seq % 3 === 0 ? origin : undefined);
      assert.equal('origin' in entry, entry.seq % 3 === 0);
    }
    const again = rec.entries();
    assert.ok(again.every((entry, i) => entry === entries[i]), 'the same entry objects while they are recorded');
    rec.recordMessage('send', request(401, 'ping'));
    const next = rec.entries();
    assert.equal(next[0], entries[1]);
    assert.equal(next.at(-1)?.seq, 401);
  });

  test('keeps what a plain list of the newest entries keeps, through records, capacity changes and clears', () => {
    // A seeded pseudo-random run against the obvious model: every entry ever recorded, cut to the capacity.
    let seed = 21;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const rec = recorder(5);
    let capacity = 5;
    let model: Array<{ seq: number; kind: string; id?: number; text?: string; direction?: string; via?: string }> = [];
    // A recorder of capacity 0 records nothing and counts nothing: seqs number what was recorded.
    let seq = 0;
    let made = 0;
    const next = () => (capacity > 0 ? ++seq : seq);
    for (let step = 0; step < 3000; step++) {
      const what = random(100);
      if (what < 70) {
        const direction = random(2) === 0 ? 'send' : 'receive';
        const via = random(5) === 0 ? `client-${random(3)}` : undefined;
        const id = ++made;
        rec.recordMessage(direction, request(id, 'ping'), via ? { via: 'gateway', name: via } : undefined);
        model.push({ seq: next(), kind: 'message', id, direction, via });
      } else if (what < 90) {
        const id = ++made;
        rec.recordEvent(`event ${id}`);
        model.push({ seq: next(), kind: 'event', text: `event ${id}` });
      } else if (what < 97) {
        capacity = random(4) === 0 ? 0 : 1 + random(70);
        rec.setCapacity(capacity);
      } else {
        rec.clear();
        model = [];
      }
      if (capacity === 0) model = [];
      model = model.slice(-capacity || model.length);
      if (step % 7 !== 0) continue;
      const seen = rec.entries().map((e) =>
        e.kind === 'event'
          ? { seq: e.seq, kind: e.kind, text: e.text }
          : { seq: e.seq, kind: e.kind, id: (e.message as { id: number }).id, direction: e.direction, via: e.origin?.name },
      );
      assert.deepEqual(seen, model.map((m) => (m.kind === 'event' ? m : { ...m })), `step ${step}`);
    }
  });

  test('tells listeners, and clear() empties it', () => {
    const rec = recorder(5);
    let fired = 0;
    const sub = rec.onDidRecord(() => fired++);
    rec.recordMessage('send', request(1, 'ping'));
    rec.recordEvent('stopped');
    rec.clear();
    assert.equal(fired, 3);
    assert.equal(rec.entries().length, 0);
    sub.dispose();
  });
});

describe('the timeline', () => {
  function entries(...items: Array<[direction: 'send' | 'receive', message: unknown, at: number]>): TrafficEntry[] {
    return items.map(([direction, message, at], i) => ({ seq: i + 1, at, kind: 'message', direction, message }));
  }

  test('pairs a request with its response: status, latency and the response entry', () => {
    const rows = buildTimeline(entries(['send', request(1, 'tools/call', { name: 'echo' }), 1000], ['receive', result(1, { content: [] }), 1042]));
    assert.equal(rows.length, 1);
    assert.equal(rows[0].kind, 'request');
    assert.equal(rows[0].method, 'tools/call');
    assert.equal(rows[0].status, 'ok');
    assert.equal(rows[0].latencyMs, 42);
    assert.ok(rows[0].response);
  });

  test('ids of the two directions are separate: a server request with the same id pairs with our answer', () => {
    const rows = buildTimeline(
      entries(
        ['send', request(1, 'tools/call'), 1],
        ['receive', request(1, 'sampling/createMessage'), 2],
        ['send', result(1, { role: 'assistant' }), 3],
        ['receive', failure(1, -32602, 'bad arguments'), 4],
      ),
    );
    assert.equal(rows.length, 2);
    const [call, sampling] = rows;
    assert.equal(call.kind, 'request');
    assert.equal(call.status, 'error');
    assert.deepEqual(call.error, { code: -32602, message: 'bad arguments' });
    assert.equal(call.latencyMs, 3);
    assert.equal(sampling.kind, 'server-request');
    assert.equal(sampling.status, 'ok');
    assert.equal(sampling.latencyMs, 1);
  });

  test('notifications stand alone; a request we cancelled says so; an unmatched response is its own row', () => {
    const rows = buildTimeline(
      entries(
        ['send', request(7, 'tools/call'), 1],
        ['receive', notification('notifications/progress', { progress: 1 }), 2],
        ['send', notification('notifications/cancelled', { requestId: 7 }), 3],
        ['receive', result(99), 4],
      ),
    );
    assert.deepEqual(
      rows.map((r) => [r.kind, r.method, r.status]),
      [
        ['request', 'tools/call', 'cancelled'],
        ['notification', 'notifications/progress', 'none'],
        ['notification', 'notifications/cancelled', 'none'],
        ['response', undefined, 'ok'],
      ],
    );
  });

  test('a request its connection never answered is "unanswered" at the next lifecycle event; ids start again after it', () => {
    const rows = buildTimeline([
      { seq: 1, at: 1, kind: 'message', direction: 'send', message: request(5, 'tools/call') },
      { seq: 2, at: 2, kind: 'event', text: 'error: the server exited' },
      { seq: 3, at: 3, kind: 'message', direction: 'send', message: request(5, 'tools/list') },
      { seq: 4, at: 4, kind: 'message', direction: 'receive', message: result(5) },
      { seq: 5, at: 5, kind: 'message', direction: 'receive', message: request(9, 'elicitation/create') },
      { seq: 6, at: 6, kind: 'message', direction: 'receive', message: notification('notifications/cancelled', { requestId: 9 }) },
    ]);
    assert.deepEqual(
      rows.map((r) => [r.method ?? r.kind, r.status]),
      [
        ['tools/call', 'unanswered'],
        ['event', 'none'],
        ['tools/list', 'ok'],
        ['elicitation/create', 'cancelled'],
        ['notifications/cancelled', 'none'],
      ],
    );
  });

  test('a string id and a number id are different requests; a batch counts as its members', () => {
    const rows = buildTimeline(entries(['send', [request('1', 'a'), request(1, 'b')], 1], ['receive', [result(1), result('1')], 5]));
    assert.deepEqual(
      rows.map((r) => [r.method, r.status, r.latencyMs]),
      [
        ['a', 'ok', 4],
        ['b', 'ok', 4],
      ],
    );
    assert.notEqual(rows[0].key, rows[1].key);
  });

  test('events are rows of their own, in order', () => {
    const rec = recorder();
    rec.recordEvent('starting');
    rec.recordMessage('send', request(1, 'initialize'));
    rec.recordMessage('receive', result(1));
    rec.recordEvent('running: everything 1.0');
    assert.deepEqual(
      buildTimeline(rec.entries()).map((r) => r.kind),
      ['event', 'request', 'event'],
    );
  });
});

describe('the traffic view model', () => {
  const token = 'sk-live-0123456789abcdefXYZ';
  function twoServers() {
    const a = recorder();
    a.recordMessage('send', request(1, 'tools/call', { name: 'search', arguments: { query: 'penguins', apiKey: token } }));
    a.recordMessage('receive', result(1, { content: [{ type: 'text', text: 'found 3 penguins' }] }));
    const b = recorder();
    b.recordMessage('send', request(1, 'tools/list'));
    b.recordMessage('receive', result(1, { tools: [] }));
    b.recordMessage('receive', notification('notifications/tools/list_changed'));
    return [source('alpha', a, [token]), source('beta', b)];
  }

  test('filters by server, by method, and by text in the messages', () => {
    const sources = twoServers();
    assert.equal(buildTrafficModel(sources, {}).rows.length, 3);
    assert.deepEqual(buildTrafficModel(sources, { server: sources[1].id }).rows.map((r) => r.method), ['tools/list', 'notifications/tools/list_changed']);
    assert.deepEqual(buildTrafficModel(sources, { method: 'tools/call' }).rows.map((r) => r.server), ['alpha']);
    const byText = buildTrafficModel(sources, { text: 'PENGUINS' });
    assert.deepEqual(byText.rows.map((r) => r.method), ['tools/call']);
    assert.equal(byText.total, 3);
    assert.deepEqual(buildTrafficModel(sources, {}).methods, ['notifications/tools/list_changed', 'tools/call', 'tools/list']);
  });

  test('a secret is neither shown nor findable: details, copies and the search see it redacted', () => {
    const sources = twoServers();
    assert.equal(buildTrafficModel(sources, { text: token }).rows.length, 0);
    const model = buildTrafficModel(sources, { method: 'tools/call' });
    const [key, item] = [...model.index][0];
    const detail = rowDetail(key, item);
    assert.match(detail.request ?? '', /penguins/);
    assert.doesNotMatch(detail.request ?? '', new RegExp(token));
    assert.match(detail.response ?? '', /found 3 penguins/);
    assert.doesNotMatch(rowCopyText(item), new RegExp(token));
  });

  test('rows carry sizes in UTF-8 bytes and the row key names the server', () => {
    const rec = recorder();
    const message = request(1, 'ping', { text: 'é' });
    rec.recordMessage('send', message);
    const [row] = buildTrafficModel([source('gamma', rec)], {}).rows;
    assert.equal(row.requestBytes, Buffer.byteLength(JSON.stringify(message)));
    assert.equal(row.requestBytes, messageBytes(message));
    assert.match(row.key, /#gamma#1$/);
    assert.equal(row.status, 'pending');
  });

  test('a very large message is cut in the detail pane and whole in the copy', () => {
    const rec = recorder();
    rec.recordMessage('receive', result(1, { text: 'x'.repeat(DETAIL_LIMIT + 10) }));
    const model = buildTrafficModel([source('big', rec)], {});
    const [key, item] = [...model.index][0];
    const detail = rowDetail(key, item);
    assert.equal(detail.request?.length, DETAIL_LIMIT);
    assert.ok((detail.truncated?.request ?? 0) > DETAIL_LIMIT);
    assert.ok(rowCopyText(item).length > DETAIL_LIMIT);
  });

  test('the export is JSON Lines in time order, each line valid JSON and redacted', () => {
    const sources = twoServers();
    const lines = exportLines(buildTrafficModel(sources, {}).index.values());
    assert.equal(lines.length, 5);
    const parsed = lines.map((l) => JSON.parse(l) as { time: string; server: string; direction: string; message: { method?: string } });
    // The two servers wrote within the same millisecond: only each one's own order is known.
    assert.deepEqual(parsed.filter((p) => p.server === 'alpha').map((p) => p.direction), ['send', 'receive']);
    assert.deepEqual(parsed.filter((p) => p.server === 'beta').map((p) => p.message.method ?? 'result'), ['tools/list', 'result', 'notifications/tools/list_changed']);
    const times = parsed.map((p) => Date.parse(p.time));
    assert.ok(times.every((t, i) => !Number.isNaN(t) && (i === 0 || t >= times[i - 1])));
    assert.ok(lines.every((l) => !l.includes(token)));
  });

  test('an event line has no direction', () => {
    const line = trafficJsonLine({ seq: 1, at: 0, kind: 'event', text: 'stopped' }, 's', (t) => t);
    assert.deepEqual(JSON.parse(line), { time: '1970-01-01T00:00:00.000Z', server: 's', event: 'stopped' });
  });
});

describe('the traffic recorder\'s byte budget', () => {
  test('the oldest messages go when the kept ones are over the budget; the newest always stays', () => {
    const each = approximateBytes(result(1, { text: 'x'.repeat(300) }));
    const rec = new TrafficRecorder(100, each * 3 + 10);
    for (let i = 1; i <= 5; i++) rec.recordMessage('receive', result(i, { text: 'x'.repeat(300) }));
    assert.deepEqual(rec.entries().map((e) => e.seq), [3, 4, 5]);
    rec.recordMessage('receive', result(6, { text: 'y'.repeat(5000) }));
    assert.deepEqual(rec.entries().map((e) => e.seq), [6]);
    rec.recordMessage('send', request(7, 'ping'));
    assert.deepEqual(rec.entries().map((e) => e.seq), [7]);
  });

  test('the budget holds across the counts made while messages keep coming', () => {
    const each = approximateBytes(result(1, { text: 'x'.repeat(300) }));
    const rec = new TrafficRecorder(100, each * 30 + 10);
    // The second message makes the first count; the ring then fills and wraps, overwriting counted
    // and uncounted entries, and reading counts the rest.
    for (let i = 1; i <= 200; i++) rec.recordMessage('receive', result(i, { text: 'x'.repeat(300) }));
    assert.deepEqual(
      rec.entries().map((e) => e.seq),
      Array.from({ length: 30 }, (_, i) => 171 + i),
    );
    rec.recordMessage('receive', result(201, { text: 'x'.repeat(300) }));
    assert.deepEqual(
      rec.entries().map((e) => e.seq),
      Array.from({ length: 30 }, (_, i) => 172 + i),
    );
    rec.dispose();
  });

  test('the size estimate walks any nesting, and deep and shallow walks agree', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    assert.ok(approximateBytes(deep) > 200_000);
    let nested: unknown = { text: 'x'.repeat(10) };
    for (let i = 0; i < 40; i++) nested = { a: nested, list: [1, 'two', null] };
    const shallowFirst = approximateBytes(nested);
    assert.equal(shallowFirst, approximateBytes({ wrap: nested }) - 'wrap'.length - 4 - 2);
  });

  test('the size estimate is close to the JSON size', () => {
    for (const value of [result(1, { content: [{ type: 'text', text: 'hello'.repeat(1000) }] }), request(2, 'tools/call', { name: 'x', arguments: { a: [1, 2, 3], b: { c: null, d: true } } })]) {
      const exact = JSON.stringify(value).length;
      const estimate = approximateBytes(value);
      assert.ok(estimate > exact * 0.7 && estimate < exact * 1.5, `${estimate} vs ${exact}`);
    }
  });
});

describe('sendOnBehalfOf: who asked, in the traffic ring', () => {
  test('what is sent within the call is marked with the origin (nested calls with theirs); what is sent after it returns, or after it threw, is the host\'s own', () => {
    const rec = recorder();
    const trace = new ProtocolTrace(rec, nullLogger, new Redactor(), () => false);
    const agent = { via: 'gateway', name: 'chat-agent' } as const;
    const other = { via: 'gateway', name: 'other-agent' } as const;
    sendOnBehalfOf(agent, () => {
      trace.onMessage('send', request(1, 'tools/call'));
      sendOnBehalfOf(other, () => trace.onMessage('send', request(2, 'tools/call')));
      trace.onMessage('send', request(3, 'tools/call'));
      // What arrives meanwhile is the server's, never marked.
      trace.onMessage('receive', result(1));
    });
    trace.onMessage('send', request(4, 'tools/call'));
    assert.throws(() =>
      sendOnBehalfOf(agent, () => {
        trace.onMessage('send', request(5, 'tools/call'));
        throw new Error('the send failed');
      }),
    );
    trace.onMessage('send', request(6, 'tools/call'));
    const origins = rec.entries().map((e) => (e.kind === 'message' ? [e.direction, (e.message as { id: number }).id, e.origin?.name] : []));
    assert.deepEqual(origins, [
      ['send', 1, 'chat-agent'],
      ['send', 2, 'other-agent'],
      ['send', 3, 'chat-agent'],
      ['receive', 1, undefined],
      ['send', 4, undefined],
      ['send', 5, 'chat-agent'],
      ['send', 6, undefined],
    ]);
  });
});
