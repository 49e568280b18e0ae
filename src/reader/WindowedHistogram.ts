import type { ExponentialHistogram } from '@opentelemetry/sdk-metrics';
import type { LegacyValue } from '../snapshot/legacyValues';
import { dropFront } from './dropFront';
import {
  emptyAggregate,
  emptySummary,
  histogramValue,
  type HistogramAggregate,
  type HistogramSummary,
} from './histogramBuckets';
import {
  addEntry,
  addEntryScalars,
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
export class WindowedHistogram {
  /** Slots with data, oldest first. */
  private readonly _entries: SlotEntry[] = [];
  /**
   * The window's scalars, kept as slots come and go. Its scale is the coarsest of the slots
   * added since the window was last empty (detail once merged away is gone, as in a running
   * aggregate). The buckets are not kept here: {@link aggregate} sums them from the slots when
   * asked, which is rare (a request for this series), while every histogram series holds a window.
   */
  private readonly _summary: HistogramSummary = emptySummary();
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

  /** The window's count, sum, min, max and scale, without its buckets. Read-only for callers. */
  get summary(): Readonly<HistogramSummary> {
    return this._summary;
  }

  /** The window's merged data, buckets included, at the window's scale. A new object on every call. */
  get aggregate(): Readonly<HistogramAggregate> {
    return aggregateOf(this._summary, this._entries);
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
    const summary = this._summary;
    const sumBefore = summary.sum;
    summary.scale =
      this._entries.length === 0
        ? entry[SCALE]!
        : Math.min(summary.scale, entry[SCALE]!);
    addEntryScalars(summary, entry);
    if (this._shared !== undefined) addEntry(this._shared, entry);
    const lastAt = this._entries.length - 1;
    if (lastAt >= 0 && this._entries[lastAt]![SLOT] === slot) {
      const merged = mergeEntries(this._entries[lastAt]!, entry);
      this._entries[lastAt] = merged;
      summary.sum = this._sumBeforeLast + merged[SUM]!;
      return false;
    }
    this._sumBeforeLast = sumBefore;
    this._entries.push(entry);
    return true;
  }

  /** Drops the slots up to and including `slot`. Returns true when anything was dropped. */
  expireThrough(slot: number): boolean {
    let dropped = 0;
    const summary = this._summary;
    const shared = this._shared;
    while (
      dropped < this._entries.length &&
      this._entries[dropped]![SLOT]! <= slot
    ) {
      const entry = this._entries[dropped]!;
      summary.count -= entry[COUNT]!;
      summary.zeroCount -= entry[ZERO_COUNT]!;
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
      Object.assign(summary, emptySummary());
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
    summary.min = min;
    summary.max = max;
    summary.sum = sum;
    return true;
  }

  /** The window as it is now, as an immutable record that later changes leave alone. */
  record(): HistogramRecord {
    const entries = this._entries;
    if (entries.length === 0) return EMPTY_HISTOGRAM_RECORD;
    return new HistogramRecord(this._summary, entries.slice());
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
