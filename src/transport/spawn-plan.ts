/**
 * How to spawn a server command without a shell, per platform. Pure functions (the platform,
 * environment and file system probe are parameters) so the Windows rules are unit-tested on
 * any OS.
 */
import * as path from 'node:path';

export type EnvOverrides = Readonly<Record<string, string | null | undefined>>;

/**
 * The child's environment: `base` plus `overrides`; a `null` override removes the variable,
 * `undefined` leaves the base value. On Windows names are case-insensitive, so an override
 * replaces (or removes) every base entry with the same name in any case.
 */
export function buildChildEnv(
  base: NodeJS.ProcessEnv,
  overrides: EnvOverrides | undefined,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v !== undefined) env[k] = v;
  }
  if (!overrides) return env;
  const caseInsensitive = platform === 'win32';
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    if (caseInsensitive) {
      const lower = name.toLowerCase();
      for (const k of Object.keys(env)) {
        if (k.toLowerCase() === lower) delete env[k];
      }
    } else {
      delete env[name];
    }
    if (value !== null) env[name] = value;
  }
  return env;
}

/** Looks a variable up the way the platform does (case-insensitively on Windows). */
export function getEnv(env: Readonly<Record<string, string | undefined>>, name: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== 'win32') return env[name];
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(env)) {
    if (k.toLowerCase() === lower && v !== undefined) return v;
  }
  return undefined;
}

/**
 * Finds a command on Windows the way CreateProcess-with-search would for a user: the name as
 * given when it has a PATHEXT extension, otherwise the name plus each PATHEXT extension; a
 * name with a directory part is taken relative to `cwd`; a bare name is looked for in `cwd`
 * and then in each PATH entry. Returns the full path, or undefined when nothing matches.
 */
export function resolveWindowsCommand(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  isFile: (p: string) => boolean,
): string | undefined {
  const w = path.win32;
  const pathExt = (getEnv(env, 'PATHEXT', 'win32') ?? '.COM;.EXE;.BAT;.CMD')
    .split(';')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e.startsWith('.'));
  const ext = w.extname(command).toLowerCase();
  const names = ext !== '' && pathExt.includes(ext) ? [command] : pathExt.map((e) => command + e);

  const hasDir = /[\\/]/.test(command) || w.isAbsolute(command);
  const dirs = hasDir
    ? ['']
    : [cwd, ...(getEnv(env, 'PATH', 'win32') ?? '').split(';').map((d) => d.trim().replace(/^"(.*)"$/, '$1'))].filter((d) => d !== '');
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = dir === '' ? w.resolve(cwd, name) : w.resolve(dir, name);
      if (isFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/** Characters cmd.exe treats specially somewhere in a command line; each is caret-escaped. */
const CMD_META = /[()[\]%!^"`<>&|;, *?]/g;

/** Caret-escapes every cmd.exe metacharacter (so cmd never sees an operator or a quote). */
export function escapeCmdMeta(text: string): string {
  return text.replace(CMD_META, '^$&');
}

/**
 * Quotes one argument for the MSVCRT / CommandLineToArgvW rules used by most Windows
 * programs (node.exe, python.exe, ...): wrap in quotes; a run of backslashes before a quote
 * is doubled and the quote escaped; a run of backslashes at the end is doubled (it is
 * followed by the closing quote).
 */
export function quoteWindowsArgument(arg: string): string {
  let out = '"';
  let backslashes = 0;
  for (const ch of arg) {
    if (ch === '\\') {
      backslashes++;
      continue;
    }
    if (ch === '"') {
      out += '\\'.repeat(backslashes * 2 + 1) + '"';
    } else {
      out += '\\'.repeat(backslashes) + ch;
    }
    backslashes = 0;
  }
  out += '\\'.repeat(backslashes * 2) + '"';
  return out;
}

/**
 * Builds the text after `cmd.exe /d /s /c` that runs a batch file (`.cmd`/`.bat`) with
 * `args` delivered unchanged to the program the batch file starts.
 *
 * Every argument is quoted for the MSVCRT rules and then caret-escaped twice: cmd parses
 * the `/c` line once (removing one layer of carets), and a package-manager shim re-parses
 * its arguments when it expands `%*` (removing the second). Because quotes are escaped too,
 * cmd never enters quoted mode, so no `&`, `|`, `<`, `>`, `(` or `)` in an argument can act
 * as an operator, and `%VAR%` cannot expand (the caret makes the name `VAR^`). The path of
 * the batch file is caret-escaped once (it is parsed once; Windows paths cannot contain
 * quotes). Line breaks and NUL cannot be passed through cmd.exe at all, so they are refused.
 */
export function buildCmdShimCommandLine(batchFile: string, args: readonly string[]): string {
  for (const a of [batchFile, ...args]) {
    if (/[\r\n\0]/.test(a)) {
      throw new Error(`Cannot pass an argument containing a line break or NUL through cmd.exe: ${JSON.stringify(a)}`);
    }
  }
  const parts = [escapeCmdMeta(batchFile), ...args.map((a) => escapeCmdMeta(escapeCmdMeta(quoteWindowsArgument(a))))];
  return parts.join(' ');
}

export interface SpawnPlan {
  readonly file: string;
  readonly args: readonly string[];
  /** Pass arguments to CreateProcess exactly as given (the cmd.exe shim case). */
  readonly windowsVerbatimArguments: boolean;
  /** On Windows, the resolved full path of the command when it was found. */
  readonly resolved?: string;
  /** True when a batch file is run through cmd.exe. */
  readonly viaCmd: boolean;
}

export interface SpawnPlanInput {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly platform: NodeJS.Platform;
  readonly isFile: (p: string) => boolean;
}

/**
 * POSIX: run the command directly (execvp searches PATH). Windows: resolve the command; a
 * `.cmd`/`.bat` (npx.cmd, uvx shims, ...) cannot be started without a shell, so it runs as
 * `cmd.exe /d /s /c "<escaped line>"` with verbatim arguments; anything else runs directly.
 */
export function planSpawn(input: SpawnPlanInput): SpawnPlan {
  if (input.platform !== 'win32') {
    return { file: input.command, args: input.args, windowsVerbatimArguments: false, viaCmd: false };
  }
  const resolved = resolveWindowsCommand(input.command, input.env, input.cwd, input.isFile);
  if (resolved && /\.(cmd|bat)$/i.test(resolved)) {
    const comspec = getEnv(input.env, 'ComSpec', 'win32') ?? 'cmd.exe';
    const line = buildCmdShimCommandLine(resolved, input.args);
    return { file: comspec, args: ['/d', '/s', '/c', `"${line}"`], windowsVerbatimArguments: true, resolved, viaCmd: true };
  }
  return { file: resolved ?? input.command, args: input.args, windowsVerbatimArguments: false, resolved, viaCmd: false };
}
