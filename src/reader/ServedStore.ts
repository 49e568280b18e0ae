import { Snapshot } from '../snapshot/Snapshot';
import type { MetricStore } from './MetricStore';
import type { Slicer } from './Slicer';
import type { StoreView } from './StoreView';

/**
 * The method by which the HTTP layer reads what a source serves without being handed it (see
 * {@link ServedStore.snapshot}): each request reads it to its end within one turn. A registered
 * symbol, so that a reader and a plugin from two installs of this package still agree.
 */
export const SERVED_SNAPSHOT = Symbol.for(
  'otel-legacy-metrics-api.servedSnapshot'
);

/** Whether the legacy API serves a store: not yet, yes, or no more (it answers 503 unless `serving`). */
export type ServingStatus = 'unregistered' | 'serving' | 'shutdown';

/**
 * A metric store and what the legacy API serves from it: the snapshot published last, whether
 * it is served, and the clock the answers are dated by. What a `LegacyMetricsReader` (which
 * holds one) and a `LegacyClusterAggregator` (which is one) have in common for the HTTP layer.
 */
export class ServedStore {
  private _snapshot: Snapshot;
  private _view: StoreView;
  /** Whether {@link snapshot} handed the snapshot served now to a caller, who may keep it. */
  private _handedOut = false;
  private _status: ServingStatus = 'unregistered';

  constructor(
    /** @internal */
    protected readonly _store: MetricStore,
    private readonly _clock: () => number
  ) {
    this._view = _store.view;
    this._snapshot = new Snapshot(this._view);
  }

  /**
   * What the legacy API serves now: replaced after every tick, at most one slot old. A snapshot
   * read here never changes, however long it is kept; its copies of the figures are reused once
   * the garbage collector has found it unreachable.
   */
  get snapshot(): Snapshot {
    this._handedOut = true;
    return this._snapshot;
  }

  /**
   * What the legacy API serves now, for a request that reads it within one turn and keeps
   * nothing of it: its copies are reused as soon as the next tick has replaced it.
   * @internal
   */
  [SERVED_SNAPSHOT](): Snapshot {
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
    const view = await this._store.publishSliced(timeMs, monotonicMs, slicer);
    // Read only by requests, each answered within one turn, the snapshot replaced is read by
    // nothing: its arrays serve the next publication, without waiting for a full collection.
    if (!this._handedOut) this._view.release();
    this._handedOut = false;
    this._view = view;
    this._snapshot = new Snapshot(view);
  }
}
