/**
 * The options of the one-call setup validated, then resolved with the `OTEL_*` environment and
 * the defaults, before anything is built: one resolved value per option group.
 */
import type { Resource } from '@opentelemetry/resources';
import type { FastifyInstance } from 'fastify';
import { isLoopbackAddress, LOOPBACK_HOST } from '../hostNames';
import { ANY_HOST } from '../http/hostConstraint';
import { resolveTimeouts, TIMEOUT_KEYS } from '../http/listenerPlan';
import type { ListenerTimeouts } from '../config/types';
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
import {
  resolveReaderOptions,
  type LegacyMetricsReaderOptions,
} from '../reader/options';
import {
  fromEnv,
  millisFromEnv,
  portFromEnv,
  protocolFromEnv,
} from './environment';
import {
  DEFAULT_METER_PROVIDER_OPTIONS,
  PROTOCOLS,
  type OtlpOptions,
  type OtlpProtocol,
  type PrometheusExporterOptions,
} from './options';
import {
  EXPORTER_KEYS,
  prometheusExporterOptions,
  readersOption,
  viewsOption,
} from './sdkOptions';

/** The Prometheus exposition as it will be served: mounted on the caller's app, or on a listener of its own. */
export type ResolvedPrometheus = {
  readonly endpoint: string;
  readonly exporter: PrometheusExporterOptions;
} & (
  | { readonly app: FastifyInstance; readonly listener: undefined }
  | {
      readonly app: undefined;
      readonly listener: {
        readonly address: string;
        readonly port: number;
        /** The Host header scrapes must name; `_` for any. */
        readonly allowedHost: string;
        readonly timeouts: Required<ListenerTimeouts>;
      };
    }
);

/** OTLP as it will run: every option but `enabled` settled, `url` still optional. */
export type ResolvedOtlp = Readonly<
  Required<Omit<OtlpOptions, 'enabled' | 'url'>> & Pick<OtlpOptions, 'url'>
>;

const OPTION_KEYS = [
  'legacy',
  'prometheus',
  'otlp',
  'views',
  'readers',
  'resource',
  'cluster',
];
const PROMETHEUS_KEYS = [
  'app',
  'address',
  'port',
  'allowedHost',
  'endpoint',
  ...TIMEOUT_KEYS,
  ...EXPORTER_KEYS,
];
/** Settings of a listener of its own, which a mounted route cannot have. */
const LISTENER_ONLY_KEYS = ['address', 'port', 'allowedHost', ...TIMEOUT_KEYS];
const OTLP_KEYS = [
  'enabled',
  'url',
  'protocol',
  'exportIntervalMillis',
  'exportTimeoutMillis',
];
const QUERY = /[?#]/;

/**
 * The exposition as it will be served. A listener of its own binds the options' address and
 * port, else `OTEL_EXPORTER_PROMETHEUS_HOST` and `OTEL_EXPORTER_PROMETHEUS_PORT` (the
 * specification's variables), else the defaults.
 */
export function resolvePrometheus(
  value: unknown
): ResolvedPrometheus | undefined {
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
  if (
    endpoint !== undefined &&
    (typeof endpoint !== 'string' ||
      !endpoint.startsWith('/') ||
      QUERY.test(endpoint))
  ) {
    invalidOption('prometheus.endpoint', endpoint, 'a path starting with "/"');
  }
  const defaults = DEFAULT_METER_PROVIDER_OPTIONS.prometheus;
  const served = {
    endpoint: (endpoint as string | undefined) ?? defaults.endpoint,
    exporter: prometheusExporterOptions(given),
  };
  if (app !== undefined)
    return { ...served, app: app as FastifyInstance, listener: undefined };
  const address =
    nonEmptyStringOption('prometheus.address', given['address']) ??
    fromEnv('OTEL_EXPORTER_PROMETHEUS_HOST') ??
    defaults.address;
  const port =
    portOption('prometheus.port', given['port']) ??
    portFromEnv('OTEL_EXPORTER_PROMETHEUS_PORT') ??
    defaults.port;
  return {
    ...served,
    app: undefined,
    listener: {
      address,
      port,
      allowedHost:
        nonEmptyStringOption('prometheus.allowedHost', given['allowedHost']) ??
        (isLoopbackAddress(address) ? LOOPBACK_HOST : ANY_HOST),
      timeouts: resolveTimeouts('prometheus', given),
    },
  };
}

/** OTLP with the environment under the options; undefined when it is off. */
function resolveOtlp(value: unknown): ResolvedOtlp | undefined {
  const given = value === undefined ? {} : value;
  const hint =
    typeof value === 'boolean' ? ` such as { enabled: ${value} }` : '';
  checkOptionObject('otlp', given, OTLP_KEYS, `an object${hint}`);
  const { url } = given;
  if (url !== undefined && (typeof url !== 'string' || !URL.canParse(url)))
    invalidOption('otlp.url', url, 'an absolute URL');
  const millis = (key: string): number | undefined =>
    positiveIntegerOption(`otlp.${key}`, given[key]);
  const interval = millis('exportIntervalMillis');
  const timeout = millis('exportTimeoutMillis');
  if (interval !== undefined && timeout !== undefined && timeout > interval) {
    invalidOption(
      'otlp.exportTimeoutMillis',
      timeout,
      `at most otlp.exportIntervalMillis (${interval})`
    );
  }
  const enabled = oneOfOption(
    'otlp.enabled',
    given['enabled'],
    [true, false, 'auto'] as const,
    DEFAULT_METER_PROVIDER_OPTIONS.otlp.enabled
  );
  const protocol = oneOfOption<OtlpProtocol | undefined>(
    'otlp.protocol',
    given['protocol'],
    PROTOCOLS,
    undefined
  );
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
    protocol: protocol ?? protocolFromEnv() ?? defaults.protocol,
    exportIntervalMillis,
    // The SDK requires timeout <= interval; a default or environment timeout follows a shorter interval.
    exportTimeoutMillis: Math.min(configuredTimeout, exportIntervalMillis),
  };
}

/**
 * Validates every option, then applies the environment and the defaults: what the one-call
 * setup builds from. Nothing is built before; `options` is never written into.
 * @throws InvalidOptionError naming the option's full path (`prometheus.port`, `legacy.windowMs`)
 */
export function resolveOptions(options: unknown) {
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
  const prometheus =
    cluster && options['prometheus'] === undefined
      ? undefined
      : resolvePrometheus(options['prometheus']);
  const otlp = resolveOtlp(options['otlp']);
  const views = viewsOption(options['views']);
  const readers = readersOption(options['readers']);
  const legacyOptions = (
    cluster ? { ...legacy, cluster } : (legacy ?? {})
  ) as LegacyMetricsReaderOptions;
  // Checked here, so that a reader option error names its full path (`legacy.windowMs`).
  const { slotMs } = resolveReaderOptions(legacyOptions, 'legacy');
  return {
    cluster,
    // The legacy reader's slot, which a cluster worker's Prometheus reader ticks with.
    slotMs,
    legacy: legacyOptions,
    prometheus,
    otlp,
    views,
    readers,
    resource: resource as Resource | undefined,
  };
}
