/** Time source, injectable so the policy is tested with a fake clock. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface RestartPolicyOptions {
  /** First delay after a crash. */
  initialDelayMs?: number;
  /** Upper bound of the exponential backoff. */
  maxDelayMs?: number;
  /** The breaker trips after this many crashes within `windowMs`. */
  maxCrashes?: number;
  windowMs?: number;
}

export type RestartDecision =
  | { restart: true; delayMs: number; crashesInWindow: number }
  | { restart: false; crashesInWindow: number; reason: string };

/**
 * Exponential backoff with a crash-loop breaker: 1 s, 2 s, 4 s … up to 30 s,
 * and no more restarts after 5 crashes within 3 minutes.
 */
export class RestartPolicy {
  private crashes: number[] = [];
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxCrashes: number;
  readonly windowMs: number;

  constructor(
    options: RestartPolicyOptions = {},
    private readonly clock: Clock = systemClock,
  ) {
    this.initialDelayMs = options.initialDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.maxCrashes = options.maxCrashes ?? 5;
    this.windowMs = options.windowMs ?? 3 * 60_000;
  }

  /** Records a crash now and says whether (and when) to restart. */
  recordCrash(): RestartDecision {
    const now = this.clock.now();
    this.crashes = this.crashes.filter((t) => now - t < this.windowMs);
    this.crashes.push(now);
    const count = this.crashes.length;
    if (count >= this.maxCrashes) {
      return {
        restart: false,
        crashesInWindow: count,
        reason: `crashed ${count} times within ${Math.round(this.windowMs / 1000)} s; automatic restarts stopped`,
      };
    }
    const delayMs = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** (count - 1));
    return { restart: true, delayMs, crashesInWindow: count };
  }

  /** A manual restart (or a clean run) starts the count afresh. */
  reset(): void {
    this.crashes = [];
  }
}
