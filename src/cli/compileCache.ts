import * as fs from 'node:fs';
import * as nodeModule from 'node:module';
import * as path from 'node:path';
import { cliCacheDirectory } from './cacheDirectory';

/** node:module's compile cache (Node 22.1 and later); absent in older Node. */
type EnableCompileCache = (directory?: string) => unknown;

/**
 * Turns on Node's compile cache for the rest of the run (Node 22.1 and later; nothing in older
 * Node): the code of dist/cli-main.js and the parts loaded on first use is compiled once and read
 * back by later runs, about 10 ms of each short run (measured: `mcp-host list --url` 134 → 122 ms).
 * In the CLI's own cache folder (cacheDirectory.ts), made owner-only: Node's default is the shared
 * temporary folder, and a cache another user can write is code that user can have run as you.
 * NODE_COMPILE_CACHE (Node's own variable) chooses another folder, and Node has then turned the
 * cache on already; NODE_DISABLE_COMPILE_CACHE=1 turns it off (Node honours it). Never fails a run.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv): void {
  const enable = (nodeModule as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== 'function' || env.NODE_COMPILE_CACHE) return;
  const directory = compileCacheDirectory(env);
  if (directory === undefined) return;
  try {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    enable(directory);
  } catch {
    // Compiling as usual is all it costs.
  }
}

export function compileCacheDirectory(env: NodeJS.ProcessEnv): string | undefined {
  const cache = cliCacheDirectory(env);
  return cache === undefined ? undefined : path.join(cache, 'compile-cache');
}
