import {
  checkOptionObject,
  invalidOption,
  isPlainObject,
  oneOfOption,
  optionPath,
  positiveIntegerOption,
} from '../optionValidation';
import {
  READER_OPTION_NAMES,
  resolveReaderOptions,
  type LegacyMetricsReaderOptions,
  type ResolvedReaderOptions,
} from '../reader/options';
import type { LastValueRule } from '../reader/series';

/**
 * Options of {@link LegacyClusterAggregator}: the reader's serving options (`hostTypes`, `hosts`,
 * `allMetricsAreGlobal`, `windowMs`, `slotMs`, `legacyName`, `meters`), which the workers'
 * readers should share (the same `slotMs` above all), and the cluster's own.
 */
export interface LegacyClusterAggregatorOptions extends Omit<
  LegacyMetricsReaderOptions,
  | 'cluster'
  | 'cardinalityLimit'
  | 'histogramMaxBuckets'
  | 'sliceMs'
  | 'slicePoints'
> {
  /**
   * How many slots a live worker may send nothing before its gauges (and observable up-down
   * counters) stop being counted, with a warning naming it. A worker that exits is dropped from
   * them at once. Its counters, up-down counters and histograms always stay.
   * @default 10
   */
  silentSlots?: number;
  /**
   * How each legacy name's gauges (and observable up-down counters) combine across workers:
   * `sum` (the default: 10 open sessions in each of two workers are 20), `max`, `min` or
   * `average`, as prom-client's cluster aggregation offers. `max`, `min` and `average` count
   * only the workers that reported the series and are still alive; 0 when none is.
   * @default {} (every name `sum`)
   */
  gauges?: Readonly<Record<string, LastValueRule>>;
  /**
   * The largest message body, in bytes, accepted from a worker; a larger one is dropped with a
   * warning before it is parsed.
   * @default 16777216 (16 MiB)
   */
  maxMessageBytes?: number;
}

/** The aggregator's options with every default applied. */
export interface ResolvedAggregatorOptions extends ResolvedReaderOptions {
  readonly silentSlots: number;
  readonly maxMessageBytes: number;
}

/** The defaults of the cluster's own options. */
export const DEFAULT_AGGREGATOR_OPTIONS = Object.freeze({
  silentSlots: 10,
  maxMessageBytes: 16 * 1024 * 1024,
} as const);

/**
 * Options of the worker's reader that mean nothing in the primary. The primary applies each
 * worker's message and publishes each tick in slices of the reader's default `sliceMs`, as a
 * worker's reader does, one job after the other.
 */
const WORKER_ONLY = [
  'cluster',
  'cardinalityLimit',
  'histogramMaxBuckets',
  'sliceMs',
  'slicePoints',
];
const KNOWN = [
  ...READER_OPTION_NAMES.filter(key => !WORKER_ONLY.includes(key)),
  'silentSlots',
  'maxMessageBytes',
  'gauges',
  ...WORKER_ONLY,
];

const RULES: readonly LastValueRule[] = ['sum', 'max', 'min', 'average'];

function gaugeRules(
  path: string,
  value: unknown
): ReadonlyMap<string, LastValueRule> {
  const rules = new Map<string, LastValueRule>();
  if (value === undefined) return rules;
  if (!isPlainObject(value))
    invalidOption(path, value, 'an object of legacy names and rules');
  for (const [name, rule] of Object.entries(value))
    rules.set(name, oneOfOption(optionPath(path, name), rule, RULES, 'sum'));
  return rules;
}

/** Validates the options once, up front, with the reader's own checks; never writes into them. */
export function resolveAggregatorOptions(
  options: LegacyClusterAggregatorOptions = {},
  path = ''
): ResolvedAggregatorOptions {
  checkOptionObject(path, options, KNOWN);
  const given = options as Record<string, unknown>;
  for (const key of WORKER_ONLY) {
    if (given[key] !== undefined)
      invalidOption(
        optionPath(path, key),
        given[key],
        "nothing: it is an option of the workers' readers"
      );
  }
  const { silentSlots, maxMessageBytes, gauges, ...readerOptions } = options;
  const at = (key: string): string => optionPath(path, key);
  return Object.freeze({
    ...resolveReaderOptions(readerOptions, path),
    lastValueRules: gaugeRules(at('gauges'), gauges),
    silentSlots: positiveIntegerOption(
      at('silentSlots'),
      silentSlots,
      DEFAULT_AGGREGATOR_OPTIONS.silentSlots
    ),
    maxMessageBytes: positiveIntegerOption(
      at('maxMessageBytes'),
      maxMessageBytes,
      DEFAULT_AGGREGATOR_OPTIONS.maxMessageBytes
    ),
  });
}
