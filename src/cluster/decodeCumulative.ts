/**
 * The primary's side of the cumulative section (see `reader/clusterWire.ts`): a worker's changes
 * read back, every field checked, so that one bad message is dropped whole.
 */
import type { Attributes } from '@opentelemetry/api';
import type { ScopeMetrics } from '@opentelemetry/sdk-metrics';
import { AttributeKeys } from '../reader/clusterWire';
import type { CumulativeKind } from './encodeCumulative';
import {
  array,
  decodeScopes,
  fail,
  integer,
  MAX_BUCKETS,
  readPoints,
  text,
  wireNumber,
  type AttributeTable,
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
  /** The attribute set as one string (its JSON), made once per set in a message. */
  readonly key: string;
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

const KINDS: readonly string[] = ['s', 'u', 'g', 'x'];

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

/** A point's value of an `x` metric with `buckets` buckets. */
function histogram(value: unknown, buckets: number): CumulativeHistogram {
  const [count, sum, min, max, counts] = array(value, 'value', 5);
  const list = array(counts, 'value counts', buckets);
  let total = 0;
  for (const item of list) total += integer(item, 'value count', 0);
  if (integer(count, 'value count', 0) !== total)
    fail('value count', 'the sum of the bucket counts');
  return {
    count: total,
    sum: wireNumber(sum, 'value sum'),
    min: wireNumber(min, 'value min'),
    max: wireNumber(max, 'value max'),
    counts: list as number[],
  };
}

function metric(
  value: unknown,
  where: string,
  table: AttributeTable,
  keys: AttributeKeys
): CumulativeMetricChanges {
  const [name, kind, isInteger, description, unit, bounds, points] = array(
    value,
    where,
    7
  );
  const metricName = text(name, `${where} name`);
  if (typeof kind !== 'string' || !KINDS.includes(kind))
    fail(`${where} kind`, 'one of s, u, g, x');
  if (isInteger !== 0 && isInteger !== 1) fail(`${where} integer`, '0 or 1');
  if (typeof description !== 'string') fail(`${where} description`, 'a string');
  if (typeof unit !== 'string') fail(`${where} unit`, 'a string');
  const boundaries =
    kind === 'x' ? boundaryList(bounds, `${where} boundaries`) : [];
  if (kind !== 'x' && bounds !== null) fail(`${where} boundaries`, 'null');
  const buckets = kind === 'x' ? boundaries.length + 1 : 0;
  return {
    name: metricName,
    kind: kind as CumulativeKind,
    integer: isInteger === 1,
    description,
    unit,
    boundaries,
    points: readPoints(points, where, table, (attributes, pointValue) => ({
      attributes,
      key: keys.key(attributes),
      value:
        buckets > 0
          ? histogram(pointValue, buckets)
          : wireNumber(pointValue, 'value'),
    })),
  };
}

/**
 * Reads a cumulative body back, checking every field.
 * @throws WireError naming the first field that is wrong (or a SyntaxError from JSON.parse)
 */
export function decodeCumulative(body: string): CumulativeChanges {
  // Points of one message share their attribute set's object: its key is made once.
  const keys = new AttributeKeys();
  return decodeScopes(body, 'c', (value, where, table) =>
    metric(value, where, table, keys)
  );
}
