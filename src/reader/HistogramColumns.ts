import {
  type ColumnCopier,
  INITIAL_COLUMN_LENGTH,
  unboxed,
  withRoom,
} from './columns';
import { EMPTY_HISTOGRAM_RECORD, HistogramRecord } from './HistogramRecord';
import type { SlotFrame } from './HistogramSlots';
import type { HistogramSeries } from './HistogramSeries';
import { MAX_SCALE } from './histogramBuckets';
import { NO_SLOT } from './slotEntries';

/** A window's numbers, by field: where its newest entry is, its last slot gone, its scale and counts. */
const NEWEST_SLOT = 0;
const NEWEST_AT = 1;
const THROUGH = 2;
const SCALE = 3;
const COUNT = 4;
const ZERO_COUNT = 5;
const STRIDE = 6;

/**
 * The numbers a histogram window's record is made of, for every window by its number: a window
 * writes its six when it changes, and each publication copies them whole ({@link publish}), with
 * the frame of each name's slots. A snapshot makes a window's record from its copy when a request
 * first reads it ({@link HistogramFigures.record}). So a tick makes no record: a window changes
 * every few seconds, most of its records would never be read, and each one made is an object
 * for the garbage collector, which the tick would pay for.
 */
export class HistogramColumns {
  private _numbers = new Float64Array(STRIDE * INITIAL_COLUMN_LENGTH);
  private _size = 0;

  /** A new, empty window's numbers. Returns its number. */
  create(): number {
    const number = this._size++;
    this._numbers = withRoom(this._numbers, STRIDE * (number + 1));
    this.write(number, NO_SLOT, 0, NO_SLOT, MAX_SCALE, 0, 0);
    return number;
  }

  /**
   * The window `number` as it is now: its entries back from the one at `newestAt` of
   * `newestSlot` while their slot is after `through` (none for NO_SLOT), its scale and counts.
   */
  write(
    number: number,
    newestSlot: number,
    newestAt: number,
    through: number,
    scale: number,
    count: number,
    zeroCount: number
  ): void {
    const numbers = this._numbers;
    const at = STRIDE * number;
    numbers[at + NEWEST_SLOT] = newestSlot;
    numbers[at + NEWEST_AT] = newestAt;
    numbers[at + THROUGH] = through;
    numbers[at + SCALE] = scale;
    numbers[at + COUNT] = count;
    numbers[at + ZERO_COUNT] = zeroCount;
  }

  /**
   * Every window's numbers as they are now, copied by `copies`, with `frames` (each histogram
   * name's frame as it is now, by the name's number): what a publication's snapshot serves.
   */
  publish(
    frames: readonly SlotFrame[],
    copies: ColumnCopier
  ): HistogramFigures {
    const numbers = copies.copyOf(this._numbers, STRIDE * this._size);
    return copies.owned(new HistogramFigures(numbers, frames), numbers);
  }
}

/** The histogram windows as one publication left them: read-only. */
export class HistogramFigures {
  constructor(
    private readonly _numbers: Float64Array,
    private readonly _frames: readonly SlotFrame[]
  ) {}

  /**
   * The record of `series` (a window of this publication) as it was published. The record last
   * made for the window is reused when it stands at the same entries: entries never change, so
   * it answers the same, and the value it has worked out is not worked out again.
   */
  record(series: HistogramSeries): HistogramRecord {
    const numbers = this._numbers;
    const at = STRIDE * series.number;
    const newestSlot = numbers[at + NEWEST_SLOT]! | 0;
    if (newestSlot === NO_SLOT) return EMPTY_HISTOGRAM_RECORD;
    const newestAt = numbers[at + NEWEST_AT]! | 0;
    const through = numbers[at + THROUGH]! | 0;
    const last = series.lastRecord;
    if (last?.standsAt(newestSlot, newestAt, through)) return last;
    return (series.lastRecord = new HistogramRecord(
      numbers[at + SCALE]! | 0,
      unboxed(numbers[at + COUNT]!),
      unboxed(numbers[at + ZERO_COUNT]!),
      this._frames[series.totals.index]!,
      newestSlot,
      newestAt,
      through
    ));
  }
}
