/**
 * A collection's metric rebuilt in the primary, in the shape the SDK's own collection has, so
 * that the reader's store and the Prometheus serializer read it as they read a local one.
 */
import {
  DataPointType,
  type AggregationTemporality,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import {
  VALUE_TYPE_DOUBLE,
  VALUE_TYPE_INT,
  type WireKind,
} from '../reader/clusterWire';
import type { CumulativeKind } from './encodeCumulative';

/** What a rebuilt metric says of its instrument and its points. */
export interface RebuiltMetric {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
  readonly integer: boolean;
  /** Its kind on either section of the wire, which decides how its points are shaped. */
  readonly kind: WireKind | CumulativeKind;
  readonly aggregationTemporality: AggregationTemporality;
}

/** How each kind's points are shaped; `isMonotonic` for sums only. */
const SHAPES: Record<
  WireKind | CumulativeKind,
  { dataPointType: DataPointType; isMonotonic?: boolean }
> = {
  s: { dataPointType: DataPointType.SUM, isMonotonic: true },
  u: { dataPointType: DataPointType.SUM, isMonotonic: false },
  g: { dataPointType: DataPointType.GAUGE },
  // An observable up-down counter's last value.
  l: { dataPointType: DataPointType.GAUGE },
  h: { dataPointType: DataPointType.EXPONENTIAL_HISTOGRAM },
  x: { dataPointType: DataPointType.HISTOGRAM },
};

export function metricData(
  metric: RebuiltMetric,
  dataPoints: readonly unknown[]
): MetricData {
  const { dataPointType, isMonotonic } = SHAPES[metric.kind];
  return {
    descriptor: {
      name: metric.name,
      description: metric.description,
      unit: metric.unit,
      valueType: metric.integer ? VALUE_TYPE_INT : VALUE_TYPE_DOUBLE,
      advice: {},
    },
    dataPointType,
    aggregationTemporality: metric.aggregationTemporality,
    ...(isMonotonic === undefined ? {} : { isMonotonic }),
    dataPoints,
  } as unknown as MetricData;
}
