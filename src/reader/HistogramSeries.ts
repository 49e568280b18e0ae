import { MAX_SCALE, type HistogramAggregate } from './histogramBuckets';
import {
  COUNT,
  mergedEntry,
  NEXT_AT,
  NEXT_SLOT,
  NO_SLOT,
  packedEntryLength,
  PREV_AT,
  PREV_SLOT,
  SCALE,
  writeEntry,
  writeMerged,
  ZERO_COUNT,
  type SlotEntries,
} from './slotEntries';
import type { HistogramSlots } from './HistogramSlots';
import { EMPTY_HISTOGRAM_RECORD, HistogramRecord } from './HistogramRecord';
import type { HistogramColumns } from './HistogramColumns';
import { H_COUNT } from './CapturedCollection';
import { unboxed } from './columns';
import type { PublishedRecords } from './records';
import { NO_SCALE, Series, type NameTotals } from './series';

/**
 * Histogram: the window's count, exact mean, min and max, and estimated percentiles. Its working
 * state is a histogram over a sliding window of slots, fed by the SDK's base-2 exponential
 * histogram deltas (one per slot). It keeps the window's scale and counts as slots come and go,
 * and each slot's buckets packed as an entry among the name's entries of that slot (see
 * {@link HistogramSlots}), linked to the window's entry before and after it: adding a slot and
 * expiring one cost only the entries they touch.
 *
 * Entries are written once and never changed but for their link to the next, so the records
 * published from the window read its entries where they are, back from the newest.
 *
 * Every slot added is also added to the name's summed buckets (`totals.shared`), and taken out
 * again when it expires: what `/all` serves without merging every window.
 *
 * Slots come in order: a point for a slot older than the window's newest (which a clock that
 * counts up never gives) joins the newest.
 */
export class HistogramSeries extends Series<HistogramRecord> {
  /** The entries of the name's windows, this one's among them. */
  private readonly _slots: HistogramSlots = this.totals.slots!;
  /*
   * Slots here are counted from the name's first (`HistogramSlots.local`), as in the entries.
   * The window's oldest entry and its newest: their slots are NO_SLOT while it is empty. Every
   * number field here is written as a small integer (`| 0`, or `unboxed` for the counts) when
   * read from the entries: see `unboxed`.
   */
  private _oldestSlot = NO_SLOT;
  private _oldestAt = 0;
  private _newestSlot = NO_SLOT;
  private _newestAt = 0;
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
  /** The last slot expired through: every slot up to it is gone, and later data is newer. */
  private _expiredThrough = NO_SLOT;
  /**
   * The scale of its record as last published, NO_SCALE while that was empty: what the name's
   * count of scales holds for it, kept here so that publishing reads no older record. (An integer
   * rather than NaN: a field that held NaN would take a number box of its own in every series.)
   */
  publishedScale = NO_SCALE;
  /**
   * The record last made of it for a snapshot, which the next snapshot that finds the window
   * unchanged serves again (see `HistogramFigures.record`). Written by requests, not the tick.
   */
  lastRecord: HistogramRecord | undefined = undefined;

  constructor(
    totals: NameTotals,
    createdAtMonotonicMs: number,
    since: number,
    /** Its number in the {@link HistogramColumns}, where publications find its record's numbers. */
    readonly number: number
  ) {
    super(totals, createdAtMonotonicMs, since);
  }

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
    slot = this._slots.local(slot);
    const newestSlot = this._newestSlot;
    if (slot <= newestSlot) {
      slot = newestSlot;
      this._merge(slot, packed, from);
      return false;
    }
    const slots = this._slots;
    const at = slots.reserve(slot, packedEntryLength(packed, from));
    const entries = slots.entriesOf(slot);
    writeEntry(entries, at, slot, packed, from, newestSlot, this._newestAt);
    if (newestSlot === NO_SLOT) {
      this._oldestSlot = slot;
      this._oldestAt = at;
      this._scale = entries[at + SCALE]! | 0;
    } else {
      linkNext(slots.entriesOf(newestSlot), this._newestAt, slot, at);
      this._scale = Math.min(this._scale, entries[at + SCALE]!) | 0;
    }
    this._newestSlot = slot;
    this._newestAt = at;
    this._counted(entries, at);
    return true;
  }

  /** Counts the entry at `at` into the window's counts and the name's sum. */
  private _counted(entries: SlotEntries, at: number): void {
    this._count = unboxed(this._count + entries[at + COUNT]!);
    this._zeroCount = unboxed(this._zeroCount + entries[at + ZERO_COUNT]!);
    this.totals.shared!.addEntry(entries, at);
  }

  /**
   * Adds a second point to the newest slot: the slot's entry and the point become one entry,
   * written anew, as published records may read the one the slot had.
   */
  private _merge(slot: number, packed: Float64Array, from: number): void {
    const slots = this._slots;
    const was = this._newestAt;
    const merged = mergedEntry(slots.entriesOf(slot), was, packed, from);
    // Reserved before the old entry is released, so that the slot's array stays.
    const at = slots.reserve(slot, merged.length);
    const entries = slots.entriesOf(slot);
    const prevSlot = entries[was + PREV_SLOT]!;
    const prevAt = entries[was + PREV_AT]! | 0;
    writeMerged(entries, at, slot, merged, prevSlot, prevAt);
    if (this._oldestSlot === slot) this._oldestAt = at;
    else linkNext(slots.entriesOf(prevSlot), prevAt, slot, at);
    slots.release(slot);
    this._newestAt = at;
    this._scale = Math.min(this._scale, merged.point[SCALE]!) | 0;
    this._counted(merged.point, 0);
  }

  /**
   * Drops the slots up to and including `slot`; returns whether the state changed. A tick may
   * ask twice through the same slot (as its data point is applied, then from the expiry wheel):
   * the second asking reads no slot.
   */
  expireThrough(slot: number): boolean {
    slot = this._slots.local(slot);
    if (slot <= this._expiredThrough) return false;
    this._expiredThrough = slot;
    let oldest = this._oldestSlot;
    if (oldest === NO_SLOT || oldest > slot) return false;
    const slots = this._slots;
    const shared = this.totals.shared!;
    let at = this._oldestAt;
    while (oldest !== NO_SLOT && oldest <= slot) {
      const entries = slots.entriesOf(oldest);
      this._count = unboxed(this._count - entries[at + COUNT]!);
      this._zeroCount = unboxed(this._zeroCount - entries[at + ZERO_COUNT]!);
      shared.subtractEntry(entries, at);
      const next = entries[at + NEXT_SLOT]! | 0;
      at = entries[at + NEXT_AT]! | 0;
      slots.release(oldest);
      oldest = next;
    }
    if (oldest === NO_SLOT) {
      // Start afresh so that the next data regains full resolution.
      this._oldestSlot = NO_SLOT;
      this._newestSlot = NO_SLOT;
      this._scale = MAX_SCALE;
      this._count = 0;
      this._zeroCount = 0;
      return true;
    }
    this._oldestSlot = oldest;
    this._oldestAt = at;
    return true;
  }

  /**
   * Writes into `columns` the numbers of its record as the window is now, for the next
   * publication. Returns the record's scale, NO_SCALE when the window is empty.
   */
  writeRecord(columns: HistogramColumns): number {
    if (this._newestSlot === NO_SLOT) {
      columns.write(this.number, NO_SLOT, 0, NO_SLOT, MAX_SCALE, 0, 0);
      return NO_SCALE;
    }
    columns.write(
      this.number,
      this._newestSlot,
      this._newestAt,
      this._expiredThrough,
      this._scale,
      this._count,
      this._zeroCount
    );
    return this._scale;
  }

  recordIn(published: PublishedRecords): HistogramRecord {
    return published.histograms.record(this);
  }

  /** The window as it is now, as an immutable record that later changes leave alone. */
  publish(): HistogramRecord {
    if (this._newestSlot === NO_SLOT) return EMPTY_HISTOGRAM_RECORD;
    return new HistogramRecord(
      this._scale,
      this._count,
      this._zeroCount,
      this._slots.frame(),
      this._newestSlot,
      this._newestAt,
      this._expiredThrough
    );
  }
}

/** Links the entry at `at` of `entries` to the one after it, at `nextAt` of slot `nextSlot`. */
function linkNext(
  entries: SlotEntries,
  at: number,
  nextSlot: number,
  nextAt: number
): void {
  entries[at + NEXT_SLOT] = nextSlot;
  entries[at + NEXT_AT] = nextAt;
}
