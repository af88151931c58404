/**
 * The longest time the event loop went without running a timer, measured from stallProbe() to
 * stop(). Not perf_hooks' monitorEventLoopDelay: it reported 20–27 ms while the loop was held 2 s
 * by a pipe's data callbacks (libuv reads a readable pipe up to 32 times in one poll), and a stall
 * that ends as the awaited call resolves is counted here too (stop() waits for one more timer).
 *
 * A gap counts only as far as this process used the CPU in it (process.cpuUsage, all its threads:
 * an upper bound of the main thread's work). Test files run side by side on a machine of 2 CPUs;
 * a gap the operating system made by running something else is not the loop being held (ci20:
 * 113, 258 and 107 ms gaps in a flood test whose reads are bounded at 10 ms a turn). A loop our
 * code holds keeps the CPU busy all along and counts whole (the quadratic redaction's 29 s).
 * (A loop held by a call that blocks without the CPU, a synchronous wait, would not count: the
 * hazards these tests look for are work on what a server sent.)
 */
export function stallProbe(): { stop(): Promise<number> } {
  let last = performance.now();
  let lastCpu = cpuMs();
  let longest = 0;
  const tick = () => {
    const now = performance.now();
    const cpu = cpuMs();
    longest = Math.max(longest, Math.min(now - last, cpu - lastCpu));
    last = now;
    lastCpu = cpu;
  };
  // Unref'd: a test that fails before stop() must not keep the process alive.
  const timer = setInterval(tick, 5).unref();
  return {
    stop: () =>
      new Promise((resolve) =>
        setTimeout(() => {
          tick();
          clearInterval(timer);
          resolve(longest);
        }, 0),
      ),
  };
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
