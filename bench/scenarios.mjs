// The bench scenarios. Each one gets a loaded client (see clients.mjs) and returns the
// milliseconds of its timed part; setup the scenario does not measure (such as connecting
// before the calls) and teardown happen outside the timed part. Every answer is checked.
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

export const SCENARIOS = {
  spawn_handshake_list: {
    title: `spawn + handshake + tools/list (x${SPAWN_CYCLES} in turn)`,
    runs: 5,
    async run(client) {
      let total = 0;
      for (let i = 0; i < SPAWN_CYCLES; i++) {
        const started = performance.now();
        const session = await client.open();
        const tools = await session.listTools();
        total += performance.now() - started;
        check(tools.length === 3 && tools[0].name === 'echo', 'tools/list of the default server');
        await session.close();
      }
      return total;
    },
  },

  sequential_calls: {
    title: `${SEQUENTIAL_CALLS.toLocaleString('en')} sequential small tools/call`,
    runs: 11,
    run: (client) =>
      withSession(client, {}, async (session) => {
        const started = performance.now();
        for (let i = 0; i < SEQUENTIAL_CALLS; i++) {
          const text = await session.echo(`hello ${i}`);
          if (text !== `hello ${i}`) check(false, `echo ${i}`);
        }
        return performance.now() - started;
      }),
  },

  concurrent_calls: {
    title: `${CONCURRENT_CALLS.toLocaleString('en')} tools/call, ${IN_FLIGHT} in flight`,
    // A run is short (about 0.1 s) and a 2-CPU machine's noise is large next to it: more runs
    // keep the median steady.
    runs: 21,
    run: (client) =>
      withSession(client, {}, async (session) => {
        let next = 0;
        let done = 0;
        const lane = async () => {
          while (next < CONCURRENT_CALLS) {
            const i = next++;
            const text = await session.echo(`hello ${i}`);
            if (text !== `hello ${i}`) check(false, `echo ${i}`);
            done++;
          }
        };
        const started = performance.now();
        await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
        const ms = performance.now() - started;
        check(done === CONCURRENT_CALLS, 'every concurrent call answered');
        return ms;
      }),
  },

  large_results: {
    title: `${LARGE_RESULTS} tool results of ${LARGE_BYTES / MB} MB`,
    // Dominated by moving 80 MB through a pipe, whose speed varies a lot from run to run here.
    runs: 15,
    run: (client) =>
      withSession(client, {}, async (session) => {
        const started = performance.now();
        for (let i = 0; i < LARGE_RESULTS; i++) {
          const length = await session.blob(LARGE_BYTES);
          check(length === LARGE_BYTES, `blob ${i} length ${length}`);
        }
        return performance.now() - started;
      }),
  },

  tools_list_5000: {
    title: `tools/list of ${MANY_TOOLS.toLocaleString('en')} tools (x${MANY_TOOLS_LISTS})`,
    runs: 15,
    run: (client) =>
      withSession(client, { tools: MANY_TOOLS }, async (session) => {
        const started = performance.now();
        for (let i = 0; i < MANY_TOOLS_LISTS; i++) {
          const tools = await session.listTools();
          check(tools.length === MANY_TOOLS && tools[MANY_TOOLS - 1].name === `tool-${MANY_TOOLS - 1}`, 'tools/list of 5,000');
        }
        return performance.now() - started;
      }),
  },

  start_50_servers: {
    title: `${SERVERS} servers started at once, until all run`,
    runs: 3,
    async run(client) {
      const started = performance.now();
      const sessions = await Promise.all(Array.from({ length: SERVERS }, () => client.open()));
      const ms = performance.now() - started;
      await Promise.all(sessions.map((s) => s.close()));
      return ms;
    },
  },
};
