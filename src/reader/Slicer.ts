const threadCpuUsage = (
  process as { threadCpuUsage?: () => { user: number; system: number } }
).threadCpuUsage;

/** This thread's CPU time in ms (Node 23.9 and later), else NaN. */
function threadCpuMs(): number {
  if (threadCpuUsage === undefined) return NaN;
  const { user, system } = threadCpuUsage.call(process);
  return (user + system) / 1000;
}

/**
 * How much work, in units of about a tenth of a microsecond, runs between two readings of the
 * clock: about 25 µs. Reading it costs about 80 ns and, where the caller is not optimized, a
 * number allocated on the collector's heap; read for every few points, it took a fifth of a
 * capture's time and half of what a tick allocates, and every 64 KB allocated while V8 marks is
 * a place where it takes a marking step of up to 5 ms.
 */
export const CHECK_EVERY = 256;

/**
 * The time budget of the reader's work on the host's event loop: a tick's apply, expiry and
 * publication run in slices of at most `budgetMs` each, and between two slices the loop serves
 * whatever waits (requests, I/O, the host's own timers). Work calls {@link due} once per unit
 * (a data point, a series) with the unit's cost; the clock is read only once per
 * {@link CHECK_EVERY} of cost, so that asking costs an addition and a comparison.
 */
export class Slicer {
  /** The longest slice so far, in milliseconds: the longest the loop waited for this work. */
  longestMs = 0;
  /**
   * The most CPU time this thread spent in one slice, in milliseconds: unlike {@link longestMs},
   * it leaves out the time the operating system gave other processes.
   */
  longestCpuMs = 0;
  /** The slices so far together, in milliseconds: how long the loop spent on this work. */
  totalMs = 0;
  /** How many slices the work took so far. */
  slices = 1;
  private _sliceStart = performance.now();
  private _sliceCpuStart = threadCpuMs();
  /** The cost of the work so far, and where the next reading of the clock falls. */
  private _work = 0;
  private _checkAt: number;
  private readonly _checkEvery: number;

  constructor(private readonly _budgetMs: number) {
    // An unbounded slice never reads the clock.
    this._checkEvery = _budgetMs === Infinity ? Infinity : CHECK_EVERY;
    this._checkAt = this._checkEvery;
  }

  /** A slicer without a budget: the work runs as one block, as the synchronous API does. */
  static unbounded(): Slicer {
    return new Slicer(Infinity);
  }

  /** How long the slice under way has run, in milliseconds. */
  get elapsedMs(): number {
    return performance.now() - this._sliceStart;
  }

  /**
   * Counts one unit of work that costs `cost` (in tenths of a microsecond, roughly: each loop
   * names its own); true when the slice has used its budget and must end.
   */
  due(cost = 1): boolean {
    if ((this._work += cost) < this._checkAt) return false;
    this._checkAt = this._work + this._checkEvery;
    // The global `performance` each time: fake timers in tests replace it.
    return performance.now() - this._sliceStart >= this._budgetMs;
  }

  /** Ends the slice and resumes once the event loop has served what was waiting. */
  async pause(): Promise<void> {
    this.end();
    await new Promise<void>(resolve => setImmediate(resolve));
    this.slices++;
    this._sliceStart = performance.now();
    this._sliceCpuStart = threadCpuMs();
    this._checkAt = this._work + this._checkEvery;
  }

  /** Ends the current slice, counting its length. */
  end(): void {
    const ms = performance.now() - this._sliceStart;
    this.totalMs += ms;
    this.longestMs = Math.max(this.longestMs, ms);
    this.longestCpuMs = Math.max(
      this.longestCpuMs,
      threadCpuMs() - this._sliceCpuStart
    );
  }
}

/**
 * A slicer that also ends a slice every `maxUnits` units, whatever their cost: a test hook (the
 * reader's `slicePoints`), so that a test can stop the work at a unit of its choosing.
 */
export class CountingSlicer extends Slicer {
  private _count = 0;

  constructor(
    private readonly _maxUnits: number,
    budgetMs = Infinity
  ) {
    super(budgetMs);
  }

  override due(cost = 1): boolean {
    if (++this._count < this._maxUnits) return super.due(cost);
    this._count = 0;
    return true;
  }

  override async pause(): Promise<void> {
    await super.pause();
    this._count = 0;
  }
}
