/**
 * The primary's store work, one job at a time and each in slices: a worker's message applied,
 * a tick published, a worker forgotten. Jobs never interleave (the store is not re-entrant
 * across a pause), and each pauses when its slice has used the reader's `sliceMs`, so that the
 * primary's event loop is never blocked longer than one worker's sliced tick would block it.
 */
import { diag } from '@opentelemetry/api';
import type { MetricStore } from '../reader/MetricStore';
import type { Slicer } from '../reader/Slicer';

/** One job: the slicer to call `due()` and `pause()` on. */
export type SlicedJob = (slicer: Slicer) => Promise<void> | void;

/** See the module comment. */
export class SerialSlicedWork {
  /** The slot the window ends at: it never moves back. */
  private _slot = -Infinity;
  private _chain: Promise<void> = Promise.resolve();
  private _queued = 0;

  constructor(
    private readonly _store: MetricStore,
    private readonly _options: {
      readonly slotMs: number;
      readonly monotonicNow: () => number;
    },
    /** The most jobs waiting: past it a job is refused, so that a primary behind cannot grow without bound. */
    private readonly _maxQueued: number
  ) {}

  /** The slot the window ends at, as of the last job that advanced it. */
  get slot(): number {
    return this._slot;
  }

  /** The slot at `monotonicMs`, by default now (for bookkeeping; the window moves only in jobs). */
  currentSlot(monotonicMs = this._options.monotonicNow()): number {
    return Math.max(this._slot, Math.floor(monotonicMs / this._options.slotMs));
  }

  /**
   * Queues `job` after those queued before; false (and nothing queued) when
   * {@link _maxQueued} jobs are waiting. A job that throws is reported and survived.
   */
  run(job: SlicedJob): boolean {
    if (this._queued >= this._maxQueued) return false;
    this._queued++;
    this._chain = this._chain.then(async () => {
      const slicer = this._store.slicer();
      try {
        await job(slicer);
      } catch (error) {
        diag.error('LegacyClusterAggregator: store work failed', error);
      } finally {
        slicer.end();
        this._queued--;
      }
    });
    return true;
  }

  /** Resolves once every job queued so far is done. */
  idle(): Promise<void> {
    return this._chain;
  }

  /** In a job: slides the window to the current slot, in slices; returns the monotonic time read. */
  async advance(slicer: Slicer): Promise<number> {
    const monotonicMs = this._options.monotonicNow();
    const slot = this.currentSlot(monotonicMs);
    if (slot !== this._slot) {
      this._slot = slot;
      await this._store.expireSliced(slot, slicer);
    }
    return monotonicMs;
  }
}
