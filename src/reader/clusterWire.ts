/**
 * What a cluster worker sends its primary each tick, and how the primary reads it back. The body
 * is JSON text inside the IPC message, so that the primary can refuse an oversized one before
 * parsing it. It carries the data points of one delta collection, and nothing the primary could
 * not check: every field is validated, and a message with one bad field is dropped whole.
 *
 * Body (read back by `decodeCollection`): `{ v: 1, s: [[meterName, version, schemaUrl, [[name, kind, integer, observable, points]]]] }`,
 * a point `[attributes, value]`, and a histogram's value
 * `[count, sum, min, max, scale, zeroCount, positiveOffset, positiveCounts, negativeOffset, negativeCounts]`.
 * Numbers that JSON cannot carry (NaN, ±Infinity) travel as `null` and read back as NaN.
 */
import type { Attributes } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  InstrumentType,
  type MetricData,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';

/** The `type` of the IPC messages this package sends; other messages are the application's. */
export const CLUSTER_MESSAGE_TYPE = 'otel-legacy-metrics-api';
/** The version of the body's layout. */
export const WIRE_VERSION = 1;

/** The IPC message: the body as text, measured before it is parsed. */
export interface ClusterMessage {
  readonly type: typeof CLUSTER_MESSAGE_TYPE;
  readonly body: string;
}

/**
 * What an instrument is on the wire: `s` monotonic sum (spiral), `u` up-down sum, `g` gauge,
 * `l` an observable up-down counter's last value, `h` exponential histogram.
 */
export type WireKind = 's' | 'u' | 'g' | 'l' | 'h';
type WireHistogram = [
  number,
  number | null,
  number | null,
  number | null,
  number,
  number,
  number,
  number[],
  number,
  number[],
];
type WirePoint = [Attributes, number | null | WireHistogram];
type WireMetric = [string, WireKind, 0 | 1, 0 | 1, WirePoint[]];
type WireScope = [string, string | null, string | null, WireMetric[]];

/** ValueType.INT and DOUBLE of `@opentelemetry/api`, without a runtime import of the enum. */
export const VALUE_TYPE_INT = 0;
export const VALUE_TYPE_DOUBLE = 1;
const OBSERVABLE_TYPES: ReadonlySet<string> = new Set([
  InstrumentType.OBSERVABLE_COUNTER,
  InstrumentType.OBSERVABLE_GAUGE,
  InstrumentType.OBSERVABLE_UP_DOWN_COUNTER,
]);

function wireKind(metric: MetricData): WireKind | undefined {
  switch (metric.dataPointType) {
    case DataPointType.SUM:
      return metric.isMonotonic ? 's' : 'u';
    case DataPointType.GAUGE:
      return metric.aggregationTemporality === AggregationTemporality.CUMULATIVE
        ? 'l'
        : 'g';
    case DataPointType.EXPONENTIAL_HISTOGRAM:
      return 'h';
    default:
      return undefined;
  }
}

/** NaN and ±Infinity as JSON gives them, explicitly. */
function finiteOrNull(value: number | undefined): number | null {
  return value !== undefined && Number.isFinite(value) ? value : null;
}

/**
 * The body of one collection's message: the data points of the meters `serves` keeps. Metrics
 * the wire cannot carry (explicit-bucket histograms) are returned by name in `refused`.
 */
export function encodeCollection(
  resourceMetrics: ResourceMetrics,
  serves: (meterName: string) => boolean
): { body: string; refused: string[] } {
  const scopes: WireScope[] = [];
  const refused: string[] = [];
  for (const { scope, metrics } of resourceMetrics.scopeMetrics) {
    if (!serves(scope.name)) continue;
    const wireMetrics: WireMetric[] = [];
    for (const metric of metrics) {
      const kind = wireKind(metric);
      if (kind === undefined) {
        refused.push(metric.descriptor.name);
        continue;
      }
      const points: WirePoint[] = [];
      for (const point of metric.dataPoints) {
        const value = point.value;
        if (typeof value === 'number') {
          points.push([point.attributes, finiteOrNull(value)]);
        } else if (typeof value === 'object' && 'scale' in value) {
          points.push([
            point.attributes,
            [
              value.count,
              finiteOrNull(value.sum),
              finiteOrNull(value.min),
              finiteOrNull(value.max),
              value.scale,
              value.zeroCount,
              value.positive.offset,
              value.positive.bucketCounts,
              value.negative.offset,
              value.negative.bucketCounts,
            ],
          ]);
        }
      }
      const type = (metric.descriptor as { readonly type?: unknown }).type;
      wireMetrics.push([
        metric.descriptor.name,
        kind,
        metric.descriptor.valueType === VALUE_TYPE_INT ? 1 : 0,
        typeof type === 'string' && OBSERVABLE_TYPES.has(type) ? 1 : 0,
        points,
      ]);
    }
    if (wireMetrics.length > 0)
      scopes.push([
        scope.name,
        scope.version ?? null,
        scope.schemaUrl ?? null,
        wireMetrics,
      ]);
  }
  return { body: JSON.stringify({ v: WIRE_VERSION, s: scopes }), refused };
}

/** Whether an IPC message is one of this package's (valid or not); other messages are left alone. */
export function isClusterMessage(
  message: unknown
): message is { type: string; body: unknown } {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { type?: unknown }).type === CLUSTER_MESSAGE_TYPE
  );
}
