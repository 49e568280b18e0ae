/*
 * The published records of the series made as objects (histogram windows, and the `/all` sums
 * of histogram names), in one flat array that holds the newest published version; the other
 * series are numbers in columns, which each publication copies whole (see `records.ts`). A
 * tick stages its records beside the array, so the version it replaces serves whole meanwhile;
 * they are then written into the array, in slices, keeping the values they replace in an undo
 * log, which the replaced version reads before the array from the moment the first
 * is written; the next version is published once all are. So every version answers the same
 * forever, while a tick copies nothing that did not change: the newest version reads the array,
 * an older one its logs first.
 *
 * A version held for long would pin every log published after it. The logs are therefore cut
 * into epochs: once an epoch's logs hold about twice the table, the next publication copies the
 * array once, and the versions of the epoch read that copy past their last log. A version thus
 * pins at most its epoch's logs and one copy, and is garbage as soon as nobody holds it.
 */

import { Slicer } from './Slicer';

/** What a log answers for an index it did not replace. */
const ABSENT: unique symbol = Symbol('absent');

/** How many table sizes of logged values make an epoch. */
const EPOCH_TABLES = 2;

/** How many records `prepare` copies per unit of a slice's work. */
const COPY_UNIT = 1024;

/** How many staged records `write` writes into the array per unit of a slice's work. */
const WRITE_UNIT = 64;

/** The values one publication replaced: what the version before it read at those indexes. */
export class UndoLog {
  /** The log of the next publication, while the epoch goes on. */
  next: UndoLog | undefined = undefined;
  /** At the epoch's end instead: the array as this log's publication left it. */
  after: readonly unknown[] | undefined = undefined;
  /** Index → its first position in the log, built when an old version first reads the log. */
  private _positions: Map<number, number> | undefined = undefined;
  /**
   * How many of its values are written into the array, from the first: the positions past it
   * still hold the new value, and the array the value it replaces.
   */
  written = 0;

  constructor(
    private readonly _indexes: readonly number[],
    private readonly _values: readonly unknown[]
  ) {}

  /** The value `index` had before this log's publication, or {@link ABSENT} if it kept it. */
  before(index: number): unknown {
    let positions = this._positions;
    if (positions === undefined) {
      positions = new Map();
      // The first position: an index staged twice was replaced first by its oldest value.
      for (let i = this._indexes.length - 1; i >= 0; i--)
        positions.set(this._indexes[i]!, i);
      this._positions = positions;
    }
    // The first position: once written, it holds the value the array had before the log.
    const at = positions.get(index);
    return at === undefined || at >= this.written ? ABSENT : this._values[at];
  }
}

/** One published version of the table: read-only. */
export class RecordTable {
  /** Once replaced: the log of the publication that replaced it. */
  private _log: UndoLog | undefined = undefined;
  /** Once replaced at an epoch's end: the array as it was, copied. */
  private _frozen: readonly unknown[] | undefined = undefined;

  constructor(
    private readonly _array: readonly unknown[],
    /** How many records the table holds. */
    readonly size: number
  ) {}

  /** The record at `index` (below {@link size}). */
  get(index: number): unknown {
    if (this._frozen !== undefined) return this._frozen[index];
    for (let log = this._log; log !== undefined; log = log.next) {
      const value = log.before(index);
      if (value !== ABSENT) return value;
      if (log.after !== undefined) return log.after[index];
    }
    return this._array[index];
  }

  /**
   * Called by the editor when a publication replaces this version: from then on it reads
   * `log` before the array, or `frozen` alone.
   * @internal
   */
  replaced(
    log: UndoLog | undefined,
    frozen: readonly unknown[] | undefined
  ): void {
    this._log = log;
    this._frozen = frozen;
  }
}

/** Builds the next version of a table: changes made here are invisible to every published version. */
export class RecordTableEditor {
  /** The newest published version's records; indexes pushed since, past its size. */
  private readonly _array: unknown[] = [];
  /**
   * The records staged for the next version: `_staged` of them, at the start of two arrays made
   * as long as the last tick's, so that a tick like the last one stages its records without
   * growing them (an array grown by appending is copied again and again, on the tick's path).
   */
  private _stagedIndexes: number[] = [];
  private _stagedValues: unknown[] = [];
  private _staged = 0;
  private _newest: RecordTable | undefined = undefined;
  /** The log of the last publication, which the next one's follows, in the same epoch. */
  private _lastLog: UndoLog | undefined = undefined;
  /** How many values the epoch's logs hold. */
  private _logged = 0;
  /** The copy of the newest version's array that ends the epoch, made ahead in slices. */
  private _copy: unknown[] = [];
  /**
   * While the staged records are written into the array: how many are, and the log they go
   * into (undefined at an epoch's end, when the versions before read the copy instead).
   */
  private _writing: { at: number; log: UndoLog | undefined } | undefined =
    undefined;

  get size(): number {
    return this._array.length;
  }

  /** Replaces the record at `index` (below {@link size}) in the next version. */
  set(index: number, record: unknown): void {
    if (this._writing !== undefined)
      throw new Error(
        'RecordTableEditor: a record staged while the staged ones are written'
      );
    const at = this._staged++;
    this._stagedIndexes[at] = index;
    this._stagedValues[at] = record;
  }

  /**
   * Appends a record; returns its index. The versions published before never read it: they
   * show only series older than they are.
   */
  push(record: unknown): number {
    return this._array.push(record) - 1;
  }

  /** Whether the next publication ends an epoch: its version is then copied once. */
  private get _endsEpoch(): boolean {
    return this._logged + this._staged > EPOCH_TABLES * this._array.length;
  }

  /**
   * Once everything of the next version is staged: if its publication ends an epoch, copies the
   * newest version's records ahead, in slices of `slicer`'s budget (a unit per thousand), so that
   * the publication itself, one step, need not. The newest version's records do not change
   * before the publication. Returns true when done, false when `slicer` ended the slice first.
   */
  prepare(slicer: Slicer): boolean {
    if (!this._endsEpoch) return true;
    const array = this._array;
    const copy = this._copy;
    const size = this._newest?.size ?? 0;
    while (copy.length < size) {
      const end = Math.min(size, copy.length + COPY_UNIT);
      for (let i = copy.length; i < end; i++) copy.push(array[i]);
      if (slicer.due()) return false;
    }
    return true;
  }

  /**
   * Once everything of the next version is staged and prepared: writes the staged records into
   * the array, in slices of `slicer`'s budget (a unit per {@link WRITE_UNIT}). From the first
   * write on, the newest version reads the values replaced from a log (or, at an epoch's end,
   * from the copy), so that it answers as before until the next version is published. Nothing
   * may be staged until {@link publish}. Returns true when done, false when `slicer` ended the
   * slice first.
   */
  write(slicer: Slicer): boolean {
    const writing = (this._writing ??= this._startWriting());
    const array = this._array;
    const indexes = this._stagedIndexes;
    const values = this._stagedValues;
    const log = writing.log;
    while (writing.at < indexes.length) {
      const end = Math.min(indexes.length, writing.at + WRITE_UNIT);
      if (log === undefined)
        for (let i = writing.at; i < end; i++) array[indexes[i]!] = values[i];
      else {
        // Each staged value swapped for the value it replaces: the log of what was.
        for (let i = writing.at; i < end; i++) {
          const at = indexes[i]!;
          const old = array[at];
          array[at] = values[i];
          values[i] = old;
        }
        log.written = end;
      }
      writing.at = end;
      // Not after the last: the swap that follows is not worth a slice of its own.
      if (end < indexes.length && slicer.due()) return false;
    }
    return true;
  }

  /** Hands the newest version over to what it reads while the staged records are written. */
  private _startWriting(): { at: number; log: UndoLog | undefined } {
    const staged = this._staged;
    this._stagedIndexes.length = staged;
    this._stagedValues.length = staged;
    const replaced = this._newest;
    if (this._endsEpoch) {
      // What the version before reads from now on: copied ahead by `prepare`, or here.
      const frozen = this._copyOfNewest();
      if (this._lastLog !== undefined) this._lastLog.after = frozen;
      replaced?.replaced(undefined, frozen);
      this._lastLog = undefined;
      this._logged = 0;
      return { at: 0, log: undefined };
    }
    const log = new UndoLog(this._stagedIndexes, this._stagedValues);
    if (this._lastLog !== undefined) this._lastLog.next = log;
    replaced?.replaced(log, undefined);
    this._lastLog = log;
    this._logged += staged;
    return { at: 0, log };
  }

  /**
   * Publishes what was built, writing what {@link write} has not yet: the version published
   * before keeps its records.
   */
  publish(): RecordTable {
    this.write(Slicer.unbounded());
    const array = this._array;
    const staged = this._staged;
    this._writing = undefined;
    // Arrays of their own for the next tick's records: these are the log now, or done with.
    this._stagedIndexes = new Array<number>(staged);
    this._stagedValues = new Array<unknown>(staged);
    this._staged = 0;
    // A copy made for an epoch's end that did not come (a record pushed since) would go stale.
    if (this._copy.length > 0) this._copy = [];
    this._newest = new RecordTable(array, array.length);
    return this._newest;
  }

  /** The newest version's records, as an array of their own: the copy `prepare` made, finished. */
  private _copyOfNewest(): unknown[] {
    this.prepare(Slicer.unbounded());
    const copy = this._copy;
    this._copy = [];
    return copy;
  }
}
