/**
 * An application started with NodeSDK and the HTTP auto-instrumentation (telemetry.ts).
 * Prometheus shows everything: the application's own `xmppMessageSent` and the
 * instrumentation's `http.server.*`. The legacy API shows only the application's metrics: the
 * reader leaves out the meters of OpenTelemetry instrumentation libraries (docs/reader.md).
 *
 * After `npm run build`: `node dist/examples/node-sdk/main.js`, then
 * `curl -X POST http://127.0.0.1:8080/messages` (the application),
 * `curl http://127.0.0.1:8080/metrics` (Prometheus) and `curl http://127.0.0.1:8088/api/metrics`
 * (the legacy API). `PORT` and `LEGACY_API_PORT` move them (0: a free port). Stop it with Ctrl-C
 * or SIGTERM.
 */
// First: the SDK starts before node:http is required below.
import { legacy, prometheus, sdk } from './telemetry';
import { metrics } from '@opentelemetry/api';
import { createServer } from 'node:http';
import { startLegacyMetricsServer } from '../../src';

const sent = metrics
  .getMeter('messaging-server')
  .createCounter('xmppMessageSent');

const app = createServer((request, response) => {
  if (request.url === '/metrics') {
    prometheus.getMetricsRequestHandler(request, response);
  } else if (request.method === 'POST' && request.url === '/messages') {
    sent.add(1, { host_type: 'localhost' });
    response.writeHead(202).end();
  } else {
    response.writeHead(404).end();
  }
});

async function main(): Promise<void> {
  await new Promise<void>(listening =>
    app.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', listening)
  );
  const legacyServer = await startLegacyMetricsServer(legacy, {
    port: Number(process.env.LEGACY_API_PORT ?? 8088),
  });
  const address = app.address();
  const port =
    typeof address === 'object' && address !== null ? address.port : 0;
  console.log(`application:        http://127.0.0.1:${port}/messages`);
  console.log(`Prometheus:         http://127.0.0.1:${port}/metrics`);
  console.log(`legacy metrics API: ${legacyServer.url}/api/metrics`);

  const stop = (): void => {
    app.close();
    void legacyServer.close().then(() => sdk.shutdown());
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main();
