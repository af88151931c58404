import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EraStore } from '../protocol/eraCache';

/**
 * Where the CLI keeps the eras of the remote endpoints it has talked to, so that its next run
 * sends no era probe to a server already known (versioning.mdx: clients MAY persist the era).
 * MCP_HOST_ERA_FILE names another file, or 'off' for none (each run then probes once per endpoint).
 */
export function eraFilePath(env: NodeJS.ProcessEnv): string | undefined {
  const given = env.MCP_HOST_ERA_FILE;
  if (given === 'off') return undefined;
  if (given) return given;
  const cacheHome = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(cacheHome, 'mcp-host', 'endpoint-eras.json');
}

/** The store's file holds 512 digests at most (eraCache.ts), well under this; a larger file is not ours to read. */
const MAX_FILE_BYTES = 64 * 1024;

/**
 * The eras in a JSON file: digests of endpoint keys, never a URL (eraCache.ts). Read and written
 * whole, synchronously (a few KiB, once per run and once per era learned); the write goes to a
 * temporary file renamed over the old one, so a CLI run beside another never reads half a file.
 * A file that cannot be read or written costs a probe, nothing more: errors are ignored.
 */
export function fileEraStore(file: string): EraStore {
  return {
    read: () => readEraFile(file),
    write: (eras) => writeEraFile(file, eras),
  };
}

function readEraFile(file: string): unknown {
  try {
    if (fs.statSync(file).size > MAX_FILE_BYTES) return undefined;
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function writeEraFile(file: string, eras: Record<string, string>): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(temporary, `${JSON.stringify(eras)}\n`, { mode: 0o600 });
    fs.renameSync(temporary, file);
  } catch {
    try {
      fs.rmSync(temporary, { force: true });
    } catch {
      // Left behind: the next write of this process id replaces it.
    }
  }
}
