import type { RecordTableEditor } from './RecordTable';
import type { Series } from './series';
import { INITIAL_COLUMN_LENGTH, withRoomFor } from './columns';
import type { ValueSeries } from './ValueSeries';

/** Flags of a value series. */
const ADDED_ANY = 1;
/** Its first source reported, and was not forgotten since. */
const PRESENT = 2;
/** It has a source of last values. */
const SOURCED = 4;
/** It has two sources or more, whose values its {@link ValueSeries} keeps. */
const SHARED = 8;

/**
 * The working state of every up-down counter and gauge series, in columns indexed by the
 * series' number: the increases added, and the last value of its first source. A data point of
 * an up-down counter, or of a gauge's first source (most gauges have one), reads and writes a few
 * numbers of these arrays and the series' record, and no object of the series. A series with two
 * sources or more keeps their values in its {@link ValueSeries}, and its record is made once per
 * tick, at its end.
 */
export class ValueColumns {
  private _added = new Float64Array(INITIAL_COLUMN_LENGTH);
  private _last = new Float64Array(INITIAL_COLUMN_LENGTH);
  private _flags = new Uint8Array(INITIAL_COLUMN_LENGTH);
  private _recordAt = new Int32Array(INITIAL_COLUMN_LENGTH);
  private readonly _series: ValueSeries[] = [];

  constructor(
    private readonly _records: RecordTableEditor,
    /** Marks a series with two sources or more changed in the tick under way. */
    private readonly _changed: (series: Series) => void
  ) {}

  /** A new series at 0, whose record is at `recordAt`. Returns its number. */
  create(recordAt: number, series: ValueSeries): number {
    const number = this._series.push(series) - 1;
    [this._added, this._last, this._flags, this._recordAt] = withRoomFor(
      number,
      [this._added, this._last, this._flags, this._recordAt]
    );
    this._recordAt[number] = recordAt;
    return number;
  }

  /** Series `value` gets its source number `at`, which counts 0 until it reports. */
  addSource(value: number, at: number): void {
    const flags = this._flags[value]!;
    if (at === 0) this._flags[value] = flags | SOURCED;
    else if (at === 1) {
      // The second source: the first one's value moves into the series' arrays.
      this._series[value]!.share(this._last[value]!, (flags & PRESENT) !== 0);
      this._flags[value] = flags | SHARED;
    } else this._series[value]!.share();
  }

  /** Adds a finite delta (an up-down counter's) to series `value`. Returns whether it changed. */
  add(value: number, delta: number): boolean {
    if (delta === 0) return false;
    this._added[value] += delta;
    this._flags[value]! |= ADDED_ANY;
    this._written(value);
    return true;
  }

  /** Takes the last value of source `at` of series `value` as reported. Returns whether it changed. */
  set(value: number, at: number, reported: number): boolean {
    const flags = this._flags[value]!;
    if ((flags & SHARED) !== 0) {
      const series = this._series[value]!;
      if (!series.setShared(at, reported)) return false;
      this._changed(series);
      return true;
    }
    if ((flags & PRESENT) !== 0 && Object.is(reported, this._last[value]))
      return false;
    this._flags[value] = flags | PRESENT;
    this._last[value] = reported;
    this._written(value);
    return true;
  }

  /** Forgets the value of source `at` of series `value` (a cluster worker gone): it counts 0 again. */
  forget(value: number, at: number): boolean {
    const flags = this._flags[value]!;
    if ((flags & SHARED) !== 0) {
      const series = this._series[value]!;
      if (!series.forgetShared(at)) return false;
      this._changed(series);
      return true;
    }
    if ((flags & PRESENT) === 0) return false;
    this._flags[value] = flags & ~PRESENT;
    this._last[value] = 0;
    this._written(value);
    return true;
  }

  /** The value of series `value` as served. */
  value(value: number): number {
    const flags = this._flags[value]!;
    const added = this._added[value]!;
    if ((flags & SOURCED) === 0) return added;
    // A lone source's value under every rule: 0 until it reports, and once forgotten.
    const last =
      (flags & SHARED) === 0
        ? this._last[value]!
        : this._series[value]!.combined();
    return (flags & ADDED_ANY) !== 0 ? last + added : last;
  }

  /** Writes the record of a series with one source at most, or marks a shared one changed. */
  private _written(value: number): void {
    if ((this._flags[value]! & SHARED) !== 0)
      this._changed(this._series[value]!);
    else this._records.set(this._recordAt[value]!, this.value(value));
  }
}
