import {
  AggregationTemporality,
  DataPointType,
  type MetricData,
} from '@opentelemetry/sdk-metrics';

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
