// transport/nodeHttp.ts against a real node:http server: what the transports rely on from fetch.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners, once } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createNodeFetch } from '../../src/transport/nodeHttp';
import { IDLE_SOCKET_MS, IDLE_SWEEP_MS, idleTimeOf, ownKeepAliveAgents } from '../../src/transport/keepAliveAgents';
import { freePort } from '../helpers/http';

describe('node:http fetch', () => {
  let server: http.Server;
  let base: string;
  const sockets = new Set<Socket>();
  let releaseStream: (() => void) | undefined;
  let hanging: ((socket: Socket) => void) | undefined;
  const agent = new http.Agent({ keepAlive: true });
  const nodeFetch = createNodeFetch(() => agent);

  before(async () => {
    server = http.createServer((req, res) => {
      sockets.add(req.socket);
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/echo') {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (c: string) => (body += c));
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json', 'X-Seen': 'yes' });
          res.end(JSON.stringify({ method: req.method, body, length: req.headers['content-length'] ?? null, custom: req.headers['x-custom'] ?? null }));
        });
        return;
      }
      if (url.pathname === '/sse') {
        // The first event now, the end only when the test says so.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        releaseStream = () => res.end('data: last\n\n');
        return;
      }
      if (url.pathname === '/hang') {
        hanging?.(req.socket); // and never answers
        return;
      }
      if (url.pathname === '/redirect') {
        res.writeHead(302, { location: 'http://elsewhere.example/' });
        res.end('moved');
        return;
      }
      if (url.pathname === '/empty') {
        res.writeHead(204);
        res.end();
        return;
      }
      if (url.pathname === '/cut') {
        // Promises 100 bytes, sends 5, then drops the connection.
        res.writeHead(200, { 'content-length': '100' });
        res.write('hello');
        setImmediate(() => req.socket.destroy());
        return;
      }
      res.writeHead(404);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    agent.destroy();
    http.globalAgent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('a POST with a string body and headers; the answer is a Response with lower-case headers', async () => {
    const res = await nodeFetch(`${base}/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Custom': 'v' }, body: '{"a":"é"}' });
    assert.equal(res.status, 200);
    assert.equal(res.ok, true);
    assert.equal(res.headers.get('x-seen'), 'yes');
    assert.deepEqual(await res.json(), { method: 'POST', body: '{"a":"é"}', length: String(Buffer.byteLength('{"a":"é"}')), custom: 'v' });
  });

  test('keep-alive: two requests one after the other use one socket', async () => {
    sockets.clear();
    for (let i = 0; i < 2; i++) {
      const res = await nodeFetch(`${base}/echo`, { method: 'POST', body: String(i) });
      await res.text();
    }
    assert.equal(sockets.size, 1);
  });

  test("keep-alive by default too (Node's global agents): one socket for two requests", async () => {
    const byDefault = createNodeFetch();
    sockets.clear();
    for (let i = 0; i < 2; i++) await (await byDefault(`${base}/echo`, { method: 'POST', body: String(i) })).text();
    assert.equal(sockets.size, 1);
  });

  test("the CLI's own agents: one keep-alive agent per protocol, without the idle timeout option, one socket for two requests", async () => {
    const plain = ownKeepAliveAgents(new URL(base));
    assert.equal(ownKeepAliveAgents(new URL(`${base}/other`)), plain);
    assert.notEqual(ownKeepAliveAgents(new URL('https://example.test/')), plain);
    const options = (plain as http.Agent & { options: http.AgentOptions }).options;
    assert.equal(options.keepAlive, true);
    assert.equal(options.timeout, undefined);
    const viaOwn = createNodeFetch(ownKeepAliveAgents);
    sockets.clear();
    for (let i = 0; i < 2; i++) await (await viaOwn(`${base}/echo`, { method: 'POST', body: String(i) })).text();
    assert.equal(sockets.size, 1);
    // Idle, the socket is closed before the server's Keep-Alive hint (Node's server says timeout=5),
    // and with no socket timeout (node:net would re-arm it on every read and write).
    await new Promise((resolve) => setImmediate(resolve));
    const free = Object.values(plain.freeSockets).flat();
    assert.equal(free.length, 1);
    assert.equal(idleTimeOf(free[0]!), IDLE_SOCKET_MS);
    assert.ok(IDLE_SOCKET_MS + IDLE_SWEEP_MS < 5000);
    assert.equal(free[0]!.timeout, undefined);
    plain.destroy();
  });

  test("the CLI's own agents: a server's shorter Keep-Alive hint wins (a second before it), a taken socket is not closed by it, a free one is", async () => {
    const serverSockets = new Set<Socket>();
    const short = http.createServer((req, res) => {
      serverSockets.add(req.socket);
      // The hint said by hand: the server itself keeps the connection far longer (below), so a close is the client's.
      res.writeHead(200, { 'content-type': 'text/plain', 'keep-alive': 'timeout=2' });
      // Longer than the socket's idle time: it must stay open while taken.
      if (req.url === '/slow') setTimeout(() => res.end('late'), 1000 + 3 * IDLE_SWEEP_MS);
      else res.end('ok');
    });
    short.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => short.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(short.address() as AddressInfo).port}`;
    const viaOwn = createNodeFetch(ownKeepAliveAgents);
    const agent = ownKeepAliveAgents(new URL(url));
    try {
      await (await viaOwn(`${url}/`, { method: 'GET' })).text();
      await new Promise((resolve) => setImmediate(resolve));
      const [idle] = Object.values(agent.freeSockets).flat();
      assert.equal(idleTimeOf(idle!), 1000);
      const slow = viaOwn(`${url}/slow`, { method: 'GET' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(Object.values(agent.freeSockets).flat().length, 0, 'the socket was taken');
      assert.equal(await (await slow).text(), 'late');
      assert.equal(idle!.destroyed, false, 'a taken socket is not closed for idleness');
      assert.equal(serverSockets.size, 1, 'one connection for both requests');
      // Free again: closed by the client after its idle time, before the server's hint (2 s).
      const closedBy = await Promise.race([
        new Promise((resolve) => idle!.once('close', () => resolve('client'))),
        new Promise((resolve) => setTimeout(() => resolve('nobody'), 10_000).unref()),
      ]);
      assert.equal(closedBy, 'client');
      assert.equal(Object.values(agent.freeSockets).flat().length, 0);
    } finally {
      agent.destroy();
      short.closeAllConnections();
      await new Promise((resolve) => short.close(resolve));
    }
  });

  test("the CLI's own agents: a free socket's idle time is measured on a clock that does not go back with the wall clock", async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'keep-alive': 'timeout=2' });
      res.end('ok');
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const viaOwn = createNodeFetch(ownKeepAliveAgents);
    const agent = ownKeepAliveAgents(new URL(url));
    const wallClock = Date.now;
    try {
      await (await viaOwn(`${url}/`)).text();
      await new Promise((resolve) => setImmediate(resolve));
      const [idle] = Object.values(agent.freeSockets).flat();
      assert.equal(idleTimeOf(idle!), 1000);
      // The system clock is set back an hour (NTP, by hand): the socket must still go after its second.
      Date.now = () => wallClock() - 3_600_000;
      const closedBy = await Promise.race([
        new Promise((resolve) => idle!.once('close', () => resolve('client'))),
        new Promise((resolve) => setTimeout(() => resolve('nobody'), 5_000).unref()),
      ]);
      assert.equal(closedBy, 'client');
    } finally {
      Date.now = wallClock;
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("the CLI's own agents: a request made just after a free socket is closed for idleness goes out on a live one", async () => {
    // /long's socket may stay 4 s, /short's 1 s; /short answers later, so its socket is freed last.
    const server = http.createServer((req, res) => {
      const short = req.url === '/short';
      res.writeHead(200, { 'content-type': 'text/plain', 'keep-alive': short ? 'timeout=2' : 'timeout=10' });
      if (short) setTimeout(() => res.end('ok'), 50);
      else res.end('ok');
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const viaOwn = createNodeFetch(ownKeepAliveAgents);
    const agent = ownKeepAliveAgents(new URL(url));
    try {
      // Two free sockets; the one freed last is taken first (lifo), and it is the one closed first.
      await Promise.all([viaOwn(`${url}/long`).then((res) => res.text()), viaOwn(`${url}/short`).then((res) => res.text())]);
      await new Promise((resolve) => setImmediate(resolve));
      const free = Object.values(agent.freeSockets).flat();
      assert.deepEqual(free.map((socket) => idleTimeOf(socket!)), [IDLE_SOCKET_MS, 1000]);
      // Checked after the timers of each loop turn: the request goes out when the sweep has just
      // destroyed the socket, before its 'close' event takes it off the agent's list.
      while (!free[1]!.destroyed) await new Promise((resolve) => setImmediate(resolve));
      assert.equal(Object.values(agent.freeSockets).flat().length, 2, "still listed: its 'close' has not come yet");
      assert.equal(await (await viaOwn(`${url}/long`)).text(), 'ok');
      assert.equal(free[0]!.destroyed, false);
    } finally {
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("the CLI's own agents: a server's hint of one second is too short to keep the socket (Node's rule)", async () => {
    const brief = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    brief.keepAliveTimeout = 1000; // Node's server then says Keep-Alive: timeout=1
    const seen = new Set<unknown>();
    brief.on('connection', (socket) => seen.add(socket));
    await new Promise<void>((resolve) => brief.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(brief.address() as AddressInfo).port}`;
    const viaOwn = createNodeFetch(ownKeepAliveAgents);
    const agent = ownKeepAliveAgents(new URL(url));
    try {
      for (let i = 0; i < 2; i++) {
        assert.equal(await (await viaOwn(`${url}/`, { method: 'GET' })).text(), 'ok');
        await new Promise((resolve) => setImmediate(resolve));
        assert.equal(Object.values(agent.freeSockets).flat().length, 0, 'not kept');
      }
      assert.equal(seen.size, 2, 'each request on a new connection');
    } finally {
      agent.destroy();
      brief.closeAllConnections();
      await new Promise((resolve) => brief.close(resolve));
    }
  });

  test("the CLI's own agents: a server's hint of zero seconds (Node's server below 1 s of keep-alive) is too short to keep the socket", async () => {
    const brief = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    brief.keepAliveTimeout = 500; // Node's server then says Keep-Alive: timeout=0, and closes the socket after 500 ms
    const seen = new Set<unknown>();
    brief.on('connection', (socket) => seen.add(socket));
    await new Promise<void>((resolve) => brief.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(brief.address() as AddressInfo).port}`;
    const viaOwn = createNodeFetch(ownKeepAliveAgents);
    const agent = ownKeepAliveAgents(new URL(url));
    try {
      for (let i = 0; i < 2; i++) {
        const res = await viaOwn(`${url}/`, { method: 'GET' });
        assert.equal(res.headers.get('keep-alive'), 'timeout=0');
        assert.equal(await res.text(), 'ok');
        await new Promise((resolve) => setImmediate(resolve));
        assert.equal(Object.values(agent.freeSockets).flat().length, 0, 'not kept');
      }
      assert.equal(seen.size, 2, 'each request on a new connection');
    } finally {
      agent.destroy();
      brief.closeAllConnections();
      await new Promise((resolve) => brief.close(resolve));
    }
  });

  test('streaming: the first SSE event is readable before the body ends', async () => {
    const res = await nodeFetch(`${base}/sse`, { headers: { accept: 'text/event-stream' } });
    const reader = res.body!.getReader();
    const first = await reader.read();
    assert.equal(new TextDecoder().decode(first.value), 'data: first\n\n');
    releaseStream!();
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    assert.equal(rest, 'data: last\n\n');
  });

  test('abort before the answer rejects with an AbortError and closes the socket', async () => {
    const controller = new AbortController();
    const arrived = new Promise<Socket>((resolve) => (hanging = resolve));
    const pending = nodeFetch(`${base}/hang`, { signal: controller.signal });
    const socket = await arrived;
    const closed = once(socket, 'close');
    controller.abort();
    await assert.rejects(pending, (err: Error) => err.name === 'AbortError');
    await closed;
  });

  test('abort while the body streams errors the body with the AbortError', async () => {
    const controller = new AbortController();
    const res = await nodeFetch(`${base}/sse`, { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await assert.rejects(reader.read(), (err: Error) => err.name === 'AbortError');
  });

  test('an already aborted signal rejects at once', async () => {
    await assert.rejects(nodeFetch(`${base}/echo`, { signal: AbortSignal.abort() }), (err: Error) => err.name === 'AbortError');
  });

  test("a header or method node:http refuses: its own error (naming the header), and the signal's abort listener removed", async () => {
    const controller = new AbortController();
    await assert.rejects(nodeFetch(`${base}/echo`, { headers: { 'x-api-key': 'a\u0100b' }, signal: controller.signal }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_INVALID_CHAR');
      assert.match(err.message, /x-api-key/);
      return true;
    });
    await assert.rejects(nodeFetch(`${base}/echo`, { method: 'GE T', signal: controller.signal }), (err: Error & { code?: string }) => err.code === 'ERR_INVALID_HTTP_TOKEN');
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  test('a refused connection: TypeError with the errno code in its cause, as fetch', async () => {
    const port = await freePort();
    await assert.rejects(nodeFetch(`http://127.0.0.1:${port}/`), (err: Error) => {
      assert.ok(err instanceof TypeError);
      assert.equal((err.cause as { code?: string }).code, 'ECONNREFUSED');
      return true;
    });
  });

  test('a body cut short: what came before is read, then the stream errors (terminated, with the cause)', async () => {
    const res = await nodeFetch(`${base}/cut`);
    const reader = res.body!.getReader();
    // Let the drop happen before anything is read: the chunk before it must not be lost.
    const clientSocket = Object.values(agent.sockets).flat()[0]!;
    if (!clientSocket.destroyed) await once(clientSocket, 'close');
    await new Promise((resolve) => setImmediate(resolve)); // the response's own close/error events follow the socket's
    const first = await reader.read();
    assert.equal(new TextDecoder().decode(first.value), 'hello');
    await assert.rejects(reader.read(), (err: Error) => err instanceof TypeError && err.message === 'terminated' && err.cause !== undefined);
  });

  test('redirects are returned as they are (manual); follow is refused', async () => {
    const res = await nodeFetch(`${base}/redirect`, { redirect: 'manual' });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), 'http://elsewhere.example/');
    assert.equal(await res.text(), 'moved');
    const unset = await nodeFetch(`${base}/redirect`);
    assert.equal(unset.status, 302);
    await unset.text();
    await assert.rejects(nodeFetch(`${base}/redirect`, { redirect: 'follow' }), TypeError);
  });

  test('a 204 has no body; HEAD has none either', async () => {
    const res = await nodeFetch(`${base}/empty`, { method: 'DELETE' });
    assert.equal(res.status, 204);
    assert.equal(res.body, null);
    const head = await nodeFetch(`${base}/echo`, { method: 'HEAD' });
    assert.equal(head.body, null);
  });

  test('refused inputs: other protocols, credentials in the URL, non-string bodies', async () => {
    await assert.rejects(nodeFetch('ftp://127.0.0.1/'), TypeError);
    await assert.rejects(nodeFetch(`http://user:pw@127.0.0.1:1/`), TypeError);
    await assert.rejects(nodeFetch(`${base}/echo`, { method: 'POST', body: new Uint8Array([1]) }), TypeError);
  });

  test('one URL object requested again: a change to it after its first request is seen (path, protocol, credentials)', async () => {
    const url = new URL(`${base}/echo?a=1#part`);
    const echoed = async () => (await (await nodeFetch(url, { method: 'POST', body: 'x' })).json()) as { method: string };
    assert.equal((await echoed()).method, 'POST');
    url.pathname = '/empty';
    assert.equal((await nodeFetch(url, { method: 'DELETE' })).status, 204);
    url.username = 'user';
    await assert.rejects(nodeFetch(url), TypeError, 'credentials added after the first request are refused too');
    url.username = '';
    url.protocol = 'ftp:';
    await assert.rejects(nodeFetch(url), TypeError, 'another protocol after the first request is refused too');
    url.protocol = 'http:';
    url.pathname = '/echo';
    assert.equal((await echoed()).method, 'POST');
  });

  test('an IPv6 host: the address without brackets to node:http, the Host header with them', async (t) => {
    const hosts: string[] = [];
    const six = http.createServer((req, res) => {
      hosts.push(req.headers.host ?? '');
      res.end('ok');
    });
    try {
      await new Promise<void>((resolve, reject) => six.once('error', reject).listen(0, '::1', resolve));
    } catch {
      t.skip('no IPv6 loopback here');
      return;
    }
    const port = (six.address() as AddressInfo).port;
    try {
      const url = new URL(`http://[::1]:${port}/`);
      for (let i = 0; i < 2; i++) assert.equal(await (await nodeFetch(url)).text(), 'ok');
      assert.deepEqual(hosts, [`[::1]:${port}`, `[::1]:${port}`]);
    } finally {
      six.closeAllConnections();
      await new Promise((resolve) => six.close(resolve));
    }
  });
});
