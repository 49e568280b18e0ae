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
  /** The list appended to last, and when it is due: a tick feeds one slot. */
  private _lastList: T[] | undefined = undefined;
  private _lastDue = NaN;

  constructor(
    readonly windowSlots: number,
    private readonly _stride = 1
  ) {}

  /** The list of the data that leaves the window `windowSlots` after `slot`: push an entry to it. */
  listFor(slot: number): T[] {
    const at = slot + this.windowSlots;
    if (at === this._lastDue) return this._lastList!;
    let list = this._due.get(at);
    if (list === undefined) this._due.set(at, (list = []));
    this._lastDue = at;
    this._lastList = list;
    return list;
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
      if (at === this._lastDue) {
        this._lastDue = NaN;
        this._lastList = undefined;
      }
      this._at = 0;
    }
    return true;
  }
}
