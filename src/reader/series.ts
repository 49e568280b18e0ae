import type { ExponentialHistogram } from '@opentelemetry/sdk-metrics';
import {
  COUNTER_FIELDS,
  SPIRAL_FIELDS,
  SUMMED_VALUE_FIELDS,
  type LegacyValue,
  type MetricKind,
} from '../snapshot/legacyValues';
import {
  emptyAggregate,
  histogramValue,
  mergeInto,
  WindowedHistogram,
  type HistogramAggregate,
  type HistogramRecord,
} from './WindowedHistogram';

/**
 * Something whose state snapshots read. The tick works on its own state and, once per tick in
 * which that changed, publishes it as a new record into the store's record table: records are
 * replaced, never changed, and each snapshot holds its own version of the table.
 */
export interface Recorded<R> {
  /** Where its record is in the record table. */
  readonly index: number;
  /** The tick generation that last marked it changed: marked once per tick. */
  dirtyGen: number;
  /** The working state as a new record. */
  publish(): R;
}

/** A record as one snapshot's version of the record table holds it. */
export type RecordReader = <R>(cell: Recorded<R>) => R;

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
export class NameTotals implements Recorded<HistogramAggregate> {
  /** Every series of this name, oldest first. */
  readonly members: Series[] = [];
  /** For histograms: where the members' buckets summed are published; -1 for other kinds. */
  index = -1;
  dirtyGen = -1;
  /**
   * For histograms: the working sum of the members' buckets, kept by their windows as slots come
   * and go, at a scale no finer than any of theirs.
   */
  readonly shared: HistogramAggregate | undefined;
  /** For histograms: how many non-empty member windows have each scale. */
  private readonly _scales = new Map<number, number>();

  constructor(
    readonly kind: MetricKind,
    readonly integer: boolean,
    /** The generation in which the name appeared. */
    readonly since: number
  ) {
    this.shared = kind === 'histogram' ? emptyAggregate() : undefined;
  }

  /** Follows a member window from one record to the next, so the coarsest scale is known without a scan. */
  memberChanged(before: HistogramRecord, after: HistogramRecord): void {
    if (before.summary.count > 0) {
      const scale = before.summary.scale;
      const left = this._scales.get(scale)! - 1;
      if (left === 0) this._scales.delete(scale);
      else this._scales.set(scale, left);
    }
    if (after.summary.count > 0) {
      const scale = after.summary.scale;
      this._scales.set(scale, (this._scales.get(scale) ?? 0) + 1);
    }
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
export abstract class Series<R = unknown> implements Recorded<R> {
  abstract readonly kind: MetricKind;
  dirtyGen = -1;

  constructor(
    /** What the series shares with every series of its name. */
    readonly totals: NameTotals,
    /** When the reader first saw the series: `ms_since_reset` counts from here. */
    readonly createdAtMs: number,
    /** The generation in which the series appeared: older snapshots do not show it. */
    readonly since: number,
    /** Where its record is in the record table. */
    readonly index: number
  ) {
    totals.members.push(this);
  }

  /** Integer-valued instruments are served as integers. */
  get integer(): boolean {
    return this.totals.integer;
  }

  /**
   * Drops window slots up to and including `slot`. Returns whether the state changed.
   * Only windowed kinds hold slots.
   */
  expireThrough(_slot: number): boolean {
    return false;
  }

  /** The working state as a new record. */
  abstract publish(): R;
}

/** Counter and ObservableCounter: exometer's spiral, `count` since start and `one` within the window. */
export class SpiralSeries extends Series<SpiralRecord> {
  readonly kind = 'spiral';
  private _count = 0;
  /** The window's slots with data, oldest first, as `[slot, delta, slot, delta, …]`: one array per series, not two. */
  private readonly _window: number[] = [];

  constructor(
    totals: NameTotals,
    createdAtMs: number,
    since: number,
    index: number
  ) {
    super(totals, createdAtMs, since, index);
  }

  /** Adds a non-zero delta to `slot`. Returns true when the slot had no data yet, i.e. its expiry must be scheduled. */
  add(slot: number, delta: number): boolean {
    this._count += delta;
    const window = this._window;
    const last = window.length - 2;
    if (last >= 0 && window[last] === slot) {
      window[last + 1]! += delta;
      return false;
    }
    window.push(slot, delta);
    return true;
  }

  override expireThrough(slot: number): boolean {
    const window = this._window;
    let dropped = 0;
    while (dropped < window.length && window[dropped]! <= slot) dropped += 2;
    if (dropped === 0) return false;
    window.splice(0, dropped);
    return true;
  }

  publish(): SpiralRecord {
    // `one` is summed afresh from the slots, oldest first: a running difference would keep a
    // float residue, or NaN once a slot that overflowed to Infinity left.
    let one = 0;
    const window = this._window;
    for (let i = 1; i < window.length; i += 2) one += window[i]!;
    return new SpiralRecord(this._count, one);
  }
}

/** UpDownCounter and Gauge kinds: the exact value and the ms since the series was created. */
export class ValueSeries extends Series<number> {
  private _value = 0;

  constructor(
    readonly kind: 'counter' | 'gauge',
    totals: NameTotals,
    createdAtMs: number,
    since: number,
    index: number
  ) {
    super(totals, createdAtMs, since, index);
  }

  /** Takes the value as reported (a gauge's last value). Returns whether it changed. */
  set(value: number): boolean {
    if (Object.is(value, this._value)) return false;
    this._value = value;
    return true;
  }

  /** Adds a finite delta (an up-down counter's). Returns whether the value changed. */
  add(delta: number): boolean {
    if (delta === 0) return false;
    this._value += delta;
    return true;
  }

  publish(): number {
    return this._value;
  }
}

/** Histogram: the window's count, exact mean, min and max, and estimated percentiles. */
export class HistogramSeries extends Series<HistogramRecord> {
  readonly kind = 'histogram';
  readonly window: WindowedHistogram;

  constructor(
    totals: NameTotals,
    createdAtMs: number,
    since: number,
    index: number
  ) {
    super(totals, createdAtMs, since, index);
    this.window = new WindowedHistogram(totals.shared);
  }

  /** Adds a non-empty delta point to `slot`. Returns true when its expiry must be scheduled. */
  add(slot: number, point: ExponentialHistogram): boolean {
    return this.window.add(slot, point);
  }

  override expireThrough(slot: number): boolean {
    return this.window.expireThrough(slot);
  }

  publish(): HistogramRecord {
    return this.window.record();
  }
}

/** The age `ms_since_reset` reports, at snapshot time `nowMs`. */
function age(series: Series, nowMs: number): number {
  return Math.max(0, Math.round(nowMs - series.createdAtMs));
}

/**
 * The value of the series served under one name of a group (one, or the domains of a host
 * type), as `read` gives their records: exact sums, or merged histograms.
 */
export function combinedValue(
  members: readonly Series[],
  read: RecordReader,
  nowMs: number
): LegacyValue {
  const first = members[0]!;
  const integer = first.integer;
  switch (first.kind) {
    case 'spiral': {
      let count = 0;
      let one = 0;
      for (const member of members) {
        const record = read(member as SpiralSeries);
        count += record.count;
        one += record.one;
      }
      return { names: SPIRAL_FIELDS, numbers: [count, one], integer };
    }
    case 'counter':
    case 'gauge': {
      let value = 0;
      let oldest = 0;
      for (const member of members) {
        value += read(member as ValueSeries);
        oldest = Math.max(oldest, age(member, nowMs));
      }
      return { names: COUNTER_FIELDS, numbers: [value, oldest], integer };
    }
    case 'histogram': {
      if (members.length === 1)
        return read(first as HistogramSeries).value(integer);
      const merged = emptyAggregate();
      for (const member of members)
        mergeInto(merged, read(member as HistogramSeries).aggregate);
      return histogramValue(merged, integer);
    }
  }
}

/** What `/all/:name` serves, from the records of `members` (every series of the name visible to the snapshot). */
export function totalValue(
  totals: NameTotals,
  members: readonly Series[],
  read: RecordReader
): LegacyValue {
  const integer = totals.integer;
  switch (totals.kind) {
    case 'spiral': {
      const { numbers } = combinedValue(members, read, 0);
      return { names: SPIRAL_FIELDS, numbers, integer };
    }
    case 'counter':
    case 'gauge': {
      let value = 0;
      for (const member of members) value += read(member as ValueSeries);
      return { names: SUMMED_VALUE_FIELDS, numbers: [value], integer };
    }
    case 'histogram':
      return histogramValue(mergedHistogram(totals, members, read), integer);
  }
}

/**
 * Every member's window merged, as merging them one by one into an empty aggregate gives:
 * the scale of the coarsest non-empty window, the buckets summed at that scale. The buckets
 * come from the name's published sum; the few scalars are summed here, in member order.
 */
function mergedHistogram(
  totals: NameTotals,
  members: readonly Series[],
  read: RecordReader
): HistogramAggregate {
  let scale = Infinity;
  let count = 0;
  let sum = 0;
  let zeroCount = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const member of members) {
    const window = read(member as HistogramSeries).summary;
    if (window.count === 0) continue;
    scale = Math.min(scale, window.scale);
    count += window.count;
    sum += window.sum;
    zeroCount += window.zeroCount;
    min = Math.min(min, window.min);
    max = Math.max(max, window.max);
  }
  if (count === 0) return emptyAggregate();
  const buckets = read(totals);
  if (buckets.scale === scale)
    return { ...buckets, scale, count, sum, zeroCount, min, max };
  // Not reached while publishing keeps the sum at the coarsest member's scale; merging is the fallback.
  const merged = emptyAggregate();
  for (const member of members)
    mergeInto(merged, read(member as HistogramSeries).aggregate);
  return merged;
}
