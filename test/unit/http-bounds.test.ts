// #18: HTTP bodies counted as they arrive and cancelled at their limit; redirects followed only
// where the caller's rule allows. Real streams and a real loopback HTTP server.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BodyTooLargeError, boundedResponse, drain, excerptText, readBodyLimited, readTextPrefix } from '../../src/transport/httpBody';
import { MAX_REDIRECTS, RedirectRefusedError, fetchFollowing, fetchFollowingThen, sameOriginHop } from '../../src/transport/redirects';
import { createNodeFetch } from '../../src/transport/nodeHttp';

/** A body of `chunks` chunks of `size` bytes (endless when chunks is Infinity); counts what was pulled and whether it was cancelled. */
function streamed(size: number, chunks: number, headers: Record<string, string> = {}) {
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled >= chunks) return controller.close();
      seen.pulled++;
      controller.enqueue(new Uint8Array(size).fill(97));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { res: new Response(body, { headers }), seen };
}

describe('bounded bodies', () => {
  test('an endless body fails at the limit, naming what, the bytes seen and the limit, and is cancelled', async () => {
    const { res, seen } = streamed(64 * 1024, Infinity);
    await assert.rejects(readBodyLimited(res, 1024 * 1024, 'the answer to tools/list request'), (err: unknown) => {
      assert.ok(err instanceof BodyTooLargeError);
      assert.match(err.message, /^the answer to tools\/list request is larger than the limit of 1048576 bytes \(1114112 bytes arrived/);
      return true;
    });
    assert.equal(seen.cancelled, true);
    assert.ok(seen.pulled <= 18, `${seen.pulled} chunks were read`);
  });

  test('a declared Content-Length over the limit fails before reading; one within it is read whole', async () => {
    const over = streamed(10, 1, { 'content-length': '5000000' });
    await assert.rejects(readBodyLimited(over.res, 1000, 'x'), /its Content-Length says 5000000/);
    assert.equal(over.seen.pulled, 0);
    const within = streamed(100, 3);
    assert.equal((await readBodyLimited(within.res, 300, 'x')).byteLength, 300);
  });

  test('an excerpt reads the first bytes only; a drain stops early; boundedResponse keeps status and headers', async () => {
    const excerpt = streamed(4096, Infinity);
    assert.equal((await readTextPrefix(excerpt.res, 8192)).length, 8192);
    assert.equal(excerpt.seen.cancelled, true);
    const drained = streamed(4096, Infinity);
    await drain(drained.res);
    assert.equal(drained.seen.cancelled, true);
    const small = new Response('{"a":1}', { status: 201, headers: { 'x-kept': 'yes' } });
    const copy = await boundedResponse(small, 100, 'x');
    assert.equal(copy.status, 201);
    assert.equal(copy.headers.get('x-kept'), 'yes');
    assert.deepEqual(await copy.json(), { a: 1 });
  });

  test('an error body that never ends: the excerpt is what arrived within the wait, and the body is cancelled', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('Access is only allowed at localhost:1234'));
      },
      cancel() {
        cancelled = true;
      },
    });
    assert.equal(await readTextPrefix(new Response(body)), 'Access is only allowed at localhost:1234');
    assert.equal(cancelled, true);
  });

  test('excerptText scans only the head of a huge text', () => {
    const text = `${'word '.repeat(2_000_000)}`;
    const started = process.hrtime.bigint();
    const out = excerptText(text, 100);
    // A generous bound (the head takes well under a millisecond; 50 ms failed once on a loaded CI
    // machine): whitespace-folding all 10 MB takes about 700 ms here, so a full scan still fails it.
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    assert.ok(ms < 300, `${ms} ms`);
    assert.ok(out.endsWith('…') && out.length === 101);
  });
});

describe('redirects', () => {
  test('the hop rule: same origin only, never https to http, the target named by origin only', () => {
    sameOriginHop(new URL('https://a.example/mcp'), new URL('https://a.example/other?x=1'));
    assert.throws(() => sameOriginHop(new URL('https://a.example/mcp'), new URL('http://a.example/mcp?sig=secret')), (err: unknown) => {
      assert.ok(err instanceof RedirectRefusedError);
      assert.match(err.message, /plain http at http:\/\/a\.example;/);
      assert.doesNotMatch(err.message, /secret/);
      return true;
    });
    assert.throws(() => sameOriginHop(new URL('http://127.0.0.1:1/mcp'), new URL('http://127.0.0.1:2/mcp')), /another origin, http:\/\/127\.0\.0\.1:2;/);
  });

  test('followed by hand: 307 repeats the POST on the same origin; a loop stops after a few hops', async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${body}`);
        if (req.url === '/start') res.writeHead(307, { location: '/end' }).end();
        else if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
        else if (req.url!.startsWith('/chain/') && req.url !== '/chain/0') res.writeHead(302, { location: `/chain/${Number(req.url!.slice(7)) - 1}` }).end();
        else res.writeHead(200).end('done');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await fetchFollowing(fetch, new URL(`${base}/start`), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' }, sameOriginHop);
      assert.equal(await res.text(), 'done');
      assert.deepEqual(seen, ['POST /start {"x":1}', 'POST /end {"x":1}']);
      await assert.rejects(fetchFollowing(fetch, new URL(`${base}/loop`), { method: 'GET', headers: {} }, sameOriginHop), new RegExp(`more than ${MAX_REDIRECTS} times`));
      // MAX_REDIRECTS hops are followed, one more is not.
      seen.length = 0;
      const chain = await fetchFollowing(fetch, new URL(`${base}/chain/${MAX_REDIRECTS}`), { method: 'GET', headers: {} }, sameOriginHop);
      assert.equal(await chain.text(), 'done');
      assert.equal(seen.length, MAX_REDIRECTS + 1);
      await assert.rejects(fetchFollowing(fetch, new URL(`${base}/chain/${MAX_REDIRECTS + 1}`), { method: 'GET', headers: {} }, sameOriginHop), new RegExp(`more than ${MAX_REDIRECTS} times`));
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('with the next step: `failed` gets the failures of the request and its hops, never what `answered` throws', async () => {
    const server = http.createServer((req, res) => {
      if (req.url === '/hop') res.writeHead(307, { location: '/end' }).end();
      else if (req.url === '/away') res.writeHead(302, { location: 'http://elsewhere.example/' }).end();
      else res.writeHead(200).end('done');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const agent = new http.Agent({ keepAlive: true });
    const nodeFetch = createNodeFetch(() => agent);
    const failures: unknown[] = [];
    const failed = (err: unknown): never => {
      failures.push(err);
      throw new Error('mapped', { cause: err });
    };
    const answerError = new Error('thrown by answered');
    const throwing = (): never => {
      throw answerError;
    };
    const follow = (path: string, answered: (res: Response) => unknown, fetchFn: typeof fetch = nodeFetch) =>
      fetchFollowingThen(fetchFn, new URL(`${base}${path}`), { method: 'GET', headers: {} }, sameOriginHop, answered, failed);
    try {
      // The answer, directly and after a hop: `answered` has it, and what it throws passes unmapped.
      assert.equal(await follow('/end', (res) => res.text()), 'done');
      assert.equal(await follow('/hop', (res) => res.text()), 'done');
      await assert.rejects(follow('/end', throwing), (err) => err === answerError);
      await assert.rejects(follow('/hop', throwing), (err) => err === answerError);
      await assert.rejects(follow('/end', () => Promise.reject(answerError)), (err) => err === answerError);
      assert.equal(failures.length, 0);
      // A refused hop, a refused connection, a fetch that throws at once: `failed` maps each.
      await assert.rejects(follow('/away', throwing), /mapped/);
      assert.ok(failures[0] instanceof RedirectRefusedError);
      await assert.rejects(
        fetchFollowingThen(nodeFetch, new URL('http://127.0.0.1:1/'), { method: 'GET', headers: {} }, sameOriginHop, throwing, failed),
        /mapped/,
      );
      assert.ok(failures[1] instanceof TypeError);
      const syncThrow = new Error('thrown at once');
      await assert.rejects(
        follow('/end', throwing, () => {
          throw syncThrow;
        }),
        /mapped/,
      );
      assert.equal(failures[2], syncThrow);
      assert.equal(failures.length, 3);
    } finally {
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
