import type { ExponentialHistogram } from '@opentelemetry/sdk-metrics';
import type { LegacyValue } from '../snapshot/legacyValues';
import {
  emptyAggregate,
  histogramValue,
  MAX_SCALE,
  type HistogramAggregate,
  type HistogramSummary,
} from './histogramBuckets';
import {
  addEntry,
  aggregateOf,
  appendEntry,
  appendMerged,
  COUNT,
  MAX,
  MIN,
  nextEntry,
  SCALE,
  SLOT,
  subtractEntry,
  SUM,
  ZERO_COUNT,
  type SlotEntries,
} from './slotEntries';

/**
 * A histogram over a sliding window of slots, fed by the SDK's base-2 exponential histogram
 * deltas (one per slot). It keeps the window's scalars as slots come and go, and the slots'
 * buckets packed (see {@link SlotEntries}), so adding a slot and expiring one cost only the
 * buckets those slots touched.
 *
 * The slots' entries are written once and never changed: a new slot is appended, an expired
 * one is left before the window's start, so the records published from the window share its array
 * and read their own part of it. Once the expired part is as long as the rest, the next slot
 * goes into a new array of the live part; the records keep the old one.
 */
export class WindowedHistogram implements Readonly<HistogramSummary> {
  /** Entries of slots with data, oldest first, from `_from`; those before it expired. */
  private _entries: SlotEntries = [];
  private _from = 0;
  /** Where the newest entry starts; -1 while the window is empty. */
  private _lastAt = -1;
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
    return aggregateOf(this, this._entries, this._from, this._entries.length);
  }

  /**
   * Adds one delta data point of the SDK to `slot`. Returns true when the slot had no data
   * yet, i.e. when the caller must schedule its expiry.
   */
  add(slot: number, point: ExponentialHistogram): boolean {
    if (point.count === 0) return false;
    const lastAt = this._lastAt;
    const merging = lastAt >= 0 && this._entries[lastAt + SLOT] === slot;
    if (!merging && this._from > 0 && 2 * this._from >= this._entries.length)
      this._compact();
    const entries = this._entries;
    const at = appendEntry(entries, slot, point);
    const sumBefore = this.sum;
    this.scale =
      lastAt < 0
        ? entries[at + SCALE]!
        : Math.min(this.scale, entries[at + SCALE]!);
    // As `addScalars` adds them.
    this.count += entries[at + COUNT]!;
    this.sum += entries[at + SUM]!;
    this.zeroCount += entries[at + ZERO_COUNT]!;
    this.min = Math.min(this.min, entries[at + MIN]!);
    this.max = Math.max(this.max, entries[at + MAX]!);
    if (this._shared !== undefined) addEntry(this._shared, entries, at);
    if (merging) {
      // The newest entry changes: into a new array, as published records may read this one.
      const merged = entries.slice(this._from, lastAt);
      appendMerged(merged, entries, lastAt, at);
      this._entries = merged;
      this._lastAt = lastAt - this._from;
      this._from = 0;
      this.sum = this._sumBeforeLast + merged[this._lastAt + SUM]!;
      return false;
    }
    this._sumBeforeLast = sumBefore;
    this._lastAt = at;
    return true;
  }

  /** Drops the slots up to and including `slot`. Returns true when anything was dropped. */
  expireThrough(slot: number): boolean {
    const entries = this._entries;
    const end = this._lastAt < 0 ? this._from : entries.length;
    const shared = this._shared;
    let at = this._from;
    while (at < end && entries[at + SLOT]! <= slot) {
      this.count -= entries[at + COUNT]!;
      this.zeroCount -= entries[at + ZERO_COUNT]!;
      if (shared !== undefined) subtractEntry(shared, entries, at);
      at = nextEntry(entries, at);
    }
    if (at === this._from) return false;
    // Once every window that fed it is empty, the shared aggregate too may regain full resolution.
    if (shared !== undefined && shared.count === 0)
      Object.assign(shared, emptyAggregate());
    if (at === end) {
      // Start afresh so that the next data regains full resolution.
      this._entries = [];
      this._from = 0;
      this._lastAt = -1;
      this.scale = MAX_SCALE;
      this.count = 0;
      this.sum = 0;
      this.min = Infinity;
      this.max = -Infinity;
      this.zeroCount = 0;
      this._sumBeforeLast = 0;
      return true;
    }
    this._from = at;
    let min = Infinity;
    let max = -Infinity;
    let sum = 0;
    // Summed afresh, not by subtraction: a slot whose sum overflowed to Infinity would leave NaN.
    for (; at < end; at = nextEntry(entries, at)) {
      if (entries[at + MIN]! < min) min = entries[at + MIN]!;
      if (entries[at + MAX]! > max) max = entries[at + MAX]!;
      this._sumBeforeLast = sum;
      sum += entries[at + SUM]!;
    }
    this.min = min;
    this.max = max;
    this.sum = sum;
    return true;
  }

  /** The window as it is now, as an immutable record that later changes leave alone. */
  record(): HistogramRecord {
    if (this._lastAt < 0) return EMPTY_HISTOGRAM_RECORD;
    return new HistogramRecord(
      this,
      this._entries,
      this._from,
      this._entries.length
    );
  }

  /** Moves the live entries into an array of their own: the expired ones stay with the records. */
  private _compact(): void {
    const from = this._from;
    this._entries = this._entries.slice(from);
    this._lastAt -= from;
    this._from = 0;
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

  /** Its entries are those of `_entries` from `_from` to `_to`, which nothing changes. */
  constructor(
    summary: Readonly<HistogramSummary>,
    private readonly _entries: SlotEntries,
    private readonly _from: number,
    private readonly _to: number
  ) {
    this.scale = summary.scale;
    this.count = summary.count;
    this.sum = summary.sum;
    this.min = summary.min;
    this.max = summary.max;
    this.zeroCount = summary.zeroCount;
  }

  /** The window's merged data, buckets included, at the window's scale. A new object on every call. */
  get aggregate(): HistogramAggregate {
    return aggregateOf(this, this._entries, this._from, this._to);
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
export const EMPTY_HISTOGRAM_RECORD = new HistogramRecord(
  emptyAggregate(),
  [],
  0,
  0
);
