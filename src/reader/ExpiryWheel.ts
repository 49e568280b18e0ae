import type { Slicer } from './Slicer';

/** What expiring one entry costs the slicer (see {@link Slicer.due}): about 0.15 µs. */
const EXPIRY_COST = 2;

/** The entries due at one slot: the first `length` items of `items`. */
interface DueList<T> {
  readonly items: T[];
  length: number;
}

/**
 * When data leaves the window: slot at which to expire → the entries of the data that got into
 * the window `windowSlots` before it, each `stride` items long (a histogram series; a spiral's
 * number and delta). A tick looks only at the slots due, so expiry costs what leaves the window,
 * never what the store holds.
 *
 * A list lives as long as the window, long enough for the garbage collector to move it to its
 * old generation; so a list expired is kept and filled again for a later slot, at the length it
 * grew to, rather than a new one made each tick and an old one left there as garbage.
 */
export class ExpiryWheel<T> {
  private readonly _due = new Map<number, DueList<T>>();
  /** Lists expired, to be filled again. */
  private readonly _spare: T[][] = [];
  /** No list is due before this slot. */
  private _next = Infinity;
  /** How far expiry went in the list due first, between two slices. */
  private _at = 0;
  /** The list appended to last, and its slot: a tick feeds one slot. */
  private _lastList: DueList<T> | undefined = undefined;
  private _lastDue = NaN;

  constructor(
    readonly windowSlots: number,
    private readonly _stride = 1
  ) {}

  /** Appends `item`, an entry of one, to the data that leaves the window `windowSlots` after `slot`. */
  add(slot: number, item: T): void {
    const list = this._listFor(slot);
    list.items[list.length++] = item;
  }

  /** Appends `first, second`, an entry of two, to the data that leaves the window `windowSlots` after `slot`. */
  addPair(slot: number, first: T, second: T): void {
    const list = this._listFor(slot);
    const at = list.length;
    list.items[at] = first;
    list.items[at + 1] = second;
    list.length = at + 2;
  }

  private _listFor(slot: number): DueList<T> {
    const due = slot + this.windowSlots;
    if (due === this._lastDue) return this._lastList!;
    let list = this._due.get(due);
    if (list === undefined) {
      list = { items: this._spare.pop() ?? [], length: 0 };
      this._due.set(due, list);
      if (due < this._next) this._next = due;
    }
    this._lastDue = due;
    this._lastList = list;
    return list;
  }

  /**
   * Slides the window to end at `slot`, handing each entry due, slot by slot and in the order it
   * was added, to `expireEntry` as its list and its first item's place. Returns true when done,
   * false when `slicer` ended the slice first: call again to resume.
   */
  expire(
    slot: number,
    slicer: Slicer,
    expireEntry: (list: readonly T[], at: number) => void
  ): boolean {
    for (
      let due = this._firstDue(slot);
      due <= slot;
      due = this._firstDue(slot)
    ) {
      const list = this._due.get(due)!;
      while (this._at < list.length) {
        const entry = this._at;
        this._at += this._stride;
        expireEntry(list.items, entry);
        if (slicer.due(EXPIRY_COST)) return false;
      }
      this._due.delete(due);
      this._at = 0;
      this._spare.push(list.items);
      if (due === this._lastDue) {
        this._lastList = undefined;
        this._lastDue = NaN;
      }
    }
    return true;
  }

  /** The first slot with a list due, if it is at or before `slot`; otherwise a later one. */
  private _firstDue(slot: number): number {
    const due = this._due;
    if (due.size === 0) return Infinity;
    if (slot - this._next > 4 * due.size) {
      // The clock leapt: the first slot is found among the lists', not slot by slot.
      this._next = Infinity;
      for (const at of due.keys()) if (at < this._next) this._next = at;
    }
    while (this._next <= slot && !due.has(this._next)) this._next++;
    return this._next;
  }
}
