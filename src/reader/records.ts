/* How the store's series write and read their records in the record table (RecordTable.ts). */
import type { RecordTable, RecordTableEditor } from './RecordTable';

/**
 * Something whose state snapshots read. The tick works on its own state and, once per tick in
 * which that changed, publishes it as a new record into the store's record table: records are
 * replaced, never changed, and each snapshot holds its own version of the table. A record takes
 * one place in the table, or several numbers, which need no object of their own (a subclass
 * then writes and reads them itself).
 */
export abstract class Recorded<R> {
  /** Where its record is in the record table (its first place). */
  abstract readonly index: number;
  /** The tick generation that last marked it changed: marked once per tick. */
  dirtyGen = -1;
  /** The working state as a new record. */
  abstract publish(): R;

  /** Writes the working state into the next version of the table, at its places. */
  writeRecord(records: RecordTableEditor): void {
    records.set(this.index, this.publish());
  }

  /** Its record as one version of the table holds it. */
  recordIn(records: RecordTable): R {
    return records.get(this.index) as R;
  }
}

/** A record as one snapshot's version of the record table holds it. */
export type RecordReader = <R>(cell: Recorded<R>) => R;
