// apt-get does not wait for another apt-get's lists lock (it fails at once), and two installers of
// `npm test` may run side by side (scripts/python-env.mjs and scripts/vscode-host/install.mjs):
// each runs apt-get under one `flock` file, so the second waits for the first instead of failing.
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const APT_LOCK_FILE = join(tmpdir(), 'mcp-host-apt.lock');

/** `argv` (an apt-get command line) run under the shared lock; as it is where there is no `flock` (util-linux). */
export function underAptLock(/** @type {string[]} */ argv) {
  const hasFlock = spawnSync('sh', ['-c', 'command -v flock'], { stdio: 'ignore' }).status === 0;
  return hasFlock ? ['flock', APT_LOCK_FILE, ...argv] : argv;
}
