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
 * The time budget of the reader's work on the host's event loop: a tick's apply, expiry and
 * publication run in slices of at most `budgetMs` each, and between two slices the loop serves
 * whatever waits (requests, I/O, the host's own timers). Work calls {@link due} once per unit
 * (a data point, a series); the clock is read only every few units, so that asking costs an
 * increment and a comparison.
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
  private _units = 0;
  private _sliceUnits = 0;
  private _checkAt: number;
  private readonly _checkEvery: number;

  constructor(
    private readonly _budgetMs: number,
    /** The most units per slice, whatever the time: a test hook (Infinity in production). */
    private readonly _maxUnits = Infinity
  ) {
    this._checkEvery = Math.min(16, _maxUnits);
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

  /** Counts one unit of work; true when the slice has used its budget and must end. */
  due(): boolean {
    if (++this._units < this._checkAt) return false;
    this._checkAt = this._units + this._checkEvery;
    if (this._units - this._sliceUnits >= this._maxUnits) return true;
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
    this._sliceUnits = this._units;
    this._checkAt = this._units + this._checkEvery;
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
