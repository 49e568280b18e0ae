import type { Slicer } from './Slicer';

/**
 * When data leaves the window: slot at which to expire → the entries of the data that got into
 * the window `windowSlots` before it, each `stride` items long (a histogram series; a spiral's
 * number and delta). A tick looks only at the slots due, so expiry costs what leaves the window,
 * never what the store holds.
 */
export class ExpiryWheel<T> {
  private readonly _due = new Map<number, T[]>();
  /** How far expiry went in the first list due, between two slices. */
  private _at = 0;
  /**
   * The list appended to last, when it is due, and how much of it is filled: a tick feeds one
   * slot. A new list is made as long as the last one grew, at once, and trimmed to its fill
   * when the next one starts (an array grown by appending is copied again and again).
   */
  private _lastList: T[] | undefined = undefined;
  private _lastDue = NaN;
  private _filled = 0;
  private _lastLength = 0;

  constructor(
    readonly windowSlots: number,
    private readonly _stride = 1
  ) {}

  /** Appends `item`, an entry of one, to the data that leaves the window `windowSlots` after `slot`. */
  add(slot: number, item: T): void {
    const list = this._listFor(slot);
    list[this._filled++] = item;
  }

  /** Appends `first, second`, an entry of two, to the data that leaves the window `windowSlots` after `slot`. */
  addPair(slot: number, first: T, second: T): void {
    const list = this._listFor(slot);
    const at = this._filled;
    list[at] = first;
    list[at + 1] = second;
    this._filled = at + 2;
  }

  private _listFor(slot: number): T[] {
    const at = slot + this.windowSlots;
    if (at === this._lastDue) return this._lastList!;
    this._settle();
    let list = this._due.get(at);
    if (list === undefined) {
      list = new Array<T>(this._lastLength);
      this._due.set(at, list);
      this._filled = 0;
    } else this._filled = list.length;
    this._lastDue = at;
    this._lastList = list;
    return list;
  }

  /** Trims the list appended to last to what it holds, and remembers how long it grew. */
  private _settle(): void {
    const list = this._lastList;
    if (list === undefined) return;
    list.length = this._filled;
    this._lastLength = this._filled;
    this._lastList = undefined;
    this._lastDue = NaN;
  }

  /**
   * Slides the window to end at `slot`, handing each entry due, in the order it was pushed, to
   * `expireEntry` as its list and its first item's place. Returns true when done, false when
   * `slicer` ended the slice first: call again to resume.
   */
  expire(
    slot: number,
    slicer: Slicer,
    expireEntry: (list: readonly T[], at: number) => void
  ): boolean {
    // A list due is whole: one still being appended to (the clock leapt past the window) is trimmed.
    if (this._lastDue <= slot) this._settle();
    // Resumed, the iteration meets the list it left first: those before it are deleted.
    for (const [at, list] of this._due) {
      if (at > slot) continue;
      while (this._at < list.length) {
        const entry = this._at;
        this._at += this._stride;
        expireEntry(list, entry);
        if (slicer.due()) return false;
      }
      this._due.delete(at);
      this._at = 0;
    }
    return true;
  }
}
