import type { ExponentialHistogram } from '@opentelemetry/sdk-metrics';
import {
  COUNTER_FIELDS,
  SUMMED_VALUE_FIELDS,
  HISTOGRAM_QUANTILES,
  HISTOGRAM_FIELDS,
  legacyNumber,
  SPIRAL_FIELDS,
  type LegacyValue,
  type MetricKind,
} from '../snapshot/legacyValues';
import {
  emptyAggregate,
  mergeInto,
  quantiles,
  WindowedHistogram,
  type HistogramAggregate,
} from './WindowedHistogram';

/**
 * The running sum of every series that shares a legacy name, across all host types, hosts and
 * the global group: what `/all` serves. Sums are kept up to date by the series themselves in
 * the tick, so `/all` costs one read per name however many host types there are.
 */
export class NameTotals {
  count = 0;
  one = 0;
  value = 0;
  /** Bumped on every change of a member histogram. */
  version = 0;
  readonly members: Series[] = [];
  /**
   * For histograms: the buckets of every member's window summed, kept up to date by the windows
   * as slots come and go, so that `/all` need not merge every window after each tick.
   */
  readonly histogramBuckets: HistogramAggregate | undefined;
  private _cachedVersion = -1;
  private _cached: LegacyValue | undefined;

  constructor(
    readonly kind: MetricKind,
    readonly integer: boolean
  ) {
    this.histogramBuckets = kind === 'histogram' ? emptyAggregate() : undefined;
  }

  /** The `/all` value: `{count, one}` for spirals, `{value}` for counters and gauges, merged histograms. */
  total(): LegacyValue {
    switch (this.kind) {
      case 'spiral':
        return {
          names: SPIRAL_FIELDS,
          numbers: [
            legacyNumber(this.count, this.integer),
            legacyNumber(this.one, this.integer),
          ],
        };
      case 'counter':
      case 'gauge':
        return {
          names: SUMMED_VALUE_FIELDS,
          numbers: [legacyNumber(this.value, this.integer)],
        };
      case 'histogram':
        if (
          this._cachedVersion !== this.version ||
          this._cached === undefined
        ) {
          this._cached = histogramValue(this._mergedHistogram(), this.integer);
          this._cachedVersion = this.version;
        }
        return this._cached;
    }
  }

  /**
   * Every member's window merged, as merging them one by one into an empty aggregate gives:
   * the scale of the coarsest non-empty window, the buckets summed at that scale. The buckets
   * come from {@link histogramBuckets}; the few scalars are summed here, in member order.
   */
  private _mergedHistogram(): HistogramAggregate {
    const shared = this.histogramBuckets!;
    let scale = Infinity;
    let count = 0;
    let sum = 0;
    let zeroCount = 0;
    let min = Infinity;
    let max = -Infinity;
    for (const member of this.members) {
      const window = (member as HistogramSeries).window.summary;
      if (window.count === 0) continue;
      scale = Math.min(scale, window.scale);
      count += window.count;
      sum += window.sum;
      zeroCount += window.zeroCount;
      min = Math.min(min, window.min);
      max = Math.max(max, window.max);
    }
    if (count === 0) return emptyAggregate();
    if (shared.scale !== scale) {
      // The windows that forced a coarser scale have emptied since: merge afresh, at the finer one.
      Object.assign(shared, emptyAggregate());
      for (const member of this.members)
        mergeInto(shared, (member as HistogramSeries).window.aggregate);
    }
    return {
      scale,
      count,
      sum,
      zeroCount,
      min,
      max,
      positive: shared.positive,
      negative: shared.negative,
    };
  }
}

/**
 * One legacy metric of one host type, host or the global group: the state the reader's tick
 * updates from delta data points, and its legacy value. Values change only in the tick.
 */
export abstract class Series {
  abstract readonly kind: MetricKind;
  /** Bumped whenever the served value may have changed, so derived values can be cached. */
  version = 0;

  constructor(
    /** The totals of this series' name, kept up to date as the series changes. */
    readonly totals: NameTotals,
    /** When the reader first saw the series: `ms_since_reset` counts from here. */
    readonly createdAtMs: number
  ) {
    totals.members.push(this);
  }

  /** Integer-valued instruments are served as integers. */
  get integer(): boolean {
    return this.totals.integer;
  }

  /**
   * Drops window slots up to and including `slot`. Returns whether the value changed.
   * Only windowed kinds hold slots.
   */
  expireThrough(_slot: number): boolean {
    return false;
  }

  /** The value as served, at snapshot time `nowMs`. */
  abstract value(nowMs: number): LegacyValue;
}

/** Counter and ObservableCounter: exometer's spiral, `count` since start and `one` within the window. */
export class SpiralSeries extends Series {
  readonly kind = 'spiral';
  count = 0;
  /** Sum of the slots still in the window. */
  one = 0;
  /** The window's slots with data, oldest first, as `[slot, delta, slot, delta, …]`: one array per series, not two. */
  private readonly _window: number[] = [];

  /** Adds a delta to `slot`. Returns true when the slot had no data yet, i.e. its expiry must be scheduled. */
  add(slot: number, delta: number): boolean {
    if (delta === 0) return false;
    this.count += delta;
    this.one += delta;
    this.totals.count += delta;
    this.totals.one += delta;
    this.version++;
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
    // Sum what is left rather than trust the running difference: float deltas would leave a residue.
    let one = 0;
    for (let i = 1; i < window.length; i += 2) one += window[i]!;
    this.totals.one += one - this.one;
    this.one = one;
    this.version++;
    return true;
  }

  value(): LegacyValue {
    return {
      names: SPIRAL_FIELDS,
      numbers: [
        legacyNumber(this.count, this.integer),
        legacyNumber(this.one, this.integer),
      ],
    };
  }
}

/** UpDownCounter and Gauge kinds: a `value` and the ms since the series was created. */
export class ValueSeries extends Series {
  current = 0;

  constructor(
    readonly kind: 'counter' | 'gauge',
    totals: NameTotals,
    createdAtMs: number
  ) {
    super(totals, createdAtMs);
  }

  adjust(delta: number): void {
    if (delta === 0) return;
    this.current += delta;
    this.totals.value += delta;
    this.version++;
  }

  value(nowMs: number): LegacyValue {
    return {
      names: COUNTER_FIELDS,
      numbers: [
        legacyNumber(this.current, this.integer),
        Math.max(0, Math.round(nowMs - this.createdAtMs)),
      ],
    };
  }
}

/** Histogram: the window's count, exact mean, min and max, and estimated percentiles. */
export class HistogramSeries extends Series {
  readonly kind = 'histogram';
  readonly window = new WindowedHistogram(this.totals.histogramBuckets);
  private _cachedVersion = -1;
  private _cached: LegacyValue | undefined;

  add(slot: number, point: ExponentialHistogram): boolean {
    if (point.count === 0) return false;
    this.version++;
    this.totals.version++;
    return this.window.add(slot, point);
  }

  override expireThrough(slot: number): boolean {
    if (!this.window.expireThrough(slot)) return false;
    this.version++;
    this.totals.version++;
    return true;
  }

  value(): LegacyValue {
    // Percentiles sort the window's buckets: compute them once per change, on demand.
    if (this._cachedVersion !== this.version || this._cached === undefined) {
      this._cached = histogramValue(this.window.aggregate, this.integer);
      this._cachedVersion = this.version;
    }
    return this._cached;
  }
}

/** The legacy histogram datapoints of an aggregate: all zeros when it is empty. */
export function histogramValue(
  aggregate: Readonly<HistogramAggregate>,
  integer: boolean
): LegacyValue {
  const n = aggregate.count;
  if (n === 0)
    return { names: HISTOGRAM_FIELDS, numbers: HISTOGRAM_FIELDS.map(() => 0) };
  const numbers = [
    n,
    aggregate.sum / n,
    aggregate.min,
    aggregate.max,
    ...quantiles(aggregate, HISTOGRAM_QUANTILES),
  ];
  return {
    names: HISTOGRAM_FIELDS,
    numbers: numbers.map(x => legacyNumber(x, integer)),
  };
}

/** The value of several series served under one name (the domains of a host type): sums, or merged histograms. */
export function combinedValue(
  members: Series | readonly Series[],
  nowMs: number
): LegacyValue {
  if (members instanceof Series) return members.value(nowMs);
  const first = members[0]!;
  if (members.length === 1) return first.value(nowMs);
  if (first instanceof HistogramSeries) {
    const merged = emptyAggregate();
    for (const member of members)
      mergeInto(merged, (member as HistogramSeries).window.aggregate);
    return histogramValue(merged, first.integer);
  }
  const numbers = first.value(nowMs).numbers.slice();
  for (let i = 1; i < members.length; i++) {
    const other = members[i]!.value(nowMs).numbers;
    numbers[0]! += other[0]!;
    // Spirals add `one`; counters and gauges report the oldest series' age.
    numbers[1] =
      first.kind === 'spiral'
        ? numbers[1]! + other[1]!
        : Math.max(numbers[1]!, other[1]!);
  }
  return { names: first.value(nowMs).names, numbers };
}
