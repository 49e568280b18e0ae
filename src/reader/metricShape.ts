import {
  AggregationTemporality,
  DataPointType,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { WARNING_CODES, type WarnOnce } from '../warnings';

/**
 * What a collected metric is, read from its data point type, monotonicity and temporality: the
 * one decision the store and both cluster bodies map their kinds from. Under the reader's
 * selectors a `cumulativeGauge` is an observable up-down counter's last value (see
 * LegacyMetricsReader), which cumulative temporality marks apart from gauges.
 */
export type MetricShape =
  | 'monotonicSum'
  | 'upDownSum'
  | 'gauge'
  | 'cumulativeGauge'
  | 'exponentialHistogram'
  | 'explicitHistogram';

/** A kind for each shape that a consumer can take; a shape left out is refused. */
export type KindsByShape<K> = Readonly<Partial<Record<MetricShape, K>>>;

export function metricShape(metric: MetricData): MetricShape {
  switch (metric.dataPointType) {
    case DataPointType.SUM:
      return metric.isMonotonic ? 'monotonicSum' : 'upDownSum';
    case DataPointType.GAUGE:
      return metric.aggregationTemporality === AggregationTemporality.CUMULATIVE
        ? 'cumulativeGauge'
        : 'gauge';
    case DataPointType.EXPONENTIAL_HISTOGRAM:
      return 'exponentialHistogram';
    case DataPointType.HISTOGRAM:
      return 'explicitHistogram';
  }
}

/** Warns, once per name, that an instrument aggregated with explicit buckets is left out. */
export function warnExplicitBuckets(warnings: WarnOnce, name: string): void {
  warnings.warn(
    `explicit:${name}`,
    WARNING_CODES.explicitBuckets,
    `LegacyMetricsReader: instrument ${name} is aggregated as an explicit-bucket histogram (a View chose it); ` +
      'it is left out of the legacy API, which needs exponential histograms for its percentiles'
  );
}
