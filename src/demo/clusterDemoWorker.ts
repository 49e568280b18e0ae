/**
 * A worker of `legacy-metrics-api demo --workers N` (the file `cluster.fork()` runs): the
 * simulated messaging server's traffic, recorded by a provider that sends it to the primary.
 */
import cluster from 'node:cluster';
import { createMeterProviderWithLegacyApi } from '../provider/createMeterProviderWithLegacyApi';
import {
  DEMO_HOST_TYPES,
  startSimulatedMessagingServer,
} from './simulatedMessagingServer';

async function main(): Promise<void> {
  const telemetry = await createMeterProviderWithLegacyApi({
    cluster: true,
    legacy: { hostTypes: DEMO_HOST_TYPES },
  });
  const traffic = startSimulatedMessagingServer(
    telemetry.meterProvider.getMeter('messaging-server')
  );
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      traffic.stop();
      // Sends the last tick's data to the primary before the worker exits.
      await telemetry.shutdown();
      process.exit(0);
    })());
  // Every timer here is unref'd: the channel to the primary keeps the worker alive until it is told to stop.
  process.channel?.ref();
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  // The primary is gone: nothing this worker records can be served any more.
  process.once('disconnect', () => void stop());
}

if (cluster.isWorker) void main();
