import { diag } from '@opentelemetry/api';
import { OTLPMetricExporter as OTLPJsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as OTLPProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import {
  defaultResource,
  detectResources,
  envDetector,
  type Resource,
} from '@opentelemetry/resources';
import {
  InstrumentType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type IMetricReader,
} from '@opentelemetry/sdk-metrics';
import type { FastifyInstance } from 'fastify';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { InvalidOptionError, ListenError } from '../errors';
import { jsonSerializer } from '../snapshot/jsonSerializer';
import { LegacyMetricsReader } from '../reader/LegacyMetricsReader';
import type { LegacyMetricsReaderOptions } from '../reader/options';
import { baseUrl, isLoopbackAddress } from '../http/startLegacyMetricsServer';
import { USAGE_VIEWS } from '../http/usageTelemetry';

/**
 * Where the Prometheus exporter is scraped: a listener of its own (`host`, `port`, `endpoint`),
 * or a route on a fastify app the caller owns (`app`, `endpoint`).
 */
export interface PrometheusEndpointOptions {
  /**
   * Serve the exposition as a `GET` route on this app instead of a listener of its own. The route is
   * added at once, so pass an app that is not ready yet; the caller listens on and closes the app.
   * @default undefined (a listener of its own)
   */
  app?: FastifyInstance;
  /**
   * The address the listener binds. The exposition has no authentication, so it binds loopback
   * unless told otherwise. Not allowed with `app`.
   * @default '127.0.0.1'
   */
  host?: string;
  /**
   * The listener's TCP port; 0 picks a free one (see {@link MeterProviderWithLegacyApi.prometheusUrl}).
   * 9464 is Prometheus' registered port for the OpenTelemetry exporter. Not allowed with `app`.
   * @default 9464
   */
  port?: number;
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
   * @default { host: '127.0.0.1', port: 9464, endpoint: '/metrics' }
   */
  prometheus?: PrometheusEndpointOptions | false;
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
    host: '127.0.0.1',
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

const OPTION_KEYS = new Set(['legacy', 'prometheus', 'otlp', 'resource']);
const PROMETHEUS_KEYS = new Set(['app', 'host', 'port', 'endpoint']);
const OTLP_KEYS = new Set([
  'enabled',
  'url',
  'protocol',
  'exportIntervalMillis',
  'exportTimeoutMillis',
]);
const PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'http/json'];
const QUERY = /\?.*$/s;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  return String(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(
  what: string,
  value: Record<string, unknown>,
  known: ReadonlySet<string>
): void {
  for (const key of Object.keys(value)) {
    if (!known.has(key))
      throw new InvalidOptionError(`unknown option ${what}${key}`);
  }
}

function positiveInteger(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidOptionError(
      `${name} must be a positive integer (got ${describe(value)})`
    );
  }
  return value;
}

/** An environment variable; empty means unset, as the OpenTelemetry specification requires. */
function fromEnv(name: string): string | undefined {
  const value = process.env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** A duration from the environment; an invalid one is ignored with a warning, as the specification asks. */
function millisFromEnv(name: string): number | undefined {
  const raw = fromEnv(name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (Number.isSafeInteger(value) && value > 0) return value;
  diag.warn(
    `${name} must be a positive integer of milliseconds (got ${JSON.stringify(raw)}); using the default`
  );
  return undefined;
}

function protocolFromEnv(): OtlpProtocol | undefined {
  for (const name of [
    'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL',
    'OTEL_EXPORTER_OTLP_PROTOCOL',
  ]) {
    const raw = fromEnv(name);
    if (raw === undefined) continue;
    if ((PROTOCOLS as readonly string[]).includes(raw))
      return raw as OtlpProtocol;
    // Falling back would post HTTP to what is most likely a gRPC port: refuse instead.
    throw new InvalidOptionError(
      `${name} must be "http/protobuf" or "http/json" (got ${JSON.stringify(raw)}); ` +
        'for an OpenTelemetry Collector, use http/protobuf on its port 4318'
    );
  }
  return undefined;
}

interface ResolvedPrometheus {
  readonly app: FastifyInstance | undefined;
  readonly host: string;
  readonly port: number;
  readonly endpoint: string;
}

interface ResolvedOtlp {
  readonly url: string | undefined;
  readonly protocol: OtlpProtocol;
  readonly exportIntervalMillis: number;
  readonly exportTimeoutMillis: number;
}

interface Resolved {
  readonly legacy: LegacyMetricsReaderOptions;
  readonly prometheus: ResolvedPrometheus | undefined;
  readonly otlp: ResolvedOtlp | undefined;
  readonly resource: Resource | undefined;
}

function resolvePrometheus(value: unknown): ResolvedPrometheus | undefined {
  if (value === false) return undefined;
  const defaults = DEFAULT_METER_PROVIDER_OPTIONS.prometheus;
  if (value === undefined) return { app: undefined, ...defaults };
  if (!isPlainObject(value)) {
    throw new InvalidOptionError(
      `prometheus must be an object or false (got ${describe(value)})`
    );
  }
  checkKeys('prometheus.', value, PROMETHEUS_KEYS);
  const { app, host, port, endpoint } = value;
  if (app !== undefined) {
    if (!isPlainObject(app) && typeof app !== 'function') {
      throw new InvalidOptionError(
        `prometheus.app must be a fastify instance (got ${describe(app)})`
      );
    }
    if (typeof (app as { route?: unknown }).route !== 'function') {
      throw new InvalidOptionError(
        'prometheus.app must be a fastify instance (it has no route method)'
      );
    }
    for (const [name, given] of [
      ['host', host],
      ['port', port],
    ] as const) {
      if (given !== undefined) {
        throw new InvalidOptionError(
          `prometheus.${name} cannot be used with prometheus.app: the app's own listener serves the route`
        );
      }
    }
  }
  if (host !== undefined && (typeof host !== 'string' || host === '')) {
    throw new InvalidOptionError(
      `prometheus.host must be a non-empty string (got ${describe(host)})`
    );
  }
  if (
    port !== undefined &&
    (typeof port !== 'number' ||
      !Number.isInteger(port) ||
      port < 0 ||
      port > 65535)
  ) {
    throw new InvalidOptionError(
      `prometheus.port must be an integer from 0 to 65535 (got ${describe(port)})`
    );
  }
  if (
    endpoint !== undefined &&
    (typeof endpoint !== 'string' ||
      !endpoint.startsWith('/') ||
      QUERY.test(endpoint))
  ) {
    throw new InvalidOptionError(
      `prometheus.endpoint must be a path starting with "/" (got ${describe(endpoint)})`
    );
  }
  return {
    app: app as FastifyInstance | undefined,
    host: (host as string | undefined) ?? defaults.host,
    port: (port as number | undefined) ?? defaults.port,
    endpoint: (endpoint as string | undefined) ?? defaults.endpoint,
  };
}

function resolveOtlp(value: unknown): ResolvedOtlp | undefined {
  if (value !== undefined && !isPlainObject(value)) {
    const hint =
      typeof value === 'boolean' ? `; use { enabled: ${value} }` : '';
    throw new InvalidOptionError(
      `otlp must be an object (got ${describe(value)})${hint}`
    );
  }
  const options = value ?? {};
  checkKeys('otlp.', options, OTLP_KEYS);
  const {
    enabled = DEFAULT_METER_PROVIDER_OPTIONS.otlp.enabled,
    url,
    protocol,
  } = options;
  if (enabled !== true && enabled !== false && enabled !== 'auto') {
    throw new InvalidOptionError(
      `otlp.enabled must be true, false or "auto" (got ${describe(enabled)})`
    );
  }
  if (url !== undefined && (typeof url !== 'string' || !URL.canParse(url))) {
    throw new InvalidOptionError(
      `otlp.url must be an absolute URL (got ${describe(url)})`
    );
  }
  if (
    protocol !== undefined &&
    !(PROTOCOLS as readonly unknown[]).includes(protocol)
  ) {
    throw new InvalidOptionError(
      `otlp.protocol must be "http/protobuf" or "http/json" (got ${describe(protocol)})`
    );
  }
  const interval = positiveInteger(
    'otlp.exportIntervalMillis',
    options.exportIntervalMillis
  );
  const timeout = positiveInteger(
    'otlp.exportTimeoutMillis',
    options.exportTimeoutMillis
  );
  if (interval !== undefined && timeout !== undefined && timeout > interval) {
    throw new InvalidOptionError(
      `otlp.exportTimeoutMillis must not exceed otlp.exportIntervalMillis (got ${timeout} and ${interval})`
    );
  }
  const on =
    enabled === 'auto'
      ? url !== undefined ||
        fromEnv('OTEL_EXPORTER_OTLP_METRICS_ENDPOINT') !== undefined ||
        fromEnv('OTEL_EXPORTER_OTLP_ENDPOINT') !== undefined
      : enabled;
  if (!on) return undefined;
  const defaults = DEFAULT_METER_PROVIDER_OPTIONS.otlp;
  const exportIntervalMillis =
    interval ??
    millisFromEnv('OTEL_METRIC_EXPORT_INTERVAL') ??
    defaults.exportIntervalMillis;
  const configuredTimeout =
    timeout ??
    millisFromEnv('OTEL_METRIC_EXPORT_TIMEOUT') ??
    defaults.exportTimeoutMillis;
  return {
    url: url as string | undefined,
    protocol:
      (protocol as OtlpProtocol | undefined) ??
      protocolFromEnv() ??
      defaults.protocol,
    exportIntervalMillis,
    // The SDK requires timeout <= interval; a default or environment timeout follows a shorter interval.
    exportTimeoutMillis: Math.min(configuredTimeout, exportIntervalMillis),
  };
}

function resolveOptions(options: unknown): Resolved {
  if (!isPlainObject(options))
    throw new InvalidOptionError(
      `options must be an object (got ${describe(options)})`
    );
  checkKeys('', options, OPTION_KEYS);
  const { legacy, resource } = options;
  if (legacy !== undefined && !isPlainObject(legacy)) {
    throw new InvalidOptionError(
      `legacy must be an object of LegacyMetricsReader options (got ${describe(legacy)})`
    );
  }
  if (
    resource !== undefined &&
    !(isPlainObject(resource) && typeof resource.merge === 'function')
  ) {
    throw new InvalidOptionError(
      `resource must be a Resource from @opentelemetry/resources (got ${describe(resource)})`
    );
  }
  return {
    legacy: (legacy ?? {}) as LegacyMetricsReaderOptions,
    prometheus: resolvePrometheus(options.prometheus),
    otlp: resolveOtlp(options.otlp),
    resource: resource as Resource | undefined,
  };
}

/**
 * The official exporter with the legacy reader's cardinality limit. The exporter's configuration
 * has no cardinality option, and the SDK's default (2000 per instrument) would fold host types
 * beyond it into an overflow series that the legacy API does not show.
 */
class PrometheusExporterWithLimit extends PrometheusExporter {
  constructor(private readonly _limit: (type: InstrumentType) => number) {
    // Serving is done by the setup: the exporter's own server reads port 0 as 9464 and cannot say what it bound.
    super({ preventServerStart: true });
  }

  override selectCardinalityLimit(instrumentType: InstrumentType): number {
    return this._limit(instrumentType);
  }
}

function createOtlpExporter(
  otlp: ResolvedOtlp
): OTLPProtoMetricExporter | OTLPJsonMetricExporter {
  const config = otlp.url === undefined ? {} : { url: otlp.url };
  return otlp.protocol === 'http/json'
    ? new OTLPJsonMetricExporter(config)
    : new OTLPProtoMetricExporter(config);
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(
        new ListenError(
          `cannot listen on ${host}:${port} for Prometheus: ${error.code ?? error.message}`
        )
      );
    };
    server.once('error', onError);
    server.listen({ host, port }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise(resolve => {
    server.close(() => resolve());
    // Prometheus keeps its scrape connection alive: close it rather than wait for its timeout.
    server.closeAllConnections();
  });
}

/**
 * Builds a MeterProvider that feeds, from the same instruments and at the same time, the legacy
 * JSON API (a {@link LegacyMetricsReader}), the Prometheus exposition (the official
 * `@opentelemetry/exporter-prometheus`) and, when an endpoint is configured, OTLP to an
 * OpenTelemetry Collector. Users can then move from legacy pollers to Prometheus scraping or OTLP
 * one consumer at a time while all of them show the same numbers.
 *
 * The resource comes from `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. OTLP honours
 * `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_METRIC_EXPORT_TIMEOUT` and the exporter's own
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
  const legacyReader = new LegacyMetricsReader(resolved.legacy);
  const limit = (type: InstrumentType): number =>
    legacyReader.selectCardinalityLimit(type);
  const prometheusExporter =
    resolved.prometheus === undefined
      ? undefined
      : new PrometheusExporterWithLimit(limit);
  const otlpReader =
    resolved.otlp === undefined
      ? undefined
      : new PeriodicExportingMetricReader({
          exporter: createOtlpExporter(resolved.otlp),
          exportIntervalMillis: resolved.otlp.exportIntervalMillis,
          exportTimeoutMillis: resolved.otlp.exportTimeoutMillis,
          cardinalityLimits: { default: limit(InstrumentType.COUNTER) },
        });

  const readers: IMetricReader[] = [legacyReader];
  if (prometheusExporter !== undefined) readers.push(prometheusExporter);
  if (otlpReader !== undefined) readers.push(otlpReader);
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resolved.resource ?? null);
  // One recording per request of the legacy API's usage telemetry, whatever the readers.
  const meterProvider = new MeterProvider({
    resource,
    readers,
    views: [...USAGE_VIEWS],
  });

  let stopped = false;
  const serveExposition = (
    request: IncomingMessage,
    response: ServerResponse
  ): void => {
    if (stopped || prometheusExporter === undefined) {
      response.writeHead(503, { 'content-type': jsonSerializer.contentType });
      response.end(
        jsonSerializer.error('unavailable', 'the meter provider is shut down')
      );
      return;
    }
    prometheusExporter.getMetricsRequestHandler(request, response);
  };

  let server: Server | undefined;
  let prometheusUrl: string | undefined;
  const prometheus = resolved.prometheus;
  if (prometheus !== undefined) {
    if (prometheus.app !== undefined) {
      try {
        prometheus.app.route({
          method: 'GET',
          url: prometheus.endpoint,
          handler: (request, reply) => {
            reply.hijack();
            serveExposition(request.raw, reply.raw);
          },
        });
      } catch (error) {
        await meterProvider.shutdown();
        throw new InvalidOptionError(
          `prometheus.app cannot take the route ${prometheus.endpoint}: ${(error as Error).message}`
        );
      }
    } else {
      const endpoint = prometheus.endpoint;
      server = createServer((request, response) => {
        const path = (request.url ?? '').replace(QUERY, '');
        if (
          path === endpoint &&
          (request.method === 'GET' || request.method === 'HEAD')
        ) {
          serveExposition(request, response);
          return;
        }
        response.writeHead(path === endpoint ? 405 : 404, {
          'content-type': jsonSerializer.contentType,
        });
        response.end(
          path === endpoint
            ? jsonSerializer.error(
                'method_not_allowed',
                `${request.method} is not allowed; allowed: GET, HEAD`
              )
            : jsonSerializer.error('not_found', `no such resource: ${path}`)
        );
      });
      try {
        await listen(server, prometheus.host, prometheus.port);
      } catch (error) {
        await meterProvider.shutdown();
        throw error;
      }
      server.unref();
      const address = server.address();
      const bound =
        typeof address === 'object' && address !== null
          ? address
          : { address: prometheus.host, port: prometheus.port };
      prometheusUrl = `${baseUrl(bound.address, bound.port)}${endpoint}`;
      if (!isLoopbackAddress(bound.address)) {
        diag.warn(
          `Prometheus exposition bound to ${bound.address}:${bound.port}: it has no authentication, so anyone ` +
            'who can reach this address can read every metric; bind to loopback or restrict access with a firewall'
        );
      }
    }
  }

  let shuttingDown: Promise<void> | undefined;
  const shutdown = async (): Promise<void> => {
    stopped = true;
    try {
      await meterProvider.shutdown();
    } finally {
      if (server !== undefined) await closeServer(server);
    }
  };

  return {
    meterProvider,
    legacyReader,
    prometheusExporter,
    prometheusUrl,
    otlpReader,
    // Deprecation: the legacy API points its pollers at this provider's Prometheus endpoint.
    legacyApiOptions: { meterProvider, defaultSuccessor: prometheusUrl },
    forceFlush: () => meterProvider.forceFlush(),
    shutdown: () => (shuttingDown ??= shutdown()),
  };
}
