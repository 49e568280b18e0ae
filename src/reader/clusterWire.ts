/**
 * What a cluster worker sends its primary each tick, and how the primary reads it back. The body
 * is JSON text inside the IPC message, so that the primary can refuse an oversized one before
 * parsing it. It carries the data points of one delta collection, and nothing the primary could
 * not check: every field is validated, and a message with one bad field is dropped whole.
 *
 * Body (read back by `decodeCollection`): `{ v: 2, a: [attributes…], s: [[meterName, version, schemaUrl, [[name, kind, integer, points]]]] }`,
 * a point `[index into a, value]` (each distinct attribute set once per message), and a histogram's value
 * `[count, sum, min, max, scale, zeroCount, positiveOffset, positiveCounts, negativeOffset, negativeCounts]`.
 * Numbers that JSON cannot carry (NaN, ±Infinity) travel as `null` and read back as NaN.
 */
import type { Attributes } from '@opentelemetry/api';
import type {
  MetricData,
  ResourceMetrics,
  ScopeMetrics,
} from '@opentelemetry/sdk-metrics';
import { metricShape, type KindsByShape } from './metricShape';

/** The `type` of the IPC messages this package sends; other messages are the application's. */
export const CLUSTER_MESSAGE_TYPE = 'otel-legacy-metrics-api';
/**
 * The `type` of the cumulative section's IPC messages: what the primary's Prometheus endpoint
 * serves (`src/cluster/encodeCumulative.ts` writes their body, `decodeCumulative` reads it).
 */
export const CUMULATIVE_MESSAGE_TYPE = 'otel-legacy-metrics-api/cumulative';
/** The version of the body's layout. */
export const WIRE_VERSION = 2;

/**
 * What an instrument is on the wire: `s` monotonic sum (spiral), `u` up-down sum, `g` gauge,
 * `l` an observable up-down counter's last value, `h` exponential histogram.
 */
export type WireKind = 's' | 'u' | 'g' | 'l' | 'h';
/** How both bodies begin a histogram's value (null for a number JSON cannot carry). */
export type HistogramHead = [
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
/** A point: the index of its attribute set in the body's table `a`, and its value. */
type WirePoint = [number, number | null | WireHistogram];
type WireMetric = [string, WireKind, 0 | 1, WirePoint[]];
/** A scope as both bodies carry it: `[meterName, version, schemaUrl, metrics]`. */
type WireScope<M> = [string, string | null, string | null, M[]];

/** ValueType.INT and DOUBLE of `@opentelemetry/api`, without a runtime import of the enum. */
export const VALUE_TYPE_INT = 0;
export const VALUE_TYPE_DOUBLE = 1;

const WIRE_KINDS: KindsByShape<WireKind> = {
  monotonicSum: 's',
  upDownSum: 'u',
  gauge: 'g',
  cumulativeGauge: 'l',
  exponentialHistogram: 'h',
};

/**
 * The scopes of a collection as both bodies carry them. Each metric whose shape has a kind in
 * `kinds` is `encode(scope, metric, kind)`, left out when that is undefined (nothing to send); the
 * others are returned by name in `refused`. A scope with no metric left is left out.
 */
export function encodeScopes<K, M>(
  scopeMetrics: readonly ScopeMetrics[],
  kinds: KindsByShape<K>,
  encode: (
    scope: ScopeMetrics['scope'],
    metric: MetricData,
    kind: K
  ) => M | undefined
): { scopes: WireScope<M>[]; refused: string[] } {
  const scopes: WireScope<M>[] = [];
  const refused: string[] = [];
  for (const { scope, metrics } of scopeMetrics) {
    const wireMetrics: M[] = [];
    for (const metric of metrics) {
      const kind = kinds[metricShape(metric)];
      if (kind === undefined) refused.push(metric.descriptor.name);
      else {
        const wireMetric = encode(scope, metric, kind);
        if (wireMetric !== undefined) wireMetrics.push(wireMetric);
      }
    }
    if (wireMetrics.length > 0)
      scopes.push([
        scope.name,
        scope.version ?? null,
        scope.schemaUrl ?? null,
        wireMetrics,
      ]);
  }
  return { scopes, refused };
}

/**
 * Attribute sets' keys (their JSON), remembered per attributes object: the SDK hands the same
 * object again every collection while its series lives, so a set is stringified once, not per
 * tick (another object only costs its key again).
 */
export class AttributeKeys {
  private readonly _keys = new WeakMap<Attributes, string>();

  key(attributes: Attributes): string {
    let key = this._keys.get(attributes);
    if (key === undefined) {
      key = JSON.stringify(attributes);
      this._keys.set(attributes, key);
    }
    return key;
  }
}

/** The distinct attribute sets of one message (its `a`), which its points name by index. */
export class AttributeTableBuilder {
  readonly sets: Attributes[] = [];
  private readonly _indexes = new Map<string, number>();

  constructor(private readonly _keys: AttributeKeys) {}

  index(attributes: Attributes): number {
    const key = this._keys.key(attributes);
    let index = this._indexes.get(key);
    if (index === undefined) {
      index = this.sets.length;
      this.sets.push(attributes);
      this._indexes.set(key, index);
    }
    return index;
  }
}

/** NaN and ±Infinity as JSON gives them, explicitly. */
export function finiteOrNull(value: number | undefined): number | null {
  return value !== undefined && Number.isFinite(value) ? value : null;
}

/**
 * The body of one collection's message: the data points of the meters `serves` keeps. Metrics
 * the wire cannot carry (explicit-bucket histograms) are returned by name in `refused`.
 */
export function encodeCollection(
  resourceMetrics: ResourceMetrics,
  serves: (meterName: string) => boolean,
  keys = new AttributeKeys()
): { body: string; refused: string[] } {
  const table = new AttributeTableBuilder(keys);
  const { scopes, refused } = encodeScopes(
    resourceMetrics.scopeMetrics.filter(({ scope }) => serves(scope.name)),
    WIRE_KINDS,
    (_scope, metric, kind): WireMetric => {
      const points: WirePoint[] = [];
      for (const point of metric.dataPoints) {
        const value = point.value;
        if (typeof value === 'number') {
          points.push([table.index(point.attributes), finiteOrNull(value)]);
        } else if (typeof value === 'object' && 'scale' in value) {
          points.push([
            table.index(point.attributes),
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
      return [
        metric.descriptor.name,
        kind,
        metric.descriptor.valueType === VALUE_TYPE_INT ? 1 : 0,
        points,
      ];
    }
  );
  return {
    body: JSON.stringify({ v: WIRE_VERSION, a: table.sets, s: scopes }),
    refused,
  };
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
