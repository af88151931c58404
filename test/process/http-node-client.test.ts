// transport/nodeHttp.ts against servers that do what node:http does not report, and against a
// server that closes a kept-alive connection as the next request goes out on it.
// Real servers (node:net and node:http in this process: the tests close a server's socket at the
// exact moment they need it closed, which a child process could not do).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import { HttpProxyAgent } from 'http-proxy-agent';
import { KEEP_ALIVE_AGENT_OPTIONS, LightAbort, createNodeFetch, directAgent, nodeHttpFetch, useHttpAgents, type FetchFunction } from '../../src/transport/nodeHttp';
import { ownKeepAliveAgents } from '../../src/transport/keepAliveAgents';
import { settledWithin } from '../helpers/http';

async function listen(server: net.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}


/** A server on node:net that writes `answer` once the request has arrived (and calls `then` with its socket). */
async function rawServer(answer: string, then?: (socket: net.Socket) => void) {
  const held = new Set<net.Socket>();
  let closedOnce!: () => void;
  const closed = new Promise<void>((resolve) => (closedOnce = resolve));
  const server = net.createServer((socket) => {
    held.add(socket);
    socket.on('error', () => {});
    socket.once('close', closedOnce);
    socket.once('data', () => {
      socket.write(answer);
      then?.(socket);
    });
  });
  const base = await listen(server);
  /** Closes the server and its connections (a kept-alive client would keep its close waiting). */
  const stop = async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return { base, closed, stop };
}

/** Waits for `condition`, failing after `ms`. */
async function until(condition: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function causeOf(result: Awaited<ReturnType<typeof settledWithin>>): Error & { code?: string } {
  assert.notEqual(result, 'pending', 'the request neither answered nor failed');
  assert.ok(typeof result === 'object' && 'error' in result, `expected a failure, got ${JSON.stringify(result)}`);
  const err = result.error as Error;
  assert.ok(err instanceof TypeError, String(err));
  assert.equal(err.message, 'fetch failed');
  return err.cause as Error & { code?: string };
}

describe('node:http fetch: a 101 it did not ask for, informational answers', { timeout: 30_000 }, () => {
  test('101 Switching Protocols to a request that asked for no upgrade: fails as fetch does, and the connection is closed', async () => {
    const { base, closed, stop } = await rawServer('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n');
    try {
      for (const method of ['POST', 'GET']) {
        const result = await settledWithin(createNodeFetch()(`${base}/mcp`, { method, body: method === 'POST' ? '{}' : undefined }));
        assert.match(causeOf(result).message, /switched protocols \(HTTP 101\).*no upgrade/);
      }
      await closed;
    } finally {
      await stop();
    }
  });

  test('101 without the upgrade headers: refused as a status fetch refuses', async () => {
    const { base, stop } = await rawServer('HTTP/1.1 101 Switching Protocols\r\n\r\n');
    try {
      const cause = causeOf(await settledWithin(createNodeFetch()(`${base}/mcp`, { method: 'POST', body: '{}' })));
      assert.ok(cause instanceof RangeError);
      assert.match(cause.message, /status 101/);
    } finally {
      await stop();
    }
  });

  test('an informational answer (102, 150) is passed over: the final answer is the response', async () => {
    for (const status of [102, 150]) {
      const { base, stop } = await rawServer(`HTTP/1.1 ${status} Informational\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok`);
      try {
        const result = await settledWithin(createNodeFetch()(`${base}/mcp`, { method: 'POST', body: '{}' }).then(async (res) => [res.status, await res.text()]));
        assert.deepEqual(result, { value: [200, 'ok'] }, `after ${status}`);
      } finally {
        await stop();
      }
    }
  });

  test('an informational answer and then the connection closes: fails (the connection closed), no hang', async () => {
    const { base, stop } = await rawServer('HTTP/1.1 102 Processing\r\n\r\n', (socket) => setImmediate(() => socket.end()));
    try {
      assert.equal(causeOf(await settledWithin(createNodeFetch()(`${base}/mcp`, { method: 'POST', body: '{}' }))).code, 'ECONNRESET');
    } finally {
      await stop();
    }
  });
});

/**
 * A node:http server that sends no Keep-Alive hint (as gunicorn), answers `ok BODY`, and records
 * each request's body and each connection; `hold` keeps a request of that body unanswered.
 */
async function countingServer(hold?: string) {
  const bodies: string[] = [];
  const connections: net.Socket[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      bodies.push(body);
      if (body === hold) return;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`ok ${body}`);
    });
  });
  server.keepAliveTimeout = 0; // no timeout of its own, so no `Keep-Alive: timeout=N`
  server.on('connection', (socket: net.Socket) => connections.push(socket));
  return { server, base: await listen(server), bodies, connections };
}

function freeSockets(agent: http.Agent): net.Socket[] {
  return Object.values(agent.freeSockets).flat() as net.Socket[];
}

/** The agent's one free socket, once the answer just read has given it back. */
async function theFreeSocket(agent: http.Agent): Promise<net.Socket> {
  while (freeSockets(agent).length === 0) await new Promise((resolve) => setImmediate(resolve));
  const free = freeSockets(agent);
  assert.equal(free.length, 1);
  return free[0]!;
}

/**
 * Sends `first`, then closes the server's end of the kept-alive connection and sends `second` at
 * once: the client has not yet read the close, so `second` goes out on that socket (checked: the
 * agent's free socket is taken, and still open on the client's side). The answer is wrapped, so
 * that awaiting this returns as soon as `second` is sent.
 */
async function sendOnClosedSocket(fetchFn: FetchFunction, url: string, agent: http.Agent, serverSide: () => net.Socket, init: RequestInit = {}): Promise<{ second: Promise<Response> }> {
  assert.equal(await (await fetchFn(url, { method: 'POST', body: 'first' })).text(), 'ok first');
  const idle = await theFreeSocket(agent);
  serverSide().destroy();
  const second = fetchFn(url, { method: 'POST', body: 'second', ...init });
  assert.equal(freeSockets(agent).length, 0, 'the request took the kept-alive socket');
  assert.equal(idle.destroyed, false, 'which the client still holds open');
  return { second };
}

describe('node:http fetch: a kept-alive connection the server closed as the request went out on it', { timeout: 60_000 }, () => {
  const agents: Array<[string, () => http.Agent, (url: URL) => http.Agent | undefined]> = [
    ["Node's global agent (as in VS Code)", () => http.globalAgent, directAgent],
    ["the CLI's own agents", () => ownKeepAliveAgents(new URL('http://127.0.0.1/')), ownKeepAliveAgents],
  ];
  for (const [name, agentOf, chooser] of agents) {
    test(`${name}: the request is sent once more on a new connection, and the server sees it once`, async () => {
      const { server, base, bodies, connections } = await countingServer();
      const agent = agentOf();
      try {
        const { second } = await sendOnClosedSocket(createNodeFetch(chooser), `${base}/mcp`, agent, () => connections.at(-1)!);
        assert.equal(await (await second).text(), 'ok second');
        assert.deepEqual(bodies, ['first', 'second']);
        assert.equal(connections.length, 2);
      } finally {
        agent.destroy();
        await close(server);
      }
    });
  }

  test('through a keep-alive proxy agent installed with useHttpAgents: sent once more through the proxy', async () => {
    const { server, base, bodies } = await countingServer();
    // A forwarding proxy in this process, so that its end of the client's connection can be closed.
    const proxyConnections: net.Socket[] = [];
    const forwarded: string[] = [];
    const proxy = http.createServer((req, res) => {
      forwarded.push(`${req.method} ${req.url}`);
      const upstream = http.request(req.url!, { method: req.method, headers: req.headers, agent: false }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    proxy.keepAliveTimeout = 0;
    proxy.on('connection', (socket: net.Socket) => proxyConnections.push(socket));
    const proxyUrl = await listen(proxy);
    const agent = new HttpProxyAgent(proxyUrl, KEEP_ALIVE_AGENT_OPTIONS);
    useHttpAgents(() => agent);
    try {
      const { second } = await sendOnClosedSocket(nodeHttpFetch(), `${base}/mcp`, agent, () => proxyConnections.at(-1)!);
      assert.equal(await (await second).text(), 'ok second');
      assert.deepEqual(bodies, ['first', 'second']);
      assert.deepEqual(forwarded, [`POST ${base}/mcp`, `POST ${base}/mcp`]);
      assert.equal(proxyConnections.length, 2);
    } finally {
      useHttpAgents(directAgent);
      agent.destroy();
      await close(proxy);
      await close(server);
    }
  });

  test('an abort while the request goes again aborts it; the abort listener is added and removed once', async () => {
    const { server, base, bodies, connections } = await countingServer('second');
    const agent = new http.Agent({ keepAlive: true });
    const counts = { added: 0, removed: 0 };
    const abort = new (class extends LightAbort {
      override addEventListener(type: string, listener: () => void): void {
        counts.added++;
        super.addEventListener(type, listener);
      }
      override removeEventListener(type: string, listener: () => void): void {
        counts.removed++;
        super.removeEventListener(type, listener);
      }
    })();
    try {
      const { second } = await sendOnClosedSocket(createNodeFetch(() => agent), `${base}/mcp`, agent, () => connections.at(-1)!, { signal: abort.signal });
      const outcome = settledWithin(second);
      await until(() => bodies.length === 2, 'the request sent again');
      const retried = connections.at(-1)!;
      assert.equal(connections.length, 2, 'the request went again on a new connection');
      const gone = new Promise((resolve) => retried.once('close', resolve));
      abort.abort();
      const result = await outcome;
      assert.ok(typeof result === 'object' && 'error' in result && (result.error as Error).name === 'AbortError', String(JSON.stringify(result)));
      await gone;
      assert.deepEqual(counts, { added: 1, removed: 1 });
    } finally {
      agent.destroy();
      await close(server);
    }
  });

  test('an abort before the closed connection fails: not sent again', async () => {
    const { server, base, bodies, connections } = await countingServer();
    const agent = new http.Agent({ keepAlive: true });
    const controller = new AbortController();
    try {
      const { second } = await sendOnClosedSocket(createNodeFetch(() => agent), `${base}/mcp`, agent, () => connections.at(-1)!, { signal: controller.signal });
      // Aborted once the request is written (node:http writes it on the next tick), before the
      // client reads the close (at the event loop's next poll).
      await new Promise((resolve) => process.nextTick(resolve));
      controller.abort();
      const result = await settledWithin(second);
      assert.ok(typeof result === 'object' && 'error' in result && (result.error as Error).name === 'AbortError');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(bodies, ['first']);
      assert.equal(connections.length, 1);
    } finally {
      agent.destroy();
      await close(server);
    }
  });

  test('a new connection the server closes before answering: fails, not sent again', async () => {
    const bodies: string[] = [];
    const server = http.createServer((req) => {
      req.resume();
      req.on('end', () => {
        bodies.push('request');
        req.socket.destroy();
      });
    });
    const base = await listen(server);
    const agent = new http.Agent({ keepAlive: true });
    try {
      assert.equal(causeOf(await settledWithin(createNodeFetch(() => agent)(`${base}/mcp`, { method: 'POST', body: '{}' }))).code, 'ECONNRESET');
      assert.deepEqual(bodies, ['request']);
    } finally {
      agent.destroy();
      await close(server);
    }
  });

  test('the request sent again fails too, on its new connection: it fails, sent twice in all (never a third time)', async () => {
    const { server, base, bodies, connections } = await countingServer();
    // The new connection made for the request sent again is closed by the server as soon as it comes.
    server.on('connection', (socket: net.Socket) => {
      if (connections.length === 2) socket.destroy();
    });
    const agent = new http.Agent({ keepAlive: true });
    try {
      const { second } = await sendOnClosedSocket(createNodeFetch(() => agent), `${base}/mcp`, agent, () => connections.at(-1)!);
      const cause = causeOf(await settledWithin(second));
      assert.equal(cause.code, 'ECONNRESET');
      assert.deepEqual(bodies, ['first']);
      assert.equal(connections.length, 2);
    } finally {
      agent.destroy();
      await close(server);
    }
  });

  /**
   * A node:http server (no Keep-Alive hint) that answers the body `first` with `ok first`, and hands
   * any other request to `second`; `bodies` lists every body it read. `sendSecond()` sends `first`,
   * waits until its kept-alive socket is free, then sends `second` on it.
   */
  async function firstThenSecond(second: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
    const bodies: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        bodies.push(body);
        if (body === 'first') res.end('ok first');
        else second(req, res);
      });
    });
    server.keepAliveTimeout = 0;
    const base = await listen(server);
    const agent = new http.Agent({ keepAlive: true });
    const fetchFn = createNodeFetch(() => agent);
    return {
      bodies,
      async sendSecond(): Promise<Response> {
        assert.equal(await (await fetchFn(`${base}/mcp`, { method: 'POST', body: 'first' })).text(), 'ok first');
        await theFreeSocket(agent);
        return fetchFn(`${base}/mcp`, { method: 'POST', body: 'second' });
      },
      async dispose() {
        agent.destroy();
        await close(server);
      },
    };
  }

  test('an answer had begun on the kept-alive connection: its body fails, the request is not sent again', async () => {
    const served = await firstThenSecond((req, res) => {
      // Promises 100 bytes, sends 3, then drops the connection.
      res.writeHead(200, { 'content-length': '100' });
      res.write('hel');
      setImmediate(() => req.socket.destroy());
    });
    try {
      const res = await served.sendSecond();
      assert.equal(res.status, 200);
      const result = await settledWithin(res.text());
      assert.ok(typeof result === 'object' && 'error' in result && (result.error as Error).message === 'terminated');
      assert.deepEqual(served.bodies, ['first', 'second']);
    } finally {
      await served.dispose();
    }
  });

  for (const [name, inform] of [
    ['100 Continue', (res: http.ServerResponse) => res.writeContinue()],
    ['103 Early Hints', (res: http.ServerResponse) => res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' })],
  ] as const) {
    test(`a ${name} head, then the kept-alive connection closes: the server has the request, which is not sent again`, async () => {
      const served = await firstThenSecond((req, res) => {
        // Says it has the request (a tool may be running), then drops the connection.
        inform(res);
        setImmediate(() => req.socket.destroy());
      });
      try {
        const cause = causeOf(await settledWithin(served.sendSecond()));
        assert.equal(cause.code, 'ECONNRESET');
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.deepEqual(served.bodies, ['first', 'second'], 'sent once');
      } finally {
        await served.dispose();
      }
    });
  }

  /**
   * A node:http server (no Keep-Alive hint) whose `warm(n)` leaves n free kept-alive sockets in the
   * agent: n requests at once, each on a connection of its own, answered together once all came.
   * Any other request is answered `ok BODY`, or given to `other`; `seen` lists their bodies.
   */
  async function pooledServer(agent: http.Agent, other?: (req: http.IncomingMessage) => void) {
    const seen: string[] = [];
    const held: Array<() => void> = [];
    let warmCount = 0;
    let connections = 0;
    const server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        if (body === 'warm') {
          held.push(() => res.end('warm'));
          if (held.length === warmCount) for (const answer of held.splice(0)) answer();
          return;
        }
        seen.push(body);
        if (other) other(req);
        else res.end(`ok ${body}`);
      });
    });
    server.keepAliveTimeout = 0;
    server.on('connection', () => connections++);
    const base = await listen(server);
    const fetchFn = createNodeFetch(() => agent);
    return {
      server,
      base,
      fetchFn,
      seen,
      connections: () => connections,
      async warm(n: number) {
        warmCount = n;
        const answers = await Promise.all(Array.from({ length: n }, () => fetchFn(`${base}/mcp`, { method: 'POST', body: 'warm' }).then((res) => res.text())));
        assert.deepEqual(answers, Array(n).fill('warm'));
        while (freeSockets(agent).length < n) await new Promise((resolve) => setImmediate(resolve));
        assert.equal(connections, n);
      },
    };
  }

  for (const [name, agentOf] of [
    ['a keep-alive agent', () => new http.Agent({ keepAlive: true })],
    ["the CLI's own agents", () => ownKeepAliveAgents(new URL('http://127.0.0.1/'))],
  ] as const) {
    test(`${name}, a server that closed all its idle connections at once: the request goes once more on a new connection, not on another of the dead ones`, async () => {
      const agent = agentOf();
      const pooled = await pooledServer(agent);
      try {
        await pooled.warm(3);
        pooled.server.closeIdleConnections();
        const request = pooled.fetchFn(`${pooled.base}/mcp`, { method: 'POST', body: 'second' });
        assert.equal(freeSockets(agent).length, 2, 'the request took one of the kept-alive sockets, which the client still holds open');
        assert.deepEqual(await settledWithin(request.then((res) => res.text())), { value: 'ok second' });
        assert.deepEqual(pooled.seen, ['second']);
        assert.equal(pooled.connections(), 4, 'the three warm connections and one new');
      } finally {
        agent.destroy();
        await close(pooled.server);
      }
    });
  }

  test('the server read the request, then dropped the connection (a worker killed mid-tool), live kept-alive sockets beside it: sent once more only', async () => {
    const agent = new http.Agent({ keepAlive: true });
    const pooled = await pooledServer(agent, (req) => req.socket.destroy());
    try {
      await pooled.warm(4);
      const cause = causeOf(await settledWithin(pooled.fetchFn(`${pooled.base}/mcp`, { method: 'POST', body: 'second' })));
      assert.equal(cause.code, 'ECONNRESET');
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Not once per live socket in the pool: the second time went on a new connection, whose failure is final.
      assert.deepEqual(pooled.seen, ['second', 'second']);
      assert.equal(pooled.connections(), 5);
    } finally {
      agent.destroy();
      await close(pooled.server);
    }
  });

  test('a server that closes idle connections a moment before the client would (no Keep-Alive hint): every request of a run of near misses is answered, each seen once', async () => {
    const IDLE_MS = 25;
    let seen = 0;
    const server = http.createServer((req, res) => {
      clearTimeout((req.socket as net.Socket & { idle?: NodeJS.Timeout }).idle);
      req.resume();
      req.on('end', () => {
        seen++;
        // As gunicorn's keepalive: the connection goes IDLE_MS after the answer, with no word of it.
        res.on('finish', () => ((req.socket as net.Socket & { idle?: NodeJS.Timeout }).idle = setTimeout(() => req.socket.destroy(), IDLE_MS)));
        res.end('ok');
      });
    });
    server.keepAliveTimeout = 0;
    const base = await listen(server);
    const agent = new http.Agent({ keepAlive: true });
    const fetchFn = createNodeFetch(() => agent);
    const RUNS = 80;
    try {
      for (let i = 0; i < RUNS; i++) {
        const result = await settledWithin(fetchFn(`${base}/mcp`, { method: 'POST', body: '{}' }).then((res) => res.text()));
        assert.deepEqual(result, { value: 'ok' }, `request ${i}`);
        // Around the server's idle time, a few ms either side.
        await new Promise((resolve) => setTimeout(resolve, IDLE_MS - 3 + (i % 7)));
      }
      assert.equal(seen, RUNS);
    } finally {
      agent.destroy();
      await close(server);
    }
  });
});
