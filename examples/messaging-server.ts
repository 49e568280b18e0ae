/**
 * A messaging server that serves its metrics three ways from one MeterProvider: the legacy JSON
 * API on 127.0.0.1:8088/api/metrics, Prometheus on 127.0.0.1:9464/metrics, and OTLP when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set. The traffic comes from the package's simulated server,
 * the same one `legacy-metrics-api demo` runs.
 *
 * Run it with `npx ts-node examples/messaging-server.ts` or after `npm run build` as
 * `node dist/examples/messaging-server.js`; stop it with Ctrl-C.
 */
import {
  createMeterProviderWithLegacyApi,
  startLegacyMetricsServer,
} from '../src';
import {
  DEMO_HOST_TYPES,
  startSimulatedMessagingServer,
} from '../src/demo/simulatedMessagingServer';

async function main(): Promise<void> {
  const telemetry = await createMeterProviderWithLegacyApi({
    legacy: { hostTypes: DEMO_HOST_TYPES },
  });
  const legacy = await startLegacyMetricsServer(telemetry.legacyReader, {
    port: 8088,
  });
  const traffic = startSimulatedMessagingServer(
    telemetry.meterProvider.getMeter('messaging-server')
  );
  console.log(`legacy metrics API: ${legacy.url}`);
  console.log(`Prometheus:         ${telemetry.prometheusUrl}`);
  process.once('SIGINT', () => {
    traffic.stop();
    void legacy.close().then(() => telemetry.shutdown());
  });
}

void main();
