import { diag, DiagLogLevel } from '@opentelemetry/api';
import { isAbsolute, join, relative } from 'node:path';
import { loadLegacyApiConfig } from '../config/loadLegacyApiConfig';
import {
  DEMO_HOST_TYPES,
  startSimulatedMessagingServer,
} from '../demo/simulatedMessagingServer';
import type { LegacyApiConfig } from '../config/types';
import {
  createMeterProviderWithLegacyApi,
  DEFAULT_METER_PROVIDER_OPTIONS,
  type PrometheusEndpointOptions,
} from '../provider/createMeterProviderWithLegacyApi';
import {
  startLegacyMetricsListeners,
  type RunningLegacyListener,
} from '../http/startLegacyMetricsListeners';
import { canonicalHost, isLoopbackAddress, LOOPBACK_HOST } from '../hostNames';
import { hostPort } from '../http/listen';
import { connectionCap, requireLegacyApiListener } from './checkConfigCommand';
import { packageRoot } from '../packageInfo';
import { type CliCommand, printUsage } from './cliCommand';
import { describeDeprecation } from './describeDeprecation';
import { parseCommandLine, type ParsedCommandLine } from './parseCommandLine';
import { watchSignals } from './signals';
import { UsageError } from './UsageError';
import { startClusterDemo, type RunningDemo } from '../demo/clusterDemo';

export type { RunningDemo } from '../demo/clusterDemo';

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
      options.out,
      DEFAULT_DEMO_OPTIONS.graceMs
    );
    printStartup(options, running.listeners, running.prometheusUrl);
    return running;
  }
  // The one-call setup: the legacy reader, Prometheus, and OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  const telemetry = await createMeterProviderWithLegacyApi({
    legacy: { hostTypes: DEMO_HOST_TYPES },
    prometheus: options.prometheus ?? {},
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
  const exposure = isLoopbackAddress(listener.address)
    ? 'no authentication'
    : 'no authentication, reachable from other machines';
  return (
    `legacy metrics API: ${curlUrl(listener)} ` +
    `(bound to ${hostPort(listener.address, listener.port)}, ${host}, variant ${listener.variant}, max_connections ${connectionCap(listener.maxConnections)}, ${exposure})`
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

const PROMETHEUS_DEFAULTS = DEFAULT_METER_PROVIDER_OPTIONS.prometheus;

/** `demo --help`. */
const DEMO_USAGE = `Usage: legacy-metrics-api demo [--config FILE] [--prometheus-port PORT]
       [--prometheus-host ADDRESS | --no-prometheus] [--workers N]

Runs a simulated messaging server for two host types. It serves the legacy metrics API on the
listeners of the messaging server configuration FILE and Prometheus on
http://${PROMETHEUS_DEFAULTS.address}:${PROMETHEUS_DEFAULTS.port}${PROMETHEUS_DEFAULTS.endpoint} until interrupted. On SIGINT (Ctrl-C) or SIGTERM it
stops accepting, lets requests in flight finish (at most ${DEFAULT_DEMO_OPTIONS.graceMs / 1000} s), flushes and exits 0;
a second signal exits at once.

Options:
  --config FILE             TOML or Erlang-term configuration file (default: ${DEFAULT_DEMO_OPTIONS.config}
                            in this package, which serves http://127.0.0.1:8088/api/metrics)
  --prometheus-port PORT    The Prometheus exporter's port; 0 picks a free one (default:
                            OTEL_EXPORTER_PROMETHEUS_PORT, else ${PROMETHEUS_DEFAULTS.port})
  --prometheus-host ADDRESS The address it binds (default: OTEL_EXPORTER_PROMETHEUS_HOST,
                            else ${PROMETHEUS_DEFAULTS.address})
  --no-prometheus           No Prometheus exporter
  --workers N               Run as a node:cluster server of N workers: the primary serves the
                            whole server's legacy API and Prometheus (default: 1, one process)
  -h, --help                Show this help`;

const PORT = /^\d{1,5}$/;

/** The demo's Prometheus endpoint from its options: only what was given, so the setup's defaults and environment apply. */
function prometheusOption(
  values: ParsedCommandLine['values']
): DemoOptions['prometheus'] {
  const port = values['prometheus-port'] as string | undefined;
  const host = values['prometheus-host'] as string | undefined;
  if (values['no-prometheus'] === true) {
    if (port !== undefined || host !== undefined)
      throw new UsageError(
        `demo: found --no-prometheus with --prometheus-${port === undefined ? 'host' : 'port'}, expected one or the other`
      );
    return false;
  }
  if (port !== undefined && (!PORT.test(port) || Number(port) > 65535))
    throw new UsageError(
      `demo: found --prometheus-port ${JSON.stringify(port)}, expected an integer from 0 to 65535`
    );
  return {
    ...(host === undefined ? {} : { address: host }),
    ...(port === undefined ? {} : { port: Number(port) }),
  };
}

/** `legacy-metrics-api demo`: runs the demo until SIGINT or SIGTERM. */
export const demoCommand: CliCommand = async (args, io) => {
  const { values } = parseCommandLine('demo', args, {
    options: {
      config: { type: 'string', valueName: 'FILE' },
      'prometheus-port': { type: 'string', valueName: 'PORT' },
      'prometheus-host': { type: 'string', valueName: 'ADDRESS' },
      'no-prometheus': { type: 'boolean' },
      workers: { type: 'string', valueName: 'N' },
    },
  });
  if (values.help === true) return printUsage(io.out, DEMO_USAGE);
  const prometheus = prometheusOption(values);
  const workers = (values.workers as string | undefined) ?? '1';
  if (!/^[1-9][0-9]{0,2}$/.test(workers))
    throw new UsageError(
      `demo: found --workers ${JSON.stringify(workers)}, expected an integer from 1 to 999`
    );
  const config = await loadLegacyApiConfig(
    (values.config as string | undefined) ?? defaultDemoConfigPath()
  );
  // The package's own warnings reach stderr through process.emitWarning; the SDK's and the
  // exporters' errors (a failed OTLP export) only through diag, so errors are printed too.
  diag.setLogger(
    {
      error: (message: string) => io.err(`legacy-metrics-api: ${message}`),
      warn: () => undefined,
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true }
  );
  // Listening for signals before starting, so that one during startup is not the default kill.
  const signals = watchSignals();
  try {
    const running = await startDemo({
      config,
      prometheus,
      workers: Number(workers),
      out: io.out,
    });
    io.out('press Ctrl-C to stop');
    await signals.first;
    io.out('stopping (a second Ctrl-C exits at once)');
    await running.stop();
  } finally {
    signals.release();
    diag.disable();
  }
  return 0;
};
