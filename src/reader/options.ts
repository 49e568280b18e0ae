import type { Attributes } from '@opentelemetry/api';
import { InvalidOptionError } from '../errors';

/**
 * Renames a series for the legacy API, or drops it by returning `undefined`.
 * Called once per new attribute set of an instrument, never per tick.
 */
export type LegacyNameFunction = (
  instrumentName: string,
  attributes: Attributes
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
   * The clock, in milliseconds since the epoch.
   * @deprecated For tests only: production code uses the default.
   * @default Date.now
   */
  now?: () => number;
}

/** The options with every default applied. */
export interface ResolvedReaderOptions {
  readonly hostTypes: readonly string[];
  readonly hosts: readonly string[] | undefined;
  readonly allMetricsAreGlobal: boolean;
  readonly windowMs: number;
  readonly slotMs: number;
  readonly legacyName: LegacyNameFunction | undefined;
  readonly cardinalityLimit: number;
  readonly histogramMaxBuckets: number;
  readonly now: () => number;
}

/** The defaults of {@link LegacyMetricsReaderOptions}, shared by the reader, tests and examples. */
export const DEFAULT_READER_OPTIONS = Object.freeze({
  hostTypes: Object.freeze([]) as readonly string[],
  hosts: undefined,
  allMetricsAreGlobal: false,
  windowMs: 60_000,
  slotMs: 1_000,
  legacyName: undefined,
  cardinalityLimit: 100_000,
  histogramMaxBuckets: 160,
} as const);

const KNOWN_OPTIONS = new Set([
  'hostTypes',
  'hosts',
  'allMetricsAreGlobal',
  'windowMs',
  'slotMs',
  'legacyName',
  'cardinalityLimit',
  'histogramMaxBuckets',
  'now',
]);

/** Options that users of similar libraries reach for, with the name this package uses. */
const RENAMED_OPTIONS: Record<string, string> = {
  host_types: 'hostTypes',
  all_metrics_are_global: 'allMetricsAreGlobal',
  window: 'windowMs',
  slot: 'slotMs',
};

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  return String(value);
}

function positiveInteger(
  name: string,
  value: unknown,
  fallback: number
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidOptionError(
      `${name} must be a positive integer (got ${describe(value)})`
    );
  }
  return value;
}

function nameList(name: string, value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    throw new InvalidOptionError(
      `${name} must be an array of strings (got ${describe(value)})`
    );
  const seen = new Set<string>();
  value.forEach((item: unknown, index) => {
    if (typeof item !== 'string' || item === '') {
      throw new InvalidOptionError(
        `${name}[${index}] must be a non-empty string (got ${describe(item)})`
      );
    }
    if (seen.has(item))
      throw new InvalidOptionError(
        `${name}[${index}] repeats ${JSON.stringify(item)}`
      );
    seen.add(item);
  });
  return Object.freeze([...(value as string[])]);
}

/** Validates the options once, up front, and applies the defaults. Never writes into `options`. */
export function resolveReaderOptions(
  options: LegacyMetricsReaderOptions = {}
): ResolvedReaderOptions {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(
      `options must be an object (got ${describe(options)})`
    );
  }
  for (const key of Object.keys(options)) {
    if (KNOWN_OPTIONS.has(key)) continue;
    const hint =
      RENAMED_OPTIONS[key] === undefined
        ? ''
        : `; did you mean ${RENAMED_OPTIONS[key]}?`;
    throw new InvalidOptionError(`unknown option ${key}${hint}`);
  }
  const slotMs = positiveInteger(
    'slotMs',
    options.slotMs,
    DEFAULT_READER_OPTIONS.slotMs
  );
  const windowMs = positiveInteger(
    'windowMs',
    options.windowMs,
    DEFAULT_READER_OPTIONS.windowMs
  );
  if (windowMs % slotMs !== 0) {
    throw new InvalidOptionError(
      `windowMs must be a multiple of slotMs (got windowMs ${windowMs}, slotMs ${slotMs})`
    );
  }
  const allMetricsAreGlobal =
    options.allMetricsAreGlobal ?? DEFAULT_READER_OPTIONS.allMetricsAreGlobal;
  if (typeof allMetricsAreGlobal !== 'boolean') {
    throw new InvalidOptionError(
      `allMetricsAreGlobal must be a boolean (got ${describe(allMetricsAreGlobal)})`
    );
  }
  if (
    options.legacyName !== undefined &&
    typeof options.legacyName !== 'function'
  ) {
    throw new InvalidOptionError(
      `legacyName must be a function (got ${describe(options.legacyName)})`
    );
  }
  if (options.now !== undefined && typeof options.now !== 'function') {
    throw new InvalidOptionError(
      `now must be a function (got ${describe(options.now)})`
    );
  }
  const histogramMaxBuckets = positiveInteger(
    'histogramMaxBuckets',
    options.histogramMaxBuckets,
    DEFAULT_READER_OPTIONS.histogramMaxBuckets
  );
  if (histogramMaxBuckets < 2) {
    throw new InvalidOptionError(
      `histogramMaxBuckets must be at least 2 (got ${histogramMaxBuckets})`
    );
  }
  return Object.freeze({
    hostTypes:
      nameList('hostTypes', options.hostTypes) ??
      DEFAULT_READER_OPTIONS.hostTypes,
    hosts: nameList('hosts', options.hosts),
    allMetricsAreGlobal,
    windowMs,
    slotMs,
    legacyName: options.legacyName,
    cardinalityLimit: positiveInteger(
      'cardinalityLimit',
      options.cardinalityLimit,
      DEFAULT_READER_OPTIONS.cardinalityLimit
    ),
    histogramMaxBuckets,
    now: options.now ?? Date.now,
  });
}
