/**
 * The options of {@link createMeterProviderWithLegacyApi} and their defaults; `resolveOptions`
 * validates them and applies the environment.
 */
import type { Resource } from '@opentelemetry/resources';
import type {
  IMetricReader,
  MetricProducer,
  ViewOptions,
} from '@opentelemetry/sdk-metrics';
import type { FastifyInstance } from 'fastify';
import type { ListenerTimeouts } from '../config/types';
import type { LegacyMetricsReaderOptions } from '../reader/options';

/**
 * The Prometheus exporter's own options (its `ExporterConfig`), those that do not conflict with
 * where this package serves the exposition (`endpoint`, `address`, `port` are ours; its server is
 * never started).
 */
export interface PrometheusExporterOptions {
  /**
   * A prefix of every metric name, joined with `_`: `app` turns `requests` into `app_requests`.
   * @default '' (no prefix)
   */
  prefix?: string;
  /**
   * Append the collection time to every sample.
   * @default false
   */
  appendTimestamp?: boolean;
  /**
   * Resource attributes whose names match become constant labels of every metric, e.g. `/service_.+/`.
   * @default undefined (none)
   */
  withResourceConstantLabels?: RegExp;
  /**
   * Leave the `otel_scope_*` labels out.
   * @default false
   */
  withoutScopeInfo?: boolean;
  /**
   * Leave the `target_info` metric out.
   * @default false
   */
  withoutTargetInfo?: boolean;
  /**
   * More sources of metrics for the exposition only (experimental in the exporter).
   * @default undefined
   */
  metricProducers?: MetricProducer[];
}

/**
 * Where the Prometheus exporter is scraped: a listener of its own (`address`, `port`,
 * `endpoint`), or a route on a fastify app the caller owns (`app`, `endpoint`). A listener of
 * its own has the timeouts of every listener of this package (see {@link ListenerTimeouts}).
 */
export interface PrometheusEndpointOptions
  extends ListenerTimeouts, PrometheusExporterOptions {
  /**
   * Serve the exposition as a `GET` route on this app instead of a listener of its own. The route is
   * added at once, so pass an app that is not ready yet; the caller listens on and closes the app.
   * @default undefined (a listener of its own)
   */
  app?: FastifyInstance;
  /**
   * The address the listener binds. The exposition has no authentication, so it binds loopback
   * unless told otherwise. Not allowed with `app`.
   * @default `OTEL_EXPORTER_PROMETHEUS_HOST`, else '127.0.0.1'
   */
  address?: string;
  /**
   * The listener's TCP port; 0 picks a free one (see {@link MeterProviderWithLegacyApi.prometheusUrl}).
   * 9464 is Prometheus' registered port for the OpenTelemetry exporter. Not allowed with `app`.
   * @default `OTEL_EXPORTER_PROMETHEUS_PORT`, else 9464
   */
  port?: number;
  /**
   * The Host header scrapes must name (port ignored; every loopback name counts as one); `_`
   * answers any Host. Not allowed with `app`.
   * @default 'localhost' when the listener is bound to loopback, else '_'
   */
  allowedHost?: string;
  /**
   * The path of the exposition.
   * @default '/metrics'
   */
  endpoint?: string;
}

/** OTLP wire protocols this package can send. gRPC needs `@opentelemetry/exporter-metrics-otlp-grpc`. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/**
 * The OTLP push to an OpenTelemetry Collector. Endpoint, headers (`OTEL_EXPORTER_OTLP_HEADERS`),
 * per-request timeout, compression, TLS files and temporality preference
 * (`OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE`) are read from the environment by the
 * OTLP exporter itself, as the OpenTelemetry specification defines them.
 */
export interface OtlpOptions {
  /**
   * `'auto'` exports when `url` is given or `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` or
   * `OTEL_EXPORTER_OTLP_ENDPOINT` is set; `true` always exports (to `http://localhost:4318/v1/metrics`
   * when nothing names an endpoint); `false` never does.
   * @default 'auto'
   */
  enabled?: boolean | 'auto';
  /**
   * The full URL to post metrics to, e.g. `http://127.0.0.1:4318/v1/metrics`. Wins over the environment.
   * @default undefined (from `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/metrics`)
   */
  url?: string;
  /**
   * The wire protocol.
   * @default `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else 'http/protobuf'
   */
  protocol?: OtlpProtocol;
  /**
   * How often to export, in milliseconds.
   * @default `OTEL_METRIC_EXPORT_INTERVAL`, else 60000
   */
  exportIntervalMillis?: number;
  /**
   * How long one collection and export may take, in milliseconds. At most `exportIntervalMillis`.
   * @default `OTEL_METRIC_EXPORT_TIMEOUT`, else 30000 (lowered to the interval when that is shorter)
   */
  exportTimeoutMillis?: number;
}

/** Options of {@link createMeterProviderWithLegacyApi}. Every field is optional. */
export interface MeterProviderWithLegacyApiOptions {
  /**
   * Options of the {@link LegacyMetricsReader}, passed through unchanged.
   * @default {} (see DEFAULT_READER_OPTIONS)
   */
  legacy?: LegacyMetricsReaderOptions;
  /**
   * The Prometheus exporter's endpoint, or `false` for no Prometheus exporter.
   * @default { address: '127.0.0.1', port: 9464, endpoint: '/metrics' }; `false` with `cluster`
   */
  prometheus?: PrometheusEndpointOptions | false;
  /**
   * In a `node:cluster` worker: the legacy reader sends its data to the primary (its `cluster`
   * option) and its instruments to the primary's Prometheus endpoint (a
   * `createClusterPrometheusReader`), and no Prometheus listener is opened unless `prometheus`
   * is given. Its resource gets a `service.instance.id` of its own (a random UUID, unless
   * `resource` sets one), so that OTLP shows each worker as an instance. The primary serves
   * the legacy API; start no legacy listener in a worker.
   * @default false
   */
  cluster?: boolean;
  /**
   * The OTLP exporter.
   * @default { enabled: 'auto' }: on only when the environment names an OTLP endpoint
   */
  otlp?: OtlpOptions;
  /**
   * Views of the SDK, applied to every reader: the legacy API, Prometheus, OTLP and `readers`.
   * A view that renames an instrument renames it everywhere. Each is checked by the SDK at once.
   * @default [] (beside the legacy API's own usage telemetry views)
   */
  views?: ViewOptions[];
  /**
   * More readers of the same instruments, e.g. a `PeriodicExportingMetricReader` with an exporter
   * of your own. Each must be bound to no other MeterProvider; the provider built owns them:
   * `forceFlush` and `shutdown` reach them too.
   * @default []
   */
  readers?: IMetricReader[];
  /**
   * Merged over the resource read from `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`
   * (its attributes win).
   * @default undefined
   */
  resource?: Resource;
}

/** The defaults of {@link MeterProviderWithLegacyApiOptions}, shared by the code, tests and examples. */
export const DEFAULT_METER_PROVIDER_OPTIONS = Object.freeze({
  prometheus: Object.freeze({
    address: '127.0.0.1',
    port: 9464,
    endpoint: '/metrics',
  }),
  otlp: Object.freeze({
    enabled: 'auto' as const,
    protocol: 'http/protobuf' as OtlpProtocol,
    exportIntervalMillis: 60_000,
    exportTimeoutMillis: 30_000,
  }),
});

/** The protocols the OTLP options and environment may name. */
export const PROTOCOLS: readonly OtlpProtocol[] = [
  'http/protobuf',
  'http/json',
];
