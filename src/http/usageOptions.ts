/**
 * The options of usage telemetry, shared by the plugin, the standalone server and the configured
 * listeners, and their one check.
 */
import type { MeterProvider } from '@opentelemetry/api';
import {
  checkOptionObject,
  invalidOption,
  isPlainObject,
  optionPath,
} from '../optionValidation';

/** Bounds of the usage telemetry. */
export interface UsageOptions {
  /**
   * The most distinct clients (address and User-Agent) kept apart; the rest are counted as `other`.
   * @default 20
   */
  maxClients?: number;
  /**
   * Whether a new client's first request is logged (warning `LEGACY_API_NEW_CLIENT`): the first
   * 10 new clients of a minute one by one, then one summary line for the rest of that minute.
   * `false` logs none of them, nor that the client table is full; the counters are unchanged.
   * @default true
   */
  logNewClients?: boolean;
}

/** Usage telemetry options of the plugin, the standalone server and the configured listeners. */
export interface LegacyApiUsageOptions {
  /**
   * The MeterProvider that receives the usage instruments.
   * @default the global MeterProvider of `@opentelemetry/api` (a no-op unless the application registered one)
   */
  meterProvider?: MeterProvider;
  /**
   * `false` turns usage telemetry off; `true` or an object turns it on.
   * @default on when `deprecation` or `meterProvider` is given, off otherwise
   */
  usage?: boolean | UsageOptions;
}

/** Usage telemetry options, checked, with their defaults. */
export interface ResolvedUsageOptions {
  readonly meterProvider: MeterProvider | undefined;
  /** `undefined`: left out, on when a deprecation or a `meterProvider` is given. */
  readonly usage: boolean | undefined;
  readonly maxClients: number;
  readonly logNewClients: boolean;
}

/** The defaults of {@link UsageOptions}. */
export const DEFAULT_USAGE_OPTIONS = Object.freeze({
  maxClients: 20,
  logNewClients: true,
});

/**
 * The `meterProvider` and `usage` options below `base` (`''` for top-level names), checked.
 * @throws InvalidOptionError naming the option's full path
 */
export function usageOptions(
  base: string,
  options: LegacyApiUsageOptions
): ResolvedUsageOptions {
  const { meterProvider, usage } = options;
  if (
    meterProvider !== undefined &&
    (!isPlainObject(meterProvider) ||
      typeof (meterProvider as Partial<MeterProvider>).getMeter !== 'function')
  )
    invalidOption(
      optionPath(base, 'meterProvider'),
      meterProvider,
      'a MeterProvider'
    );
  if (usage === undefined || typeof usage === 'boolean')
    return { meterProvider, usage, ...DEFAULT_USAGE_OPTIONS };
  const usagePath = optionPath(base, 'usage');
  const at = (key: string): string => optionPath(usagePath, key);
  checkOptionObject(
    usagePath,
    usage,
    ['maxClients', 'logNewClients'],
    'false, true or { maxClients, logNewClients }'
  );
  const maxClients = usage['maxClients'] ?? DEFAULT_USAGE_OPTIONS.maxClients;
  if (
    typeof maxClients !== 'number' ||
    !Number.isSafeInteger(maxClients) ||
    maxClients < 0
  )
    invalidOption(at('maxClients'), maxClients, 'a non-negative integer');
  const logNewClients =
    usage['logNewClients'] ?? DEFAULT_USAGE_OPTIONS.logNewClients;
  if (typeof logNewClients !== 'boolean')
    invalidOption(at('logNewClients'), logNewClients, 'true or false');
  return { meterProvider, usage: true, maxClients, logNewClients };
}
