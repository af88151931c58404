import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { getEnv, resolveWindowsCommand } from '../../transport/spawn-plan';
import { commandNotOnPathHint } from '../startFailure';
import type { DoctorCheck } from './types';

/** Where a command was found, or what was searched. */
export interface CommandLookup {
  /** The full path that would be started. */
  readonly found?: string;
  /** True for a Windows `.cmd`/`.bat` shim (started through cmd.exe). */
  readonly shim?: boolean;
  /** A file of that name that is not executable (POSIX). */
  readonly notExecutable?: string;
  /** The folders searched, in order (empty when the command names a path). */
  readonly searched: readonly string[];
}

export interface LookupOptions {
  /** The PATH the child gets. */
  readonly pathValue: string | undefined;
  /** The child's working directory (relative commands are taken from it). */
  readonly cwd: string;
  readonly platform: NodeJS.Platform;
  /** The child's environment (PATHEXT on Windows). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Whether a command names a file rather than a program to look up on PATH. */
export function namesAPath(command: string, platform: NodeJS.Platform): boolean {
  return command.includes('/') || (platform === 'win32' && (command.includes('\\') || /^[A-Za-z]:/.test(command)));
}

/**
 * Finds a command the way the server's start would: POSIX execvp rules (a name with a slash is a
 * path from cwd, else each PATH folder, an empty entry meaning cwd); on Windows the PATHEXT
 * rules of the stdio transport (spawn-plan.ts), whose `.cmd`/`.bat` results are shims.
 */
export function findCommand(command: string, options: LookupOptions): CommandLookup {
  if (options.platform === 'win32') {
    const env = { ...options.env, PATH: options.pathValue };
    const searched = namesAPath(command, 'win32') ? [] : (options.pathValue ?? '').split(';').filter((d) => d.trim() !== '');
    const found = resolveWindowsCommand(command, env, options.cwd, isFile);
    return { found, shim: found !== undefined && /\.(cmd|bat)$/i.test(found), searched };
  }
  if (namesAPath(command, options.platform)) {
    const candidate = path.resolve(options.cwd, command);
    if (isExecutableFile(candidate)) return { found: candidate, searched: [] };
    return { notExecutable: isFile(candidate) ? candidate : undefined, searched: [] };
  }
  const searched = (options.pathValue ?? '').split(path.delimiter);
  let notExecutable: string | undefined;
  for (const dir of searched) {
    const candidate = path.resolve(options.cwd, dir, command);
    if (isExecutableFile(candidate)) return { found: candidate, searched };
    if (!notExecutable && isFile(candidate)) notExecutable = candidate;
  }
  return { notExecutable, searched: searched.filter((d) => d !== '') };
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function isExecutableFile(p: string): boolean {
  if (!isFile(p)) return false;
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const PATH_MARKER = '__MCP_HOST_LOGIN_PATH__';

/**
 * The PATH a login shell sets up (nvm, Homebrew, pyenv are added by shell profiles, which an
 * editor started from a GUI never ran). The shell runs a fixed text, never a configured command;
 * its profile's own output is told apart by a marker. Undefined on Windows, on a timeout, or
 * when the shell fails.
 */
export function readLoginShellPath(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, timeoutMs = 3000): Promise<string | undefined> {
  if (platform === 'win32') return Promise.resolve(undefined);
  const shell = getEnv(env, 'SHELL', platform) || '/bin/sh';
  return new Promise((resolve) => {
    let stdout = '';
    let settled = false;
    const finish = (value: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    // No stdin (a profile that reads it gets end-of-file, not a wait), its own process group, so a
    // timeout ends the shell and whatever its profile started: an interactive bash ignores SIGTERM.
    const child = spawn(shell, ['-ilc', `printf '\\n%s%s\\n' ${PATH_MARKER} "$PATH"`], { env, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    const timer = setTimeout(() => {
      killGroup(child.pid);
      finish(undefined);
    }, timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (stdout.length < 1024 * 1024) stdout += chunk;
    });
    child.on('error', () => finish(undefined));
    child.on('close', () => {
      const line = stdout.split('\n').find((l) => l.startsWith(PATH_MARKER));
      const value = line?.slice(PATH_MARKER.length).trim();
      finish(value ? value : undefined);
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** Folders of `other` that `base` lacks, in order. */
export function foldersMissingFrom(base: string | undefined, other: string | undefined, platform: NodeJS.Platform): string[] {
  const sep = platform === 'win32' ? ';' : ':';
  const have = new Set((base ?? '').split(sep));
  return (other ?? '').split(sep).filter((d) => d !== '' && !have.has(d));
}

export interface CommandCheckInput {
  readonly command: string;
  readonly lookup: LookupOptions;
  /** The login shell's PATH, when known. */
  readonly loginPath?: string;
  /** The configuration file, for the fix. */
  readonly file: string;
}

/** The "command found" line: where, on which PATH, and what to do when it is not there. */
export function checkCommand(input: CommandCheckInput): DoctorCheck {
  const { command, lookup, loginPath, file } = input;
  const title = 'Command found';
  const result = findCommand(command, lookup);
  const extra = foldersMissingFrom(lookup.pathValue, loginPath, lookup.platform);
  const loginNote = extra.length > 0 ? ` Your login shell's PATH also has: ${extra.join(', ')}.` : '';
  if (result.found) {
    const where = result.searched.length > 0 ? 'found on the PATH the server gets' : 'as written';
    const shim = result.shim
      ? ` It is a ${path.extname(result.found).toLowerCase()} shim: MCP Host runs it through cmd.exe (/d /s /c) with every argument escaped.`
      : '';
    return { id: 'command', title, status: 'pass', detail: `"${command}" is ${result.found} (${where}).${shim}` };
  }
  if (result.notExecutable) {
    return {
      id: 'command',
      title,
      status: 'fail',
      detail: `"${command}" is ${result.notExecutable}, which is not executable.`,
      fix: `Make it executable (chmod +x ${result.notExecutable}), or start it through its interpreter (e.g. "command": "node", "args": ["${result.notExecutable}", …]) in ${file}.`,
    };
  }
  if (namesAPath(command, lookup.platform)) {
    const resolved = path.resolve(lookup.cwd, command);
    return {
      id: 'command',
      title,
      status: 'fail',
      detail: `"${command}" does not exist (looked for ${resolved}; a relative path is taken from the server's working directory ${lookup.cwd}).`,
      fix: `Correct "command" in ${file}: use the absolute path of the program.`,
    };
  }
  const onLogin = loginPath !== undefined && loginPath !== lookup.pathValue ? findCommand(command, { ...lookup, pathValue: loginPath }).found : undefined;
  const searched = `PATH: ${result.searched.join(lookup.platform === 'win32' ? ';' : ':') || '(empty)'}`;
  if (onLogin) {
    return {
      id: 'command',
      title,
      status: 'fail',
      detail: `"${command}" is not on the PATH the server gets, but your login shell finds it at ${onLogin}. ${searched}.${loginNote}`,
      fix: `Use the absolute path in ${file}: "command": "${onLogin}"; or start VS Code from a terminal, so it gets your shell's PATH.`,
    };
  }
  const loginText = loginPath === undefined ? '' : ' It is not on your login shell\'s PATH either.';
  return {
    id: 'command',
    title,
    status: 'fail',
    detail: `"${command}" was not found. ${searched}.${loginText}${loginNote}`,
    fix: `Install ${command}, or put the absolute path of the program in "command" in ${file}. ${loginPath === undefined ? commandNotOnPathHint(lookup.platform) : ''}`.trim(),
  };
}
