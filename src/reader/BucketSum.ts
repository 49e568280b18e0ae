import {
  addScalars,
  addToBucket,
  MAX_SCALE,
  type HistogramAggregate,
  type HistogramSummary,
} from './histogramBuckets';
import {
  addEntryBuckets,
  COUNT,
  MAX,
  MIN,
  SCALE,
  SUM,
  ZERO_COUNT,
  type BucketTarget,
  type SlotEntries,
} from './slotEntries';

/**
 * The widest run of buckets kept in an array: 16 KB a sign. The buckets of a name's windows
 * summed at their coarsest scale span a few hundred at most for data the SDK scaled down (its
 * points fit in 160 buckets); only single values spread over many octaves, kept at the finest
 * scale, span more, and those go into a map.
 */
const MAX_DENSE_SPAN = 2048;

/** The non-empty buckets of dense `counts`, whose first is bucket `offset`, as a map index → count. */
function denseMap(counts: Float64Array, offset: number): Map<number, number> {
  const result = new Map<number, number>();
  for (let i = 0; i < counts.length; i++)
    if (counts[i]! > 0) result.set(offset + i, counts[i]!);
  return result;
}

/**
 * The counts of one sign's buckets, by bucket index: an array over the indexes seen while they
 * span at most {@link MAX_DENSE_SPAN}, a map beyond. Every data point of a histogram adds to
 * these and every expiring slot takes away, so an addition is an array's, not a map's, on the
 * common path.
 */
class BucketCounts implements BucketTarget {
  private _counts = new Float64Array(0);
  /** The bucket index of `_counts[0]`. */
  private _offset = 0;
  /** The buckets, once their span outgrew the array; then the array is unused. */
  private _map: Map<number, number> | undefined = undefined;
  /** How many buckets hold a count. */
  private _nonEmpty = 0;

  get isEmpty(): boolean {
    return this._map === undefined
      ? this._nonEmpty === 0
      : this._map.size === 0;
  }

  /** Adds `count` (negative to take away) to bucket `index`; a count that would fall below 1 leaves it empty. */
  add(index: number, count: number): void {
    if (this._map !== undefined) {
      addToBucket(this._map, index, 0, count);
      return;
    }
    let at = index - this._offset;
    if (at < 0 || at >= this._counts.length) {
      if (count <= 0) return;
      if (!this._makeRoomFor(index)) {
        addToBucket(this._map!, index, 0, count);
        return;
      }
      at = index - this._offset;
    }
    const before = this._counts[at]!;
    const next = before + count;
    if (next > 0) {
      this._counts[at] = next;
      if (before === 0) this._nonEmpty++;
    } else if (before > 0) {
      this._counts[at] = 0;
      this._nonEmpty--;
    }
  }

  /** The buckets as they are now, copied compactly: a map of their own only once read. */
  copy(): CountsCopy {
    if (this._map !== undefined)
      return new CountsCopy(0, undefined, new Map(this._map));
    if (this._nonEmpty === 0) return EMPTY_COUNTS;
    // Only the span that holds counts.
    const counts = this._counts;
    let low = 0;
    let high = counts.length;
    while (counts[low] === 0) low++;
    while (counts[high - 1] === 0) high--;
    return new CountsCopy(this._offset + low, counts.slice(low, high));
  }

  /** The buckets as a map of their own, index → count. */
  toMap(): Map<number, number> {
    if (this._map !== undefined) return new Map(this._map);
    return denseMap(this._counts, this._offset);
  }

  /** Brings the buckets `shift` scales coarser: index i becomes i >> shift. */
  downscale(shift: number): void {
    if (shift === 0) return;
    const buckets = this.toMap();
    this.clear();
    for (const [index, count] of buckets) this.add(index >> shift, count);
  }

  clear(): void {
    this._counts = new Float64Array(0);
    this._offset = 0;
    this._map = undefined;
    this._nonEmpty = 0;
  }

  /**
   * Grows the array to take `index`, with room to spare on the side it grew; returns false
   * when that would pass {@link MAX_DENSE_SPAN}, having moved the buckets into a map.
   */
  private _makeRoomFor(index: number): boolean {
    const counts = this._counts;
    if (counts.length === 0) {
      this._counts = new Float64Array(16);
      this._offset = index - 8;
      return true;
    }
    const end = this._offset + counts.length;
    const low = Math.min(this._offset, index);
    const high = Math.max(end, index + 1);
    if (high - low > MAX_DENSE_SPAN) {
      this._map = this.toMap();
      this._counts = new Float64Array(0);
      return false;
    }
    const span = Math.min(MAX_DENSE_SPAN, 2 * (high - low));
    const offset = index < this._offset ? high - span : low;
    const grown = new Float64Array(span);
    grown.set(counts, this._offset - offset);
    this._counts = grown;
    this._offset = offset;
    return true;
  }
}

/**
 * One sign's buckets as a publication holds them: the counts of the span that holds any, in a
 * typed array (off the collector's heap, and one object rather than one per bucket), made into
 * the map an aggregate has when a request first reads them. Never changed.
 */
class CountsCopy {
  constructor(
    /** The bucket index of `_counts[0]`. */
    private readonly _offset: number,
    private readonly _counts: Float64Array | undefined,
    private _map: Map<number, number> | undefined = undefined
  ) {}

  get map(): Map<number, number> {
    return (this._map ??= denseMap(this._counts!, this._offset));
  }
}

const EMPTY_COUNTS = new CountsCopy(0, new Float64Array(0));

/**
 * A name's summed buckets as one publication holds them: an aggregate whose bucket maps are made
 * when first read. A tick publishes the sum of every histogram name that changed, while `/all`
 * is read far less often than once a tick.
 */
export class PublishedSum implements Readonly<HistogramAggregate> {
  readonly scale: number;
  readonly count: number;
  readonly sum: number;
  readonly min: number;
  readonly max: number;
  readonly zeroCount: number;

  constructor(
    summary: Readonly<HistogramSummary>,
    private readonly _positive: CountsCopy,
    private readonly _negative: CountsCopy
  ) {
    this.scale = summary.scale;
    this.count = summary.count;
    this.sum = summary.sum;
    this.min = summary.min;
    this.max = summary.max;
    this.zeroCount = summary.zeroCount;
  }

  get positive(): Map<number, number> {
    return this._positive.map;
  }

  get negative(): Map<number, number> {
    return this._negative.map;
  }
}

/**
 * The working sum of several windows' slots (a histogram name's windows across host types), kept
 * as each slot comes and goes: its buckets at a scale no finer than any slot added since it was
 * last empty, and its scalars. Published as a {@link HistogramAggregate}.
 */
export class BucketSum implements HistogramSummary {
  scale = MAX_SCALE;
  count = 0;
  sum = 0;
  min = Infinity;
  max = -Infinity;
  zeroCount = 0;
  private readonly _positive = new BucketCounts();
  private readonly _negative = new BucketCounts();

  /** Adds the slot entry at `at`, at the coarser of its scale and the sum's. */
  addEntry(entries: SlotEntries, at: number): void {
    const shift = this._absorbScale(entries[at + SCALE]!);
    addEntryBuckets(this._positive, this._negative, entries, at, shift, 1);
    addScalars(
      this,
      entries[at + COUNT]!,
      entries[at + SUM]!,
      entries[at + ZERO_COUNT]!,
      entries[at + MIN]!,
      entries[at + MAX]!
    );
  }

  /** Takes out the slot entry at `at`, added before. */
  subtractEntry(entries: SlotEntries, at: number): void {
    addEntryBuckets(
      this._positive,
      this._negative,
      entries,
      at,
      entries[at + SCALE]! - this.scale,
      -1
    );
    this.count -= entries[at + COUNT]!;
    this.sum -= entries[at + SUM]!;
    this.zeroCount -= entries[at + ZERO_COUNT]!;
    // Once every window that fed it is empty, the sum too may regain full resolution.
    if (this.count === 0) this.clear();
  }

  /** Adds a window's whole data, at the coarser of its scale and the sum's. */
  addAggregate(source: Readonly<HistogramAggregate>): void {
    if (source.count === 0) return;
    const shift = this._absorbScale(source.scale);
    for (const [index, count] of source.positive)
      this._positive.add(index >> shift, count);
    for (const [index, count] of source.negative)
      this._negative.add(index >> shift, count);
    const { count, sum, zeroCount, min, max } = source;
    addScalars(this, count, sum, zeroCount, min, max);
  }

  /** Empties the sum: the next data sets its scale. */
  clear(): void {
    this.scale = MAX_SCALE;
    this.count = 0;
    this.sum = 0;
    this.min = Infinity;
    this.max = -Infinity;
    this.zeroCount = 0;
    this._positive.clear();
    this._negative.clear();
  }

  /** The sum as a publication holds it, which later changes leave alone. */
  publish(): PublishedSum {
    return new PublishedSum(this, this._positive.copy(), this._negative.copy());
  }

  /**
   * Readies the sum to take data at `scale`: an empty sum takes that scale, any other is brought
   * down to it when coarser (never up). Returns the shift that brings the data's bucket indexes
   * to the sum's scale.
   */
  private _absorbScale(scale: number): number {
    if (this.count === 0 && this._positive.isEmpty && this._negative.isEmpty)
      this.scale = scale;
    else if (scale < this.scale) {
      const shift = this.scale - scale;
      this._positive.downscale(shift);
      this._negative.downscale(shift);
      this.scale = scale;
    }
    return scale - this.scale;
  }
}
