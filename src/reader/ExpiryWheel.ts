import type { Series } from './series';
import type { Slicer } from './Slicer';

/**
 * When each windowed series' oldest slot leaves the window: slot at which to expire → the
 * series that got data `windowSlots` before it. A tick looks only at the slots due, so expiry
 * costs what leaves the window, never what the store holds.
 */
export class ExpiryWheel {
  private readonly _due = new Map<number, Series[]>();
  /** How far expiry went in the first list due, between two slices. */
  private _at = 0;
  /** The list scheduled into last, and when it is due: a tick schedules into one list. */
  private _lastList: Series[] | undefined = undefined;
  private _lastDue = NaN;

  constructor(readonly windowSlots: number) {}

  /** Schedules the expiry of the data `series` got in `slot`. */
  schedule(slot: number, series: Series): void {
    const at = slot + this.windowSlots;
    if (at === this._lastDue) {
      this._lastList!.push(series);
      return;
    }
    let list = this._due.get(at);
    if (list === undefined) this._due.set(at, (list = []));
    list.push(series);
    this._lastDue = at;
    this._lastList = list;
  }

  /**
   * Slides the window to end at `slot`, handing each series whose state changed to `changed`.
   * Returns true when done, false when `slicer` ended the slice first: call again to resume.
   */
  expire(
    slot: number,
    slicer: Slicer,
    changed: (series: Series) => void
  ): boolean {
    const through = slot - this.windowSlots;
    // Resumed, the iteration meets the list it left first: those before it are deleted.
    for (const [at, list] of this._due) {
      if (at > slot) continue;
      while (this._at < list.length) {
        const series = list[this._at++]!;
        if (series.expireThrough(through)) changed(series);
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
