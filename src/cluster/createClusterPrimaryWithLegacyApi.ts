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
import type { Resource } from '@opentelemetry/resources';
import { environmentResource } from '../provider/environmentResource';
import type { PrometheusEndpointOptions } from '../provider/options';
import { resolvePrometheus } from '../provider/resolveOptions';
import {
  servePrometheus,
  type PrometheusEndpoint,
} from '../provider/prometheusEndpoint';
import { clusterPrometheusExposition } from './clusterPrometheusExposition';
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
  /**
   * The Prometheus endpoint of the whole server (the workers' instruments combined, see
   * {@link LegacyClusterAggregator.collectCumulative}), as `createMeterProviderWithLegacyApi`'s
   * option, or `false` for none. Workers feed it with `createMeterProviderWithLegacyApi({ cluster: true })`
   * or a `createClusterPrometheusReader()` of their own.
   * @default { address: '127.0.0.1', port: 9464, endpoint: '/metrics' }
   */
  prometheus?: PrometheusEndpointOptions | false;
  /**
   * Merged over the resource read from `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`: what
   * the exposition's `target_info` shows.
   * @default undefined
   */
  resource?: Resource;
}

/** What {@link createClusterPrimaryWithLegacyApi} started. */
export interface ClusterPrimaryWithLegacyApi {
  /** Receives the workers' data and serves it. */
  readonly aggregator: LegacyClusterAggregator;
  /** The legacy API's listener (`server`) or listeners (`config`). */
  readonly legacy: LegacyMetricsServer | LegacyMetricsListeners;
  /**
   * The exposition's URL when it has a listener of its own (with the port actually bound);
   * undefined when it is mounted on an app or off.
   */
  readonly prometheusUrl: string | undefined;
  /** Closes the listeners, then stops the aggregator. Idempotent. */
  shutdown(): Promise<void>;
}

const OPTION_KEYS = [
  'legacy',
  'server',
  'config',
  'listeners',
  'prometheus',
  'resource',
];

/**
 * Sets up the primary of a `node:cluster` server in one call: a started
 * {@link LegacyClusterAggregator}, the legacy API's listeners and the Prometheus endpoint of
 * the whole server, which only the primary opens.
 * Fork the workers after it resolves; each gives `cluster: true` to its reader (or to
 * `createMeterProviderWithLegacyApi`).
 * @throws InvalidOptionError before anything starts; ListenError after the aggregator is stopped again
 */
export async function createClusterPrimaryWithLegacyApi(
  options: ClusterPrimaryWithLegacyApiOptions
): Promise<ClusterPrimaryWithLegacyApi> {
  const { legacy, server, config, listeners, resource } = options;
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
  const prometheus = resolvePrometheus(options.prometheus);
  const aggregator = new LegacyClusterAggregator(legacy);
  const exposition =
    prometheus === undefined
      ? undefined
      : clusterPrometheusExposition(aggregator, environmentResource(resource));
  aggregator.start();
  let endpoint: PrometheusEndpoint | undefined;
  let started: LegacyMetricsServer | LegacyMetricsListeners;
  try {
    if (exposition !== undefined && prometheus !== undefined)
      endpoint = await servePrometheus(exposition, prometheus);
    // As the one-call provider's: a deprecation that names no successor names this endpoint.
    const successor = { defaultSuccessor: endpoint?.url };
    started =
      server !== undefined
        ? await startLegacyMetricsServer(aggregator, {
            ...successor,
            ...server,
          })
        : await startLegacyMetricsListeners(aggregator, config!, {
            ...successor,
            ...listeners,
          });
  } catch (error) {
    await endpoint?.close();
    await aggregator.shutdown();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    try {
      await Promise.all([started.close(), endpoint?.close()]);
    } finally {
      await aggregator.shutdown();
    }
  };
  return {
    aggregator,
    legacy: started,
    prometheusUrl: endpoint?.url,
    shutdown: () => (stopping ??= stop()),
  };
}
