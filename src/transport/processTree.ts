// A server's descendants on Linux, read from /proc (no `ps`, which may be missing). A child that
// calls setsid() leaves the server's process group, so signalling the group misses it; walking the
// parent links while the server still runs finds it. Bounded: at most MAX_PROCESSES_READ entries
// of /proc are read, so a machine with very many processes costs a bounded, small pause.
import { readdirSync, readFileSync } from 'node:fs';

/** A process as found: its pid and start time (clock ticks since boot), so a reused pid is not signalled. */
export interface FoundProcess {
  readonly pid: number;
  readonly startTime: string;
}

export const MAX_PROCESSES_READ = 4096;

/** Whether descendants can be found here (Linux with /proc). */
export const canFindDescendants = process.platform === 'linux';

/** The pid, parent pid and start time from /proc/PID/stat, or undefined if it is gone or unreadable. */
function readStat(pid: number): { ppid: number; startTime: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid ... starttime(22nd field)": comm may hold spaces and parentheses, so
  // the fields are counted after its last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  const startTime = fields[19];
  if (!Number.isInteger(ppid) || startTime === undefined) return undefined;
  return { ppid, startTime };
}

/** Every process under `rootPid` (children, their children, ...), not the root itself. */
export function findDescendants(rootPid: number, limit = MAX_PROCESSES_READ): FoundProcess[] {
  if (!canFindDescendants) return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const childrenOf = new Map<number, FoundProcess[]>();
  let read = 0;
  for (const entry of entries) {
    if (read >= limit) break;
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0 || String(pid) !== entry) continue;
    read++;
    const stat = readStat(pid);
    if (!stat) continue;
    const siblings = childrenOf.get(stat.ppid) ?? [];
    siblings.push({ pid, startTime: stat.startTime });
    childrenOf.set(stat.ppid, siblings);
  }
  const found: FoundProcess[] = [];
  const seen = new Set<number>([rootPid]);
  const pending = [rootPid];
  while (pending.length > 0) {
    for (const child of childrenOf.get(pending.pop()!) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      found.push(child);
      pending.push(child.pid);
    }
  }
  return found;
}

/** Signals `found` if it is still the same process (same start time); false if it is gone. */
export function signalIfSame(found: FoundProcess, signal: NodeJS.Signals): boolean {
  const now = readStat(found.pid);
  if (!now || now.startTime !== found.startTime) return false;
  try {
    process.kill(found.pid, signal);
    return true;
  } catch {
    return false;
  }
}
