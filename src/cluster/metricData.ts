/**
 * A collection's metric rebuilt in the primary, in the shape the SDK's own collection has, so
 * that the reader's store and the Prometheus serializer read it as they read a local one.
 */
import type {
  AggregationTemporality,
  DataPointType,
  MetricData,
} from '@opentelemetry/sdk-metrics';
import { VALUE_TYPE_DOUBLE, VALUE_TYPE_INT } from '../reader/clusterWire';

/** What a rebuilt metric says of its instrument and its points. */
export interface RebuiltMetric {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
  readonly integer: boolean;
  readonly dataPointType: DataPointType;
  readonly aggregationTemporality: AggregationTemporality;
  /** Sums only. */
  readonly isMonotonic?: boolean;
}

export function metricData(
  metric: RebuiltMetric,
  dataPoints: readonly unknown[]
): MetricData {
  return {
    descriptor: {
      name: metric.name,
      description: metric.description,
      unit: metric.unit,
      valueType: metric.integer ? VALUE_TYPE_INT : VALUE_TYPE_DOUBLE,
      advice: {},
    },
    dataPointType: metric.dataPointType,
    aggregationTemporality: metric.aggregationTemporality,
    ...(metric.isMonotonic === undefined
      ? {}
      : { isMonotonic: metric.isMonotonic }),
    dataPoints,
  } as unknown as MetricData;
}
