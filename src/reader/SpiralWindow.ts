import { dropFront } from './dropFront';

/**
 * The window of a spiral whose `one` cannot be kept as a running sum (see {@link SpiralColumns}):
 * its deltas by slot, summed afresh oldest first whenever one leaves, so that `one` keeps no
 * float residue (nor NaN once a slot that overflowed to Infinity leaves). The deltas added before
 * the spiral came here are non-negative integers whose sum is a safe integer: they are kept as
 * that exact sum, {@link base}, which every sum starts from, and leave it one by one.
 */
export class SpiralWindow {
  /** The window's slots with data, oldest first, as `[slot, delta, slot, delta, …]`. */
  private readonly _slots: number[] = [];
  /** The last slot expired through: every slot up to it is gone, and later data is newer. */
  private _expiredThrough = -Infinity;
  /** `one`, and the same without the newest slot: kept so that adding reads no slot. */
  one: number;
  private _oneBeforeLast: number;

  /** @param base the exact sum of the deltas the window still holds from before it was made */
  constructor(private _base: number) {
    this.one = _base;
    this._oneBeforeLast = _base;
  }

  /** Whether it holds nothing: no slot, and no delta from before it was made. */
  get empty(): boolean {
    return this._slots.length === 0 && this._base === 0;
  }

  /** Adds a finite delta to `slot`. Returns true when the slot had no data yet. */
  add(slot: number, delta: number): boolean {
    const slots = this._slots;
    const last = slots.length - 2;
    if (last >= 0 && slots[last] === slot) {
      this.one = this._oneBeforeLast + (slots[last + 1]! += delta);
      return false;
    }
    slots.push(slot, delta);
    this._oneBeforeLast = this.one;
    this.one += delta;
    return true;
  }

  /** Takes out one of the deltas from before it was made, as its slot leaves the window. */
  dropBase(delta: number): void {
    this._base -= delta;
    this._sumAfresh();
  }

  /**
   * Drops the slots up to and including `slot`. Returns whether `one` changed. Asked twice through
   * the same slot (as a point is applied, then as its slot's turn comes), it reads no slot.
   */
  expireThrough(slot: number): boolean {
    if (slot <= this._expiredThrough) return false;
    this._expiredThrough = slot;
    const slots = this._slots;
    let dropped = 0;
    while (dropped < slots.length && slots[dropped]! <= slot) dropped += 2;
    if (dropped === 0) return false;
    dropFront(slots, dropped);
    this._sumAfresh();
    return true;
  }

  private _sumAfresh(): void {
    const slots = this._slots;
    let one = this._base;
    let beforeLast = one;
    for (let i = 1; i < slots.length; i += 2) {
      beforeLast = one;
      one += slots[i]!;
    }
    this.one = one;
    this._oneBeforeLast = beforeLast;
  }
}
