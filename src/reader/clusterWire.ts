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
  type ScopeMetrics,
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
/** How both bodies begin a histogram's value (null for a number JSON cannot carry). */
type HistogramHead = [
  count: number,
  sum: number | null,
  min: number | null,
  max: number | null,
];
type WireHistogram = [
  ...HistogramHead,
  scale: number,
  zeroCount: number,
  positiveOffset: number,
  positiveCounts: number[],
  negativeOffset: number,
  negativeCounts: number[],
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

function isObservable(metric: MetricData): boolean {
  const type = (metric.descriptor as { readonly type?: unknown }).type;
  return typeof type === 'string' && OBSERVABLE_TYPES.has(type);
}

/** A scope as both bodies carry it: `[meterName, version, schemaUrl, metrics]`. */
function wireScope<M>(
  scope: ScopeMetrics['scope'],
  wireMetrics: M[]
): [string, string | null, string | null, M[]] {
  return [
    scope.name,
    scope.version ?? null,
    scope.schemaUrl ?? null,
    wireMetrics,
  ];
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
      wireMetrics.push([
        metric.descriptor.name,
        kind,
        metric.descriptor.valueType === VALUE_TYPE_INT ? 1 : 0,
        isObservable(metric) ? 1 : 0,
        points,
      ]);
    }
    if (wireMetrics.length > 0) scopes.push(wireScope(scope, wireMetrics));
  }
  return { body: JSON.stringify({ v: WIRE_VERSION, s: scopes }), refused };
}

/**
 * Whether an IPC message is one of this package's, of either section (valid or not); other
 * messages are the application's and are left alone.
 */
export function isClusterMessage(
  message: unknown
): message is { type: string; body: unknown } {
  if (typeof message !== 'object' || message === null) return false;
  const type = (message as { type?: unknown }).type;
  return type === CLUSTER_MESSAGE_TYPE || type === CUMULATIVE_MESSAGE_TYPE;
}

/**
 * The `type` of the cumulative section's IPC messages: what the primary's Prometheus endpoint
 * serves. Body (read back by `decodeCumulative`):
 * `{ v: 1, c: [[meterName, version, schemaUrl, [[name, kind, integer, description, unit, boundaries, points]]]] }`,
 * kinds as {@link WireKind} but `x` for an explicit-bucket histogram (whose point value is
 * `[count, sum, min, max, counts]`, `boundaries` its metric's, else null). Only the points whose
 * value changed since the last message are in it.
 */
export const CUMULATIVE_MESSAGE_TYPE = 'otel-legacy-metrics-api/cumulative';

/** What a cumulative instrument is on the wire. */
export type CumulativeKind = 's' | 'u' | 'g' | 'l' | 'x';
type CumulativeHistogram = [...HistogramHead, counts: number[]];
type CumulativePoint = [Attributes, number | null | CumulativeHistogram];
type CumulativeMetric = [
  string,
  CumulativeKind,
  0 | 1,
  string,
  string,
  number[] | null,
  CumulativePoint[],
];

function cumulativeKind(metric: MetricData): CumulativeKind | undefined {
  switch (metric.dataPointType) {
    case DataPointType.SUM:
      if (metric.isMonotonic) return 's';
      return isObservable(metric) ? 'l' : 'u';
    case DataPointType.GAUGE:
      return 'g';
    case DataPointType.HISTOGRAM:
      return 'x';
    default:
      return undefined;
  }
}

/**
 * Encodes a cumulative collection's changes since the last call. `sent` maps each series to
 * the text of the value last sent, and is updated; clear it to send everything again (after
 * a message was lost). Returns undefined when nothing changed. Exponential histograms, which
 * the Prometheus exposition cannot show either, are returned by name in `refused`.
 */
export function encodeCumulativeChanges(
  resourceMetrics: ResourceMetrics,
  sent: Map<string, string>
): { body: string | undefined; refused: string[] } {
  const scopes: unknown[] = [];
  const refused: string[] = [];
  for (const { scope, metrics } of resourceMetrics.scopeMetrics) {
    const wireMetrics: CumulativeMetric[] = [];
    for (const metric of metrics) {
      const kind = cumulativeKind(metric);
      if (kind === undefined) {
        refused.push(metric.descriptor.name);
        continue;
      }
      let boundaries: number[] | null = null;
      const points: CumulativePoint[] = [];
      for (const point of metric.dataPoints) {
        const value = point.value;
        let wireValue: CumulativePoint[1];
        if (typeof value === 'number') wireValue = finiteOrNull(value);
        else if (typeof value === 'object' && 'buckets' in value) {
          boundaries ??= value.buckets.boundaries;
          wireValue = [
            value.count,
            finiteOrNull(value.sum),
            finiteOrNull(value.min),
            finiteOrNull(value.max),
            value.buckets.counts,
          ];
        } else continue;
        const key = `${scope.name}\0${scope.version ?? ''}\0${metric.descriptor.name}\0${JSON.stringify(point.attributes)}`;
        const text = JSON.stringify(wireValue);
        if (sent.get(key) === text) continue;
        sent.set(key, text);
        points.push([point.attributes, wireValue]);
      }
      if (points.length === 0) continue;
      wireMetrics.push([
        metric.descriptor.name,
        kind,
        metric.descriptor.valueType === VALUE_TYPE_INT ? 1 : 0,
        metric.descriptor.description,
        metric.descriptor.unit,
        boundaries,
        points,
      ]);
    }
    if (wireMetrics.length > 0) scopes.push(wireScope(scope, wireMetrics));
  }
  return {
    body:
      scopes.length === 0
        ? undefined
        : JSON.stringify({ v: WIRE_VERSION, c: scopes }),
    refused,
  };
}
