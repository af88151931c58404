import { randomBytes } from 'node:crypto';

/**
 * The name of the temporary file a file is written to before it is renamed over the original (a
 * reader never sees half a file). Random as well as per process: the name cannot be guessed and
 * planted beforehand, nor collide with another container's process of the same id on a shared
 * volume. Write it with flag 'wx', which refuses a file (or a symlink) already there.
 */
export function temporaryNameFor(file: string): string {
  return `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}
