// Starts test/fixtures/bench-http-server.mjs as a child process and resolves its URL once it
// listens. The server exits when our end of its stdin closes, so it never outlives us.
// run.mjs starts one for the whole bench and gives its URL to the workers (BENCH_HTTP_URL);
// a worker run by hand without that variable starts its own.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const HTTP_SERVER = fileURLToPath(new URL('../test/fixtures/bench-http-server.mjs', import.meta.url));

/** @returns {Promise<{ url: string, child: import('node:child_process').ChildProcess, stop(): Promise<void> }>} */
export function startHttpServer() {
  // detached, as the stdio servers are (see floor-client.mjs): the same scheduling for both.
  const child = spawn(process.execPath, [HTTP_SERVER], { stdio: ['pipe', 'pipe', 'inherit'], detached: true });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d) => {
      out += d;
      const m = /BENCH_HTTP_LISTENING (\S+)/.exec(out);
      if (!m) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve({
        url: m[1],
        child,
        stop: async () => {
          child.stdin.end();
          await exited;
        },
      });
    };
    child.stdout.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bench-http-server exited (${code}) before listening: ${out}`)));
  });
}
