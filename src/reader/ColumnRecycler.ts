import type { Column } from './columns';
import { getOrMake } from '../getOrMake';
import type { Slicer } from './Slicer';

/**
 * How many publications' arrays wait for reuse at most. A snapshot that a caller was handed lives
 * long enough to be promoted, so its arrays come back only after a full collection, all those of
 * the snapshots since the last one at once: a few publications' worth cover the ticks that follow
 * it, and the rest are left to the collector.
 */
const KEPT_PUBLICATIONS = 4;

/**
 * A new array is made only this early in a slice: cheap ones (small, or with no marking under
 * way) share one, and one that took a marking step ends it.
 */
const NEW_ARRAY_WITHIN_MS = 0.25;

function shapeOf(column: Column, length: number): string {
  return `${column.constructor.name}:${length}`;
}

const newList = (): Column[] => [];

/** The arrays of one type and length that a publication took. */
interface Taken {
  readonly type: new (length: number) => Column;
  readonly length: number;
  count: number;
}

/**
 * The arrays of the publications that no snapshot can read any more, ready for the next
 * publication's copies. A publication copies every column (about 2 MB at 100,000 series, 5 MB at
 * 200,000). V8 counts typed arrays as external memory, and once that has grown by its limit since
 * the last full collection, the next allocation starts the collector's marking on the spot and
 * each allocation after it makes a marking step: a publication's fresh arrays used to hold the
 * event loop up to 11 ms that way, every 10 to 30 s. Reused arrays leave external memory where it
 * was, and save the allocation and the first touch of every page.
 *
 * An array is reused once its publication is released ({@link release}: its snapshot was replaced
 * and was read only by requests, each answered within one turn), or else once the object that
 * owns it (a publication's figures) has been collected: nothing else may hold it, which the
 * figures' private fields ensure.
 */
export class ColumnRecycler {
  /**
   * How many arrays were made new, how many came back once their owner was collected, and how
   * many were released with their publication.
   */
  made = 0;
  cameBack = 0;
  released = 0;
  private readonly _free = new Map<string, Column[]>();
  /** The arrays of each shape the last publication took. */
  private _taken = new Map<string, Taken>();
  private readonly _owners = new FinalizationRegistry<readonly Column[]>(
    arrays => {
      for (const array of arrays) if (this._keep(array)) this.cameBack++;
    }
  );

  /** Starts a publication's copies: the arrays of shapes the last one did not take are let go. */
  startPublication(): void {
    for (const shape of this._free.keys())
      if (!this._taken.has(shape)) this._free.delete(shape);
    this._taken = new Map();
  }

  /**
   * Makes ready the arrays the last publication took, from those that came back or new ones, so
   * that the next takes none new. V8 may start the collector's marking, or make a step of it of
   * up to 5 ms, inside an allocation: each new array is made at the start of a slice, so that
   * such a step is most of a slice rather than added to one, and so that one publication's
   * arrays do not take one step each in the same slice. Returns true when ready, false when the
   * slice must end first (call again after the pause).
   */
  prepare(slicer: Slicer): boolean {
    for (const [shape, taken] of this._taken) {
      const free = getOrMake(this._free, shape, newList);
      while (free.length < taken.count) {
        if (slicer.elapsedMs >= NEW_ARRAY_WITHIN_MS) return false;
        free.push(this._make(taken));
      }
    }
    return true;
  }

  /**
   * An array of `column`'s type, `length` values long, to be filled whole: one that came back,
   * or a new one.
   */
  take<T extends Column>(column: T, length: number): T {
    const shape = shapeOf(column, length);
    let taken = this._taken.get(shape);
    if (taken === undefined) {
      const type = column.constructor as Taken['type'];
      this._taken.set(shape, (taken = { type, length, count: 0 }));
    }
    taken.count++;
    return (this._free.get(shape)?.pop() ?? this._make(taken)) as T;
  }

  /**
   * Takes back `arrays` once `owner`, which alone holds them, has been collected, unless their
   * `publication` is released first.
   */
  recycleWith(
    owner: object,
    arrays: readonly Column[],
    publication: object
  ): void {
    this._owners.register(owner, arrays, publication);
  }

  /**
   * Takes back at once `arrays`, every array `publication` took: nothing will read them again.
   * Without this, a snapshot's arrays come back only after a full collection, and until then each
   * publication makes new ones, which start the collector's marking in turn.
   */
  release(publication: object, arrays: readonly Column[]): void {
    // Unregistered, their owners' collection cannot bring them back a second time.
    if (!this._owners.unregister(publication)) return;
    for (const array of arrays) if (this._keep(array)) this.released++;
  }

  /** How many arrays wait for reuse. */
  get waiting(): number {
    let count = 0;
    for (const free of this._free.values()) count += free.length;
    return count;
  }

  private _make(taken: Taken): Column {
    this.made++;
    return new taken.type(taken.length);
  }

  /** Keeps `array` for reuse if a publication may take it. Returns whether it is kept. */
  private _keep(array: Column): boolean {
    const shape = shapeOf(array, array.length);
    // Columns grow: an array of a length that is no longer taken will not be again.
    const taken = this._taken.get(shape);
    if (taken === undefined) return false;
    const free = getOrMake(this._free, shape, newList);
    if (free.length >= taken.count * KEPT_PUBLICATIONS) return false;
    free.push(array);
    return true;
  }
}
