// One run of one scenario with one client, in a fresh Node process so that peak memory
// (this process's maximum resident set size) belongs to that client alone.
//   node bench/worker.mjs <ours|sdk|floor> <scenario>
// Prints one line: BENCH_RESULT {"ms": N, "peak_rss_mb": N, "cpu_ms": N}
// (cpu_ms: this process's CPU time over the whole scenario, setup included; a diagnostic.)
// HTTP scenarios use the server at BENCH_HTTP_URL (run.mjs starts one for the whole bench);
// without it, the worker starts its own bench-http-server first (not timed).
import { CLIENTS } from './clients.mjs';
import { HTTP_CLIENTS } from './http-clients.mjs';
import { startHttpServer } from './http-server-process.mjs';
import { SCENARIOS } from './scenarios.mjs';

const [kind, name] = process.argv.slice(2);
const scenario = SCENARIOS[name];
const http = scenario?.transport === 'http';
const load = (http ? HTTP_CLIENTS : CLIENTS)[kind];
if (!load || !scenario) {
  console.error(`usage: worker.mjs <${Object.keys(CLIENTS).join('|')}> <${Object.keys(SCENARIOS).join('|')}>`);
  process.exit(2);
}

let server;
let url;
if (http) {
  url = process.env.BENCH_HTTP_URL;
  if (!url) {
    server = await startHttpServer();
    url = server.url;
  }
}
const client = await load(url);
const cpuBefore = process.cpuUsage();
const ms = await scenario.run(client);
const cpu = process.cpuUsage(cpuBefore);
// maxRSS is in kilobytes (getrusage ru_maxrss of this process, not of its children).
const peakRssMb = process.resourceUsage().maxRSS / 1024;
process.stdout.write(`BENCH_RESULT ${JSON.stringify({ ms, peak_rss_mb: peakRssMb, cpu_ms: (cpu.user + cpu.system) / 1000 })}\n`);
await server?.stop();
// Idle keep-alive sockets of fetch's pool would hold the process open for seconds.
if (http) process.exit(0);
