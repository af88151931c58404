import { HTTP_CLIENTS } from './http-clients.mjs';
import { SCENARIOS } from './scenarios.mjs';
const [kind, name] = process.argv.slice(2);
const client = await HTTP_CLIENTS[kind](process.env.BENCH_HTTP_URL);
const ms = await SCENARIOS[name].run(client);
console.log(name, ms.toFixed(1), 'zod fallbacks', globalThis.__zodFallbacks, globalThis.__zsample);
process.exit(0);
