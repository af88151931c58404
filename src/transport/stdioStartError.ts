// Why a stdio server could not be started, in words a person can act on: the command not found
// (and where it was looked for), a script whose interpreter is missing, permission denied, a
// working directory that does not exist.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../util/errorMessage';
import { getEnv, type SpawnPlan } from './spawn-plan';
import { TransportError } from './transport';

const isWindows = process.platform === 'win32';

/** start() failed: the process could not be spawned. */
export class TransportStartError extends TransportError {
  readonly command: string;
  constructor(message: string, code: string, command: string, options?: { cause?: unknown; label?: string }) {
    super(message, code, options);
    this.name = 'TransportStartError';
    this.command = command;
  }
}

/** What was being started, for the message. */
export interface StartAttempt {
  readonly command: string;
  readonly cwd?: string;
  readonly label?: string;
  readonly childEnv: Record<string, string>;
  readonly plan: SpawnPlan | undefined;
}

/** The error for a failed spawn (`err` from spawn() or its 'error' event). */
export function startError(err: unknown, attempt: StartAttempt): TransportStartError {
  const code = errnoCode(err) ?? 'EUNKNOWN';
  const command = attempt.command;
  const pathValue = getEnv(attempt.childEnv, 'PATH') ?? '';
  let message: string;
  if (code === 'ENOENT') {
    const found = findExecutable(command, attempt);
    if (attempt.cwd !== undefined && !isDirectory(attempt.cwd)) {
      message = `working directory does not exist: ${attempt.cwd} (while starting ${command})`;
    } else if (found && !isWindows) {
      message =
        `cannot run ${command} (${found}): its interpreter was not found. ` +
        'Check the "#!" line at the top of the file, or run it through its interpreter (e.g. command "node" with the script as an argument).';
    } else if (hasDirPart(command)) {
      message = `command not found: ${command} (no such file: ${path.resolve(attempt.cwd ?? process.cwd(), command)})`;
    } else {
      message = `command not found: ${command} (searched PATH: ${pathValue || '(empty)'})`;
    }
  } else if (code === 'EACCES' || code === 'EPERM') {
    const found = findExecutable(command, attempt);
    message =
      `permission denied: cannot execute ${command}${found && found !== command ? ` (${found})` : ''}. ` +
      'Make sure it is an executable file (chmod +x) and not a directory.';
  } else if (code === 'ENOTDIR') {
    message = `cannot start ${command}: a path component is not a directory${attempt.cwd !== undefined ? ` (working directory: ${attempt.cwd})` : ''}`;
  } else {
    message = `could not start ${command}: ${errorMessage(err)}`;
  }
  if (attempt.label) message = `${attempt.label}: ${message}`;
  return new TransportStartError(message, code, command, { cause: err, label: attempt.label });
}

/** Where the command would be found, for error messages (POSIX lookup; Windows plan). */
function findExecutable(command: string, attempt: StartAttempt): string | undefined {
  if (attempt.plan?.resolved) return attempt.plan.resolved;
  const base = attempt.cwd ?? process.cwd();
  if (hasDirPart(command)) {
    const full = path.resolve(base, command);
    return isFile(full) ? full : undefined;
  }
  const pathValue = getEnv(attempt.childEnv, 'PATH') ?? '';
  for (const dir of pathValue.split(path.delimiter)) {
    if (dir === '') continue;
    const full = path.resolve(base, dir, command);
    if (isFile(full)) return full;
  }
  return undefined;
}

export function errnoCode(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'code' in err && typeof (err as { code: unknown }).code === 'string') {
    return (err as { code: string }).code;
  }
  return undefined;
}

function hasDirPart(command: string): boolean {
  return command.includes('/') || (isWindows && command.includes('\\'));
}

export function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
