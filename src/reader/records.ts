/* How snapshots read the store's series: each as of the tick that published them. */
import type { RecordTable } from './RecordTable';
import type { SpiralFigures } from './SpiralColumns';
import type { ValueFigures } from './ValueColumns';

/**
 * What one tick published, as one snapshot reads it: the record table's version of that tick
 * (histograms and their `/all` sums, made as records) and copies of the columns of every other
 * series, taken at the publication. Nothing later changes any of them.
 */
export class PublishedRecords {
  constructor(
    readonly table: RecordTable,
    readonly spirals: SpiralFigures,
    readonly values: ValueFigures
  ) {}
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
