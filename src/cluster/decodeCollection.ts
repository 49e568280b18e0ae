/**
 * The primary's side of the wire (see `reader/clusterWire.ts`): a worker's message body read back into the
 * collection the worker made, every field checked, so that one bad message is dropped whole and
 * never reaches the store.
 */
import type { Attributes } from '@opentelemetry/api';
import {
  AggregationTemporality,
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
export class WireError extends Error {
  constructor(
    readonly where: string,
    readonly expected: string
  ) {
    super(`${where}: expected ${expected}`);
  }

  /** The same error, its field named from `place` on (a point's fields are named within it). */
  within(place: string): WireError {
    return new WireError(
      this.where === '' ? place : `${place} ${this.where}`,
      this.expected
    );
  }
}

export function fail(where: string, expected: string): never {
  throw new WireError(where, expected);
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

/** A point's exponential buckets; `side` names them in an error. */
function buckets(
  offset: unknown,
  counts: unknown,
  side: 'value positive' | 'value negative'
): { offset: number; bucketCounts: number[]; total: number } {
  if (!Array.isArray(counts)) fail(`${side} counts`, 'an array');
  if (counts.length > MAX_BUCKETS) fail(side, `at most ${MAX_BUCKETS} buckets`);
  let total = 0;
  for (const count of counts) {
    if (!Number.isSafeInteger(count) || (count as number) < 0)
      fail(`${side} count`, 'a non-negative integer');
    total += count as number;
  }
  if (!Number.isSafeInteger(offset)) fail(`${side} offset`, 'an integer');
  return { offset: offset as number, bucketCounts: counts as number[], total };
}

/** A point's exponential histogram value. */
function histogram(value: unknown): unknown {
  const [count, sum, min, max, scale, zeroCount, po, pc, no, nc] = array(
    value,
    'value',
    10
  );
  const positive = buckets(po, pc, 'value positive');
  const negative = buckets(no, nc, 'value negative');
  const total = integer(count, 'value count', 0);
  const zeros = integer(zeroCount, 'value zeroCount', 0);
  if (zeros + positive.total + negative.total !== total)
    fail('value count', 'the sum of the bucket counts');
  const checkedScale = integer(scale, 'value scale');
  if (checkedScale < MIN_SCALE || checkedScale > MAX_SCALE)
    fail('value scale', `an integer from ${MIN_SCALE} to ${MAX_SCALE}`);
  const low = wireNumber(min, 'value min');
  const high = wireNumber(max, 'value max');
  if (total > 0 && !(low <= high)) fail('value min', 'at most max');
  return {
    count: total,
    sum: wireNumber(sum, 'value sum'),
    min: low,
    max: high,
    scale: checkedScale,
    zeroCount: zeros,
    positive: { offset: positive.offset, bucketCounts: positive.bucketCounts },
    negative: { offset: negative.offset, bucketCounts: negative.bucketCounts },
  };
}

const KINDS: readonly string[] = ['s', 'u', 'g', 'l', 'h'];

/** No times on the wire: the store reads none, and one shared pair allocates nothing per point. */
const NO_TIME: readonly [number, number] = Object.freeze([0, 0]);

function metric(
  value: unknown,
  where: string,
  table: AttributeTable
): MetricData {
  const [name, kind, isInteger, points] = array(value, where, 4);
  const metricName = text(name, `${where} name`);
  if (typeof kind !== 'string' || !KINDS.includes(kind))
    fail(`${where} kind`, 'one of s, u, g, l, h');
  if (isInteger !== 0 && isInteger !== 1) fail(`${where} integer`, '0 or 1');
  const isHistogram = kind === 'h';
  const dataPoints = readPoints(points, where, table, (attrs, pointValue) => ({
    startTime: NO_TIME,
    endTime: NO_TIME,
    attributes: attrs,
    value: isHistogram
      ? histogram(pointValue)
      : wireNumber(pointValue, 'value'),
  }));
  return metricData(
    {
      name: metricName,
      description: '',
      unit: '',
      integer: isInteger === 1,
      // An observable up-down counter's last value is cumulative (see LegacyMetricsReader's selectors).
      aggregationTemporality:
        kind === 'l'
          ? AggregationTemporality.CUMULATIVE
          : AggregationTemporality.DELTA,
      kind: kind as WireKind,
    },
    dataPoints
  );
}

/** A body's attribute sets (`a`), which its points name by index. */
export type AttributeTable = readonly Attributes[];

/**
 * A metric's points `[attributeIndex, value]`, each made by `read` from its attribute set and
 * its value; a wrong field is named within its point (`meter 0 metric 2 point 7 value sum`),
 * a name made only when one is wrong.
 */
export function readPoints<P>(
  value: unknown,
  where: string,
  table: AttributeTable,
  read: (attributes: Attributes, value: unknown) => P
): P[] {
  const list = array(value, `${where} points`);
  const points = new Array<P>(list.length);
  for (let i = 0; i < list.length; i++) {
    const point = list[i];
    try {
      if (!Array.isArray(point) || point.length !== 2)
        fail('', 'an array of 2 items');
      const index: unknown = point[0];
      if (
        typeof index !== 'number' ||
        !Number.isInteger(index) ||
        index < 0 ||
        index >= table.length
      )
        fail('attributes', `an index into body.a, below ${table.length}`);
      points[i] = read(table[index]!, point[1]);
    } catch (error) {
      if (error instanceof WireError) throw error.within(`${where} point ${i}`);
      throw error;
    }
  }
  return points;
}

/**
 * A body's list of meters, each read back with `metrics` (the same layout in both sections),
 * after its table of attribute sets: `{ v, a: [attributes…], [section]: [[meterName, version, schemaUrl, metrics]] }`.
 * @param section the body's field that holds them, for the messages
 */
export function decodeScopes<T>(
  body: string,
  section: 's' | 'c',
  metrics: (value: unknown, where: string, table: AttributeTable) => T
): { scope: ScopeMetrics['scope']; metrics: T[] }[] {
  const parsed: unknown = JSON.parse(body);
  if (typeof parsed !== 'object' || parsed === null) fail('body', 'an object');
  const { v, a, [section]: scopes } = parsed as Record<string, unknown>;
  if (v !== WIRE_VERSION) fail('body.v', `${WIRE_VERSION}`);
  const table = array(a, 'body.a').map((set, i) =>
    attributes(set, `body.a ${i}`)
  );
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
        metrics(m, `${where} metric ${j}`, table)
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
