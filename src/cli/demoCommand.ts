import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { DEMO_HOST_TYPES, startSimulatedMessagingServer } from '../../examples/messaging-server';
import { ListenError } from '../errors';
import { LegacyMetricsReader } from '../LegacyMetricsReader';
import { startLegacyMetricsServer } from '../startLegacyMetricsServer';

/** Where the demo listens. */
export interface DemoOptions {
  legacyPort: number;
  prometheusPort: number;
  /** Where to print what is going on. */
  out: (line: string) => void;
}

export const DEFAULT_DEMO_OPTIONS = Object.freeze({ legacyPort: 8088, prometheusPort: 9464 });

/** A running demo. */
export interface RunningDemo {
  readonly legacyUrl: string;
  readonly prometheusUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts the simulated messaging server with the legacy API and the official Prometheus
 * exporter on one MeterProvider, both on loopback.
 */
export async function startDemo(options: DemoOptions): Promise<RunningDemo> {
  const reader = new LegacyMetricsReader({ hostTypes: DEMO_HOST_TYPES });
  const prometheus = new PrometheusExporter({ host: '127.0.0.1', port: options.prometheusPort, preventServerStart: true });
  const provider = new MeterProvider({ readers: [reader, prometheus] });
  let legacy;
  try {
    await prometheus.startServer().catch((error: NodeJS.ErrnoException) => {
      throw new ListenError(`cannot listen on 127.0.0.1:${options.prometheusPort} for Prometheus: ${error.code ?? error.message}`);
    });
    legacy = await startLegacyMetricsServer(reader, { port: options.legacyPort });
  } catch (error) {
    await provider.shutdown();
    throw error;
  }
  const traffic = startSimulatedMessagingServer(provider.getMeter('messaging-server'));
  let stopping: Promise<void> | undefined;
  const prometheusUrl = `http://127.0.0.1:${options.prometheusPort}/metrics`;
  options.out(`legacy metrics API: ${legacy.url}/api/metrics (bound to 127.0.0.1, no authentication)`);
  options.out(`Prometheus:         ${prometheusUrl}`);
  options.out('try:');
  options.out(`  curl ${legacy.url}/api/metrics`);
  options.out(`  curl ${legacy.url}/api/metrics/host_type/localhost`);
  options.out(`  curl ${legacy.url}/api/metrics/host_type/localhost/xmppMessageSent`);
  options.out(`  curl ${legacy.url}/api/metrics/all`);
  options.out(`  curl ${legacy.url}/api/metrics/global`);
  options.out(`  curl -H 'Accept: application/xml' ${legacy.url}/api/metrics/global/nodeUpTime`);
  options.out(`  curl ${prometheusUrl}`);
  return {
    legacyUrl: legacy.url,
    prometheusUrl,
    stop: () =>
      (stopping ??= (async () => {
        traffic.stop();
        await legacy.close();
        await provider.shutdown();
      })()),
  };
}
