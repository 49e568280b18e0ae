/**
 * OpenTelemetry's NodeSDK with the HTTP auto-instrumentation, and the legacy reader beside the
 * Prometheus exporter. Load it before the application's own modules (as main.ts does, or with
 * `node --require ./telemetry.js`): the instrumentation patches `node:http` when the application
 * requires it after the SDK has started.
 */
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { LegacyMetricsReader } from '../../src';

/** Serves the application's own meters only: instrumentation libraries' meters are left out. */
export const legacy = new LegacyMetricsReader({ hostTypes: ['localhost'] });
/** Served on the application's port (see main.ts) rather than on a port of the exporter's. */
export const prometheus = new PrometheusExporter({ preventServerStart: true });
export const sdk = new NodeSDK({
  serviceName: 'messaging-server',
  metricReaders: [legacy, prometheus],
  instrumentations: [new HttpInstrumentation()],
  // Metrics only: without span processors, NodeSDK exports the instrumentation's spans over OTLP
  // (to localhost:4318 unless OTEL_EXPORTER_OTLP_ENDPOINT says otherwise).
  spanProcessors: [],
});
sdk.start();
