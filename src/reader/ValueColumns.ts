import {
  type ColumnCopier,
  INITIAL_COLUMN_LENGTH,
  withRoomFor,
} from './columns';
import type { Slicer } from './Slicer';
import type { ValueSeries } from './ValueSeries';

/** What combining one shared series' sources costs the slicer (see {@link Slicer.due}). */
const SETTLE_COST = 4;

/** Flags of a value series. */
const ADDED_ANY = 1;
/** Its first source reported, and was not forgotten since. */
const PRESENT = 2;
/** It has a source of last values. */
const SOURCED = 4;
/** It has two sources or more, whose values its {@link ValueSeries} keeps. */
const SHARED = 8;
/** Shared, and one of its sources' values changed since they were last combined. */
const UNSETTLED = 16;

/** The value served of a series with `flags`, the increases `added` and the last value `last`. */
function servedValue(flags: number, added: number, last: number): number {
  if ((flags & SOURCED) === 0) return added;
  // A lone source's value under every rule: 0 until it reports, and once forgotten.
  return (flags & ADDED_ANY) !== 0 ? last + added : last;
}

/**
 * The working state of every up-down counter and gauge series, in columns indexed by the
 * series' number: the increases added, and the last value of its first source. A data point of
 * an up-down counter, or of a gauge's first source (most gauges have one), reads and writes a few
 * numbers of these arrays, and no object of the series. A series with two sources or more keeps
 * their values in its {@link ValueSeries}, combined once per tick into its last value
 * ({@link settle}).
 *
 * The columns are what snapshots serve: each publication copies them whole
 * ({@link ValueColumns.publish}), so that a change writes nothing but the series' numbers.
 */
export class ValueColumns {
  private _added = new Float64Array(INITIAL_COLUMN_LENGTH);
  /** The first source's last value; for a shared series, its sources' values combined when last settled. */
  private _last = new Float64Array(INITIAL_COLUMN_LENGTH);
  private _flags = new Uint8Array(INITIAL_COLUMN_LENGTH);
  private readonly _series: ValueSeries[] = [];
  /** The shared series whose sources changed since the last {@link settle}, and how many of them are settled. */
  private readonly _unsettled: number[] = [];
  private _settledAt = 0;

  /** A new series at 0. Returns its number. */
  create(series: ValueSeries): number {
    const number = this._series.push(series) - 1;
    // Only a full column makes the list of columns: a tick can make a hundred thousand series.
    if (number === this._added.length)
      [this._added, this._last, this._flags] = withRoomFor(number, [
        this._added,
        this._last,
        this._flags,
      ]);
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
      // From now on the last value served is the sources' combined, settled at each tick's end.
      this._unsettle(value);
    } else {
      this._series[value]!.share();
      this._unsettle(value);
    }
  }

  /** Adds a finite delta (an up-down counter's) to series `value`. Returns whether it changed. */
  add(value: number, delta: number): boolean {
    if (delta === 0) return false;
    this._added[value] += delta;
    this._flags[value]! |= ADDED_ANY;
    return true;
  }

  /** Takes the last value of source `at` of series `value` as reported. Returns whether it changed. */
  set(value: number, at: number, reported: number): boolean {
    const flags = this._flags[value]!;
    if ((flags & SHARED) !== 0) {
      if (!this._series[value]!.setShared(at, reported)) return false;
      this._unsettle(value);
      return true;
    }
    if ((flags & PRESENT) !== 0 && Object.is(reported, this._last[value]))
      return false;
    this._flags[value] = flags | PRESENT;
    this._last[value] = reported;
    return true;
  }

  /** Forgets the value of source `at` of series `value` (a cluster worker gone): it counts 0 again. */
  forget(value: number, at: number): boolean {
    const flags = this._flags[value]!;
    if ((flags & SHARED) !== 0) {
      if (!this._series[value]!.forgetShared(at)) return false;
      this._unsettle(value);
      return true;
    }
    if ((flags & PRESENT) === 0) return false;
    this._flags[value] = flags & ~PRESENT;
    this._last[value] = 0;
    return true;
  }

  /** The value of series `value` as it is now. */
  value(value: number): number {
    const flags = this._flags[value]!;
    const last =
      (flags & SHARED) === 0
        ? this._last[value]!
        : this._series[value]!.combined();
    return servedValue(flags, this._added[value]!, last);
  }

  /**
   * Combines the sources' values of each shared series that changed, for {@link publish}.
   * Returns true when done, false when `slicer` ended the slice first: call again to resume.
   */
  settle(slicer: Slicer): boolean {
    const unsettled = this._unsettled;
    while (this._settledAt < unsettled.length) {
      const value = unsettled[this._settledAt++]!;
      this._last[value] = this._series[value]!.combined();
      this._flags[value]! &= ~UNSETTLED;
      if (slicer.due(SETTLE_COST)) return false;
    }
    unsettled.length = 0;
    this._settledAt = 0;
    return true;
  }

  /**
   * Every series' numbers as they are now, copied by `copies`: what a publication's snapshot
   * serves. Call once {@link settle} is done.
   */
  publish(copies: ColumnCopier): ValueFigures {
    const size = this._series.length;
    const added = copies.copyOf(this._added, size);
    const last = copies.copyOf(this._last, size);
    const flags = copies.copyOf(this._flags, size);
    return copies.owned(
      new ValueFigures(added, last, flags),
      added,
      last,
      flags
    );
  }

  /** Marks shared series `value` for the next {@link settle}, once. */
  private _unsettle(value: number): void {
    const flags = this._flags[value]!;
    if ((flags & UNSETTLED) !== 0) return;
    this._flags[value] = flags | UNSETTLED;
    this._unsettled.push(value);
  }
}

/** The up-down counters' and gauges' numbers as one publication copied them: never changed. */
export class ValueFigures {
  constructor(
    private readonly _added: Float64Array,
    private readonly _last: Float64Array,
    private readonly _flags: Uint8Array
  ) {}

  /** The value of series `value` as served. */
  value(value: number): number {
    return servedValue(
      this._flags[value]!,
      this._added[value]!,
      this._last[value]!
    );
  }
}
