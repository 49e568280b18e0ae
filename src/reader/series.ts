import type { MetricKind } from '../snapshot/legacyValues';
import { BucketSum } from './BucketSum';
import { HistogramSlots } from './HistogramSlots';
import { emptyAggregate, type HistogramAggregate } from './histogramBuckets';
import { Recorded, type PublishedRecords } from './records';
import type { SpiralColumns } from './SpiralColumns';
import type { HistogramSeries } from './HistogramSeries';

/** The scale of an empty histogram window: below every scale the SDK gives. */
export const NO_SCALE = -(2 ** 30);

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
export class NameTotals extends Recorded<Readonly<HistogramAggregate>> {
  /** Every series of this name, oldest first. */
  readonly members: Series[] = [];
  /** For histograms: the name's number among them (see `HistogramNames`); -1 for other kinds. */
  index = -1;
  /** The tick generation that last marked its sums changed: marked once per tick. */
  dirtyGen = -1;
  /**
   * For histograms: the working sum of the members' buckets, kept by their windows as slots come
   * and go, at a scale no finer than any of theirs.
   */
  readonly shared: BucketSum | undefined;
  /** For histograms: the entries of the members' windows, by slot. */
  readonly slots: HistogramSlots | undefined;
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
    this.shared = kind === 'histogram' ? new BucketSum() : undefined;
    this.slots = kind === 'histogram' ? new HistogramSlots() : undefined;
  }

  /**
   * Follows a member window from one published scale to the next ({@link NO_SCALE} while it
   * is empty), so the coarsest scale is known without a scan.
   */
  memberChanged(before: number, after: number): void {
    // Most ticks keep a window non-empty at its scale: nothing to count then.
    if (before === after) return;
    if (before !== NO_SCALE) {
      const left = this._scales.get(before)! - 1;
      if (left === 0) this._scales.delete(before);
      else this._scales.set(before, left);
    }
    if (after !== NO_SCALE)
      this._scales.set(after, (this._scales.get(after) ?? 0) + 1);
  }

  /** The buckets as published: a copy, so that later ticks leave it alone. */
  publish(): Readonly<HistogramAggregate> {
    const shared = this.shared;
    if (shared === undefined) return emptyAggregate();
    let coarsest = Infinity;
    for (const scale of this._scales.keys())
      coarsest = Math.min(coarsest, scale);
    if (shared.count > 0 && shared.scale < coarsest) {
      // The windows that forced a coarser scale have emptied since: merge afresh, at the finer one.
      shared.clear();
      for (const member of this.members)
        shared.addAggregate((member as HistogramSeries).aggregate);
    }
    return shared.publish();
  }

  recordIn(published: PublishedRecords): Readonly<HistogramAggregate> {
    return published.sums[this.index]!;
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
    readonly since: number
  ) {
    super();
    totals.members.push(this);
  }
}

/**
 * Counter and ObservableCounter: exometer's spiral, `count` since start and `one` within the
 * window. Its working state is a number of {@link SpiralColumns}, which the points of its
 * attribute sets feed directly; the series is what snapshots and groups hold.
 */
export class SpiralSeries extends Series<SpiralRecord> {
  constructor(
    totals: NameTotals,
    createdAtMonotonicMs: number,
    since: number,
    private readonly _columns: SpiralColumns
  ) {
    super(totals, createdAtMonotonicMs, since);
    this.number = _columns.create();
  }

  /** Its number in the columns: what its attribute sets bind to. */
  readonly number: number;

  publish(): SpiralRecord {
    return new SpiralRecord(
      this._columns.count(this.number),
      this._columns.one(this.number)
    );
  }

  recordIn(published: PublishedRecords): SpiralRecord {
    const figures = published.spirals;
    return new SpiralRecord(
      figures.count(this.number),
      figures.one(this.number)
    );
  }
}
