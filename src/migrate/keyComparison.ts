/**
 * One legacy key against the exposition reads that bracket the legacy snapshot: what `compare`
 * says of it, and why.
 */
import { agreementOf, DEFAULT_WINDOW_MS, quantileOf } from './legacyKeyQuery';
import { type PrometheusSeries } from './prometheusNames';
import type { ExpositionIndex, ExpositionRead } from './expositionIndex';
import { labelSetKey } from './expositionIndex';
import type { SeriesPlacement } from './legacyUrl';
import type { LegacyMetricValue } from './fetchServer';
import { bucketShortfall } from './percentileBuckets';

/**
 * The largest relative error of a legacy percentile at the default 160 buckets (scale 3, values
 * spanning up to 10⁶× in one slot): 2^(2^-4) − 1.
 */
export const PERCENTILE_RELATIVE_ERROR = 0.044;

/** What `compare` found for one key. */
export interface KeyResult {
  readonly legacy: number;
  /**
   * The exposition's value: for exact keys the read nearest to the legacy value, otherwise the
   * last read; undefined when no series has it.
   */
  readonly prometheus: number | undefined;
  readonly agree: boolean | 'not compared';
  /** Why it disagrees or was not compared. */
  readonly why?: string;
  /** How it was compared, when that is not plain: shown beside an agreement too. */
  readonly note?: string;
  /** Reading again cannot change this disagreement (a name collision, buckets too coarse). */
  readonly lasting?: boolean;
  /** For a percentile: the bounds of the exposition's buckets that hold its rank. */
  readonly range?: readonly [number, number];
}

/** The exposition reads around one legacy read, oldest first. */
export interface Bracket {
  readonly index: ExpositionIndex;
  readonly reads: readonly ExpositionRead[];
}

/**
 * Whether `value` is one the series had at a moment of the reading: between two consecutive
 * reads (`seen`, in order), where it is taken to move in one direction.
 */
function between(seen: readonly number[], value: number): boolean {
  if (seen.length === 1) return seen[0] === value;
  return seen.some((b, i) => {
    const a = seen[i - 1] ?? b;
    return i > 0 && Math.min(a, b) <= value && value <= Math.max(a, b);
  });
}

/** The read nearest to `value`; the later one of two as near. */
function nearest(seen: readonly number[], value: number): number {
  return seen.reduce(
    (best, v) => (Math.abs(v - value) < Math.abs(best - value) ? v : best),
    seen.at(-1)!
  );
}

/** The bounds of the bucket that holds rank `rank` (1-based). */
function bucketOf(
  cumulative: readonly [number, number][],
  rank: number
): [number, number] {
  let lower = 0;
  for (const [le, count] of cumulative) {
    if (count >= rank) return [lower, le];
    lower = le;
  }
  return [lower, Infinity];
}

const NOT_EXPOSED: Readonly<Record<string, string>> = {
  min: 'the exposition has no minimum (OTLP histogram points carry it)',
  max: 'the exposition has no maximum (OTLP histogram points carry it)',
  ms_since_reset:
    'no Prometheus series has the time since the series was first seen',
};

/** Why `key` is never compared (no series has it), or undefined when it is. */
export function notComparedReason(key: string): string | undefined {
  return agreementOf(key) === 'none'
    ? (NOT_EXPOSED[key] ?? `no Prometheus series gives ${key}`)
    : undefined;
}

/** Compares `key` of a legacy value with `series` under `placement`. */
export function compareKey(
  bracket: Bracket,
  series: PrometheusSeries,
  placement: SeriesPlacement,
  value: LegacyMetricValue,
  key: string
): KeyResult {
  const legacy = value[key] as number;
  const notCompared = (why: string): KeyResult => ({
    legacy,
    prometheus: undefined,
    agree: 'not compared',
    why,
  });
  const unexposed = notComparedReason(key);
  if (unexposed !== undefined) return notCompared(unexposed);
  const { index, reads } = bracket;
  const labels = labelSetKey(series.labels);
  const sum = (read: ExpositionRead, suffix: string, le = ''): number =>
    index.value(read, `${series.family}${suffix}`, labels, le, placement);
  const before = reads[0]!;
  const after = reads[reads.length - 1]!;
  const within = (
    suffix: string,
    v: number
  ): { prometheus: number; agree: boolean } => {
    const seen = reads.map(read => sum(read, suffix));
    return { prometheus: nearest(seen, v), agree: between(seen, v) };
  };
  if (agreementOf(key) === 'exact') return { legacy, ...within('', legacy) };
  const histogram = series.type === 'histogram';
  const totalSuffix = histogram ? '_count' : '';
  // Whether the legacy window still holds every value since start: a spiral says so itself
  // (one = count); a histogram's n is then the exposition's _count.
  const whole = histogram
    ? within(totalSuffix, value.n as number).agree
    : value.one === value.count;
  const left = `values have left the legacy ${DEFAULT_WINDOW_MS / 1000} s window`;
  if (key === 'one' || key === 'n') {
    if (whole) return { legacy, ...within(totalSuffix, legacy) };
    const total = sum(after, totalSuffix);
    const note = `${left}: ${key} counts the last ${DEFAULT_WINDOW_MS / 1000} s only, so the total is its upper bound (0 ≤ ${legacy} ≤ ${total})`;
    return {
      legacy,
      prometheus: total,
      agree: legacy >= 0 && legacy <= total,
      why: note,
      note,
    };
  }
  if (!whole)
    return notCompared(
      `${left}: ${key} covers the last ${DEFAULT_WINDOW_MS / 1000} s only, which the exposition's totals cannot isolate without Prometheus' history (the recording rule can)`
    );
  // The legacy window holds every value of `before` and some of those that came until `after`.
  const n = value.n as number;
  const added = sum(after, '_count') - n;
  if (key === 'mean') {
    const legacySum = n * legacy;
    const low = sum(before, '_sum') - n;
    const high = sum(after, '_sum');
    return {
      legacy,
      prometheus: n === 0 ? 0 : sum(after, '_sum') / sum(after, '_count'),
      agree:
        n === 0
          ? legacy === 0
          : legacySum >= low && legacySum <= high + n * 1e-9,
      why: 'n × mean must lie between the _sum read before and after it (less n for truncation)',
    };
  }
  if (n === 0) return { legacy, prometheus: 0, agree: legacy === 0 };
  const q = quantileOf(key)!;
  const family = index.families.get(series.family);
  const les = [...(family?.les ?? new Map<number, string>())].sort(
    (a, b) => a[0] - b[0]
  );
  const cumulative = les.map(([le, text]): [number, number] => [
    le,
    sum(after, '_bucket', text),
  ]);
  // The k-th smallest legacy value is at least the k-th smallest of `after` and at most its
  // (k + added)-th; one rank either side for the estimate's rank convention.
  const rank = q * n;
  const [low] = bucketOf(cumulative, Math.max(1, Math.floor(rank) - 1));
  const [, high] = bucketOf(cumulative, Math.ceil(rank) + 1 + added);
  const [, own] = bucketOf(cumulative, Math.max(1, Math.ceil(rank)));
  const finite = les.map(([le]) => le).filter(le => Number.isFinite(le));
  const shortfall =
    own === Infinity
      ? `the rank is in the +Inf bucket, above the highest boundary ${finite.at(-1) ?? 'none'}: histogram_quantile answers at most that`
      : bucketShortfall(finite, legacy);
  const bucket = { legacy, prometheus: high, range: [low, high] } as const;
  if (shortfall !== undefined)
    return {
      ...bucket,
      agree: false,
      lasting: true,
      why: `the histogram cannot express this percentile: ${shortfall}; give the instrument bucket boundaries that cover its values (see migrate's report)`,
    };
  return {
    ...bucket,
    agree:
      legacy >= low * (1 - PERCENTILE_RELATIVE_ERROR) &&
      legacy <= high * (1 + PERCENTILE_RELATIVE_ERROR),
    why: `the bucket bounds for that rank are ${low} to ${high}`,
  };
}
