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
   * What expiry and the slot test read of each entry, flat and in the same order:
   * `[slot, sum, slot, sum, …]`. Re-summing the window as a slot leaves reads this one array
   * rather than every entry (a cache miss each); min and max are rescanned from the entries
   * only when a slot that held one of them leaves.
   */
  private readonly _sums: number[] = [];
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
    return this._sums[0];
  }

  /**
   * Adds one delta data point of the SDK to `slot`. Returns true when the slot had no data
   * yet, i.e. when the caller must schedule its expiry.
   */
  add(slot: number, point: ExponentialHistogram): boolean {
    if (point.count === 0) return false;
    const entry = entryOf(slot, point);
    const summary = this._summary;
    const sums = this._sums;
    const sumBefore = summary.sum;
    summary.scale =
      sums.length === 0
        ? entry[SCALE]!
        : Math.min(summary.scale, entry[SCALE]!);
    addEntryScalars(summary, entry);
    if (this._shared !== undefined) addEntry(this._shared, entry);
    const lastAt = sums.length - 2;
    if (lastAt >= 0 && sums[lastAt] === slot) {
      const entries = this._entries;
      const merged = mergeEntries(entries[entries.length - 1]!, entry);
      entries[entries.length - 1] = merged;
      sums[lastAt + 1] = merged[SUM]!;
      summary.sum = this._sumBeforeLast + merged[SUM]!;
      return false;
    }
    this._sumBeforeLast = sumBefore;
    this._entries.push(entry);
    sums.push(slot, entry[SUM]!);
    return true;
  }

  /** Drops the slots up to and including `slot`. Returns true when anything was dropped. */
  expireThrough(slot: number): boolean {
    const sums = this._sums;
    let dropped = 0;
    while (dropped < sums.length && sums[dropped]! <= slot) dropped += 2;
    if (dropped === 0) return false;
    const summary = this._summary;
    const shared = this._shared;
    const entries = this._entries;
    // Min and max stay unless a slot that leaves holds one of them (or either is NaN).
    let rescan = false;
    for (let i = 0; i < dropped / 2; i++) {
      const entry = entries[i]!;
      summary.count -= entry[COUNT]!;
      summary.zeroCount -= entry[ZERO_COUNT]!;
      if (!(entry[MIN]! > summary.min) || !(entry[MAX]! < summary.max))
        rescan = true;
      if (shared !== undefined) subtractEntry(shared, entry);
    }
    // Once every window that fed it is empty, the shared aggregate too may regain full resolution.
    if (shared !== undefined && shared.count === 0)
      Object.assign(shared, emptyAggregate());
    dropFront(entries, dropped / 2);
    dropFront(sums, dropped);
    if (sums.length === 0) {
      // Start afresh so that the next data regains full resolution.
      Object.assign(summary, emptySummary());
      this._sumBeforeLast = 0;
      return true;
    }
    // Summed afresh, not by subtraction: a slot whose sum overflowed to Infinity would leave NaN.
    let sum = 0;
    for (let at = 1; at < sums.length; at += 2) {
      this._sumBeforeLast = sum;
      sum += sums[at]!;
    }
    summary.sum = sum;
    if (rescan) {
      let min = Infinity;
      let max = -Infinity;
      for (const entry of entries) {
        if (entry[MIN]! < min) min = entry[MIN]!;
        if (entry[MAX]! > max) max = entry[MAX]!;
      }
      summary.min = min;
      summary.max = max;
    }
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
