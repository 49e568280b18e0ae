import type { LegacyApiConfig, ListenerConfig } from '../config/types';
import {
  startLegacyMetricsListeners,
  type LegacyMetricsListeners,
  type LegacyMetricsListenersOptions,
} from '../http/startLegacyMetricsListeners';
import {
  startLegacyMetricsServer,
  type LegacyMetricsServer,
  type LegacyMetricsServerOptions,
} from '../http/startLegacyMetricsServer';
import { checkOptionObject, invalidOption } from '../optionValidation';
import { LegacyClusterAggregator } from './LegacyClusterAggregator';
import {
  resolveAggregatorOptions,
  type LegacyClusterAggregatorOptions,
} from './options';

/**
 * Options of {@link createClusterPrimaryWithLegacyApi}: the aggregator's, and where the legacy
 * API listens: `server` (one listener) or `config` (a configuration file's listeners), one of them.
 */
export interface ClusterPrimaryWithLegacyApiOptions {
  /** The aggregator's options, which the workers' readers should share (`slotMs` above all). @default {} */
  legacy?: LegacyClusterAggregatorOptions;
  /** One standalone listener: the options of `startLegacyMetricsServer`. */
  server?: LegacyMetricsServerOptions;
  /** The listeners of a configuration file: what `loadLegacyApiConfig` returns, or its `listeners`. */
  config?: LegacyApiConfig | readonly ListenerConfig[];
  /** With `config`: the options of `startLegacyMetricsListeners`. @default {} */
  listeners?: LegacyMetricsListenersOptions;
}

/** What {@link createClusterPrimaryWithLegacyApi} started. */
export interface ClusterPrimaryWithLegacyApi {
  /** Receives the workers' data and serves it. */
  readonly aggregator: LegacyClusterAggregator;
  /** The legacy API's listener (`server`) or listeners (`config`). */
  readonly legacy: LegacyMetricsServer | LegacyMetricsListeners;
  /** Closes the listeners, then stops the aggregator. Idempotent. */
  shutdown(): Promise<void>;
}

const OPTION_KEYS = ['legacy', 'server', 'config', 'listeners'];

/**
 * Sets up the primary of a `node:cluster` server in one call: a started
 * {@link LegacyClusterAggregator} and the legacy API's listeners, which only the primary opens.
 * Fork the workers after it resolves; each gives `cluster: true` to its reader (or to
 * `createMeterProviderWithLegacyApi`).
 * @throws InvalidOptionError before anything starts; ListenError after the aggregator is stopped again
 */
export async function createClusterPrimaryWithLegacyApi(
  options: ClusterPrimaryWithLegacyApiOptions
): Promise<ClusterPrimaryWithLegacyApi> {
  const { legacy, server, config, listeners } = options;
  checkOptionObject('', options, OPTION_KEYS);
  if ((server === undefined) === (config === undefined))
    invalidOption(
      server === undefined ? 'server' : 'config',
      server ?? config,
      'exactly one of server and config'
    );
  if (server !== undefined && listeners !== undefined)
    invalidOption('listeners', listeners, 'nothing beside server');
  // Checked here so that an error names its full path (`legacy.windowMs`).
  resolveAggregatorOptions(legacy, 'legacy');
  const aggregator = new LegacyClusterAggregator(legacy).start();
  let started: LegacyMetricsServer | LegacyMetricsListeners;
  try {
    started =
      server !== undefined
        ? await startLegacyMetricsServer(aggregator, server)
        : await startLegacyMetricsListeners(aggregator, config!, listeners);
  } catch (error) {
    await aggregator.shutdown();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    aggregator,
    legacy: started,
    shutdown: () =>
      (stopping ??= started.close().finally(() => aggregator.shutdown())),
  };
}
