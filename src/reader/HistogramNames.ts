import type { HistogramAggregate } from './histogramBuckets';
import type { SlotFrame } from './HistogramSlots';
import type { NameTotals } from './series';

/** What one publication holds of the histogram names, by each name's number. */
export interface PublishedNames {
  /** The `/all` sums of the names' buckets. */
  readonly sums: readonly Readonly<HistogramAggregate>[];
  /** The frames of the names' slots, which the windows' records read. */
  readonly frames: readonly SlotFrame[];
}

/**
 * The histogram names, numbered in the order they came: each one's `/all` sum as made for the
 * publication under way, and, at the publication, the frame of its slots. A publication copies
 * both lists whole: there are as many entries as histogram names, far fewer than series.
 */
export class HistogramNames {
  private readonly _names: NameTotals[] = [];
  private readonly _sums: Readonly<HistogramAggregate>[] = [];

  /** Numbers the histogram name `totals`, which has no member yet. */
  add(totals: NameTotals): void {
    totals.index = this._names.length;
    this._names.push(totals);
    this._sums.push(totals.publish());
  }

  /** Makes the sum of `totals` anew, for the next publication: the snapshots before keep theirs. */
  publishSum(totals: NameTotals): void {
    this._sums[totals.index] = totals.publish();
  }

  /** The sums made so far and each name's frame as it is now, copied. */
  publish(): PublishedNames {
    const names = this._names;
    const frames = new Array<SlotFrame>(names.length);
    for (let i = 0; i < names.length; i++) frames[i] = names[i]!.slots!.frame();
    return { sums: this._sums.slice(), frames };
  }
}
