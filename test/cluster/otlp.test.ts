/**
 * OTLP stays per worker: each worker set up by createMeterProviderWithLegacyApi({ cluster: true })
 * exports as an instance of its own, so a collector sees N instances (docs/cluster.md).
 */
import {
  startOtlpReceiver,
  type OtlpReceiver,
} from '../realClients/otlpReceiver';
import { startCluster } from './clusterHarness';

describe('createMeterProviderWithLegacyApi in cluster workers', () => {
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });

  afterAll(() => receiver?.close());

  it('should export OTLP from every worker with a service.instance.id of its own', async () => {
    const running = await startCluster({
      SETUP: 'config',
      WORKERS: '2',
      ROLE: 'provider',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'messaging-server',
      // Inherited by every worker: the worker's own id wins over it.
      OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=shared',
    });
    try {
      await running.waitFor(e => e.event === 'recorded', 2);
      const sent = (request: (typeof receiver.requests)[number]): boolean =>
        request.points.some(p => p.metric === 'sent');
      const deadline = Date.now() + 20_000;
      let instances = new Set<unknown>();
      while (instances.size < 2 && Date.now() < deadline) {
        await new Promise(done => setTimeout(done, 100));
        instances = new Set(
          receiver.requests
            .filter(sent)
            .map(r => r.resource['service.instance.id'])
        );
      }
      expect(instances.size).toBe(2);
      for (const id of instances)
        expect(id).toMatch(
          /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
        );
      for (const request of receiver.requests.filter(sent))
        expect(request.resource['service.name']).toBe('messaging-server');
    } finally {
      await running.stop();
    }
  }, 30_000);
});
