import type { HistogramColumns } from './HistogramColumns';
import type { HistogramNames } from './HistogramNames';
import type { HistogramSeries } from './HistogramSeries';
import type { NameTotals } from './series';
import type { Slicer } from './Slicer';

/** What making one name's `/all` sum costs the slicer (see {@link Slicer.due}): a copy of its buckets. */
const SUM_COST = 32;

/**
 * What the histograms changed in the tick under way: each window writes its record's numbers as
 * it changes (while it is at hand), and at the tick's end the `/all` sums of the names that
 * changed are made anew. None of it is seen before the publication copies the columns and the
 * names' sums. (The other kinds' series are served from their columns, copied whole at each
 * publication.)
 */
export class Publication {
  private readonly _dirtyTotals: NameTotals[] = [];
  /** How many of the names changed have their sums made already, between two slices. */
  private _totalsAt = 0;

  constructor(
    private readonly _columns: HistogramColumns,
    private readonly _names: HistogramNames
  ) {}

  /**
   * Writes the record's numbers of histogram `series` as it changed in the tick of generation
   * `gen`. A series that changes twice in a tick (fed by two sources, or expired and then fed)
   * writes twice; the last stands.
   */
  histogramChanged(series: HistogramSeries, gen: number): void {
    const scale = series.writeRecord(this._columns);
    const totals = series.totals;
    totals.memberChanged(series.publishedScale, scale);
    series.publishedScale = scale;
    if (totals.dirtyGen !== gen) {
      totals.dirtyGen = gen;
      this._dirtyTotals.push(totals);
    }
  }

  /**
   * Makes the sums of the names that changed. Returns true when done, false when `slicer` ended
   * the slice first: call again to resume.
   */
  makeSums(slicer: Slicer): boolean {
    const dirtyTotals = this._dirtyTotals;
    while (this._totalsAt < dirtyTotals.length) {
      this._names.publishSum(dirtyTotals[this._totalsAt++]!);
      if (slicer.due(SUM_COST)) return false;
    }
    return true;
  }

  /** Starts the next tick's: this one's is published. */
  finish(): void {
    this._dirtyTotals.length = 0;
    this._totalsAt = 0;
  }
}
