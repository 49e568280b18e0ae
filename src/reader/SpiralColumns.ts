import {
  type ColumnCopier,
  INITIAL_COLUMN_LENGTH,
  withRoomFor,
} from './columns';
import { ExpiryWheel } from './ExpiryWheel';
import type { Slicer } from './Slicer';
import { SpiralWindow } from './SpiralWindow';

/** Marks an expiry that slides the window of a spiral kept in a {@link SpiralWindow}. */
const SLIDE_WINDOW = NaN;

/**
 * The working state of every spiral (exometer's `count` since start and `one` within the window),
 * in columns indexed by the spiral's number: a data point reads and writes two numbers of these
 * arrays and appends its delta to the list of the slot in which it leaves the window, and no
 * object of the series is read. Expiry reads those lists in order and subtracts.
 *
 * `one` is a running sum, exact while every delta is a positive integer and the sum a safe
 * integer; the SDK's integer counters stay so. A spiral given any other delta (a fraction, a
 * negative one, or one that takes the sum past 2^53) gets a {@link SpiralWindow}, which sums its
 * deltas afresh oldest first, starting from the exact sum of those it had before; once that
 * window is empty the spiral returns to the running sum.
 *
 * The columns are what snapshots serve: each publication copies them whole
 * ({@link SpiralColumns.publish}), so that a change writes nothing but the spiral's two numbers.
 */
export class SpiralColumns {
  private _count = new Float64Array(INITIAL_COLUMN_LENGTH);
  private _one = new Float64Array(INITIAL_COLUMN_LENGTH);
  /** 1 for a spiral whose `one` its {@link SpiralWindow} keeps. */
  private _windowed = new Uint8Array(INITIAL_COLUMN_LENGTH);
  private readonly _windows = new Map<number, SpiralWindow>();
  private _size = 0;
  /** `[spiral, delta, …]` by the slot in which they leave the window. */
  private readonly _expiries: ExpiryWheel<number>;

  constructor(private readonly _windowSlots: number) {
    this._expiries = new ExpiryWheel(_windowSlots, 2);
  }

  /** A new spiral at 0. Returns its number. */
  create(): number {
    const number = this._size++;
    // Only a full column makes the list of columns: a tick can make a hundred thousand series.
    if (number === this._count.length)
      [this._count, this._one, this._windowed] = withRoomFor(number, [
        this._count,
        this._one,
        this._windowed,
      ]);
    return number;
  }

  /**
   * Every spiral's `count` and `one` as they are now, copied by `copies`: what a publication's
   * snapshot serves. One copy of two arrays a tick costs less than a record per change, and than
   * any bookkeeping to keep older versions whole.
   */
  publish(copies: ColumnCopier): SpiralFigures {
    const count = copies.copyOf(this._count, this._size);
    const one = copies.copyOf(this._one, this._size);
    return copies.owned(new SpiralFigures(count, one), count, one);
  }

  count(spiral: number): number {
    return this._count[spiral]!;
  }

  one(spiral: number): number {
    return this._one[spiral]!;
  }

  /** Adds a finite, non-zero delta to `spiral` in `slot`. */
  add(spiral: number, slot: number, delta: number): void {
    this._count[spiral]! += delta;
    const ones = this._one;
    const one = ones[spiral]! + delta;
    if (
      this._windowed[spiral] === 0 &&
      delta > 0 &&
      one <= Number.MAX_SAFE_INTEGER &&
      Number.isInteger(delta)
    ) {
      ones[spiral] = one;
      this._expiries.addPair(slot, spiral, delta);
    } else ones[spiral] = this._addToWindow(spiral, slot, delta);
  }

  /**
   * Slides every window to end at `slot`: the data of slots at or before `slot - windowSlots`
   * leaves. Returns true when done, false when `slicer` ended the slice first: call again to resume.
   */
  expire(slot: number, slicer: Slicer): boolean {
    const through = slot - this._windowSlots;
    return this._expiries.expire(slot, slicer, (list, at) =>
      this._expireEntry(list[at]!, list[at + 1]!, through)
    );
  }

  private _expireEntry(spiral: number, delta: number, through: number): void {
    if (this._windowed[spiral] === 1)
      this._expireWindow(spiral, through, delta);
    // NaN: a slot of a window since emptied, nothing of it is left.
    else if (!Number.isNaN(delta)) this._one[spiral] -= delta;
  }

  /** Adds `delta` through the spiral's window, made now if it has none. Returns `one`. */
  private _addToWindow(spiral: number, slot: number, delta: number): number {
    let window = this._windows.get(spiral);
    if (window === undefined) {
      // The running sum so far is exact: it becomes the window's base.
      window = new SpiralWindow(this._one[spiral]!);
      this._windows.set(spiral, window);
      this._windowed[spiral] = 1;
    }
    // The window slides first, as its slot's turn in expiry would have slid it.
    window.expireThrough(slot - this._windowSlots);
    if (window.add(slot, delta))
      this._expiries.addPair(slot, spiral, SLIDE_WINDOW);
    return window.one;
  }

  /**
   * The expiry of one entry of a windowed spiral: a slot of its window, or a delta from before it
   * had one. Sets `one`.
   */
  private _expireWindow(spiral: number, through: number, delta: number): void {
    const window = this._windows.get(spiral)!;
    if (Number.isNaN(delta)) {
      if (!window.expireThrough(through)) return;
    } else window.dropBase(delta);
    this._one[spiral] = window.one;
    if (window.empty) {
      // Nothing of it is left to expire: back to the running sum, from 0.
      this._windows.delete(spiral);
      this._windowed[spiral] = 0;
    }
  }
}

/** The spirals' `count` and `one` as one publication copied them: never changed. */
export class SpiralFigures {
  constructor(
    private readonly _count: Float64Array,
    private readonly _one: Float64Array
  ) {}

  count(spiral: number): number {
    return this._count[spiral]!;
  }

  one(spiral: number): number {
    return this._one[spiral]!;
  }
}
