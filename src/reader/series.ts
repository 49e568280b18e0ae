import type { MetricKind } from '../snapshot/legacyValues';
import { dropFront } from './dropFront';
import {
  emptyAggregate,
  mergeInto,
  type HistogramAggregate,
} from './histogramBuckets';
import { Recorded } from './records';
import type { RecordTable, RecordTableEditor } from './RecordTable';
import { WindowedHistogram, type HistogramRecord } from './WindowedHistogram';

/** How the last values of several sources of one series combine: `sum` unless chosen otherwise. */
export type LastValueRule = 'sum' | 'max' | 'min' | 'average';

/** A spiral as published: the exact sums, as the deltas added up. */
export class SpiralRecord {
  constructor(
    readonly count: number,
    readonly one: number
  ) {}
}

/**
 * The state every series that shares a legacy name has in common, across all host types, hosts
 * and the global group: what `/all` serves is summed from its members when a snapshot asks.
 * For histograms it also keeps the buckets of every member's window summed, so that `/all`
 * need not merge every window after each tick.
 */
export class NameTotals extends Recorded<HistogramAggregate> {
  /** Every series of this name, oldest first. */
  readonly members: Series[] = [];
  /** For histograms: where the members' buckets summed are published; -1 for other kinds. */
  index = -1;
  /**
   * For histograms: the working sum of the members' buckets, kept by their windows as slots come
   * and go, at a scale no finer than any of theirs.
   */
  readonly shared: HistogramAggregate | undefined;
  /** How the last values of the name's sources combine (the aggregator's `gauges` option). */
  lastValues: LastValueRule = 'sum';
  /** For histograms: how many non-empty member windows have each scale. */
  private readonly _scales = new Map<number, number>();

  constructor(
    readonly kind: MetricKind,
    /**
     * Served as integers: true while every instrument that feeds the name is integer-valued.
     * Only ever turns false, when a floating-point instrument joins.
     */
    public integer: boolean,
    /** The generation in which the name appeared. */
    readonly since: number,
    /** The instrument that gave the name first, for warnings: `counter "sent" of meter "app"`. */
    readonly origin: string
  ) {
    super();
    this.shared = kind === 'histogram' ? emptyAggregate() : undefined;
  }

  /**
   * Follows a member window from one published scale to the next (NaN while it is empty), so
   * the coarsest scale is known without a scan.
   */
  memberChanged(before: number, after: number): void {
    // Most ticks keep a window non-empty at its scale: nothing to count then.
    if (before === after) return;
    if (!Number.isNaN(before)) {
      const left = this._scales.get(before)! - 1;
      if (left === 0) this._scales.delete(before);
      else this._scales.set(before, left);
    }
    if (!Number.isNaN(after))
      this._scales.set(after, (this._scales.get(after) ?? 0) + 1);
  }

  /** The buckets as published: a copy, so that later ticks leave it alone. */
  publish(): HistogramAggregate {
    const shared = this.shared ?? emptyAggregate();
    let coarsest = Infinity;
    for (const scale of this._scales.keys())
      coarsest = Math.min(coarsest, scale);
    if (shared.count > 0 && shared.scale < coarsest) {
      // The windows that forced a coarser scale have emptied since: merge afresh, at the finer one.
      Object.assign(shared, emptyAggregate());
      for (const member of this.members)
        mergeInto(shared, (member as HistogramSeries).window.aggregate);
    }
    return {
      ...shared,
      positive: new Map(shared.positive),
      negative: new Map(shared.negative),
    };
  }
}

/**
 * One legacy metric of one host type, host or the global group. The reader's tick updates its
 * working state from delta data points and then publishes it as an immutable record.
 */
export abstract class Series<R = unknown> extends Recorded<R> {
  constructor(
    /** What the series shares with every series of its name. */
    readonly totals: NameTotals,
    /** When the reader first saw the series, on the monotonic clock: `ms_since_reset` counts from here. */
    readonly createdAtMonotonicMs: number,
    /** The generation in which the series appeared: older snapshots do not show it. */
    readonly since: number,
    /** Where its record is in the record table. */
    readonly index: number
  ) {
    super();
    totals.members.push(this);
  }

  /** Appends its first record to the table, at {@link index} on (the table's size when it was made). */
  appendRecord(records: RecordTableEditor): void {
    records.push(this.publish());
  }

  /**
   * Drops window slots up to and including `slot`. Returns whether the state changed.
   * Only windowed kinds hold slots.
   */
  expireThrough(_slot: number): boolean {
    return false;
  }
}

/** Below every slot a clock gives: the reader's clocks count from the epoch, or from 0 in tests. */
const NO_SLOT = -(2 ** 30);

/**
 * A series with a window of slots. A tick may ask it to expire twice through the same slot (as
 * its data point is applied, then from the expiry wheel): the second asking reads no slot.
 */
abstract class WindowedSeries<R> extends Series<R> {
  /**
   * The last slot expired through: every slot up to it is gone, and later data is newer. It
   * starts below any slot a clock gives, as a small integer, so that the field never needs a
   * number of its own on the heap.
   */
  private _expiredThrough = NO_SLOT;

  override expireThrough(slot: number): boolean {
    if (slot <= this._expiredThrough) return false;
    this._expiredThrough = slot;
    return this.dropThrough(slot);
  }

  /** Drops the window's slots up to and including `slot`. Returns whether the state changed. */
  protected abstract dropThrough(slot: number): boolean;
}

/** Counter and ObservableCounter: exometer's spiral, `count` since start and `one` within the window. */
export class SpiralSeries extends WindowedSeries<SpiralRecord> {
  private _count = 0;
  /** The window's slots with data, oldest first, as `[slot, delta, slot, delta, …]`: one array per series, not two. */
  private readonly _window: number[] = [];
  /**
   * `one`, and the same without the newest slot: the slots' deltas summed oldest first, as a
   * sum afresh would give it (a running difference would keep a float residue, or NaN once a
   * slot that overflowed to Infinity left), kept so that publishing reads no slot.
   */
  private _one = 0;
  private _oneBeforeLast = 0;

  /** Adds a non-zero delta to `slot`. Returns true when the slot had no data yet, i.e. its expiry must be scheduled. */
  add(slot: number, delta: number): boolean {
    this._count += delta;
    const window = this._window;
    const last = window.length - 2;
    if (last >= 0 && window[last] === slot) {
      this._one = this._oneBeforeLast + (window[last + 1]! += delta);
      return false;
    }
    window.push(slot, delta);
    this._oneBeforeLast = this._one;
    this._one += delta;
    return true;
  }

  protected dropThrough(slot: number): boolean {
    const window = this._window;
    let dropped = 0;
    while (dropped < window.length && window[dropped]! <= slot) dropped += 2;
    if (dropped === 0) return false;
    dropFront(window, dropped);
    let one = 0;
    let beforeLast = 0;
    for (let i = 1; i < window.length; i += 2) {
      beforeLast = one;
      one += window[i]!;
    }
    this._one = one;
    this._oneBeforeLast = beforeLast;
    return true;
  }

  publish(): SpiralRecord {
    return new SpiralRecord(this._count, this._one);
  }

  // Two numbers in two places, `count` then `one`: no object per record.
  override writeRecord(records: RecordTableEditor): void {
    records.set(this.index, this._count);
    records.set(this.index + 1, this._one);
  }

  override appendRecord(records: RecordTableEditor): void {
    records.push(this._count);
    records.push(this._one);
  }

  override recordIn(records: RecordTable): SpiralRecord {
    return new SpiralRecord(
      records.get(this.index) as number,
      records.get(this.index + 1) as number
    );
  }
}

/** Histogram: the window's count, exact mean, min and max, and estimated percentiles. */
export class HistogramSeries extends WindowedSeries<HistogramRecord> {
  readonly window = new WindowedHistogram(this.totals.shared);

  protected dropThrough(slot: number): boolean {
    return this.window.expireThrough(slot);
  }

  /**
   * The scale of its record as last published, NaN while that was empty: what the name's count
   * of scales holds for it, kept here so that publishing reads no older record.
   */
  publishedScale = NaN;

  publish(): HistogramRecord {
    return this.window.record();
  }
}
