import {
  COUNTER_FIELDS,
  SPIRAL_FIELDS,
  SUMMED_VALUE_FIELDS,
  type LegacyValue,
} from '../snapshot/legacyValues';
import type { RecordReader } from './records';
import type { HistogramSeries } from './HistogramSeries';
import type { NameTotals, Series, SpiralSeries } from './series';
import type { ValueSeries } from './ValueSeries';
import {
  emptyAggregate,
  histogramValue,
  mergeInto,
  type HistogramAggregate,
} from './histogramBuckets';

/*
 * How the series that share a legacy name combine into what is served: within a host type, a
 * host or the global group (its domains), and across all of them for `/all`. One rule for every
 * kind: exact sums for spirals, counters and gauges, merged windows for histograms.
 */

/** The age `ms_since_reset` reports, at `monotonicNowMs` on the monotonic clock. */
function age(series: Series, monotonicNowMs: number): number {
  return Math.max(0, Math.round(monotonicNowMs - series.createdAtMonotonicMs));
}

/**
 * The value of the series served under one name of a group (one, or the domains of a host
 * type), as `read` gives their records: exact sums, or merged histograms.
 */
export function combinedValue(
  members: readonly Series[],
  read: RecordReader,
  monotonicNowMs: number
): LegacyValue {
  const first = members[0]!;
  const integer = first.totals.integer;
  switch (first.totals.kind) {
    case 'spiral': {
      let count = 0;
      let one = 0;
      for (const member of members) {
        const record = read(member as SpiralSeries);
        count += record.count;
        one += record.one;
      }
      return { names: SPIRAL_FIELDS, numbers: [count, one], integer };
    }
    case 'counter':
    case 'gauge': {
      let value = 0;
      let oldest = 0;
      for (const member of members) {
        value += read(member as ValueSeries);
        oldest = Math.max(oldest, age(member, monotonicNowMs));
      }
      return { names: COUNTER_FIELDS, numbers: [value, oldest], integer };
    }
    case 'histogram': {
      if (members.length === 1)
        return read(first as HistogramSeries).value(integer);
      const merged = emptyAggregate();
      for (const member of members)
        mergeInto(merged, read(member as HistogramSeries).aggregate);
      return histogramValue(merged, integer);
    }
  }
}

/** What `/all/:name` serves, from the records of `members` (every series of the name visible to the snapshot). */
export function totalValue(
  totals: NameTotals,
  members: readonly Series[],
  read: RecordReader
): LegacyValue {
  const integer = totals.integer;
  switch (totals.kind) {
    case 'spiral':
      // The members share `totals`, and so its integer flag: summed as in a group.
      return combinedValue(members, read, 0);
    case 'counter':
    case 'gauge': {
      let value = 0;
      for (const member of members) value += read(member as ValueSeries);
      return { names: SUMMED_VALUE_FIELDS, numbers: [value], integer };
    }
    case 'histogram':
      return histogramValue(mergedHistogram(totals, members, read), integer);
  }
}

/**
 * Every member's window merged, as merging them one by one into an empty aggregate gives:
 * the scale of the coarsest non-empty window, the buckets summed at that scale. The buckets
 * come from the name's published sum; the few scalars are summed here, in member order.
 */
function mergedHistogram(
  totals: NameTotals,
  members: readonly Series[],
  read: RecordReader
): HistogramAggregate {
  let scale = Infinity;
  let count = 0;
  let sum = 0;
  let zeroCount = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const member of members) {
    const window = read(member as HistogramSeries);
    if (window.count === 0) continue;
    scale = Math.min(scale, window.scale);
    count += window.count;
    sum += window.sum;
    zeroCount += window.zeroCount;
    min = Math.min(min, window.min);
    max = Math.max(max, window.max);
  }
  if (count === 0) return emptyAggregate();
  const buckets = read(totals);
  if (buckets.scale === scale) {
    const { positive, negative } = buckets;
    return { scale, count, sum, zeroCount, min, max, positive, negative };
  }
  // Not reached while publishing keeps the sum at the coarsest member's scale; merging is the fallback.
  const merged = emptyAggregate();
  for (const member of members)
    mergeInto(merged, read(member as HistogramSeries).aggregate);
  return merged;
}
