/**
 * The primary's side of the cumulative section (see `reader/clusterWire.ts`): a worker's changes
 * read back, every field checked, so that one bad message is dropped whole.
 */
import type { Attributes } from '@opentelemetry/api';
import type { ScopeMetrics } from '@opentelemetry/sdk-metrics';
import type { CumulativeKind } from '../reader/clusterWire';
import {
  array,
  attributes,
  decodeScopes,
  fail,
  integer,
  MAX_BUCKETS,
  wireNumber,
} from './decodeCollection';

/** An explicit-bucket histogram's cumulative value. */
export interface CumulativeHistogram {
  count: number;
  sum: number;
  min: number;
  max: number;
  /** One more than the metric's boundaries. */
  counts: number[];
}

/** One series' cumulative value, as a worker sent it. */
export interface CumulativePoint {
  readonly attributes: Attributes;
  readonly value: number | CumulativeHistogram;
}

/** One instrument's changed series. */
export interface CumulativeMetricChanges {
  readonly name: string;
  readonly kind: CumulativeKind;
  readonly integer: boolean;
  readonly description: string;
  readonly unit: string;
  /** An `x` metric's bucket boundaries, else empty. */
  readonly boundaries: readonly number[];
  readonly points: readonly CumulativePoint[];
}

/** What a cumulative message said changed, per meter. */
export type CumulativeChanges = {
  scope: ScopeMetrics['scope'];
  metrics: CumulativeMetricChanges[];
}[];

const KINDS: readonly string[] = ['s', 'u', 'g', 'l', 'x'];

function boundaryList(value: unknown, where: string): number[] {
  const list = array(value, where);
  if (list.length > MAX_BUCKETS)
    fail(where, `at most ${MAX_BUCKETS} boundaries`);
  let previous = -Infinity;
  for (const boundary of list) {
    if (typeof boundary !== 'number' || !(boundary > previous))
      fail(where, 'increasing finite numbers');
    previous = boundary;
  }
  if (!Number.isFinite(previous) && list.length > 0)
    fail(where, 'increasing finite numbers');
  return list as number[];
}

function histogram(
  value: unknown,
  where: string,
  buckets: number
): CumulativeHistogram {
  const [count, sum, min, max, counts] = array(value, where, 5);
  const list = array(counts, `${where} counts`, buckets);
  let total = 0;
  for (const item of list) total += integer(item, `${where} count`, 0);
  if (integer(count, `${where} count`, 0) !== total)
    fail(`${where} count`, 'the sum of the bucket counts');
  return {
    count: total,
    sum: wireNumber(sum, `${where} sum`),
    min: wireNumber(min, `${where} min`),
    max: wireNumber(max, `${where} max`),
    counts: list as number[],
  };
}

function metric(value: unknown, where: string): CumulativeMetricChanges {
  const [name, kind, isInteger, description, unit, bounds, points] = array(
    value,
    where,
    7
  );
  if (typeof name !== 'string' || name === '')
    fail(`${where} name`, 'a non-empty string');
  if (typeof kind !== 'string' || !KINDS.includes(kind))
    fail(`${where} kind`, 'one of s, u, g, l, x');
  if (isInteger !== 0 && isInteger !== 1) fail(`${where} integer`, '0 or 1');
  if (typeof description !== 'string') fail(`${where} description`, 'a string');
  if (typeof unit !== 'string') fail(`${where} unit`, 'a string');
  const boundaries =
    kind === 'x' ? boundaryList(bounds, `${where} boundaries`) : [];
  if (kind !== 'x' && bounds !== null) fail(`${where} boundaries`, 'null');
  return {
    name,
    kind: kind as CumulativeKind,
    integer: isInteger === 1,
    description,
    unit,
    boundaries,
    points: array(points, `${where} points`).map((point, i) => {
      const at = `${where} point ${i}`;
      const [attrs, pointValue] = array(point, at, 2);
      return {
        attributes: attributes(attrs, `${at} attributes`),
        value:
          kind === 'x'
            ? histogram(pointValue, `${at} value`, boundaries.length + 1)
            : wireNumber(pointValue, `${at} value`),
      };
    }),
  };
}

/**
 * Reads a cumulative body back, checking every field.
 * @throws WireError naming the first field that is wrong (or a SyntaxError from JSON.parse)
 */
export function decodeCumulative(body: string): CumulativeChanges {
  return decodeScopes(body, 'c', metric);
}
