import { isAbsolute, join, relative } from 'node:path';
import {
  DEMO_HOST_TYPES,
  startSimulatedMessagingServer,
} from '../demo/simulatedMessagingServer';
import type { LegacyApiConfig } from '../config/types';
import {
  createMeterProviderWithLegacyApi,
  type PrometheusEndpointOptions,
} from '../provider/createMeterProviderWithLegacyApi';
import {
  startLegacyMetricsListeners,
  type RunningLegacyListener,
} from '../http/startLegacyMetricsListeners';
import {
  canonicalHost,
  isLoopbackAddress,
  LOOPBACK_HOST,
} from '../optionValidation';
import { requireLegacyApiListener } from './checkConfigCommand';
import { packageRoot } from '../packageInfo';
import { describeDeprecation } from './describeDeprecation';
import { startClusterDemo } from '../demo/clusterDemo';

/** Where the demo listens. */
export interface DemoOptions {
  /** The configuration whose listeners serve the legacy API (as `loadLegacyApiConfig` returns it). */
  config: LegacyApiConfig;
  /**
   * The Prometheus exporter's listener, passed to `createMeterProviderWithLegacyApi` as is, or
   * `false` for none.
   * @default {} (the setup's defaults and the OTEL_EXPORTER_PROMETHEUS_* variables)
   */
  prometheus?: Pick<PrometheusEndpointOptions, 'address' | 'port'> | false;
  /**
   * How many `node:cluster` workers make the traffic; above 1 the primary serves the whole
   * server's legacy API and Prometheus (see docs/cluster.md).
   * @default 1 (one process)
   */
  workers?: number;
  /** Where to print what is going on. */
  out: (line: string) => void;
}

/** What `legacy-metrics-api demo` uses when not told otherwise. */
export const DEFAULT_DEMO_OPTIONS = Object.freeze({
  /** The configuration file, relative to the package's root (not the working directory). */
  config: 'examples/server.toml',
  /** How long `stop()` lets requests in flight finish before closing their connections. */
  graceMs: 3_000,
});

/** A running demo. */
export interface RunningDemo {
  /** Every handler group serving the legacy API, as bound. */
  readonly listeners: readonly RunningLegacyListener[];
  /** The Prometheus exposition's URL; undefined without the exporter. */
  readonly prometheusUrl: string | undefined;
  /**
   * Stops accepting, lets requests in flight finish (for at most `graceMs`), then stops the
   * traffic and shuts the provider down, flushing OTLP. Idempotent.
   */
  stop(): Promise<void>;
}

/**
 * The demo's default configuration file, named relative to the working directory when it lies
 * below it (so messages stay short), absolute otherwise.
 */
export function defaultDemoConfigPath(cwd: string = process.cwd()): string {
  const file = join(packageRoot(), DEFAULT_DEMO_OPTIONS.config);
  const shown = relative(cwd, file);
  return shown.startsWith('..') || isAbsolute(shown) ? file : shown;
}

/**
 * Starts the simulated messaging server with the legacy API on the listeners of a configuration
 * file, the official Prometheus exporter and, when the standard OTEL_EXPORTER_OTLP_* variables
 * name an endpoint, OTLP: all from one MeterProvider.
 * @throws ConfigError when no listener of the configuration serves the legacy API
 * @throws ListenError when a listener or Prometheus cannot bind; nothing is left running
 */
export async function startDemo(options: DemoOptions): Promise<RunningDemo> {
  const { config } = options;
  requireLegacyApiListener(config);
  if ((options.workers ?? 1) > 1) {
    const running = await startClusterDemo(
      config,
      options.prometheus ?? {},
      options.workers!,
      options.out
    );
    printStartup(options, running.listeners, running.prometheusUrl);
    return {
      listeners: running.listeners,
      prometheusUrl: running.prometheusUrl,
      stop: () => running.stop(DEFAULT_DEMO_OPTIONS.graceMs),
    };
  }
  // The one-call setup: the legacy reader, Prometheus, and OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  const telemetry = await createMeterProviderWithLegacyApi({
    legacy: { hostTypes: DEMO_HOST_TYPES },
    prometheus:
      options.prometheus === false ? false : { ...options.prometheus },
  });
  const legacy = await startLegacyMetricsListeners(
    telemetry.legacyReader,
    config.listeners,
    { file: config.file, ...telemetry.legacyApiOptions }
  ).catch(async (error: unknown) => {
    await telemetry.shutdown();
    throw error;
  });
  const traffic = startSimulatedMessagingServer(
    telemetry.meterProvider.getMeter('messaging-server')
  );
  const prometheusUrl = telemetry.prometheusUrl;
  printStartup(options, legacy.listeners, prometheusUrl);
  let stopping: Promise<void> | undefined;
  return {
    listeners: legacy.listeners,
    prometheusUrl,
    stop: () =>
      (stopping ??= (async () => {
        await legacy.close({ graceMs: DEFAULT_DEMO_OPTIONS.graceMs });
        traffic.stop();
        await telemetry.shutdown();
      })()),
  };
}

/** What the demo prints once it serves: each listener, Prometheus, and curl commands to try. */
function printStartup(
  options: DemoOptions,
  listeners: readonly RunningLegacyListener[],
  prometheusUrl: string | undefined
): void {
  const { config } = options;
  for (const listener of listeners) {
    options.out(startupLine(listener));
    const group = config.listeners
      .flatMap(({ handlerGroups }) => handlerGroups)
      .find(({ place }) => place === listener.place);
    for (const line of describeDeprecation(
      group?.deprecation,
      '  ',
      18,
      prometheusUrl
    ))
      options.out(line);
  }
  if (prometheusUrl !== undefined)
    options.out(`Prometheus:         ${prometheusUrl}`);
  options.out('try:');
  for (const line of curlExamples(listeners[0]!)) options.out(`  ${line}`);
  if (prometheusUrl !== undefined) options.out(`  curl ${prometheusUrl}`);
}

/** `legacy metrics API: <url> (bound to 127.0.0.1:8088, Host localhost, variant host_type, max_connections 1024, no authentication)`. */
function startupLine(listener: RunningLegacyListener): string {
  const host = listener.host === '_' ? 'any Host' : `Host ${listener.host}`;
  const cap =
    listener.maxConnections === Infinity
      ? 'infinity'
      : String(listener.maxConnections);
  const exposure = isLoopbackAddress(listener.address)
    ? 'no authentication'
    : 'no authentication, reachable from other machines';
  const bound = listener.address.includes(':')
    ? `[${listener.address}]:${listener.port}`
    : `${listener.address}:${listener.port}`;
  return (
    `legacy metrics API: ${curlUrl(listener)} ` +
    `(bound to ${bound}, ${host}, variant ${listener.variant}, max_connections ${cap}, ${exposure})`
  );
}

/** The API's URL as a client on this machine reaches it: a wildcard bind is reached over loopback. */
function curlUrl(listener: RunningLegacyListener): string {
  if (listener.address === '0.0.0.0')
    return listener.metricsUrl.replace('//0.0.0.0:', '//127.0.0.1:');
  if (listener.address === '::')
    return listener.metricsUrl.replace('//[::]:', '//[::1]:');
  return listener.metricsUrl;
}

/** curl commands for the demo's metrics, with a Host header when the handler group needs one. */
function curlExamples(listener: RunningLegacyListener): string[] {
  const base = curlUrl(listener);
  // Any host, or a loopback name, answers curl at 127.0.0.1 without a Host header.
  const curl =
    listener.host === '_' || canonicalHost(listener.host) === LOOPBACK_HOST
      ? 'curl'
      : `curl -H 'Host: ${listener.host}'`;
  const group = `${listener.variant}/${DEMO_HOST_TYPES[0]}`;
  return [
    `${curl} ${base}`,
    `${curl} ${base}/${group}`,
    `${curl} ${base}/${group}/xmppMessageSent`,
    `${curl} ${base}/all`,
    `${curl} ${base}/global`,
    `${curl} -H 'Accept: application/xml' ${base}/global/nodeUpTime`,
  ];
}
