import { randomUUID } from 'node:crypto';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import {
  InstrumentType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type IMetricReader,
  type MeterProviderOptions,
} from '@opentelemetry/sdk-metrics';
import { InvalidOptionError } from '../errors';
import { LegacyMetricsReader } from '../reader/LegacyMetricsReader';
import type { MeterProviderWithLegacyApiOptions } from './options';
import { createOtlpExporter } from './otlpExporter';
import { resolveOptions } from './resolveOptions';
import { createClusterPrometheusReader } from '../cluster/clusterPrometheusReader';
import { environmentResource } from './environmentResource';
import {
  createPrometheusExporter,
  servePrometheus,
  type PrometheusEndpoint,
} from './prometheusEndpoint';
import { USAGE_VIEWS } from '../http/usageInstruments';

export { DEFAULT_METER_PROVIDER_OPTIONS } from './options';
export type {
  MeterProviderWithLegacyApiOptions,
  OtlpOptions,
  OtlpProtocol,
  PrometheusEndpointOptions,
  PrometheusExporterOptions,
} from './options';

/** See {@link MeterProviderWithLegacyApi.legacyApiOptions}. */
export interface LegacyApiProviderOptions {
  /** The provider built, which also receives the legacy API's usage telemetry. */
  readonly meterProvider: MeterProvider;
  /** The Prometheus URL (`prometheusUrl`), the successor of a deprecation that names none. */
  readonly defaultSuccessor: string | undefined;
}

/** What {@link createMeterProviderWithLegacyApi} built. */
export interface MeterProviderWithLegacyApi {
  /** The provider to get meters from; register it globally with `metrics.setGlobalMeterProvider` if wanted. */
  readonly meterProvider: MeterProvider;
  /** The reader to serve with `legacyMetricsApi` or `startLegacyMetricsServer`. */
  readonly legacyReader: LegacyMetricsReader;
  /** The Prometheus exporter, or undefined when `prometheus` is `false`. */
  readonly prometheusExporter: PrometheusExporter | undefined;
  /**
   * The exposition's URL when it has a listener of its own (with the port actually bound, e.g.
   * `http://127.0.0.1:9464/metrics`); undefined when it is mounted on an app or off.
   */
  readonly prometheusUrl: string | undefined;
  /** The reader that pushes OTLP, or undefined when OTLP is off. */
  readonly otlpReader: PeriodicExportingMetricReader | undefined;
  /**
   * Options to spread into `startLegacyMetricsServer`, `startLegacyMetricsListeners` or the
   * `legacyMetricsApi` plugin: the legacy API's usage telemetry goes to `meterProvider`, and a
   * `deprecation` without a `successor` names the Prometheus URL.
   */
  readonly legacyApiOptions: LegacyApiProviderOptions;
  /** Collects every reader now: a legacy tick and an OTLP export. */
  forceFlush(): Promise<void>;
  /**
   * Exports once more over OTLP, shuts every reader down and closes the Prometheus listener.
   * Idempotent: later calls return the first call's promise. A mounted route then answers 503.
   */
  shutdown(): Promise<void>;
}

/**
 * The provider, with the SDK's refusal of a reader (one bound to another provider) as an
 * InvalidOptionError naming `readers`.
 */
function buildMeterProvider(options: MeterProviderOptions): MeterProvider {
  try {
    return new MeterProvider(options);
  } catch (error) {
    const reason = (error as Error).message;
    throw new InvalidOptionError(
      `readers: found a reader the SDK refuses (${reason}), expected readers bound to no other MeterProvider`,
      {
        option: 'readers',
        found: options.readers,
        expected: 'readers bound to no other MeterProvider',
      }
    );
  }
}

/**
 * Builds a MeterProvider that feeds, from the same instruments and at the same time, the legacy
 * JSON API (a {@link LegacyMetricsReader}), the Prometheus exposition (the official
 * `@opentelemetry/exporter-prometheus`) and, when an endpoint is configured, OTLP to an
 * OpenTelemetry Collector. Users can then move from legacy pollers to Prometheus scraping or OTLP
 * one consumer at a time while all of them show the same numbers.
 *
 * The resource comes from `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. The Prometheus
 * listener honours `OTEL_EXPORTER_PROMETHEUS_HOST` and `OTEL_EXPORTER_PROMETHEUS_PORT`; OTLP
 * honours `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_METRIC_EXPORT_TIMEOUT` and the exporter's own
 * `OTEL_EXPORTER_OTLP_*` variables; options given in code win over the environment. Invalid
 * options throw an {@link InvalidOptionError} before anything starts; a Prometheus port that
 * cannot be bound rejects with a {@link ListenError} after everything built is shut down again.
 *
 * @example
 * ```ts
 * const telemetry = await createMeterProviderWithLegacyApi({ legacy: { hostTypes: ['localhost'] } });
 * const server = await startLegacyMetricsServer(telemetry.legacyReader, { port: 8088 });
 * telemetry.meterProvider.getMeter('server').createCounter('xmppMessageSent').add(1, { host_type: 'localhost' });
 * // … on exit:
 * await server.close();
 * await telemetry.shutdown();
 * ```
 */
export async function createMeterProviderWithLegacyApi(
  options: MeterProviderWithLegacyApiOptions = {}
): Promise<MeterProviderWithLegacyApi> {
  const resolved = resolveOptions(options);
  const { otlp, cluster, slotMs } = resolved;

  const legacyReader = new LegacyMetricsReader(resolved.legacy);
  const limit = (type: InstrumentType): number =>
    legacyReader.selectCardinalityLimit(type);
  const prometheusExporter =
    resolved.prometheus === undefined
      ? undefined
      : createPrometheusExporter(limit, resolved.prometheus.exporter);
  const otlpReader =
    otlp === undefined
      ? undefined
      : new PeriodicExportingMetricReader({
          exporter: createOtlpExporter(otlp),
          exportIntervalMillis: otlp.exportIntervalMillis,
          exportTimeoutMillis: otlp.exportTimeoutMillis,
          cardinalityLimits: { default: limit(InstrumentType.COUNTER) },
        });

  // The caller's readers first: one the SDK refuses (bound to another provider) leaves ours unbound.
  const readers: IMetricReader[] = [...resolved.readers, legacyReader];
  // In a cluster worker, the primary's Prometheus endpoint serves this worker's instruments too.
  if (cluster)
    readers.push(
      createClusterPrometheusReader({
        intervalMs: slotMs,
        cardinalityLimit: limit(InstrumentType.COUNTER),
      })
    );
  if (prometheusExporter !== undefined) readers.push(prometheusExporter);
  if (otlpReader !== undefined) readers.push(otlpReader);
  // Each cluster worker exports OTLP as an instance of its own, or their series would collide.
  const resource = environmentResource(
    resolved.resource,
    cluster ? randomUUID() : undefined
  );
  // One recording per request of the legacy API's usage telemetry, whatever the readers.
  const meterProvider = buildMeterProvider({
    resource,
    readers,
    views: [...USAGE_VIEWS, ...resolved.views],
  });

  let endpoint: PrometheusEndpoint | undefined;
  if (prometheusExporter !== undefined && resolved.prometheus !== undefined) {
    try {
      endpoint = await servePrometheus(prometheusExporter, resolved.prometheus);
    } catch (error) {
      await meterProvider.shutdown();
      throw error;
    }
  }

  let shuttingDown: Promise<void> | undefined;
  const shutdown = async (): Promise<void> => {
    // A mounted route answers 503 from the start of shutdown, as the legacy API does.
    const closed = endpoint?.close();
    try {
      await meterProvider.shutdown();
    } finally {
      await closed;
    }
  };

  return {
    meterProvider,
    legacyReader,
    prometheusExporter,
    prometheusUrl: endpoint?.url,
    otlpReader,
    // Deprecation: the legacy API points its pollers at this provider's Prometheus endpoint.
    legacyApiOptions: { meterProvider, defaultSuccessor: endpoint?.url },
    forceFlush: () => meterProvider.forceFlush(),
    shutdown: () => (shuttingDown ??= shutdown()),
  };
}
