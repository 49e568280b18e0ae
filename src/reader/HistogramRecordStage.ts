import { INITIAL_COLUMN_LENGTH, withRoomFor } from './columns';
import { EMPTY_HISTOGRAM_RECORD, HistogramRecord } from './HistogramSeries';
import type { RecordTableEditor } from './RecordTable';
import type { SlotEntries } from './slotEntries';
import type { Slicer } from './Slicer';

/** The numbers staged per record: where its slots are in the entries, and the window's scale and counts. */
const FROM = 0;
const TO = 1;
const SCALE = 2;
const COUNT = 3;
const ZERO_COUNT = 4;
const STRIDE = 5;

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
  private readonly _entries: (SlotEntries | undefined)[] = [];
  private _numbers = new Float64Array(STRIDE * INITIAL_COLUMN_LENGTH);
  private _staged = 0;
  /** How many of the staged records are made, between two slices. */
  private _made = 0;

  /**
   * Stages the record at `index` of a window whose slots are `entries` from `from` to `to`, or
   * of an empty window (`entries` undefined).
   */
  stage(
    index: number,
    entries: SlotEntries | undefined,
    from: number,
    to: number,
    scale: number,
    count: number,
    zeroCount: number
  ): void {
    const at = this._staged++;
    this._indexes[at] = index;
    this._entries[at] = entries;
    const first = STRIDE * at;
    // Checked here, not by `withRoomFor` alone: its list of columns would be an allocation per point.
    if (first + STRIDE > this._numbers.length)
      [this._numbers] = withRoomFor(first + STRIDE - 1, [this._numbers]);
    const numbers = this._numbers;
    numbers[first + FROM] = from;
    numbers[first + TO] = to;
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
      const entries = this._entries[at];
      const first = STRIDE * at;
      records.set(
        this._indexes[at]!,
        entries === undefined
          ? EMPTY_HISTOGRAM_RECORD
          : new HistogramRecord(
              numbers[first + SCALE]!,
              numbers[first + COUNT]!,
              numbers[first + ZERO_COUNT]!,
              entries,
              numbers[first + FROM]! | 0,
              numbers[first + TO]! | 0
            )
      );
      if (slicer.due()) return false;
    }
    return true;
  }

  /** Starts the next tick's stage, letting go of the entries this one named. */
  clear(): void {
    this._entries.fill(undefined, 0, this._staged);
    this._staged = 0;
    this._made = 0;
  }
}
