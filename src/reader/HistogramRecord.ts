import type { LegacyValue } from '../snapshot/legacyValues';
import {
  histogramValue,
  MAX_SCALE,
  type HistogramAggregate,
  type HistogramSummary,
} from './histogramBuckets';
import { EMPTY_FRAME, type SlotFrame } from './HistogramSlots';
import {
  aggregateOf,
  MAX,
  MIN,
  NO_SLOT,
  PREV_AT,
  PREV_SLOT,
  SUM,
  type SlotEntries,
} from './slotEntries';

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

  /**
   * Its entries are those back from the entry at `_newestAt` of slot `_newestSlot` in `_frame`,
   * while their slot is after `_through` (slots counted from the name's first): entries nothing
   * changes.
   */
  constructor(
    readonly scale: number,
    readonly count: number,
    readonly zeroCount: number,
    private readonly _frame: SlotFrame,
    private readonly _newestSlot: number,
    private readonly _newestAt: number,
    private readonly _through: number
  ) {}

  /** Whether its newest entry is the one at `newestAt` of `newestSlot`, and its first slot gone `through`. */
  standsAt(newestSlot: number, newestAt: number, through: number): boolean {
    return (
      this._newestSlot === newestSlot &&
      this._newestAt === newestAt &&
      this._through === through
    );
  }

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
    const { arrays, ats } = this._entries();
    return aggregateOf(this, arrays, ats);
  }

  /** The legacy datapoints of the window. */
  value(integer: boolean): LegacyValue {
    // Kept per integer flag: a DOUBLE instrument joining the name turns it off.
    if (this._value?.integer !== integer)
      this._value = histogramValue(this.aggregate, integer);
    return this._value;
  }

  /** Its entries, oldest first: each one's array and where it starts there. */
  private _entries(): { arrays: SlotEntries[]; ats: number[] } {
    const arrays: SlotEntries[] = [];
    const ats: number[] = [];
    let slot = this._newestSlot;
    let at = this._newestAt;
    while (slot > this._through) {
      const entries = this._frame.entriesOf(slot);
      arrays.push(entries);
      ats.push(at);
      slot = entries[at + PREV_SLOT]!;
      at = entries[at + PREV_AT]! | 0;
    }
    return { arrays: arrays.reverse(), ats: ats.reverse() };
  }

  private _readScalars(): Scalars {
    const { arrays, ats } = this._entries();
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < ats.length; i++) {
      const entries = arrays[i]!;
      const at = ats[i]!;
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
  EMPTY_FRAME,
  NO_SLOT,
  0,
  NO_SLOT
);
