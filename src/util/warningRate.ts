/**
 * At most `perSecond` warnings a second of one kind; those over that are counted, and the count is
 * said in one warning when the next second's first comes, at roll() once that second is over, or at
 * flush(). For what a peer can send as fast as it likes (a hostile server's lines or messages),
 * where each warning would be a log line.
 */
export class WarningRate {
  private windowStart = Number.NEGATIVE_INFINITY;
  private inWindow = 0;
  private skipped = 0;

  constructor(
    readonly perSecond: number,
    /** Says that `skipped` warnings were not given. */
    private readonly sayCount: (skipped: number) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Warnings counted and not yet said. */
  get pending(): boolean {
    return this.skipped !== 0;
  }

  /** True when a warning may be given now; false when it is counted instead. */
  admit(): boolean {
    this.roll();
    if (this.inWindow >= this.perSecond) {
      this.skipped++;
      return false;
    }
    this.inWindow++;
    return true;
  }

  /** A new second begins when the last one is over; the count of that one is said. */
  roll(): void {
    const now = this.now();
    if (now - this.windowStart < 1000) return;
    this.flush();
    this.windowStart = now;
    this.inWindow = 0;
  }

  /** Says how many warnings were not given, if any. */
  flush(): void {
    const skipped = this.skipped;
    if (skipped === 0) return;
    this.skipped = 0;
    this.sayCount(skipped);
  }
}
