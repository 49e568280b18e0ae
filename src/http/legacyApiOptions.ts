/**
 * The options of a mount of the legacy API (the plugin's, the request listener's, and what every
 * mount of the standalone server and the configured listeners shares), resolved once: the
 * entry points hand the resolved values inward.
 */
import { VARIANTS, type Variant } from '../attributes';
import type { ResolvedDeprecation } from '../config/deprecationOptions';
import { LegacyMetricsReader } from '../reader/LegacyMetricsReader';
import {
  checkOptionObject,
  invalidOption,
  nonEmptyStringOption,
  oneOfOption,
  optionPath,
} from '../optionValidation';
import {
  defaultSuccessorOption,
  deprecationOption,
  type LegacyApiDeprecationOptions,
} from './deprecation';
import { ANY_HOST } from './hostConstraint';
import type { LegacyMetricsApiOptions } from './legacyMetricsApi';
import {
  isClusterAggregator,
  type LegacySnapshotSource,
} from './LegacySnapshotSource';
import {
  usageOptions,
  type LegacyApiUsageOptions,
  type ResolvedUsageOptions,
} from './usageOptions';

/** What every mount of an entry point shares: usage telemetry and the default successor. */
export type SharedApiOptions = LegacyApiUsageOptions &
  Pick<LegacyApiDeprecationOptions, 'defaultSuccessor'>;

/** A mount's options, resolved, with their defaults. */
export interface ResolvedLegacyApi {
  readonly reader: LegacySnapshotSource;
  readonly variant: Variant;
  /** The Host the mount answers to; `_` for any. */
  readonly allowedHost: string;
  /** With the default successor applied. */
  readonly deprecation: ResolvedDeprecation | undefined;
  readonly usage: ResolvedUsageOptions;
}

/**
 * Resolves the shared options below `base` (`''` for top-level names, `options` for
 * `options.usage.maxClients`), so that their errors name them as the caller's options.
 * @throws InvalidOptionError
 */
export function resolveSharedApiOptions(
  base: string,
  shared: SharedApiOptions
): { defaultSuccessor: string | undefined; usage: ResolvedUsageOptions } {
  return {
    defaultSuccessor: defaultSuccessorOption(
      optionPath(base, 'defaultSuccessor'),
      shared.defaultSuccessor
    ),
    usage: usageOptions(base, shared),
  };
}

/**
 * Resolves a mount's options, naming each below `base` (`legacyMetricsApi.variant`); `extraKeys`
 * are the entry point's own.
 * @throws InvalidOptionError
 */
export function resolveLegacyApiOptions(
  base: string,
  options: LegacyMetricsApiOptions,
  extraKeys: readonly string[]
): ResolvedLegacyApi {
  checkOptionObject(base, options, [
    ...['reader', 'variant', 'allowedHost', 'deprecation', 'defaultSuccessor'],
    ...['meterProvider', 'usage', ...extraKeys],
  ]);
  const { reader } = options;
  if (!(reader instanceof LegacyMetricsReader) && !isClusterAggregator(reader))
    invalidOption(
      `${base}.reader`,
      reader,
      'a LegacyMetricsReader or a LegacyClusterAggregator'
    );
  const variant = oneOfOption(
    `${base}.variant`,
    options.variant,
    VARIANTS,
    'host_type'
  );
  const allowedHost = nonEmptyStringOption(
    `${base}.allowedHost`,
    options.allowedHost,
    ANY_HOST
  );
  const { defaultSuccessor, usage } = resolveSharedApiOptions(base, options);
  const deprecation = deprecationOption(
    `${base}.deprecation`,
    options.deprecation,
    defaultSuccessor
  );
  return { reader, variant, allowedHost, deprecation, usage };
}
