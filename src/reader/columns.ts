/* The typed-array columns in which the store keeps the working state of its series, by number. */
import type { ColumnRecycler } from './ColumnRecycler';
import type { Slicer } from './Slicer';

/** How many series the first columns hold; each doubles as it fills. */
export const INITIAL_COLUMN_LENGTH = 1024;

export type Column = Float64Array | Int32Array | Uint8Array;

/** A new column of `column`'s type, `length` zeros long. */
function zeroedLike<T extends Column>(column: T, length: number): T {
  return new (column.constructor as new (length: number) => T)(length);
}

/** Makes the copies of columns that a publication serves. */
export interface ColumnCopier {
  /**
   * A copy of the first `length` values of `column`, or an array whose first `length` values
   * will be one once made (it may be longer).
   */
  copyOf<T extends Column>(column: T, length: number): T;
  /** `owner`, the one holder of the copies `arrays` for the rest of their lives. */
  owned<O extends object>(owner: O, ...arrays: Column[]): O;
  /** Gives the copies' arrays back for reuse: only once nothing will read them again. */
  release(): void;
}

/** Copies each column when asked: for a publication made in one block. */
export const COPY_AT_ONCE: ColumnCopier = {
  copyOf: (column, length) => column.slice(0, length) as typeof column,
  owned: owner => owner,
  // Arrays of their own: the collector takes them.
  release: () => undefined,
};

/** How many values are copied between two calls to the slicer: 32 KB of doubles. */
const COPY_CHUNK = 4096;

/** What copying one chunk costs the slicer (see {@link Slicer.due}): 4–20 µs, by how warm the target is. */
const COPY_CHUNK_COST = 64;

/**
 * Views of each column's chunks, made once for the column's life: a publication copies through
 * them, where a view made for each chunk allocated some 16 KB a tick at 200,000 series.
 */
const chunkViews = new WeakMap<Column, Column[]>();

/** The `index`th chunk of `column`: shorter at its end. */
function chunkOf(column: Column, index: number): Column {
  let views = chunkViews.get(column);
  if (views === undefined) chunkViews.set(column, (views = []));
  return (views[index] ??= column.subarray(
    index * COPY_CHUNK,
    (index + 1) * COPY_CHUNK
  ));
}

/**
 * The copies' arrays are this many values longer than asked at most (their length a multiple of
 * it): a server whose series come and go a few at a time then asks for arrays of the same length
 * from one publication to the next, which the recycler can hand back. The values beyond those
 * asked are never read. A chunk, so that the last chunk is copied whole.
 */
const COPY_LENGTH_STEP = COPY_CHUNK;

/**
 * Copies of columns made in slices: {@link copyOf} hands out an array to fill, and {@link copy}
 * fills them all, a chunk at a time. At 200,000 series a publication copies some 5 MB, which
 * made its one step take up to 3 ms; nothing changes the columns between the moment the copies
 * are asked for and that step, so they may be made across several slices. The arrays come from
 * `recycler`, and go back to it once their owner is collected.
 */
export class SlicedCopies implements ColumnCopier {
  private readonly _sources: Column[] = [];
  private readonly _targets: Column[] = [];
  private readonly _lengths: number[] = [];
  /** The column being copied, and how far. */
  private _column = 0;
  private _at = 0;

  constructor(private readonly _recycler: ColumnRecycler) {
    _recycler.startPublication();
  }

  copyOf<T extends Column>(column: T, length: number): T {
    const target = this._recycler.take(
      column,
      Math.ceil(length / COPY_LENGTH_STEP) * COPY_LENGTH_STEP
    );
    this._sources.push(column);
    this._targets.push(target);
    this._lengths.push(length);
    return target;
  }

  owned<O extends object>(owner: O, ...arrays: Column[]): O {
    this._recycler.recycleWith(owner, arrays, this);
    return owner;
  }

  release(): void {
    this._recycler.release(this, this._targets);
  }

  /** Copies until every array is filled (true) or `slicer` ends the slice (false: call again). */
  copy(slicer: Slicer): boolean {
    const targets = this._targets;
    while (this._column < targets.length) {
      const length = this._lengths[this._column]!;
      const start = this._at;
      const end = Math.min(start + COPY_CHUNK, length);
      // A whole chunk, past `length` at the end: the target's length is a multiple of a chunk.
      if (end > start)
        targets[this._column]!.set(
          chunkOf(this._sources[this._column]!, start / COPY_CHUNK),
          start
        );
      this._at = end;
      if (end === length) {
        this._column++;
        this._at = 0;
        // The published view holds this to release its arrays: not the columns copied, which
        // may be replaced by longer ones.
        if (this._column === targets.length) this._sources.length = 0;
      }
      // A chunk is a unit of work; an empty copy is none.
      if (
        end > start &&
        this._column < targets.length &&
        slicer.due(COPY_CHUNK_COST)
      )
        return false;
    }
    return true;
  }
}

/**
 * A column with room for `length` values: the same one, or one at least twice as long with its
 * values, so that a column grown a little at a time is copied a few times only.
 */
export function withRoom<T extends Column>(column: T, length: number): T {
  if (length <= column.length) return column;
  const next = zeroedLike(column, Math.max(length, 2 * column.length));
  next.set(column);
  return next;
}

/**
 * Columns of one length with room for the series numbered `number`: the same ones, or each
 * twice as long, with its values. Series are numbered in order, so one more is one more place.
 */
export function withRoomFor<T extends Column[]>(
  number: number,
  columns: [...T]
): [...T] {
  if (number < columns[0]!.length) return columns;
  return columns.map(column => withRoom(column, number + 1)) as [...T];
}

/**
 * `value` as a small integer when it is a 32-bit one. A number read from a typed array and
 * written to an object's field is otherwise kept in a number object of its own, one more object
 * for each field of each series for the garbage collector to trace, and one more memory read
 * for each field read. Fields that only ever hold integers take `| 0` instead.
 */
export function unboxed(value: number): number {
  return (value | 0) === value ? value | 0 : value;
}
