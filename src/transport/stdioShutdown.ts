// Stopping a stdio server and everything it started: the escalation the MCP lifecycle describes
// (stdin closed, then SIGTERM, then SIGKILL; on Windows the tree terminated), signals to the
// whole process group (POSIX) plus the descendants that left it with setsid() (Linux, found in
// /proc by processTree.ts), the orphans killed once the server has exited, and a synchronous
// last resort when this Node process exits with servers still running.

import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { canFindDescendants, findDescendants, signalIfSame, type FoundProcess } from './processTree';
import { errnoCode } from './stdioStartError';

const isWindows = process.platform === 'win32';

export interface ShutdownGraces {
  readonly closeStdinGraceMs: number;
  readonly sigtermGraceMs: number;
}

/**
 * After stdin was closed: SIGTERM when the server has not exited within its grace, SIGKILL after
 * the next (Windows: the tree terminated at once). `step` signals and records why.
 */
export function scheduleEscalation(
  graces: ShutdownGraces,
  later: (ms: number, fn: () => void) => void,
  step: (signal: 'SIGTERM' | 'SIGKILL', why: string) => void,
): void {
  later(graces.closeStdinGraceMs, () => {
    if (isWindows) {
      // No SIGTERM on Windows: terminate the tree.
      step('SIGKILL', `it did not exit within ${graces.closeStdinGraceMs} ms of its input closing, so its process tree was terminated`);
      return;
    }
    step('SIGTERM', `it did not exit within ${graces.closeStdinGraceMs} ms of its input closing, so SIGTERM was sent`);
    later(graces.sigtermGraceMs, () => {
      step('SIGKILL', `it did not exit within ${graces.sigtermGraceMs} ms of SIGTERM, so SIGKILL was sent`);
    });
  });
}

/** Signals one server's process tree. */
export class ProcessTreeKiller {
  /** The server's descendants found while stopping it (Linux), signalled with it. */
  private readonly descendants = new Map<number, FoundProcess>();

  constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    /** Whether the server has exited (its pid may then belong to another process). */
    private readonly exited: () => boolean,
  ) {}

  /**
   * Signals the server's process group (POSIX) or terminates its process tree (Windows). An error
   * worth reporting with the close is returned.
   */
  kill(signal: 'SIGTERM' | 'SIGKILL'): Error | undefined {
    const child = this.child;
    const pid = child.pid;
    if (pid === undefined) return undefined;
    if (isWindows) {
      killWindowsTree(pid, child);
      return undefined;
    }
    this.rememberDescendants();
    let error: Error | undefined;
    try {
      process.kill(-pid, signal);
    } catch (err) {
      // ESRCH: no such group (the server may have moved itself out of it); EPERM: not ours.
      // Signal the process itself while it still runs.
      if (!this.exited()) {
        try {
          child.kill(signal);
        } catch {
          // It exited meanwhile.
        }
      } else if (errnoCode(err) !== 'ESRCH') {
        error = err instanceof Error ? err : new Error(String(err));
      }
    }
    this.signalDescendants(signal);
    return error;
  }

  /**
   * Adds the server's current descendants (Linux, /proc) to those to stop with it: a child that
   * called setsid() is in a group of its own and a group signal misses it.
   */
  rememberDescendants(): void {
    const pid = this.child.pid;
    if (!canFindDescendants || pid === undefined || this.exited()) return;
    for (const found of findDescendants(pid)) this.descendants.set(found.pid, found);
  }

  /** The server is gone; whatever is left in its process group are orphans we started. */
  killOrphans(): void {
    if (isWindows) return;
    const pid = this.child.pid;
    if (pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is already empty.
      }
    }
    // Descendants found during Stop that left the group (setsid) go with it too.
    this.signalDescendants('SIGKILL');
    this.descendants.clear();
  }

  /** Synchronous last resort when this Node process exits with the server still running. */
  killNowForHostExit(): void {
    const pid = this.child.pid;
    if (pid === undefined || this.exited()) return;
    try {
      if (isWindows) {
        spawnSync('taskkill', ['/T', '/F', '/PID', String(pid)], { windowsHide: true, stdio: 'ignore' });
      } else {
        const descendants = findDescendants(pid);
        for (const found of descendants) signalIfSame(found, 'SIGKILL');
        process.kill(-pid, 'SIGKILL');
      }
    } catch {
      // Nothing more can be done while exiting.
    }
  }

  private signalDescendants(signal: NodeJS.Signals): void {
    for (const found of this.descendants.values()) {
      if (!signalIfSame(found, signal)) this.descendants.delete(found.pid);
    }
  }
}

/** Servers still running; killed synchronously if this process exits first. */
export interface KilledAtHostExit {
  killNowForHostExit(): void;
}

const liveServers = new Set<KilledAtHostExit>();
let exitHookInstalled = false;

export function killAtHostExit(server: KilledAtHostExit): void {
  liveServers.add(server);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const s of liveServers) s.killNowForHostExit();
  });
}

export function forgetAtHostExit(server: KilledAtHostExit): void {
  liveServers.delete(server);
}

function killWindowsTree(pid: number, child: ChildProcessWithoutNullStreams): void {
  const killer = spawn('taskkill', ['/T', '/F', '/PID', String(pid)], { windowsHide: true, stdio: 'ignore' });
  killer.on('error', () => {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  });
}
