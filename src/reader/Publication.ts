import type { RecordTable, RecordTableEditor } from './RecordTable';
import type { HistogramSeries } from './HistogramSeries';
import { HistogramRecordStage } from './HistogramRecordStage';
import type { NameTotals } from './series';
import type { Slicer } from './Slicer';

/**
 * The records of the histograms that changed in the tick under way: each histogram's staged as
 * it changes (while it is at hand) and made at the tick's end, then the `/all` sums of the
 * histogram names that changed. The records go into the editor's next version of the table,
 * which no snapshot sees until {@link finish} publishes it. (The other kinds' series are served
 * from their columns, copied whole at each publication.)
 */
export class Publication {
  private readonly _dirtyTotals: NameTotals[] = [];
  private readonly _histograms = new HistogramRecordStage();
  /** How many of the names changed have their records already, between two slices. */
  private _totalsAt = 0;

  constructor(private readonly _records: RecordTableEditor) {}

  /**
   * Stages the record of histogram `series` as it changed in the tick of generation `gen`: the
   * series is at hand, where at the tick's end it would be read afresh. A series that changes
   * twice in a tick (fed by two sources, or expired and then fed) stages two; the last stands.
   */
  histogramChanged(series: HistogramSeries, gen: number): void {
    const scale = series.stageRecord(this._histograms);
    const totals = series.totals;
    totals.memberChanged(series.publishedScale, scale);
    series.publishedScale = scale;
    if (totals.dirtyGen !== gen) {
      totals.dirtyGen = gen;
      this._dirtyTotals.push(totals);
    }
  }

  /**
   * Makes the records of what changed. Returns true when done, false when `slicer` ended the
   * slice first: call again to resume.
   */
  makeRecords(slicer: Slicer): boolean {
    const records = this._records;
    if (!this._histograms.make(records, slicer)) return false;
    const dirtyTotals = this._dirtyTotals;
    while (this._totalsAt < dirtyTotals.length) {
      const totals = dirtyTotals[this._totalsAt++]!;
      records.set(totals.index, totals.publish());
      if (slicer.due()) return false;
    }
    return true;
  }

  /** The version of the table with every record made: the tick's, from now on read-only. */
  finish(): RecordTable {
    this._dirtyTotals.length = 0;
    this._histograms.clear();
    this._totalsAt = 0;
    return this._records.publish();
  }
}
