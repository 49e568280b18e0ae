/**
 * The slot boundaries every timer of the package ticks on: the legacy reader's, the cluster
 * primary's and a cluster worker's cumulative reader, on one steady clock, so that what they
 * sample in the same slot they sample in the same moment.
 */

/** A clock that never steps: the process's start time plus the monotonic time since. */
export function steadyNow(): number {
  return performance.timeOrigin + performance.now();
}

/** A timer may fire up to a millisecond before it is due: the event loop counts whole ms. */
const EARLY_FIRE_MS = 2;

/**
 * Milliseconds from `now` until the clock next reads `phaseMs` past a slot boundary. A moment
 * less than {@link EARLY_FIRE_MS} away is the one a timer just fired for, early: the next is a
 * slot later, or it would tick twice.
 */
export function msUntilSlotPhase(
  now: number,
  slotMs: number,
  phaseMs = 0
): number {
  const delay = (phaseMs - (now % slotMs) + slotMs) % slotMs;
  return delay < EARLY_FIRE_MS ? delay + slotMs : delay;
}

/**
 * Runs a job at every slot boundary (plus `phaseMs`), never two runs at once. Its timer does not
 * keep the process alive. The job must not throw.
 */
export class SlotTicker {
  private _timer: NodeJS.Timeout | undefined;
  private _running: Promise<void> | undefined;
  private _stopped = true;

  constructor(
    private readonly _job: () => Promise<void>,
    readonly slotMs: number,
    private readonly _now: () => number = steadyNow,
    private readonly _phaseMs = 0
  ) {}

  start(): void {
    this._stopped = false;
    this._schedule();
  }

  /** Runs the job now, or joins the run under way. */
  run(): Promise<void> {
    this._running ??= this._job().finally(() => {
      this._running = undefined;
    });
    return this._running;
  }

  /** Runs the job once more after the run under way, which may have begun too early to see the caller's last change. */
  async runAfresh(): Promise<void> {
    await this._running;
    await this.run();
  }

  /** Stops the timer; resolves when the run under way ends. */
  async stop(): Promise<void> {
    this._stopped = true;
    clearTimeout(this._timer);
    this._timer = undefined;
    await this._running;
  }

  private _schedule(): void {
    if (this._stopped) return;
    this._timer = setTimeout(
      () => void this.run().finally(() => this._schedule()),
      msUntilSlotPhase(this._now(), this.slotMs, this._phaseMs)
    );
    this._timer.unref();
  }
}
