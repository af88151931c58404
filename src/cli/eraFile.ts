import * as fs from 'node:fs';
import * as path from 'node:path';
import { whenRemoteLoads } from '../host/loadRemote';
import { httpEraCache, parsePersistedEra, type EraStore } from '../protocol/eraCache';
import { parseLegacySseFact, type LegacySseStore } from '../transport/endpointMemory';
import { cliCacheDirectory } from './cacheDirectory';
import { MAX_PERSISTED_FACTS, digestEntries } from '../util/persistedFacts';
import { temporaryNameFor } from '../util/temporaryFile';

let remembering = false;

/**
 * From now on, remote endpoints get what earlier runs learned of them (the era, and whether the URL
 * speaks only the legacy HTTP+SSE transport), and what this run learns is kept for later ones; read
 * when the first remote server is used (a run of stdio servers reads nothing).
 */
export function rememberErasAcrossRuns(env: NodeJS.ProcessEnv): void {
  if (remembering) return;
  remembering = true;
  const file = eraFilePath(env);
  if (file === undefined) return;
  whenRemoteLoads((remote) => {
    httpEraCache.persistIn(fileEraStore(file));
    remote.legacySseEndpoints.persistIn(fileLegacySseStore(file));
  });
}

/** Values of MCP_HOST_ERA_FILE that mean no file (any case). */
const OFF_VALUES = new Set(['off', 'none', 'no', 'false', '0']);

/**
 * Where the CLI keeps the eras of the remote endpoints it has talked to, so that its next runs
 * send no era probe to a server already known (versioning.mdx: clients MAY persist the era; each
 * entry is trusted for a day, eraCache.ts), and the URLs that speak only HTTP+SSE (for an hour,
 * endpointMemory.ts). MCP_HOST_ERA_FILE names another file, or 'off' for
 * none. Default: $XDG_CACHE_HOME/mcp-host/endpoint-eras.json, else ~/.cache/mcp-host/... (a
 * relative XDG_CACHE_HOME is ignored, as the XDG spec says). Undefined: no file (also when the
 * home directory cannot be found: the CLI works on, probing once per endpoint).
 */
export function eraFilePath(env: NodeJS.ProcessEnv): string | undefined {
  const given = env.MCP_HOST_ERA_FILE;
  if (given !== undefined && OFF_VALUES.has(given.trim().toLowerCase())) return undefined;
  if (given) return given;
  const cache = cliCacheDirectory(env);
  return cache === undefined ? undefined : path.join(cache, 'endpoint-eras.json');
}

/** The file holds 1,024 entries at most (512 eras, 512 HTTP+SSE endpoints), well under this; a larger file is not ours to read. */
const MAX_FILE_BYTES = 128 * 1024;

/**
 * The eras in a JSON file: digests of endpoint keys, never a URL (eraCache.ts). Read and written
 * whole, synchronously (a few KiB, once per run and once per era learned), so that two updates of
 * one run never interleave; the write goes to a temporary file renamed over the old one, so a run
 * beside another never reads half a file (two runs that learn at the same moment may each keep
 * only their own update: the other endpoint is probed once more, or POSTed to in vain once more).
 * A file that cannot be read or written costs that much, nothing more: errors are ignored.
 */
export function fileEraStore(file: string): EraStore {
  return {
    read: () => entriesOf(readEraFile(file), isEraKey),
    write: (eras) => writeEraFile(file, { ...keptEntries(readEraFile(file), isLegacySseKey, parseLegacySseFact), ...eras }),
  };
}

/**
 * The endpoints found to speak only HTTP+SSE (endpointMemory.ts), in the same file as the eras:
 * their digests prefixed with `sse:` (a digest is base64url, without a colon), each believed for
 * an hour. Each store rewrites only its own entries.
 */
export function fileLegacySseStore(file: string): LegacySseStore {
  return {
    read: () => withoutPrefix(entriesOf(readEraFile(file), isLegacySseKey)),
    write: (learned) => writeEraFile(file, { ...keptEntries(readEraFile(file), isEraKey, parsePersistedEra), ...withPrefix(learned) }),
  };
}

/**
 * What a write of one store keeps of the other's entries: those the other store reads (`parse`),
 * as many as it reads at most. Anything else a hand or another program put in the file goes, so
 * that it cannot grow past what is read.
 */
function keptEntries<T>(held: unknown, wanted: (key: string) => boolean, parse: (value: Record<string, unknown>) => T | undefined): Record<string, T> {
  return Object.fromEntries(digestEntries(entriesOf(held, wanted), MAX_PERSISTED_FACTS, parse));
}

const LEGACY_SSE_PREFIX = 'sse:';

function isLegacySseKey(key: string): boolean {
  return key.startsWith(LEGACY_SSE_PREFIX);
}

function isEraKey(key: string): boolean {
  return !isLegacySseKey(key);
}

/** The entries of what a file held whose keys pass `wanted` (nothing, if it held no object). */
function entriesOf(held: unknown, wanted: (key: string) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof held !== 'object' || held === null || Array.isArray(held)) return out;
  for (const [key, value] of Object.entries(held)) if (wanted(key)) out[key] = value;
  return out;
}

function withoutPrefix(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).map(([key, value]) => [key.slice(LEGACY_SSE_PREFIX.length), value]));
}

function withPrefix(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).map(([key, value]) => [LEGACY_SSE_PREFIX + key, value]));
}

function readEraFile(file: string): unknown {
  let fd: number | undefined;
  try {
    // Only a regular file: a FIFO or a device would block the read (and the CLI with it). Opened
    // without blocking and checked through its descriptor, so the file checked is the file read.
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined;
    return JSON.parse(fs.readFileSync(fd, 'utf8')) as unknown;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function writeEraFile(file: string, entries: Record<string, unknown>): void {
  const temporary = temporaryNameFor(file);
  let created = false;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(temporary, `${JSON.stringify(entries)}\n`, { mode: 0o600, flag: 'wx' });
    created = true;
    fs.renameSync(temporary, file);
  } catch {
    // Only a file this write created is removed ('wx' refused one that was there).
    if (created) removeQuietly(temporary);
  }
}

function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // Nothing more to do: a stray temporary file holds digests only.
  }
}
