import { Snapshot } from '../snapshot/Snapshot';
import type { MetricStore } from './MetricStore';
import type { Slicer } from './Slicer';

/** Whether the legacy API serves a store: not yet, yes, or no more (it answers 503 unless `serving`). */
export type ServingStatus = 'unregistered' | 'serving' | 'shutdown';

/**
 * A metric store and what the legacy API serves from it: the snapshot published last, whether
 * it is served, and the clock the answers are dated by. What a `LegacyMetricsReader` (which
 * holds one) and a `LegacyClusterAggregator` (which is one) have in common for the HTTP layer.
 */
export class ServedStore {
  private _snapshot: Snapshot;
  private _status: ServingStatus = 'unregistered';

  constructor(
    /** @internal */
    protected readonly _store: MetricStore,
    private readonly _clock: () => number
  ) {
    this._snapshot = new Snapshot(_store.view);
  }

  /** What the legacy API serves now: replaced after every tick, at most one slot old. */
  get snapshot(): Snapshot {
    return this._snapshot;
  }

  /** `unregistered` until it starts serving, `serving` from then on, `shutdown` once shut down. */
  get status(): ServingStatus {
    return this._status;
  }

  /** The wall clock (the `now` option), in milliseconds since the epoch. */
  now(): number {
    return this._clock();
  }

  /** How many legacy series are held. */
  get seriesCount(): number {
    return this._store.seriesCount;
  }

  /**
   * Serves from now on, unless shut down already.
   * @internal
   */
  serve(): void {
    if (this._status === 'unregistered') this._status = 'serving';
  }

  /**
   * Serves no more: the API answers 503.
   * @internal
   */
  shutDown(): void {
    this._status = 'shutdown';
  }

  /**
   * Publishes what the store has applied, in slices; the snapshot before serves until the last.
   * @internal
   */
  async publish(
    timeMs: number,
    monotonicMs: number,
    slicer: Slicer
  ): Promise<void> {
    this._snapshot = new Snapshot(
      await this._store.publishSliced(timeMs, monotonicMs, slicer)
    );
  }
}
