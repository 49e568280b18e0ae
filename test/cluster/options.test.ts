import Fastify from 'fastify';
import {
  createClusterPrimaryWithLegacyApi,
  createClusterPrometheusReader,
  createMeterProviderWithLegacyApi,
  InvalidOptionError,
  LegacyClusterAggregator,
  legacyMetricsApi,
  LegacyMetricsReader,
} from '../../src';

const NOT_A_WORKER =
  'cluster: found true, expected false outside a node:cluster worker (this process has no IPC ' +
  'channel to a cluster primary): give cluster: true to the readers of the workers that ' +
  'cluster.fork() starts, and serve them from a LegacyClusterAggregator in the primary';

describe('the cluster option of LegacyMetricsReader', () => {
  it.each([
    ['yes', 'cluster: found "yes", expected a boolean'],
    [1, 'cluster: found 1, expected a boolean'],
    [true, NOT_A_WORKER],
  ])(
    'should refuse cluster: %p here with a message naming it',
    (value, message) => {
      expect(
        () => new LegacyMetricsReader({ cluster: value as boolean })
      ).toThrow(new InvalidOptionError(message));
    }
  );

  it('should be refused by createMeterProviderWithLegacyApi outside a worker', async () => {
    await expect(
      createMeterProviderWithLegacyApi({ cluster: 'on' as unknown as boolean })
    ).rejects.toThrow('cluster: found "on", expected a boolean');
    await expect(
      createMeterProviderWithLegacyApi({ cluster: true })
    ).rejects.toThrow(NOT_A_WORKER);
  });
});

describe('LegacyClusterAggregator', () => {
  describe('constructor', () => {
    it.each([
      [
        { windowMs: 1500 },
        'windowMs: found 1500, expected a multiple of slotMs (1000)',
      ],
      [{ silentSlots: 0 }, 'silentSlots: found 0, expected a positive integer'],
      [
        { maxMessageBytes: -1 },
        'maxMessageBytes: found -1, expected a positive integer',
      ],
      [
        { gauges: { load: 'median' } },
        'gauges.load: found "median", expected one of "sum", "max", "min", "average"',
      ],
      [
        { gauges: ['max'] },
        'gauges: found an array, expected an object of legacy names and rules',
      ],
      [
        { cardinalityLimit: 5 },
        "cardinalityLimit: found 5, expected nothing: it is an option of the workers' readers",
      ],
      [
        { cluster: true },
        "cluster: found true, expected nothing: it is an option of the workers' readers",
      ],
      [
        { sliceMs: 5 },
        "sliceMs: found 5, expected nothing: it is an option of the workers' readers",
      ],
    ])("should refuse %p with the reader's own checks", (options, message) => {
      expect(() => new LegacyClusterAggregator(options as object)).toThrow(
        new InvalidOptionError(message)
      );
    });
  });

  describe('start', () => {
    let aggregator: LegacyClusterAggregator | undefined;
    afterEach(() => aggregator?.shutdown());

    it('should be served by legacyMetricsApi: 503 before start, declared host types zero-filled once started', async () => {
      aggregator = new LegacyClusterAggregator({ hostTypes: ['a', 'b'] });
      const app = Fastify();
      await app.register(legacyMetricsApi, {
        reader: aggregator,
        prefix: '/api',
      });
      try {
        const before = await app.inject('/api/metrics');
        expect(before.statusCode).toBe(503);
        expect(before.json()).toEqual({
          error: 'unavailable',
          message: 'the cluster aggregator is not started',
        });
        // Jest's process is no cluster worker: it counts as a primary.
        expect(aggregator.start()).toBe(aggregator);
        expect(aggregator.status).toBe('serving');
        const listing = await app.inject('/api/metrics');
        expect(listing.statusCode).toBe(200);
        expect(listing.json()).toEqual({
          host_types: ['a', 'b'],
          metrics: [],
          global: [],
        });
        await aggregator.shutdown();
        expect(aggregator.status).toBe('shutdown');
        const after = await app.inject('/api/metrics');
        expect(after.statusCode).toBe(503);
        expect(after.json().message).toBe(
          'the cluster aggregator is shut down'
        );
      } finally {
        await app.close();
      }
    });
  });
});

describe('createClusterPrimaryWithLegacyApi', () => {
  it.each([
    [
      { server: { port: 0 }, prometheus: { port: -1 } },
      'prometheus.port: found -1, expected an integer from 0 to 65535',
    ],
    [
      { server: { port: 0 }, prometheus: 'on' },
      'prometheus: found "on", expected an object or false',
    ],
    [
      { server: { port: 0 }, resources: {} },
      'resources: found an unknown option, expected one of legacy, server, config, listeners, prometheus, resource',
    ],
  ])('should refuse %p before anything starts', async (options, message) => {
    await expect(
      createClusterPrimaryWithLegacyApi(options as never)
    ).rejects.toThrow(message);
  });

  it('should create createClusterPrometheusReader only in a worker', () => {
    expect(() => createClusterPrometheusReader()).toThrow(
      'createClusterPrometheusReader: found true, expected false outside a node:cluster worker'
    );
  });
});
