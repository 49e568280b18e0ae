/** The options of one mount of the legacy API (the plugin's, the request listener's), checked once. */
import { VARIANTS, type Variant } from '../attributes';
import { LegacyMetricsReader } from '../reader/LegacyMetricsReader';
import {
  checkOptionObject,
  invalidOption,
  nonEmptyStringOption,
  oneOfOption,
} from '../optionValidation';
import { DeprecationPolicy } from './deprecation';
import { ANY_HOST } from './hostConstraint';
import type { LegacyMetricsApiOptions } from './legacyMetricsApi';
import {
  isClusterAggregator,
  type LegacySnapshotSource,
} from './LegacySnapshotSource';
import { usageOptions, type ResolvedUsageOptions } from './usageOptions';

/** A mount's options, checked, with their defaults. */
export interface ResolvedLegacyApi {
  readonly reader: LegacySnapshotSource;
  readonly variant: Variant;
  /** The Host the mount answers to; `_` for any. */
  readonly allowedHost: string;
  readonly deprecation: DeprecationPolicy | undefined;
  readonly usage: ResolvedUsageOptions;
}

/**
 * Checks a mount's options, naming each below `base` (`legacyMetricsApi.variant`); `extraKeys`
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
  return {
    reader,
    variant: oneOfOption(
      `${base}.variant`,
      options.variant,
      VARIANTS,
      'host_type'
    ),
    allowedHost: nonEmptyStringOption(
      `${base}.allowedHost`,
      options.allowedHost,
      ANY_HOST
    ),
    deprecation: DeprecationPolicy.fromOptions(options, base),
    usage: usageOptions(base, options),
  };
}
