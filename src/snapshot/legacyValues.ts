/**
 * The shapes of legacy metric values (exometer's datapoints, which legacy pollers expect)
 * and the number formatting every serializer shares.
 */

/** How an instrument's data is presented: exometer's metric types. */
export type MetricKind = 'spiral' | 'counter' | 'gauge' | 'histogram';

/**
 * A legacy value: datapoint names and their numbers, in the order they are served. The numbers
 * are exact, as the instruments reported them and summed: NaN and infinities included. Only the
 * serializers make them servable ({@link legacyNumber}), after every sum.
 */
export interface LegacyValue {
  readonly names: readonly string[];
  readonly numbers: readonly number[];
  /** Served as integers (truncated): the instrument is integer-valued. */
  readonly integer: boolean;
}

export const SPIRAL_FIELDS: readonly string[] = Object.freeze(['count', 'one']);
export const COUNTER_FIELDS: readonly string[] = Object.freeze([
  'value',
  'ms_since_reset',
]);
/** What `/all` shows of counters and gauges: the original summed only `value`. */
export const SUMMED_VALUE_FIELDS: readonly string[] = Object.freeze(['value']);
export const HISTOGRAM_FIELDS: readonly string[] = Object.freeze(
  'n mean min max median 50 75 90 95 99 999'.split(' ')
);
/** The quantiles behind `median, 50, 75, 90, 95, 99, 999`. */
export const HISTOGRAM_QUANTILES: readonly number[] = Object.freeze([
  0.5, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999,
]);

const ZERO_HISTOGRAM: LegacyValue = Object.freeze({
  names: HISTOGRAM_FIELDS,
  numbers: Object.freeze(HISTOGRAM_FIELDS.map(() => 0)),
  integer: true,
});

/** The value of a series that has seen no data, as the original showed a registered but idle metric. */
export function zeroValue(kind: MetricKind, msSinceReset: number): LegacyValue {
  switch (kind) {
    case 'spiral':
      return { names: SPIRAL_FIELDS, numbers: [0, 0], integer: true };
    case 'counter':
    case 'gauge':
      return {
        names: COUNTER_FIELDS,
        numbers: [0, msSinceReset],
        integer: true,
      };
    case 'histogram':
      return ZERO_HISTOGRAM;
  }
}

/**
 * A number as collectd's JSON parser and every other JSON consumer accept it: never NaN or
 * an infinity (JSON has neither), integers for integer-valued instruments, no negative zero.
 * Applied once, when a body is serialized: a sum of two finite values can overflow, so
 * sanitising before summing would not be enough.
 */
export function legacyNumber(value: number, integer: boolean): number {
  if (Number.isNaN(value)) return 0;
  if (value === Infinity) return Number.MAX_VALUE;
  if (value === -Infinity) return -Number.MAX_VALUE;
  const result = integer ? Math.trunc(value) : value;
  return result === 0 ? 0 : result;
}
