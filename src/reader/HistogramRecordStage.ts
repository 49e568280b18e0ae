import { INITIAL_COLUMN_LENGTH, unboxed, withRoomFor } from './columns';
import { EMPTY_HISTOGRAM_RECORD, HistogramRecord } from './HistogramRecord';
import type { RecordTableEditor } from './RecordTable';
import type { SlotFrame } from './HistogramSlots';
import type { Slicer } from './Slicer';

/** The numbers staged per record: where its newest entry is, its first slot gone, and the window's scale and counts. */
const NEWEST_SLOT = 0;
const NEWEST_AT = 1;
const THROUGH = 2;
const SCALE = 3;
const COUNT = 4;
const ZERO_COUNT = 5;
const STRIDE = 6;

/**
 * The records of the histograms that changed in a tick, staged as the parts of the window each
 * is made of while the series is at hand, and made once the tick's data points are applied. A
 * record made as a point is applied would be an allocation while the SDK's collection is alive,
 * and a garbage collection that lands in the apply must copy all of that collection that is not
 * applied yet; staged, nothing is allocated per point. A window's entries are never changed, so
 * a record made later from the same part answers as one made at once.
 */
export class HistogramRecordStage {
  /** Kept from tick to tick, so that staging grows nothing once the ticks are alike. */
  private readonly _indexes: number[] = [];
  private readonly _frames: (SlotFrame | undefined)[] = [];
  private _numbers = new Float64Array(STRIDE * INITIAL_COLUMN_LENGTH);
  private _staged = 0;
  /** How many of the staged records are made, between two slices. */
  private _made = 0;

  /**
   * Stages the record at `index` of a window whose entries are in `frame`, back from the one at
   * `newestAt` of `newestSlot` while their slot is after `through`; or of an empty window
   * (`frame` undefined).
   */
  stage(
    index: number,
    frame: SlotFrame | undefined,
    newestSlot: number,
    newestAt: number,
    through: number,
    scale: number,
    count: number,
    zeroCount: number
  ): void {
    const at = this._staged++;
    this._indexes[at] = index;
    this._frames[at] = frame;
    const first = STRIDE * at;
    // Checked here, not by `withRoomFor` alone: its list of columns would be an allocation per point.
    if (first + STRIDE > this._numbers.length)
      [this._numbers] = withRoomFor(first + STRIDE - 1, [this._numbers]);
    const numbers = this._numbers;
    numbers[first + NEWEST_SLOT] = newestSlot;
    numbers[first + NEWEST_AT] = newestAt;
    numbers[first + THROUGH] = through;
    numbers[first + SCALE] = scale;
    numbers[first + COUNT] = count;
    numbers[first + ZERO_COUNT] = zeroCount;
  }

  /**
   * Makes the staged records into the table's next version. Returns true when done, false when
   * `slicer` ended the slice first: call again to resume.
   */
  make(records: RecordTableEditor, slicer: Slicer): boolean {
    const numbers = this._numbers;
    while (this._made < this._staged) {
      const at = this._made++;
      const frame = this._frames[at];
      const first = STRIDE * at;
      records.set(
        this._indexes[at]!,
        frame === undefined
          ? EMPTY_HISTOGRAM_RECORD
          : new HistogramRecord(
              numbers[first + SCALE]! | 0,
              unboxed(numbers[first + COUNT]!),
              unboxed(numbers[first + ZERO_COUNT]!),
              frame,
              numbers[first + NEWEST_SLOT]! | 0,
              numbers[first + NEWEST_AT]! | 0,
              numbers[first + THROUGH]! | 0
            )
      );
      if (slicer.due()) return false;
    }
    return true;
  }

  /** Starts the next tick's stage, letting go of the frames this one named. */
  clear(): void {
    this._frames.fill(undefined, 0, this._staged);
    this._staged = 0;
    this._made = 0;
  }
}
