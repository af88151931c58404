/**
 * The longest time the event loop went without running a timer, measured from stallProbe() to
 * stop(). Not perf_hooks' monitorEventLoopDelay: it reported 20–27 ms while the loop was held 2 s
 * by a pipe's data callbacks (libuv reads a readable pipe up to 32 times in one poll), and a stall
 * that ends as the awaited call resolves is counted here too (stop() waits for one more timer).
 */
export function stallProbe(): { stop(): Promise<number> } {
  let last = performance.now();
  let longest = 0;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
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
