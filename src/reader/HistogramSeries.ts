import type { LegacyValue } from '../snapshot/legacyValues';
import {
  histogramValue,
  MAX_SCALE,
  type HistogramAggregate,
  type HistogramSummary,
} from './histogramBuckets';
import {
  aggregateOf,
  appendEntry,
  appendMerged,
  COUNT,
  MAX,
  MIN,
  nextEntry,
  SCALE,
  SLOT,
  SUM,
  ZERO_COUNT,
  type SlotEntries,
} from './slotEntries';
import type { HistogramRecordStage } from './HistogramRecordStage';
import { H_COUNT } from './CapturedCollection';
import { Series } from './series';

/** Below every slot a clock gives: the reader's clocks count from the epoch, or from 0 in tests. */
const NO_SLOT = -(2 ** 30);

/**
 * Histogram: the window's count, exact mean, min and max, and estimated percentiles. Its working
 * state is a histogram over a sliding window of slots, fed by the SDK's base-2 exponential
 * histogram deltas (one per slot), held in the series itself: a data point reads one object
 * before the window's slots. It keeps the window's scale and counts as slots come and go, and
 * the slots' buckets packed (see {@link SlotEntries}), so adding a slot and expiring one cost
 * only the slots they touch.
 *
 * The slots' entries are written once and never changed: a new slot is appended, an expired
 * one is left before the window's start, so the records published from the window share its array
 * and read their own part of it. Once the expired part is as long as the rest, the next slot
 * goes into a new array of the live part; the records keep the old one.
 *
 * Every slot added is also added to the name's summed buckets (`totals.shared`), and taken out
 * again when it expires: what `/all` serves without merging every window.
 */
export class HistogramSeries extends Series<HistogramRecord> {
  /** Entries of slots with data, oldest first, from `_from`; those before it expired. */
  private _entries: SlotEntries = [];
  private _from = 0;
  /** Where the newest entry starts; -1 while the window is empty. */
  private _lastAt = -1;
  /*
   * The window's scale and counts, kept as slots come and go: what publishing reads. Its scale
   * is the coarsest of the slots added since the window was last empty (detail once merged away
   * is gone, as in a running aggregate). The sum, min and max are not kept: a record works them
   * out from its slots when first asked (a request for the series), so that neither a slot added
   * nor one expiring reads the window's other slots.
   */
  private _scale = MAX_SCALE;
  private _count = 0;
  private _zeroCount = 0;
  /**
   * The last slot expired through: every slot up to it is gone, and later data is newer. It
   * starts below any slot a clock gives, as a small integer, so that the field never needs a
   * number of its own on the heap.
   */
  private _expiredThrough = NO_SLOT;
  /**
   * The scale of its record as last published, NaN while that was empty: what the name's count
   * of scales holds for it, kept here so that publishing reads no older record.
   */
  publishedScale = NaN;

  /** The window's merged data, buckets included, at the window's scale. A new object on every call. */
  get aggregate(): Readonly<HistogramAggregate> {
    return this.publish().aggregate;
  }

  /**
   * Adds one delta data point, packed in `packed` at `from` (see `CapturedCollection.ts`), to
   * `slot`. Returns true when the slot had no data yet, i.e. when the caller must schedule its
   * expiry.
   */
  addPacked(slot: number, packed: Float64Array, from: number): boolean {
    if (packed[from + H_COUNT] === 0) return false;
    const lastAt = this._lastAt;
    const merging = lastAt >= 0 && this._entries[lastAt + SLOT] === slot;
    if (!merging && this._from > 0 && 2 * this._from >= this._entries.length)
      this._compact();
    const entries = this._entries;
    const at = appendEntry(entries, slot, packed, from);
    this._scale =
      lastAt < 0
        ? entries[at + SCALE]!
        : Math.min(this._scale, entries[at + SCALE]!);
    this._count += entries[at + COUNT]!;
    this._zeroCount += entries[at + ZERO_COUNT]!;
    this.totals.shared!.addEntry(entries, at);
    if (merging) {
      // The newest entry changes: into a new array, as published records may read this one.
      const merged = entries.slice(this._from, lastAt);
      appendMerged(merged, entries, lastAt, at);
      this._entries = merged;
      this._lastAt = lastAt - this._from;
      this._from = 0;
      return false;
    }
    this._lastAt = at;
    return true;
  }

  /**
   * Drops the slots up to and including `slot`; returns whether the state changed. A tick may
   * ask twice through the same slot (as its data point is applied, then from the expiry wheel):
   * the second asking reads no slot.
   */
  expireThrough(slot: number): boolean {
    if (slot <= this._expiredThrough) return false;
    this._expiredThrough = slot;
    const entries = this._entries;
    const end = this._lastAt < 0 ? this._from : entries.length;
    const shared = this.totals.shared!;
    let at = this._from;
    while (at < end && entries[at + SLOT]! <= slot) {
      this._count -= entries[at + COUNT]!;
      this._zeroCount -= entries[at + ZERO_COUNT]!;
      shared.subtractEntry(entries, at);
      at = nextEntry(entries, at);
    }
    if (at === this._from) return false;
    if (at === end) {
      // Start afresh so that the next data regains full resolution.
      this._entries = [];
      this._from = 0;
      this._lastAt = -1;
      this._scale = MAX_SCALE;
      this._count = 0;
      this._zeroCount = 0;
      return true;
    }
    this._from = at;
    return true;
  }

  /**
   * Stages its record as the window is now, for `stage` to make at the tick's end. Returns the
   * record's scale, NaN when the window is empty.
   */
  stageRecord(stage: HistogramRecordStage): number {
    if (this._lastAt < 0) {
      stage.stage(this.index, undefined, 0, 0, MAX_SCALE, 0, 0);
      return NaN;
    }
    stage.stage(
      this.index,
      this._entries,
      this._from,
      this._entries.length,
      this._scale,
      this._count,
      this._zeroCount
    );
    return this._scale;
  }

  /** The window as it is now, as an immutable record that later changes leave alone. */
  publish(): HistogramRecord {
    if (this._lastAt < 0) return EMPTY_HISTOGRAM_RECORD;
    return new HistogramRecord(
      this._scale,
      this._count,
      this._zeroCount,
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
 * changed. Its sum, min and max are worked out from its slots when first read, and its legacy
 * value (which sorts the buckets) on first request; both are kept.
 */
export class HistogramRecord implements Readonly<HistogramSummary> {
  private _value: LegacyValue | undefined = undefined;
  /**
   * The sum, min and max of its slots, once read. An object of their own, made then: three
   * number fields of the record would each take a box on the heap for every record made, where
   * most are never read.
   */
  private _scalars: Scalars | undefined = undefined;

  /** Its entries are those of `_entries` from `_from` to `_to`, which nothing changes. */
  constructor(
    readonly scale: number,
    readonly count: number,
    readonly zeroCount: number,
    private readonly _entries: SlotEntries,
    private readonly _from: number,
    private readonly _to: number
  ) {}

  /** The slots' sums added oldest first, as a sum afresh gives it whatever order they merged in. */
  get sum(): number {
    return (this._scalars ??= this._readScalars()).sum;
  }

  get min(): number {
    return (this._scalars ??= this._readScalars()).min;
  }

  get max(): number {
    return (this._scalars ??= this._readScalars()).max;
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

  private _readScalars(): Scalars {
    const entries = this._entries;
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let at = this._from; at < this._to; at = nextEntry(entries, at)) {
      sum += entries[at + SUM]!;
      if (entries[at + MIN]! < min) min = entries[at + MIN]!;
      if (entries[at + MAX]! > max) max = entries[at + MAX]!;
    }
    return { sum, min, max };
  }
}

/** A record's sum, min and max. */
interface Scalars {
  readonly sum: number;
  readonly min: number;
  readonly max: number;
}

/** The record of an empty window. */
export const EMPTY_HISTOGRAM_RECORD = new HistogramRecord(
  MAX_SCALE,
  0,
  0,
  [],
  0,
  0
);
