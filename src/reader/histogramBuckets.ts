import {
  HISTOGRAM_FIELDS,
  HISTOGRAM_QUANTILES,
  zeroValue,
  type LegacyValue,
} from '../snapshot/legacyValues';

/*
 * The bucket math of base-2 exponential histograms. A value v > 0 falls into bucket i at scale s
 * when base^i < v <= base^(i+1), base = 2^(2^-s) (OpenTelemetry data model). Percentiles are
 * estimated at the geometric centre of their bucket and clamped to the exact min and max, so the
 * relative error is at most 2^(2^-(s+1)) - 1. The SDK's histograms take no negative values; an
 * aggregate still orders them correctly should a producer send some.
 */

/** The SDK's largest exponential histogram scale. */
export const MAX_SCALE = 20;

/** What a window, or several windows merged, hold besides their buckets. */
export interface HistogramSummary {
  scale: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  zeroCount: number;
}

/** Merged buckets: of a window, or of several windows (`/all`). */
export interface HistogramAggregate extends HistogramSummary {
  positive: Map<number, number>;
  negative: Map<number, number>;
}

export function emptyAggregate(): HistogramAggregate {
  return {
    scale: MAX_SCALE,
    count: 0,
    sum: 0,
    min: Infinity,
    max: -Infinity,
    zeroCount: 0,
    positive: new Map(),
    negative: new Map(),
  };
}

/** Adds `count` (negative to take away) to bucket `index >> shift`; a bucket left empty goes. */
export function addToBucket(
  target: Map<number, number>,
  index: number,
  shift: number,
  count: number
): void {
  const key = index >> shift;
  const next = (target.get(key) ?? 0) + count;
  if (next > 0) target.set(key, next);
  else target.delete(key);
}

function addBuckets(
  target: Map<number, number>,
  source: Map<number, number>,
  shift: number
): void {
  for (const [index, count] of source) addToBucket(target, index, shift, count);
}

function downscale(
  buckets: Map<number, number>,
  shift: number
): Map<number, number> {
  if (shift === 0) return buckets;
  const result = new Map<number, number>();
  addBuckets(result, buckets, shift);
  return result;
}

/**
 * Readies `target` to take data at `scale`: an empty aggregate takes that scale, any other is
 * brought down to it when coarser (never up: detail once merged away is gone). Returns the shift
 * that brings the data's bucket indexes to `target`'s scale.
 */
export function absorbScale(target: HistogramAggregate, scale: number): number {
  if (
    target.count === 0 &&
    target.positive.size === 0 &&
    target.negative.size === 0
  )
    target.scale = scale;
  else if (scale < target.scale) {
    const shift = target.scale - scale;
    target.positive = downscale(target.positive, shift);
    target.negative = downscale(target.negative, shift);
    target.scale = scale;
  }
  return scale - target.scale;
}

/** Adds the scalars of some data into `target`'s. */
export function addScalars(
  target: HistogramSummary,
  count: number,
  sum: number,
  zeroCount: number,
  min: number,
  max: number
): void {
  target.count += count;
  target.sum += sum;
  target.zeroCount += zeroCount;
  target.min = Math.min(target.min, min);
  target.max = Math.max(target.max, max);
}

/** Adds `source` into `target`, at the coarser of their scales. */
export function mergeInto(
  target: HistogramAggregate,
  source: Readonly<HistogramAggregate>
): void {
  if (source.count === 0) return;
  const shift = absorbScale(target, source.scale);
  addBuckets(target.positive, source.positive, shift);
  addBuckets(target.negative, source.negative, shift);
  const { count, sum, zeroCount, min, max } = source;
  addScalars(target, count, sum, zeroCount, min, max);
}

/** The legacy histogram datapoints of an aggregate: all zeros when it is empty. */
export function histogramValue(
  aggregate: Readonly<HistogramAggregate>,
  integer: boolean
): LegacyValue {
  const n = aggregate.count;
  if (n === 0) return zeroValue('histogram', 0);
  return {
    names: HISTOGRAM_FIELDS,
    numbers: [
      n,
      aggregate.sum / n,
      aggregate.min,
      aggregate.max,
      ...quantiles(aggregate, HISTOGRAM_QUANTILES),
    ],
    integer,
  };
}

function bucketCentre(index: number, scale: number): number {
  return Math.pow(2, (index + 0.5) * Math.pow(2, -scale));
}

/**
 * Estimates the given quantiles (ascending, in [0, 1]) of an aggregate: the value of rank
 * ceil(q·n) (nearest rank), at the geometric centre of its bucket, clamped to [min, max].
 */
export function quantiles(
  aggregate: Readonly<HistogramAggregate>,
  qs: readonly number[]
): number[] {
  const n = aggregate.count;
  if (n === 0) return qs.map(() => 0);
  const negative = [...aggregate.negative.keys()].sort((a, b) => b - a);
  const positive = [...aggregate.positive.keys()].sort((a, b) => a - b);
  const result: number[] = [];
  let q = 0;
  let seen = 0;
  const settle = (value: number, upTo: number): void => {
    while (q < qs.length) {
      const rank = Math.max(1, Math.ceil(qs[q]! * n));
      if (rank > upTo) return;
      // The lowest and highest ranks are known exactly.
      const estimate =
        rank === 1 ? aggregate.min : rank === n ? aggregate.max : value;
      result.push(Math.min(aggregate.max, Math.max(aggregate.min, estimate)));
      q++;
    }
  };
  for (const index of negative) {
    seen += aggregate.negative.get(index)!;
    settle(-bucketCentre(index, aggregate.scale), seen);
  }
  seen += aggregate.zeroCount;
  settle(0, seen);
  for (const index of positive) {
    seen += aggregate.positive.get(index)!;
    settle(bucketCentre(index, aggregate.scale), seen);
  }
  // Rounding in the counts can leave the top ranks unreached: they are the maximum.
  while (result.length < qs.length) result.push(aggregate.max);
  return result;
}
