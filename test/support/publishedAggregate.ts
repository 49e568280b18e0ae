import type { BucketSum } from '../../src/reader/BucketSum';
import type { HistogramAggregate } from '../../src/reader/histogramBuckets';

/** What a publication of `sum` holds, as a plain aggregate: its bucket maps read. */
export function publishedAggregate(sum: BucketSum): HistogramAggregate {
  const published = sum.publish();
  const { scale, count, min, max, zeroCount, positive, negative } = published;
  return {
    scale,
    count,
    sum: published.sum,
    min,
    max,
    zeroCount,
    positive,
    negative,
  };
}
