import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { getEnv, planSpawn } from '../../transport/spawn-plan';
import { homeDirectory } from '../../util/homeDirectory';
import type { DoctorCheck } from './types';

/** A server started through a package runner: which runner, and which package it runs. */
export interface PackageRun {
  readonly runner: 'npx' | 'uvx';
  /** The package as written (`@scope/pkg@1.2.3`, `pkg==1.0`), or undefined when the arguments do not name one. */
  readonly spec?: string;
  readonly name?: string;
  /** An exact version written in the arguments. */
  readonly pinned?: string;
}

/** npx's and uvx's options that take a value (the value is not the package). */
const NPX_VALUE_FLAGS = new Set(['--call', '-c', '--workspace', '-w', '--registry', '--cache', '--userconfig']);
const UVX_VALUE_FLAGS = new Set(['--with', '--with-requirements', '--with-editable', '--python', '-p', '--index', '--index-url', '--extra-index-url', '--constraints', '-c', '--overrides', '--env-file']);

/** The package runner a command line uses, if any. */
export function packageRunOf(command: string, args: readonly string[]): PackageRun | undefined {
  const program = path.basename(command.replaceAll('\\', '/')).toLowerCase().replace(/\.(cmd|exe|bat)$/, '');
  if (program === 'npx') return npxRun(args);
  if (program === 'uvx') return uvxRun(args);
  return undefined;
}

function npxRun(args: readonly string[]): PackageRun {
  let spec: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') continue;
    if (arg === '-p' || arg === '--package') {
      spec ??= args[++i];
      continue;
    }
    if (arg.startsWith('--package=')) {
      spec ??= arg.slice('--package='.length);
      continue;
    }
    if (NPX_VALUE_FLAGS.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    spec ??= arg;
    break;
  }
  if (!spec) return { runner: 'npx' };
  const at = spec.lastIndexOf('@');
  const name = at > 0 ? spec.slice(0, at) : spec;
  const version = at > 0 ? spec.slice(at + 1) : undefined;
  return { runner: 'npx', spec, name, pinned: version && /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version) ? version : undefined };
}

function uvxRun(args: readonly string[]): PackageRun {
  let spec: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--from') {
      spec = args[++i];
      continue;
    }
    if (arg.startsWith('--from=')) {
      spec = arg.slice('--from='.length);
      continue;
    }
    if (UVX_VALUE_FLAGS.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    spec ??= arg;
    break;
  }
  if (!spec) return { runner: 'uvx' };
  const match = /^([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?(?:(==|@)([\w.+-]+))?$/.exec(spec);
  if (!match) return { runner: 'uvx', spec };
  return { runner: 'uvx', spec, name: match[1], pinned: match[3] && match[3] !== 'latest' ? match[3] : undefined };
}

/** What the npm registry says about a package. */
export type RegistryAnswer = { kind: 'found'; version: string } | { kind: 'missing' } | { kind: 'unknown'; reason: string };

/** `npm view NAME version` with a timeout (npm's own registry settings apply). Never rejects. */
export function npmViewVersion(name: string, env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number, platform: NodeJS.Platform = process.platform): Promise<RegistryAnswer> {
  const plan = planSpawn({ command: 'npm', args: ['view', name, 'version'], env, cwd, platform, isFile: (p) => fs.existsSync(p) });
  return new Promise((resolve) => {
    execFile(plan.file, [...plan.args], { env, cwd, timeout: timeoutMs, encoding: 'utf8', windowsVerbatimArguments: plan.windowsVerbatimArguments }, (err, stdout, stderr) => {
      const version = String(stdout ?? '').trim().split('\n').pop()?.trim();
      if (!err && version) return resolve({ kind: 'found', version: version.replace(/^'|'$/g, '') });
      if (/E404|404 Not Found/.test(String(stderr ?? ''))) return resolve({ kind: 'missing' });
      const killed = err && (err as { killed?: boolean }).killed;
      resolve({ kind: 'unknown', reason: killed ? `npm view did not answer within ${timeoutMs} ms` : `npm view failed${(err as NodeJS.ErrnoException | null)?.code === 'ENOENT' ? ' (npm is not on PATH)' : ''}` });
    });
  });
}

/** npm's cache folder: npm_config_cache, else npm's default for the platform; undefined without a home directory. */
export function npmCacheDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  const configured = getEnv(env, 'npm_config_cache', platform);
  if (configured) return configured;
  const home = getEnv(env, 'HOME', platform) ?? homeDirectory({});
  if (platform === 'win32') {
    const localAppData = getEnv(env, 'LOCALAPPDATA', platform) ?? (home === undefined ? undefined : path.join(home, 'AppData', 'Local'));
    return localAppData === undefined ? undefined : path.join(localAppData, 'npm-cache');
  }
  return home === undefined ? undefined : path.join(home, '.npm');
}

/**
 * The version of a package npx would take from its cache: npx installs each package list into
 * `_npx/<hash>/` and writes the list it was asked for into that folder's package.json.
 */
export function npxCachedVersion(cacheDir: string, spec: string, name: string): { version: string; folder: string } | undefined {
  const root = path.join(cacheDir, '_npx');
  let entries: string[];
  try {
    entries = fs.readdirSync(root);
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const folder = path.join(root, entry);
    const manifest = readJson(path.join(folder, 'package.json')) as { _npx?: { packages?: unknown } } | undefined;
    const packages = manifest?._npx?.packages;
    if (!Array.isArray(packages) || !packages.includes(spec)) continue;
    const installed = readJson(path.join(folder, 'node_modules', ...name.split('/'), 'package.json')) as { version?: unknown } | undefined;
    if (typeof installed?.version === 'string') return { version: installed.version, folder };
  }
  return undefined;
}

/** The version a project's own node_modules holds (npx runs that before anything else). */
function localVersion(cwd: string, name: string): string | undefined {
  const installed = readJson(path.join(cwd, 'node_modules', ...name.split('/'), 'package.json')) as { version?: unknown } | undefined;
  return typeof installed?.version === 'string' ? installed.version : undefined;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

export interface PackageCheckInput {
  readonly run: PackageRun;
  readonly env: NodeJS.ProcessEnv;
  readonly platform: NodeJS.Platform;
  readonly cwd: string;
  readonly file: string;
  /** The registry lookup (npm view, or a test's stand-in). */
  readonly latest: (name: string) => Promise<RegistryAnswer>;
}

/** Which package version npx or uvx would run: pinned in args, else what a cache holds, else what the registry offers. */
export async function checkPackage(input: PackageCheckInput): Promise<DoctorCheck> {
  const { run } = input;
  const title = `${run.runner} package`;
  if (!run.spec || !run.name) {
    return {
      id: 'package',
      title,
      status: 'warn',
      detail: `The arguments of ${run.runner} name no package${run.spec ? ` that can be read (${run.spec})` : ''}.`,
      fix: `Put the package after ${run.runner === 'npx' ? '"-y"' : 'the options'} in "args" in ${input.file}, e.g. ${run.runner === 'npx' ? '["-y", "@scope/server@1.2.3"]' : '["server-package==1.2.3"]'}.`,
    };
  }
  if (run.pinned) return { id: 'package', title, status: 'pass', detail: `${run.runner} runs ${run.name} ${run.pinned} (pinned in "args").` };
  if (run.runner === 'uvx') {
    return {
      id: 'package',
      title,
      status: 'skip',
      detail: `uvx runs the newest release of ${run.name} it can find (PyPI is not asked here).`,
      fix: `Pin a version ("${run.name}==X.Y.Z") in "args" so an update does not change the server under you.`,
    };
  }
  const local = localVersion(input.cwd, run.name);
  if (local) return { id: 'package', title, status: 'pass', detail: `npx runs ${run.name} ${local} from ${path.join(input.cwd, 'node_modules')}.` };
  const cacheDir = npmCacheDir(input.env, input.platform);
  const cached = cacheDir === undefined ? undefined : npxCachedVersion(cacheDir, run.spec, run.name);
  if (cached) {
    return { id: 'package', title, status: 'pass', detail: `npx runs ${run.name} ${cached.version} from its cache (${cached.folder}); the version is not pinned in "args".` };
  }
  const answer = await input.latest(run.name);
  switch (answer.kind) {
    case 'found':
      return { id: 'package', title, status: 'pass', detail: `${run.name} is not in npx's cache: npx downloads ${answer.version} (the newest on the registry) at the first start, which takes a while.` };
    case 'missing':
      return {
        id: 'package',
        title,
        status: 'fail',
        detail: `The npm registry has no package named ${run.name}.`,
        fix: `Correct the package name in "args" in ${input.file} (check its README for the exact name).`,
      };
    case 'unknown':
      return {
        id: 'package',
        title,
        status: 'warn',
        detail: `${run.name} is not in npx's cache, and the registry could not be asked (${answer.reason}). npx must download it at the first start.`,
        fix: 'Check the network or the npm registry settings (npm config get registry), or install the package and use its path.',
      };
  }
}
