// The bench scenarios. Each one gets a loaded client (see clients.mjs, or http-clients.mjs for
// the scenarios with transport: 'http') and returns the milliseconds of its timed part; setup
// the scenario does not measure (such as connecting before the calls) and teardown happen
// outside the timed part. Every answer is checked.
import { performance } from 'node:perf_hooks';

const MB = 1024 * 1024;

function check(condition, what) {
  if (!condition) throw new Error(`wrong answer: ${what}`);
}

/** Times fn between connect and close of one session. */
async function withSession(client, options, fn) {
  const session = await client.open(options);
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
}

const SPAWN_CYCLES = 5;
const SEQUENTIAL_CALLS = 5_000;
const CONCURRENT_CALLS = 20_000;
const IN_FLIGHT = 256;
const LARGE_RESULTS = 10;
const LARGE_BYTES = 8 * MB;
const MANY_TOOLS = 5_000;
const MANY_TOOLS_LISTS = 5;
const SERVERS = 50;
// Over HTTP every message is a request of fetch, which costs about 0.7 ms of CPU here even for
// the floor (undici and web streams): fewer calls than over stdio keep the bench short.
const HTTP_HANDSHAKES = 20;
const HTTP_SEQUENTIAL_CALLS = 1_000;
const HTTP_CONCURRENT_CALLS = 2_000;
const HTTP_SESSIONS = 50;

/** open() + tools/list, `cycles` times in turn; the close of each session is not timed. */
async function handshakes(client, cycles) {
  let total = 0;
  for (let i = 0; i < cycles; i++) {
    const started = performance.now();
    const session = await client.open();
    const tools = await session.listTools();
    total += performance.now() - started;
    check(tools.length === 3 && tools[0].name === 'echo', 'tools/list of the default server');
    await session.close();
  }
  return total;
}

const sequential = (calls, options) => (client) =>
  withSession(client, options, async (session) => {
    const started = performance.now();
    for (let i = 0; i < calls; i++) {
      const text = await session.echo(`hello ${i}`);
      if (text !== `hello ${i}`) check(false, `echo ${i}`);
    }
    return performance.now() - started;
  });

const concurrent = (calls, options) => (client) =>
  withSession(client, options, async (session) => {
    let next = 0;
    let done = 0;
    const lane = async () => {
      while (next < calls) {
        const i = next++;
        const text = await session.echo(`hello ${i}`);
        if (text !== `hello ${i}`) check(false, `echo ${i}`);
        done++;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    const ms = performance.now() - started;
    check(done === calls, 'every concurrent call answered');
    return ms;
  });

const largeResults = (options) => (client) =>
  withSession(client, options, async (session) => {
    const started = performance.now();
    for (let i = 0; i < LARGE_RESULTS; i++) {
      const length = await session.blob(LARGE_BYTES);
      check(length === LARGE_BYTES, `blob ${i} length ${length}`);
    }
    return performance.now() - started;
  });

const manyTools = (options) => (client) =>
  withSession(client, { tools: MANY_TOOLS, ...options }, async (session) => {
    const started = performance.now();
    for (let i = 0; i < MANY_TOOLS_LISTS; i++) {
      const tools = await session.listTools();
      check(tools.length === MANY_TOOLS && tools[MANY_TOOLS - 1].name === `tool-${MANY_TOOLS - 1}`, 'tools/list of 5,000');
    }
    return performance.now() - started;
  });

const openAtOnce = (count) => async (client) => {
  const started = performance.now();
  const sessions = await Promise.all(Array.from({ length: count }, () => client.open()));
  const ms = performance.now() - started;
  await Promise.all(sessions.map((s) => s.close()));
  return ms;
};

export const SCENARIOS = {
  spawn_handshake_list: {
    title: `spawn + handshake + tools/list (x${SPAWN_CYCLES} in turn)`,
    runs: 5,
    run: (client) => handshakes(client, SPAWN_CYCLES),
  },

  sequential_calls: {
    title: `${SEQUENTIAL_CALLS.toLocaleString('en')} sequential small tools/call`,
    // One round trip at a time: with the client and its server free to float between CPUs, a
    // run took about 220 or about 600 ms for the same client (wake-ups across CPUs), so the
    // median of a few runs was either. On one CPU (run.mjs pins the worker with taskset; the
    // server it spawns inherits the pin) a run measures the work of both processes, steadily.
    oneCpu: true,
    runs: 11,
    run: sequential(SEQUENTIAL_CALLS),
  },

  concurrent_calls: {
    title: `${CONCURRENT_CALLS.toLocaleString('en')} tools/call, ${IN_FLIGHT} in flight`,
    // A run is short (about 0.1 s) and a 2-CPU machine's noise is large next to it: more runs
    // keep the median steady.
    runs: 21,
    run: concurrent(CONCURRENT_CALLS),
  },

  large_results: {
    title: `${LARGE_RESULTS} tool results of ${LARGE_BYTES / MB} MB`,
    // Dominated by moving 80 MB through a pipe, whose speed varies a lot from run to run here.
    runs: 15,
    run: largeResults(),
  },

  tools_list_5000: {
    title: `tools/list of ${MANY_TOOLS.toLocaleString('en')} tools (x${MANY_TOOLS_LISTS})`,
    runs: 15,
    run: manyTools(),
  },

  start_50_servers: {
    title: `${SERVERS} servers started at once, until all run`,
    runs: 3,
    run: openAtOnce(SERVERS),
  },

  // Streamable HTTP: the same work against one running test/fixtures/bench-http-server.mjs
  // (run.mjs starts it once; a worker run by hand starts its own). There is no process to
  // spawn, so the first scenario is a new session's handshake, and "50 servers" becomes 50
  // sessions opened at once on that server. JSON answers unless the title says SSE. The shorter
  // a run, the more runs: with 3 to 5, the median of a row moved by up to 0.1x between benches
  // of the same build (ratios of 1.07 and 1.20 for the 256 calls in flight).
  http_handshake_list: {
    transport: 'http',
    title: `HTTP: new session + handshake + tools/list (x${HTTP_HANDSHAKES} in turn)`,
    runs: 9,
    run: (client) => handshakes(client, HTTP_HANDSHAKES),
  },

  http_sequential_calls: {
    transport: 'http',
    title: `HTTP: ${HTTP_SEQUENTIAL_CALLS.toLocaleString('en')} sequential small tools/call`,
    runs: 5,
    run: sequential(HTTP_SEQUENTIAL_CALLS),
  },

  http_concurrent_calls: {
    transport: 'http',
    title: `HTTP: ${HTTP_CONCURRENT_CALLS.toLocaleString('en')} tools/call, ${IN_FLIGHT} in flight`,
    runs: 11,
    run: concurrent(HTTP_CONCURRENT_CALLS),
  },

  http_large_results: {
    transport: 'http',
    title: `HTTP: ${LARGE_RESULTS} tool results of ${LARGE_BYTES / MB} MB`,
    runs: 7,
    run: largeResults(),
  },

  http_tools_list_5000: {
    transport: 'http',
    title: `HTTP: tools/list of ${MANY_TOOLS.toLocaleString('en')} tools (x${MANY_TOOLS_LISTS})`,
    runs: 9,
    run: manyTools(),
  },

  http_50_sessions: {
    transport: 'http',
    title: `HTTP: ${HTTP_SESSIONS} sessions opened at once, until all ready`,
    runs: 11,
    run: openAtOnce(HTTP_SESSIONS),
  },

  http_sse_concurrent_calls: {
    transport: 'http',
    title: `HTTP SSE: ${HTTP_CONCURRENT_CALLS.toLocaleString('en')} tools/call, ${IN_FLIGHT} in flight`,
    runs: 9,
    run: concurrent(HTTP_CONCURRENT_CALLS, { sse: true }),
  },

  http_sse_large_results: {
    transport: 'http',
    title: `HTTP SSE: ${LARGE_RESULTS} tool results of ${LARGE_BYTES / MB} MB`,
    runs: 5,
    run: largeResults({ sse: true }),
  },
};
