import type { ExponentialHistogram } from '@opentelemetry/sdk-metrics';
import type { LegacyValue } from '../snapshot/legacyValues';
import { dropFront } from './dropFront';
import {
  emptyAggregate,
  emptySummary,
  histogramValue,
  MAX_SCALE,
  type HistogramAggregate,
  type HistogramSummary,
} from './histogramBuckets';
import {
  addEntry,
  aggregateOf,
  COUNT,
  entryOf,
  MAX,
  mergeEntries,
  MIN,
  SCALE,
  SLOT,
  subtractEntry,
  SUM,
  ZERO_COUNT,
  type SlotEntry,
} from './slotEntries';

/**
 * A histogram over a sliding window of slots, fed by the SDK's base-2 exponential histogram
 * deltas (one per slot). It keeps the window's scalars as slots come and go, and the slots'
 * buckets packed (see {@link SlotEntry}), so adding a slot and expiring one cost only the
 * buckets those slots touched.
 */
export class WindowedHistogram implements Readonly<HistogramSummary> {
  /** Slots with data, oldest first. */
  private readonly _entries: SlotEntry[] = [];
  /*
   * The window's scalars, kept as slots come and go, in fields of the window itself (one object
   * fewer to reach per histogram): read-only outside this class, which alone writes them. Its
   * scale is the coarsest of the slots added since the window was last empty (detail once merged
   * away is gone, as in a running aggregate). The buckets are not kept here: {@link aggregate}
   * sums them from the slots when asked, which is rare (a request for this series), while every
   * histogram series holds a window.
   */
  scale = MAX_SCALE;
  count = 0;
  sum = 0;
  min = Infinity;
  max = -Infinity;
  zeroCount = 0;
  /**
   * The sum without the newest slot. The window's sum is the slots' sums added oldest first, as
   * a sum afresh would give it, whatever order they arrived and merged in: kept so, it is
   * published without reading the slots.
   */
  private _sumBeforeLast = 0;

  /**
   * @param _shared An aggregate that several windows feed (a name's histograms across host
   *   types): every slot added here is added there too, and taken out again when it expires.
   *   Its buckets are the sum of those windows' buckets, at a scale no finer than any of theirs.
   */
  constructor(private readonly _shared?: HistogramAggregate) {}

  /** The window's merged data, buckets included, at the window's scale. A new object on every call. */
  get aggregate(): Readonly<HistogramAggregate> {
    return aggregateOf(this, this._entries);
  }

  /** Oldest slot still holding data, or undefined when the window is empty. */
  get oldestSlot(): number | undefined {
    return this._entries[0]?.[SLOT];
  }

  /**
   * Adds one delta data point of the SDK to `slot`. Returns true when the slot had no data
   * yet, i.e. when the caller must schedule its expiry.
   */
  add(slot: number, point: ExponentialHistogram): boolean {
    if (point.count === 0) return false;
    const entry = entryOf(slot, point);
    const sumBefore = this.sum;
    this.scale =
      this._entries.length === 0
        ? entry[SCALE]!
        : Math.min(this.scale, entry[SCALE]!);
    // As `addScalars` adds them.
    this.count += entry[COUNT]!;
    this.sum += entry[SUM]!;
    this.zeroCount += entry[ZERO_COUNT]!;
    this.min = Math.min(this.min, entry[MIN]!);
    this.max = Math.max(this.max, entry[MAX]!);
    if (this._shared !== undefined) addEntry(this._shared, entry);
    const lastAt = this._entries.length - 1;
    if (lastAt >= 0 && this._entries[lastAt]![SLOT] === slot) {
      const merged = mergeEntries(this._entries[lastAt]!, entry);
      this._entries[lastAt] = merged;
      this.sum = this._sumBeforeLast + merged[SUM]!;
      return false;
    }
    this._sumBeforeLast = sumBefore;
    this._entries.push(entry);
    return true;
  }

  /** Drops the slots up to and including `slot`. Returns true when anything was dropped. */
  expireThrough(slot: number): boolean {
    let dropped = 0;
    const shared = this._shared;
    while (
      dropped < this._entries.length &&
      this._entries[dropped]![SLOT]! <= slot
    ) {
      const entry = this._entries[dropped]!;
      this.count -= entry[COUNT]!;
      this.zeroCount -= entry[ZERO_COUNT]!;
      if (shared !== undefined) subtractEntry(shared, entry);
      dropped++;
    }
    if (dropped === 0) return false;
    // Once every window that fed it is empty, the shared aggregate too may regain full resolution.
    if (shared !== undefined && shared.count === 0)
      Object.assign(shared, emptyAggregate());
    dropFront(this._entries, dropped);
    if (this._entries.length === 0) {
      // Start afresh so that the next data regains full resolution.
      this.scale = MAX_SCALE;
      this.count = 0;
      this.sum = 0;
      this.min = Infinity;
      this.max = -Infinity;
      this.zeroCount = 0;
      this._sumBeforeLast = 0;
      return true;
    }
    let min = Infinity;
    let max = -Infinity;
    let sum = 0;
    // Summed afresh, not by subtraction: a slot whose sum overflowed to Infinity would leave NaN.
    for (const entry of this._entries) {
      if (entry[MIN]! < min) min = entry[MIN]!;
      if (entry[MAX]! > max) max = entry[MAX]!;
      this._sumBeforeLast = sum;
      sum += entry[SUM]!;
    }
    this.min = min;
    this.max = max;
    this.sum = sum;
    return true;
  }

  /** The window as it is now, as an immutable record that later changes leave alone. */
  record(): HistogramRecord {
    const entries = this._entries;
    if (entries.length === 0) return EMPTY_HISTOGRAM_RECORD;
    return new HistogramRecord(this, entries.slice());
  }
}

/**
 * A window's content at one moment, as a snapshot serves it: shared by reference, never
 * changed. Its legacy value (which sorts the buckets) is computed on first request and kept.
 * The window's scalars are copied into fields of its own: one object per record.
 */
export class HistogramRecord implements Readonly<HistogramSummary> {
  readonly scale: number;
  readonly count: number;
  readonly sum: number;
  readonly min: number;
  readonly max: number;
  readonly zeroCount: number;
  private _value: LegacyValue | undefined = undefined;

  constructor(
    summary: Readonly<HistogramSummary>,
    private readonly _entries: readonly SlotEntry[]
  ) {
    this.scale = summary.scale;
    this.count = summary.count;
    this.sum = summary.sum;
    this.min = summary.min;
    this.max = summary.max;
    this.zeroCount = summary.zeroCount;
  }

  /** The window's count, sum, min, max and scale. */
  get summary(): Readonly<HistogramSummary> {
    return this;
  }

  /** The window's merged data, buckets included, at the window's scale. A new object on every call. */
  get aggregate(): HistogramAggregate {
    return aggregateOf(this.summary, this._entries);
  }

  /** The legacy datapoints of the window. */
  value(integer: boolean): LegacyValue {
    // Kept per integer flag: a DOUBLE instrument joining the name turns it off.
    if (this._value?.integer !== integer)
      this._value = histogramValue(this.aggregate, integer);
    return this._value;
  }
}

/** The record of an empty window. */
export const EMPTY_HISTOGRAM_RECORD = new HistogramRecord(emptySummary(), []);
