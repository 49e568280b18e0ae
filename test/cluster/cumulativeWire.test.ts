import {
  MeterProvider,
  PeriodicExportingMetricReader,
  InMemoryMetricExporter,
  AggregationTemporality,
} from '@opentelemetry/sdk-metrics';
import { WireError } from '../../src/cluster/decodeCollection';
import { decodeCumulative } from '../../src/cluster/decodeCumulative';
import {
  encodeCumulativeChanges,
  SentValues,
} from '../../src/cluster/encodeCumulative';

/** A provider whose reader collects cumulatively, with the SDK's default (explicit-bucket) histograms. */
function cumulativeRig(): {
  provider: MeterProvider;
  collect: () => ReturnType<PeriodicExportingMetricReader['collect']>;
} {
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  const provider = new MeterProvider({ readers: [reader] });
  return { provider, collect: () => reader.collect() };
}

describe('encodeCumulativeChanges', () => {
  it('should send every series first, then only those whose value changed, and nothing when none did', async () => {
    const { provider, collect } = cumulativeRig();
    try {
      const meter = provider.getMeter('app', '1.0.0');
      const sent = meter.createCounter('sent', {
        description: 'messages',
        unit: '{message}',
      });
      const latency = meter.createHistogram('latency', {
        advice: { explicitBucketBoundaries: [10, 100] },
      });
      sent.add(1, { host_type: 'a' });
      sent.add(2, { host_type: 'b' });
      latency.record(50, { host_type: 'a' });
      const previous = new SentValues();
      const first = encodeCumulativeChanges(
        (await collect()).resourceMetrics,
        previous
      );
      expect(first.refused).toEqual([]);
      const decoded = decodeCumulative(first.body!);
      expect(decoded).toEqual([
        {
          scope: { name: 'app', version: '1.0.0' },
          metrics: [
            {
              name: 'sent',
              kind: 's',
              integer: false,
              description: 'messages',
              unit: '{message}',
              boundaries: [],
              points: [
                {
                  attributes: { host_type: 'a' },
                  key: '{"host_type":"a"}',
                  value: 1,
                },
                {
                  attributes: { host_type: 'b' },
                  key: '{"host_type":"b"}',
                  value: 2,
                },
              ],
            },
            {
              name: 'latency',
              kind: 'x',
              integer: false,
              description: '',
              unit: '',
              boundaries: [10, 100],
              points: [
                {
                  attributes: { host_type: 'a' },
                  key: '{"host_type":"a"}',
                  value: {
                    count: 1,
                    sum: 50,
                    min: 50,
                    max: 50,
                    counts: [0, 1, 0],
                  },
                },
              ],
            },
          ],
        },
      ]);
      sent.add(5, { host_type: 'b' });
      const second = encodeCumulativeChanges(
        (await collect()).resourceMetrics,
        previous
      );
      expect(decodeCumulative(second.body!)[0]!.metrics).toEqual([
        expect.objectContaining({
          name: 'sent',
          points: [
            {
              attributes: { host_type: 'b' },
              key: '{"host_type":"b"}',
              value: 7,
            },
          ],
        }),
      ]);
      expect(
        encodeCumulativeChanges((await collect()).resourceMetrics, previous)
          .body
      ).toBeUndefined();
      // A message lost: the caller clears what was sent, and everything goes again.
      previous.clear();
      const again = decodeCumulative(
        encodeCumulativeChanges((await collect()).resourceMetrics, previous)
          .body!
      );
      expect(again[0]!.metrics.map(m => m.points.length)).toEqual([2, 1]);
    } finally {
      await provider.shutdown();
    }
  });
  it('should send a NaN once, and a histogram again only when a record changed it', async () => {
    const { provider, collect } = cumulativeRig();
    try {
      const meter = provider.getMeter('app');
      meter.createGauge('load').record(Number.NaN, { host_type: 'a' });
      const latency = meter.createHistogram('latency');
      latency.record(5, { host_type: 'a' });
      const sent = new SentValues();
      const encode = async (): Promise<string | undefined> =>
        encodeCumulativeChanges((await collect()).resourceMetrics, sent).body;
      expect(
        decodeCumulative((await encode())!)[0]!.metrics.map(m => m.name)
      ).toEqual(['load', 'latency']);
      expect(await encode()).toBeUndefined();
      latency.record(0, { host_type: 'a' });
      const changed = decodeCumulative((await encode())!)[0]!.metrics;
      expect(changed.map(m => [m.name, m.points[0]!.value])).toEqual([
        ['latency', expect.objectContaining({ count: 2, sum: 5, min: 0 })],
      ]);
    } finally {
      await provider.shutdown();
    }
  });
});

describe('decodeCumulative', () => {
  const body = (metric: unknown[]): string =>
    JSON.stringify({
      v: 2,
      a: [{ host_type: 'a' }],
      c: [['app', null, null, [metric]]],
    });
  const histogram = (boundaries: unknown, value: unknown): string =>
    body(['latency', 'x', 0, '', '', boundaries, [[0, value]]]);

  it.each([
    [
      body(['sent', 'h', 0, '', '', null, []]),
      'meter 0 metric 0 kind: expected one of s, u, g, x',
    ],
    [
      body(['sent', 's', 0, '', '', [1], []]),
      'meter 0 metric 0 boundaries: expected null',
    ],
    [
      body(['sent', 's', 0, 7, '', null, []]),
      'meter 0 metric 0 description: expected a string',
    ],
    [
      body(['sent', 's', 0, '', '', null, [[0, '7']]]),
      'meter 0 metric 0 point 0 value: expected a number or null',
    ],
    [
      histogram([2, 1], [0, 0, 0, 0, [0, 0, 0]]),
      'meter 0 metric 0 boundaries: expected increasing finite numbers',
    ],
    [
      histogram([1, 2], [5, 1, 1, 1, [1, 1, 1]]),
      'meter 0 metric 0 point 0 value count: expected the sum of the bucket counts',
    ],
    [
      histogram([1, 2], [2, 1, 1, 1, [1, 1]]),
      'meter 0 metric 0 point 0 value counts: expected an array of 3 items',
    ],
    [JSON.stringify({ v: 2, a: [], s: [] }), 'body.c: expected an array'],
  ])('should refuse %s', (text, message) => {
    const [where, expected] = message.split(': expected ');
    expect(() => decodeCumulative(text)).toThrow(
      new WireError(where!, expected!)
    );
  });
});
