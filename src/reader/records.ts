/* How snapshots read the store's series: each as of the tick that published them. */
import type { ColumnCopier } from './columns';
import type { HistogramFigures } from './HistogramColumns';
import type { HistogramAggregate } from './histogramBuckets';
import type { SpiralFigures } from './SpiralColumns';
import type { ValueFigures } from './ValueColumns';

/**
 * What one tick published, as one snapshot reads it: copies of the columns of every series
 * (for histogram windows, the numbers their records are made of) and the `/all` sums of the
 * histogram names, taken at the publication. Nothing later changes any of them.
 */
export class PublishedRecords {
  constructor(
    readonly spirals: SpiralFigures,
    readonly values: ValueFigures,
    readonly histograms: HistogramFigures,
    /** The `/all` sums of the histogram names' buckets, by the name's number. */
    readonly sums: readonly Readonly<HistogramAggregate>[],
    private readonly _copies: ColumnCopier
  ) {}

  /** Gives the copies' arrays back for the next publications: only once nothing reads these. */
  release(): void {
    this._copies.release();
  }
}

/**
 * Something whose state snapshots read. The tick works on its own state; a snapshot reads what
 * the tick that published it left, as a record that later ticks never change.
 */
export abstract class Recorded<R> {
  /** The working state as a new record. */
  abstract publish(): R;

  /** Its record as one publication holds it. */
  abstract recordIn(published: PublishedRecords): R;
}

/** A record as one snapshot's publication holds it. */
export type RecordReader = <R>(cell: Recorded<R>) => R;
