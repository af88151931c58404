import * as fs from 'node:fs';
import { parse as parseDotenv } from 'dotenv';
import type { DoctorCheck } from './types';

/** The "cwd exists" line. `configured` is the resolved "cwd" (undefined when the entry has none). */
export function checkCwd(configured: string | undefined, raw: string | undefined, startsIn: string, file: string): DoctorCheck {
  const title = 'Working directory exists';
  if (raw === undefined) return { id: 'cwd', title, status: 'skip', detail: `"cwd" is not set: the server starts in ${startsIn}.` };
  if (configured === undefined) return { id: 'cwd', title, status: 'skip', detail: `"cwd" uses a variable without a value here (see Variables).` };
  let stat: fs.Stats;
  try {
    stat = fs.statSync(configured);
  } catch (err) {
    return {
      id: 'cwd',
      title,
      status: 'fail',
      detail: `"cwd" is ${configured}, which ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`}.`,
      fix: `Create the folder, or correct "cwd" in ${file} (a relative path is taken from the workspace folder).`,
    };
  }
  if (!stat.isDirectory()) {
    return { id: 'cwd', title, status: 'fail', detail: `"cwd" is ${configured}, which is a file, not a folder.`, fix: `Point "cwd" in ${file} at a folder.` };
  }
  return { id: 'cwd', title, status: 'pass', detail: `${configured} is a folder.` };
}

/** The "envFile readable" line, and the variables it holds (their values are never shown). */
export function checkEnvFile(resolved: string | undefined, raw: string | undefined, file: string): { check: DoctorCheck; values?: Record<string, string> } {
  const title = 'envFile readable';
  if (raw === undefined) return { check: { id: 'envFile', title, status: 'skip', detail: '"envFile" is not set.' } };
  if (resolved === undefined) return { check: { id: 'envFile', title, status: 'skip', detail: '"envFile" uses a variable without a value here (see Variables).' } };
  let text: string;
  try {
    text = fs.readFileSync(resolved, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return {
      check: {
        id: 'envFile',
        title,
        status: 'fail',
        detail: `"envFile" is ${resolved}, which ${code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a folder' : `cannot be read (${code})`}.`,
        fix: `Create the file (NAME=value lines), or correct "envFile" in ${file} (a relative path is taken from the workspace folder).`,
      },
    };
  }
  const values = parseDotenv(text);
  const names = Object.keys(values);
  if (names.length === 0 && text.trim() !== '') {
    return {
      check: { id: 'envFile', title, status: 'warn', detail: `${resolved} is readable but holds no NAME=value lines.`, fix: 'Write one NAME=value per line.' },
      values,
    };
  }
  return { check: { id: 'envFile', title, status: 'pass', detail: `${resolved} sets ${names.length} variable${names.length === 1 ? '' : 's'}${names.length ? ` (${names.join(', ')})` : ''}.` }, values };
}
