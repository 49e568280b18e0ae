/**
 * The body of a worker's cumulative message (read back by `decodeCumulative`):
 * `{ v: 2, a: [attributes…], c: [[meterName, version, schemaUrl, [[name, kind, integer, description, unit, boundaries, points]]]] }`,
 * a point `[index into a, value]`,
 * kinds as the delta section's but `x` for an explicit-bucket histogram (whose point value is
 * `[count, sum, min, max, counts]`, `boundaries` its metric's, else null). Only the points whose
 * value changed since the last message are in it.
 */
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { getOrMake } from '../getOrMake';
import {
  AttributeKeys,
  AttributeTableBuilder,
  encodeScopes,
  finiteOrNull,
  VALUE_TYPE_INT,
  WIRE_VERSION,
  type HistogramHead,
} from '../reader/clusterWire';
import type { KindsByShape } from '../reader/metricShape';

/**
 * What a cumulative instrument is on the wire: `s` monotonic sum, `u` up-down sum, `g` last
 * value (gauges, and observable up-down counters, which the worker's reader aggregates as last
 * values), `x` explicit-bucket histogram.
 */
export type CumulativeKind = 's' | 'u' | 'g' | 'x';
type CumulativeHistogram = [...HistogramHead, counts: number[]];
type CumulativePoint = [number, number | null | CumulativeHistogram];
type CumulativeMetric = [
  string,
  CumulativeKind,
  0 | 1,
  string,
  string,
  number[] | null,
  CumulativePoint[],
];

const CUMULATIVE_KINDS: KindsByShape<CumulativeKind> = {
  monotonicSum: 's',
  upDownSum: 'u',
  gauge: 'g',
  cumulativeGauge: 'g',
  explicitHistogram: 'x',
};

/** A histogram series' last sent count and sum: a cumulative histogram changes only by records, which move both. */
interface SentHistogram {
  count: number;
  sum: number;
}

/**
 * What each series last sent, so that a message carries only the changes. Every series is
 * compared every interval, so the comparison allocates nothing on the steady path: a number is
 * compared as a number, a histogram by its count and sum, and an attribute set's key is
 * remembered per attributes object ({@link AttributeKeys}).
 */
export class SentValues {
  readonly keys = new AttributeKeys();
  /** Metric (meter, version, name) → series key → the value last sent. */
  private readonly _metrics = new Map<
    string,
    Map<string, number | SentHistogram>
  >();

  /** Forgets everything sent: the next message carries every series (after one was lost). */
  clear(): void {
    this._metrics.clear();
  }

  /** The series of one metric, by key. */
  metric(key: string): Map<string, number | SentHistogram> {
    return getOrMake(this._metrics, key, () => new Map());
  }
}

/** Whether `value` differs from what `series` last sent under `key`; if so it becomes the last sent. */
function changedNumber(
  series: Map<string, number | SentHistogram>,
  key: string,
  value: number
): boolean {
  const last = series.get(key);
  // NaN is sent once: it is not equal to itself, but it is to another NaN for this purpose.
  if (last === value || (Number.isNaN(value) && Number.isNaN(last)))
    return false;
  series.set(key, value);
  return true;
}

function changedHistogram(
  series: Map<string, number | SentHistogram>,
  key: string,
  count: number,
  sum: number
): boolean {
  const last = series.get(key);
  if (typeof last === 'object') {
    if (last.count === count && Object.is(last.sum, sum)) return false;
    last.count = count;
    last.sum = sum;
  } else series.set(key, { count, sum });
  return true;
}

/**
 * Encodes a cumulative collection's changes since the last call; `sent` is updated. Returns
 * undefined when nothing changed. Exponential histograms, which the Prometheus exposition
 * cannot show either, are returned by name in `refused`.
 */
export function encodeCumulativeChanges(
  resourceMetrics: ResourceMetrics,
  sent: SentValues
): { body: string | undefined; refused: string[] } {
  const table = new AttributeTableBuilder(sent.keys);
  const { scopes, refused } = encodeScopes(
    resourceMetrics.scopeMetrics,
    CUMULATIVE_KINDS,
    (scope, metric, kind): CumulativeMetric | undefined => {
      const series = sent.metric(
        `${scope.name}\0${scope.version ?? ''}\0${metric.descriptor.name}`
      );
      let boundaries: number[] | null = null;
      const points: CumulativePoint[] = [];
      for (const point of metric.dataPoints) {
        const value = point.value;
        const key = sent.keys.key(point.attributes);
        if (typeof value === 'number') {
          if (changedNumber(series, key, value))
            points.push([table.index(point.attributes), finiteOrNull(value)]);
        } else if (typeof value === 'object' && 'buckets' in value) {
          boundaries ??= value.buckets.boundaries;
          const sum = value.sum ?? NaN;
          if (changedHistogram(series, key, value.count, sum))
            points.push([
              table.index(point.attributes),
              [
                value.count,
                finiteOrNull(sum),
                finiteOrNull(value.min),
                finiteOrNull(value.max),
                value.buckets.counts,
              ],
            ]);
        }
      }
      if (points.length === 0) return undefined;
      return [
        metric.descriptor.name,
        kind,
        metric.descriptor.valueType === VALUE_TYPE_INT ? 1 : 0,
        metric.descriptor.description,
        metric.descriptor.unit,
        boundaries,
        points,
      ];
    }
  );
  return {
    body:
      scopes.length === 0
        ? undefined
        : JSON.stringify({ v: WIRE_VERSION, a: table.sets, c: scopes }),
    refused,
  };
}
