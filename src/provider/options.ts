/**
 * The options of {@link createMeterProviderWithLegacyApi}, their defaults, and their validation
 * (through the shared option checks, before anything starts).
 */
import type { Resource } from '@opentelemetry/resources';
import type { FastifyInstance } from 'fastify';
import type { ListenerTimeouts } from '../http/listen';
import { TIMEOUT_KEYS } from '../http/listen';
import {
  booleanOption,
  checkOptionObject,
  invalidOption,
  isPlainObject,
  nonEmptyStringOption,
  oneOfOption,
  portOption,
  positiveIntegerOption,
} from '../optionValidation';
import type { LegacyMetricsReaderOptions } from '../reader/options';

/**
 * Where the Prometheus exporter is scraped: a listener of its own (`address`, `port`,
 * `endpoint`), or a route on a fastify app the caller owns (`app`, `endpoint`). A listener of
 * its own has the timeouts of every listener of this package (see {@link ListenerTimeouts}).
 */
export interface PrometheusEndpointOptions extends ListenerTimeouts {
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
   * The address the listener binds.
   * @deprecated Use `address`; `host` names the Host header everywhere else. Removed in the next release.
   */
  host?: string;
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

/** The Prometheus options as given, checked; the environment and defaults are applied later. */
export interface CheckedPrometheus {
  readonly app: FastifyInstance | undefined;
  readonly address: string | undefined;
  readonly port: number | undefined;
  readonly allowedHost: string | undefined;
  readonly endpoint: string;
  readonly given: Record<string, unknown>;
}

/** The OTLP options as given, checked. */
export interface CheckedOtlp {
  readonly enabled: boolean | 'auto';
  readonly url: string | undefined;
  readonly protocol: OtlpProtocol | undefined;
  readonly exportIntervalMillis: number | undefined;
  readonly exportTimeoutMillis: number | undefined;
}

/** Every option, checked. */
export interface CheckedOptions {
  readonly legacy: LegacyMetricsReaderOptions;
  readonly prometheus: CheckedPrometheus | undefined;
  readonly otlp: CheckedOtlp;
  readonly resource: Resource | undefined;
}

const OPTION_KEYS = ['legacy', 'prometheus', 'otlp', 'resource', 'cluster'];
const PROMETHEUS_KEYS = [
  'app',
  'address',
  'host',
  'port',
  'allowedHost',
  'endpoint',
  ...TIMEOUT_KEYS,
];
/** Settings of a listener of its own, which a mounted route cannot have. */
const LISTENER_ONLY_KEYS = [
  'address',
  'host',
  'port',
  'allowedHost',
  ...TIMEOUT_KEYS,
];
const OTLP_KEYS = [
  'enabled',
  'url',
  'protocol',
  'exportIntervalMillis',
  'exportTimeoutMillis',
];
/** The protocols the OTLP options and environment may name. */
export const PROTOCOLS: readonly OtlpProtocol[] = [
  'http/protobuf',
  'http/json',
];
const QUERY = /[?#]/;

/** Checks the `prometheus` option (also the cluster primary's); undefined for `false`. */
export function checkPrometheus(value: unknown): CheckedPrometheus | undefined {
  if (value === false) return undefined;
  const given = value ?? {};
  checkOptionObject('prometheus', given, PROMETHEUS_KEYS, 'an object or false');
  const { app, endpoint } = given;
  if (app !== undefined) {
    if (typeof (app as { route?: unknown } | null)?.route !== 'function')
      invalidOption('prometheus.app', app, 'a fastify instance');
    for (const key of LISTENER_ONLY_KEYS) {
      if (given[key] !== undefined) {
        invalidOption(
          `prometheus.${key}`,
          given[key],
          "nothing beside prometheus.app: the app's own listener serves the route"
        );
      }
    }
  }
  if (given['address'] !== undefined && given['host'] !== undefined) {
    invalidOption(
      'prometheus.host',
      given['host'],
      'nothing beside prometheus.address (host is the deprecated name of address)'
    );
  }
  const addressKey =
    given['address'] === undefined && given['host'] !== undefined
      ? 'host'
      : 'address';
  if (
    endpoint !== undefined &&
    (typeof endpoint !== 'string' ||
      !endpoint.startsWith('/') ||
      QUERY.test(endpoint))
  ) {
    invalidOption('prometheus.endpoint', endpoint, 'a path starting with "/"');
  }
  return {
    app: app as FastifyInstance | undefined,
    address: nonEmptyStringOption(
      `prometheus.${addressKey}`,
      given['address'] ?? given['host']
    ),
    port: portOption('prometheus.port', given['port']),
    allowedHost: nonEmptyStringOption(
      'prometheus.allowedHost',
      given['allowedHost']
    ),
    endpoint:
      (endpoint as string | undefined) ??
      DEFAULT_METER_PROVIDER_OPTIONS.prometheus.endpoint,
    given,
  };
}

function checkOtlp(value: unknown): CheckedOtlp {
  if (value !== undefined && !isPlainObject(value)) {
    const hint =
      typeof value === 'boolean' ? ` such as { enabled: ${value} }` : '';
    invalidOption('otlp', value, `an object${hint}`);
  }
  const given = value ?? {};
  checkOptionObject('otlp', given, OTLP_KEYS);
  const { url } = given;
  if (url !== undefined && (typeof url !== 'string' || !URL.canParse(url)))
    invalidOption('otlp.url', url, 'an absolute URL');
  const interval = positiveIntegerOption(
    'otlp.exportIntervalMillis',
    given['exportIntervalMillis']
  );
  const timeout = positiveIntegerOption(
    'otlp.exportTimeoutMillis',
    given['exportTimeoutMillis']
  );
  if (interval !== undefined && timeout !== undefined && timeout > interval) {
    invalidOption(
      'otlp.exportTimeoutMillis',
      timeout,
      `at most otlp.exportIntervalMillis (${interval})`
    );
  }
  return {
    enabled: oneOfOption(
      'otlp.enabled',
      given['enabled'],
      [true, false, 'auto'] as const,
      DEFAULT_METER_PROVIDER_OPTIONS.otlp.enabled
    ),
    url: url as string | undefined,
    protocol:
      given['protocol'] === undefined
        ? undefined
        : oneOfOption(
            'otlp.protocol',
            given['protocol'],
            PROTOCOLS,
            'http/protobuf'
          ),
    exportIntervalMillis: interval,
    exportTimeoutMillis: timeout,
  };
}

/** Checks every option, before anything is built; never writes into `options`. */
export function checkOptions(options: unknown): CheckedOptions {
  checkOptionObject('', options, OPTION_KEYS);
  const { legacy, resource } = options;
  if (legacy !== undefined && !isPlainObject(legacy))
    invalidOption('legacy', legacy, 'an object of LegacyMetricsReader options');
  if (
    resource !== undefined &&
    !(isPlainObject(resource) && typeof resource['merge'] === 'function')
  ) {
    invalidOption(
      'resource',
      resource,
      'a Resource from @opentelemetry/resources'
    );
  }
  const cluster = booleanOption('cluster', options['cluster'], false);
  return {
    legacy: (cluster
      ? { ...legacy, cluster }
      : (legacy ?? {})) as LegacyMetricsReaderOptions,
    prometheus:
      cluster && options['prometheus'] === undefined
        ? undefined
        : checkPrometheus(options['prometheus']),
    otlp: checkOtlp(options['otlp']),
    resource: resource as Resource | undefined,
  };
}
