import type { Attributes } from '@opentelemetry/api';
import {
  booleanOption,
  checkOptionObject,
  functionOption,
  invalidOption,
  nonEmptyStringOption,
  optionPath,
  positiveIntegerOption,
} from '../optionValidation';
import {
  MeterFilter,
  type MeterScope,
  type MeterSelection,
} from './meterSelection';
import type { LastValueRule } from './series';
import { steadyNow } from './slotClock';

/**
 * Renames a series for the legacy API, or drops it by returning `undefined`.
 * Called once per new attribute set of an instrument, never per tick. `scope` is the
 * instrument's meter, so that two meters' instruments of one name can be told apart.
 */
export type LegacyNameFunction = (
  instrumentName: string,
  attributes: Attributes,
  scope: MeterScope
) => string | undefined;

/** Options of {@link LegacyMetricsReader}. Every field is optional. */
export interface LegacyMetricsReaderOptions {
  /**
   * Host types the server declares. They are listed, and answer with zero values,
   * before any data point carries them.
   * @default []
   */
  hostTypes?: readonly string[];
  /**
   * Hosts the server declares, for the `host` variant of the API.
   * When omitted, the `host` variant lists `hostTypes` instead.
   * @default undefined
   */
  hosts?: readonly string[];
  /**
   * Fold every per-host-type data point into a global metric, summed across host types,
   * as the original server did with `all_metrics_are_global`. The listing's `metrics` is then `[]`.
   * @default false
   */
  allMetricsAreGlobal?: boolean;
  /**
   * The sliding window of a spiral's `one` and of histograms, in milliseconds.
   * Must be a positive multiple of `slotMs`.
   * @default 60000
   */
  windowMs?: number;
  /**
   * The window's slot, in milliseconds: how often the reader collects, and so how old served data may be.
   * @default 1000
   */
  slotMs?: number;
  /** Rename or drop series. @default the instrument name followed by the remaining attribute values */
  legacyName?: LegacyNameFunction;
  /**
   * Which meters the legacy API serves, by exact name or pattern (see {@link MeterSelection}).
   * @default every meter but the package's own and `@opentelemetry/instrumentation-*`
   */
  meters?: MeterSelection;
  /**
   * The most attribute sets this reader keeps per instrument. The SDK's default (2000) would fold
   * host types beyond it into an overflow series, so the reader asks for enough to hold thousands of host types.
   * @default 100000
   */
  cardinalityLimit?: number;
  /**
   * The most buckets of the base-2 exponential histogram the reader asks the SDK for (its `maxSize`).
   * More buckets mean finer percentiles (see the README for the error bound) and a costlier tick:
   * the SDK hands every active histogram over as a dense array of up to this many counts.
   * @default 160 (the SDK's own default)
   */
  histogramMaxBuckets?: number;
  /**
   * The wall clock, in milliseconds since the epoch: it stamps what is served (the snapshot's
   * time). When `monotonicNow` is not given, it also drives the window.
   * @deprecated For tests only: production code uses the default.
   * @default Date.now
   */
  now?: () => number;
  /**
   * The clock the window's slots and `ms_since_reset` advance on, in milliseconds: it must
   * never step, whatever the wall clock does (NTP corrections, a VM resumed).
   * @deprecated For tests only: production code uses the default.
   * @default `now` when that is given, else `performance.timeOrigin + performance.now()`
   */
  monotonicNow?: () => number;
  /**
   * In a `node:cluster` worker: send each tick's collection to the primary over the cluster's
   * IPC channel, where a `LegacyClusterAggregator` serves the whole server, instead of keeping
   * it here. The worker's own snapshot then stays empty: start no legacy listener in a worker.
   * Throws when the process is not a cluster worker.
   * @default false
   */
  cluster?: boolean;
  /**
   * The longest the reader's work after a collection (applying, expiring, publishing) holds
   * the event loop at once, in milliseconds: past it, the work yields with `setImmediate` and
   * resumes once what waits has run. The snapshot published before serves meanwhile.
   * @default 2
   */
  sliceMs?: number;
  /**
   * The most data points or series worked on in one slice, whatever the time.
   * @deprecated For tests only: production code slices by time ({@link sliceMs}).
   * @default Infinity
   */
  slicePoints?: number;
}

/** The options with every default applied. */
export interface ResolvedReaderOptions extends Readonly<
  Required<Omit<LegacyMetricsReaderOptions, 'hosts' | 'legacyName' | 'meters'>>
> {
  readonly hosts: readonly string[] | undefined;
  readonly legacyName: LegacyNameFunction | undefined;
  readonly meters: MeterFilter;
  /** By legacy name: how the last values of its sources combine (set by the cluster aggregator). */
  readonly lastValueRules?: ReadonlyMap<string, LastValueRule>;
}

/** The defaults of {@link LegacyMetricsReaderOptions}, shared by the reader, tests and examples. */
export const DEFAULT_READER_OPTIONS = Object.freeze({
  hostTypes: Object.freeze([]) as readonly string[],
  hosts: undefined,
  allMetricsAreGlobal: false,
  windowMs: 60_000,
  slotMs: 1_000,
  legacyName: undefined,
  meters: Object.freeze({ include: undefined, exclude: Object.freeze([]) }),
  cardinalityLimit: 100_000,
  histogramMaxBuckets: 160,
  cluster: false,
  sliceMs: 2,
} as const);

/** The reader's option names, in the order an error lists them. */
export const READER_OPTION_NAMES: readonly string[] = [
  'hostTypes',
  'hosts',
  'allMetricsAreGlobal',
  'windowMs',
  'slotMs',
  'legacyName',
  'meters',
  'cardinalityLimit',
  'histogramMaxBuckets',
  'now',
  'monotonicNow',
  'cluster',
  'sliceMs',
  'slicePoints',
];

/** The options that are positive integers with a default. */
type PositiveIntegerKey =
  | 'slotMs'
  | 'windowMs'
  | 'histogramMaxBuckets'
  | 'cardinalityLimit'
  | 'sliceMs';

function nameList(path: string, value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    invalidOption(path, value, 'an array of non-empty strings');
  const seen = new Set<string>();
  value.forEach((item: unknown, index) => {
    const itemPath = optionPath(path, index);
    nonEmptyStringOption(itemPath, item);
    if (seen.has(item as string))
      invalidOption(itemPath, item, 'each name once');
    seen.add(item as string);
  });
  return Object.freeze([...(value as string[])]);
}

/**
 * Validates the options once, up front, and applies the defaults. Never writes into `options`.
 * @param path where the options sit, for messages (`legacy` gives `legacy.windowMs`)
 */
export function resolveReaderOptions(
  options: LegacyMetricsReaderOptions = {},
  path = ''
): ResolvedReaderOptions {
  const at = (key: string): string => optionPath(path, key);
  checkOptionObject(path, options, READER_OPTION_NAMES);
  const positive = (key: PositiveIntegerKey): number =>
    positiveIntegerOption(at(key), options[key], DEFAULT_READER_OPTIONS[key]);
  const flag = (key: 'allMetricsAreGlobal' | 'cluster'): boolean =>
    booleanOption(at(key), options[key], DEFAULT_READER_OPTIONS[key]);
  const slotMs = positive('slotMs');
  const windowMs = positive('windowMs');
  if (windowMs % slotMs !== 0)
    invalidOption(at('windowMs'), windowMs, `a multiple of slotMs (${slotMs})`);
  const histogramMaxBuckets = positive('histogramMaxBuckets');
  if (histogramMaxBuckets < 2)
    invalidOption(at('histogramMaxBuckets'), histogramMaxBuckets, 'at least 2');
  // A test's clock drives the window too, unless the test gives the window a clock of its own.
  const now = functionOption<() => number>(at('now'), options.now);
  return Object.freeze({
    hostTypes:
      nameList(at('hostTypes'), options.hostTypes) ??
      DEFAULT_READER_OPTIONS.hostTypes,
    hosts: nameList(at('hosts'), options.hosts),
    allMetricsAreGlobal: flag('allMetricsAreGlobal'),
    windowMs,
    slotMs,
    legacyName: functionOption<LegacyNameFunction>(
      at('legacyName'),
      options.legacyName
    ),
    cardinalityLimit: positive('cardinalityLimit'),
    meters: MeterFilter.resolve(at('meters'), options.meters),
    histogramMaxBuckets,
    now: now ?? Date.now,
    monotonicNow:
      functionOption<() => number>(at('monotonicNow'), options.monotonicNow) ??
      now ??
      steadyNow,
    cluster: flag('cluster'),
    sliceMs: positive('sliceMs'),
    slicePoints: positiveIntegerOption(
      at('slicePoints'),
      options.slicePoints,
      Infinity
    ),
  });
}
