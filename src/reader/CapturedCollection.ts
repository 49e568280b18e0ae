import type { Attributes } from '@opentelemetry/api';
import type {
  DataPoint,
  ExponentialHistogram,
} from '@opentelemetry/sdk-metrics';
import type { InstrumentState } from './instruments';
import { INITIAL_COLUMN_LENGTH, withRoom } from './columns';

/*
 * A packed histogram point in `histograms`, from its offset: its scalars, then its non-empty
 * buckets as `index, count` pairs, positive ones first.
 */
export const H_COUNT = 0;
export const H_SUM = 1;
export const H_MIN = 2;
export const H_MAX = 3;
export const H_SCALE = 4;
export const H_ZERO_COUNT = 5;
export const H_POSITIVE_PAIRS = 6;
export const H_NEGATIVE_PAIRS = 7;
export const H_BUCKETS = 8;

/**
 * One collection's data points, copied out of the SDK's objects right after the collect: each
 * point's attributes object and its number (or its histogram, packed), by instrument. Copied,
 * the collection is garbage before the store allocates anything, so that no garbage collection
 * during the tick's slices copies it: the SDK's points, their histograms' dense bucket arrays,
 * and everything the collect made with them. The arrays are kept from tick to tick, so that a
 * tick like the last one copies into them without allocating.
 */
export class CapturedCollection {
  /** The instrument of each metric captured, in order. */
  readonly instruments: InstrumentState[] = [];
  /** Where each metric's points end. */
  private _metricEnds = new Int32Array(64);
  /** Each point's attributes object. */
  readonly attributes: Attributes[] = [];
  /** Each point's number, or for a histogram where it starts in {@link histograms}. */
  values: Float64Array = new Float64Array(INITIAL_COLUMN_LENGTH);
  /** The histogram points, packed (see `H_…`). */
  histograms: Float64Array = new Float64Array(INITIAL_COLUMN_LENGTH);
  private _metrics = 0;
  private _points = 0;
  private _histogramLength = 0;

  get metrics(): number {
    return this._metrics;
  }

  /** Where the points of metric `metric` start. */
  metricStart(metric: number): number {
    return metric === 0 ? 0 : this._metricEnds[metric - 1]!;
  }

  /** Where the points of metric `metric` end. */
  metricEnd(metric: number): number {
    return this._metricEnds[metric]!;
  }

  /**
   * Starts the capture of a metric of `instrument`, whose points follow (in one run or more,
   * each made ready by {@link reserve} and closed by {@link closeRun}).
   */
  startMetric(instrument: InstrumentState): void {
    const metric = this._metrics++;
    this.instruments[metric] = instrument;
    this._metricEnds = withRoom(this._metricEnds, metric + 1);
    this._metricEnds[metric] = this._points;
  }

  /** Makes room for up to `count` points more of the metric started last. */
  reserve(count: number): void {
    this.values = withRoom(this.values, this._points + count);
  }

  /** Adds a point with a number to the metric started last, within the room reserved. */
  addNumber(point: DataPoint<unknown>): void {
    const at = this._points++;
    this.attributes[at] = point.attributes;
    this.values[at] = point.value as number;
  }

  /** Adds an exponential histogram point to the metric started last, within the room reserved. */
  addHistogram(point: DataPoint<unknown>): void {
    const at = this._points++;
    this.attributes[at] = point.attributes;
    this.values[at] = this._histogramLength;
    this._histogramLength = packHistogram(
      point.value as ExponentialHistogram,
      this._histogramRoom,
      this._histogramLength
    );
  }

  /** Lets go of the attributes objects and starts afresh. */
  clear(): void {
    this.attributes.fill(undefined as unknown as Attributes, 0, this._points);
    this.instruments.fill(
      undefined as unknown as InstrumentState,
      0,
      this._metrics
    );
    this._metrics = 0;
    this._points = 0;
    this._histogramLength = 0;
  }

  /** Room in {@link histograms} up to `length`. */
  private readonly _histogramRoom = (length: number): Float64Array =>
    (this.histograms = withRoom(this.histograms, length));

  /** Ends a run of points of the metric started last: they are its points so far. */
  closeRun(): void {
    this._metricEnds[this._metrics - 1] = this._points;
  }
}

/**
 * Packs `point` at `at` into the array `room` gives with room for a length; returns where it
 * ends.
 */
export function packHistogram(
  point: ExponentialHistogram,
  room: (length: number) => Float64Array,
  at: number
): number {
  const { positive, negative } = point;
  const most =
    at +
    H_BUCKETS +
    2 * (positive.bucketCounts.length + negative.bucketCounts.length);
  const packed = room(most);
  packed[at + H_COUNT] = point.count;
  packed[at + H_SUM] = point.sum ?? 0;
  packed[at + H_MIN] = point.min ?? -Infinity;
  packed[at + H_MAX] = point.max ?? Infinity;
  packed[at + H_SCALE] = point.scale;
  packed[at + H_ZERO_COUNT] = point.zeroCount;
  const start = at + H_BUCKETS;
  const positiveEnd = packCounts(
    packed,
    start,
    positive.offset,
    positive.bucketCounts
  );
  const end = packCounts(
    packed,
    positiveEnd,
    negative.offset,
    negative.bucketCounts
  );
  packed[at + H_POSITIVE_PAIRS] = (positiveEnd - start) / 2;
  packed[at + H_NEGATIVE_PAIRS] = (end - positiveEnd) / 2;
  return end;
}

/** Writes the non-empty buckets of the SDK's dense counts at `at` as pairs; returns where they end. */
function packCounts(
  packed: Float64Array,
  at: number,
  offset: number,
  counts: readonly number[]
): number {
  for (let i = 0; i < counts.length; i++) {
    const count = counts[i]!;
    if (count > 0) {
      packed[at++] = offset + i;
      packed[at++] = count;
    }
  }
  return at;
}
