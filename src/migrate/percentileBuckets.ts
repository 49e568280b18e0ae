/**
 * Whether a histogram's explicit buckets can express a legacy percentile, and the boundaries that
 * would. `histogram_quantile` never answers above the highest finite boundary, and within a bucket
 * it can only interpolate: a percentile in the `+Inf` bucket, or in a bucket much wider than the
 * value, is not reproduced, whatever the comparison says. `migrate` reports each histogram whose
 * buckets fall short of the percentiles the poller reads, with the boundaries that would do, in
 * code ({@link HistogramBuckets}).
 */
import { quantileOf } from './legacyKeyQuery';
import type { PrometheusSeries } from './prometheusNames';
import type { ExpositionIndex } from './expositionIndex';
import type { LegacyMetricValue } from './fetchServer';
import type { Finding } from './migrationPlan';

/**
 * The widest bucket that still expresses a percentile: its upper bound at most this many times its
 * lower bound. The SDK's default boundaries (ratios up to 2.5) pass; the lowest bucket, from 0 or
 * below, is the histogram's resolution and always passes.
 */
export const MAX_BUCKET_RATIO = 4;

/**
 * Why finite bucket bounds `bounds` (ascending) cannot express `value`, or undefined when they
 * can.
 */
export function bucketShortfall(
  bounds: readonly number[],
  value: number
): string | undefined {
  const top = bounds.at(-1);
  if (top === undefined)
    return 'the exposition has no finite bucket boundary: every value is in the +Inf bucket';
  if (value > top)
    return `${value} is above the highest bucket boundary ${top}: it is in the +Inf bucket, and histogram_quantile answers at most ${top}`;
  let i = 0;
  while (bounds[i]! < value) i++;
  const low = i === 0 ? -Infinity : bounds[i - 1]!;
  const high = bounds[i]!;
  if (low > 0 && high > MAX_BUCKET_RATIO * low)
    return `${value} is in the bucket ${low} to ${high}, wider than ×${MAX_BUCKET_RATIO}: histogram_quantile can answer anywhere in it`;
  return undefined;
}

const STEPS = [1, 2.5, 5];

/**
 * Boundaries that express every value up to `max`: 0 when the given ones start there, then 1, 2.5,
 * 5 × each power of ten from the lowest positive given boundary (or 1) until twice `max`.
 */
export function suggestedBoundaries(
  bounds: readonly number[],
  max: number
): number[] {
  const lowest = bounds.find(b => b > 0) ?? 1;
  const suggested = bounds.some(b => b <= 0) ? [0] : [];
  let decade = 10 ** Math.floor(Math.log10(lowest));
  const limit = Math.max(2 * max, lowest);
  for (;;) {
    for (const step of STEPS) {
      const bound = Number((step * decade).toPrecision(12));
      if (bound >= lowest) suggested.push(bound);
      if (bound >= limit) return suggested;
    }
    decade *= 10;
  }
}

interface Shortfalls {
  readonly instrument: string;
  readonly bounds: readonly number[];
  max: number;
  readonly keys: Map<string, string>;
}

/** Collects the percentiles a histogram's buckets cannot express, by family. */
export class HistogramBuckets {
  private readonly _byFamily = new Map<string, Shortfalls>();

  /** @param exposition the server's exposition, when it was read: without it nothing is checked */
  constructor(private readonly _exposition: ExpositionIndex | undefined) {}

  /** Checks `field` of a legacy histogram `value`, read at `where`. */
  check(
    instrument: string,
    series: PrometheusSeries,
    where: string,
    field: string,
    value: LegacyMetricValue | undefined
  ): void {
    const family = this._exposition?.families.get(series.family);
    const legacy = value?.[field];
    if (
      family === undefined ||
      series.type !== 'histogram' ||
      quantileOf(field) === undefined ||
      typeof legacy !== 'number' ||
      (value?.n ?? 0) === 0
    )
      return;
    const bounds = [...family.les.keys()]
      .filter(le => Number.isFinite(le))
      .sort((a, b) => a - b);
    const shortfall = bucketShortfall(bounds, legacy);
    if (shortfall === undefined) return;
    let entry = this._byFamily.get(series.family);
    if (entry === undefined) {
      entry = { instrument, bounds, max: 0, keys: new Map() };
      this._byFamily.set(series.family, entry);
    }
    const max = typeof value?.max === 'number' ? value.max : legacy;
    entry.max = Math.max(entry.max, max, legacy);
    entry.keys.set(where, `${field} is ${shortfall}`);
  }

  /** One finding per instrument whose buckets fall short. */
  findings(): Finding[] {
    return [...this._byFamily].map(([family, entry]) => ({
      tag: 'histogram-buckets',
      text: [
        `${family} (instrument ${JSON.stringify(entry.instrument)}): its Prometheus buckets cannot express the legacy percentiles: ${[...entry.keys].map(([where, why]) => `${where}: ${why}`).join('; ')}. Their rules will not follow the legacy values, and compare reports them as disagreements.`,
        `Give the instrument boundaries that cover its values (up to ${entry.max} seen), as advice: the Prometheus exporter follows it and the legacy reader keeps its own exponential buckets (a View would change the legacy reader's aggregation too):`,
        `    meter.createHistogram(${JSON.stringify(entry.instrument)}, { advice: { explicitBucketBoundaries: [${suggestedBoundaries(entry.bounds, entry.max).join(', ')}] } })`,
      ].join('\n  '),
    }));
  }
}
