/**
 * The primary's side of the wire (see `reader/clusterWire.ts`): a worker's message body read back into the
 * collection the worker made, every field checked, so that one bad message is dropped whole and
 * never reaches the store.
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
import { WIRE_VERSION, type WireKind } from '../reader/clusterWire';
import { metricData } from './metricData';

/** Bounds of what the primary accepts, well past what the SDK produces. */
const MAX_ATTRIBUTES = 128;
export const MAX_BUCKETS = 16_384;
const MIN_SCALE = -10;
const MAX_SCALE = 20;

/** Why a message was refused: the first field found wrong. */
export class WireError extends Error {}

export function fail(where: string, expected: string): never {
  throw new WireError(`${where}: expected ${expected}`);
}

export function array(
  value: unknown,
  where: string,
  length?: number
): unknown[] {
  if (!Array.isArray(value)) fail(where, 'an array');
  if (length !== undefined && value.length !== length)
    fail(where, `an array of ${length} items`);
  return value;
}

export function text(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '')
    fail(where, 'a non-empty string');
  return value;
}

export function optionalText(
  value: unknown,
  where: string
): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'string') fail(where, 'a string or null');
  return value;
}

export function integer(
  value: unknown,
  where: string,
  min = -Infinity
): number {
  if (!Number.isSafeInteger(value) || (value as number) < min)
    fail(where, min === 0 ? 'a non-negative integer' : 'an integer');
  return value as number;
}

/** A number, or null for one JSON could not carry. */
export function wireNumber(value: unknown, where: string): number {
  if (value === null) return NaN;
  if (typeof value !== 'number') fail(where, 'a number or null');
  return value;
}

function isAttributeScalar(value: unknown): boolean {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

export function attributes(value: unknown, where: string): Attributes {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(where, 'an object of attributes');
  const keys = Object.keys(value);
  if (keys.length > MAX_ATTRIBUTES)
    fail(where, `at most ${MAX_ATTRIBUTES} attributes`);
  for (const key of keys) {
    const item = (value as Record<string, unknown>)[key];
    const ok = Array.isArray(item)
      ? item.every(v => v === null || isAttributeScalar(v))
      : isAttributeScalar(item);
    if (!ok)
      fail(`${where}.${key}`, 'a string, finite number, boolean or an array');
  }
  return value as Attributes;
}

function buckets(
  offset: unknown,
  counts: unknown,
  where: string
): { offset: number; bucketCounts: number[]; total: number } {
  const list = array(counts, `${where} counts`);
  if (list.length > MAX_BUCKETS) fail(where, `at most ${MAX_BUCKETS} buckets`);
  let total = 0;
  for (const count of list) total += integer(count, `${where} count`, 0);
  return {
    offset: integer(offset, `${where} offset`),
    bucketCounts: list as number[],
    total,
  };
}

function histogram(value: unknown, where: string): unknown {
  const [count, sum, min, max, scale, zeroCount, po, pc, no, nc] = array(
    value,
    where,
    10
  );
  const positive = buckets(po, pc, `${where} positive`);
  const negative = buckets(no, nc, `${where} negative`);
  const total = integer(count, `${where} count`, 0);
  const zeros = integer(zeroCount, `${where} zeroCount`, 0);
  if (zeros + positive.total + negative.total !== total)
    fail(`${where} count`, 'the sum of the bucket counts');
  const checkedScale = integer(scale, `${where} scale`);
  if (checkedScale < MIN_SCALE || checkedScale > MAX_SCALE)
    fail(`${where} scale`, `an integer from ${MIN_SCALE} to ${MAX_SCALE}`);
  const low = wireNumber(min, `${where} min`);
  const high = wireNumber(max, `${where} max`);
  if (total > 0 && !(low <= high)) fail(`${where} min`, 'at most max');
  return {
    count: total,
    sum: wireNumber(sum, `${where} sum`),
    min: low,
    max: high,
    scale: checkedScale,
    zeroCount: zeros,
    positive: { offset: positive.offset, bucketCounts: positive.bucketCounts },
    negative: { offset: negative.offset, bucketCounts: negative.bucketCounts },
  };
}

const SHAPES: Record<
  WireKind,
  {
    dataPointType: DataPointType;
    aggregationTemporality: AggregationTemporality;
    isMonotonic?: boolean;
    type: InstrumentType;
    observableType: InstrumentType;
  }
> = {
  s: {
    dataPointType: DataPointType.SUM,
    aggregationTemporality: AggregationTemporality.DELTA,
    isMonotonic: true,
    type: InstrumentType.COUNTER,
    observableType: InstrumentType.OBSERVABLE_COUNTER,
  },
  u: {
    dataPointType: DataPointType.SUM,
    aggregationTemporality: AggregationTemporality.DELTA,
    isMonotonic: false,
    type: InstrumentType.UP_DOWN_COUNTER,
    observableType: InstrumentType.OBSERVABLE_UP_DOWN_COUNTER,
  },
  g: {
    dataPointType: DataPointType.GAUGE,
    aggregationTemporality: AggregationTemporality.DELTA,
    type: InstrumentType.GAUGE,
    observableType: InstrumentType.OBSERVABLE_GAUGE,
  },
  l: {
    dataPointType: DataPointType.GAUGE,
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    type: InstrumentType.OBSERVABLE_UP_DOWN_COUNTER,
    observableType: InstrumentType.OBSERVABLE_UP_DOWN_COUNTER,
  },
  h: {
    dataPointType: DataPointType.EXPONENTIAL_HISTOGRAM,
    aggregationTemporality: AggregationTemporality.DELTA,
    type: InstrumentType.HISTOGRAM,
    observableType: InstrumentType.HISTOGRAM,
  },
};

function metric(value: unknown, where: string): MetricData {
  const [name, kind, isInteger, observable, points] = array(value, where, 5);
  const metricName = text(name, `${where} name`);
  if (typeof kind !== 'string' || !Object.hasOwn(SHAPES, kind))
    fail(`${where} kind`, 'one of s, u, g, l, h');
  if (isInteger !== 0 && isInteger !== 1) fail(`${where} integer`, '0 or 1');
  if (observable !== 0 && observable !== 1)
    fail(`${where} observable`, '0 or 1');
  const shape = SHAPES[kind as WireKind];
  const dataPoints = array(points, `${where} points`).map((point, i) => {
    const at = `${where} point ${i}`;
    const [attrs, pointValue] = array(point, at, 2);
    return {
      startTime: [0, 0],
      endTime: [0, 0],
      attributes: attributes(attrs, `${at} attributes`),
      value:
        kind === 'h'
          ? histogram(pointValue, `${at} value`)
          : wireNumber(pointValue, `${at} value`),
    };
  });
  return metricData(
    {
      name: metricName,
      description: '',
      unit: '',
      integer: isInteger === 1,
      type: observable === 1 ? shape.observableType : shape.type,
      dataPointType: shape.dataPointType,
      aggregationTemporality: shape.aggregationTemporality,
      isMonotonic: shape.isMonotonic,
    },
    dataPoints
  );
}

/**
 * A body's list of meters, each read back with `metrics` (the same layout in both sections).
 * @param section the body's field that holds them, for the messages
 */
export function decodeScopes<T>(
  body: string,
  section: 's' | 'c',
  metrics: (value: unknown, where: string) => T
): { scope: ScopeMetrics['scope']; metrics: T[] }[] {
  const parsed: unknown = JSON.parse(body);
  if (typeof parsed !== 'object' || parsed === null) fail('body', 'an object');
  const { v, [section]: scopes } = parsed as Record<string, unknown>;
  if (v !== WIRE_VERSION) fail('body.v', `${WIRE_VERSION}`);
  return array(scopes, `body.${section}`).map((scope, i) => {
    const where = `meter ${i}`;
    const [name, version, schemaUrl, list] = array(scope, where, 4);
    const scopeVersion = optionalText(version, `${where} version`);
    const scopeSchemaUrl = optionalText(schemaUrl, `${where} schemaUrl`);
    return {
      scope: {
        name: text(name, `${where} name`),
        ...(scopeVersion === undefined ? {} : { version: scopeVersion }),
        ...(scopeSchemaUrl === undefined ? {} : { schemaUrl: scopeSchemaUrl }),
      },
      metrics: array(list, `${where} metrics`).map((m, j) =>
        metrics(m, `${where} metric ${j}`)
      ),
    };
  });
}

/**
 * Reads a body back into the collection the worker made, checking every field.
 * @throws WireError naming the first field that is wrong (or a SyntaxError from JSON.parse)
 */
export function decodeCollection(body: string): ResourceMetrics {
  const scopeMetrics: ScopeMetrics[] = decodeScopes(body, 's', metric);
  // The store reads scopes only: the workers' resources are their own (see the README on OTLP).
  return { resource: undefined, scopeMetrics } as unknown as ResourceMetrics;
}
