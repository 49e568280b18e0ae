import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { metricShape } from '../../src/reader/metricShape';
import { createRig } from '../helpers';

/** Records once on one instrument of each type, named after its type. */
function recordEach(provider: MeterProvider): void {
  const meter = provider.getMeter('app');
  meter.createCounter('counter').add(1);
  meter.createUpDownCounter('upDownCounter').add(-1);
  meter.createGauge('gauge').record(1);
  meter.createHistogram('histogram').record(1);
  meter
    .createObservableUpDownCounter('observableUpDownCounter')
    .addCallback(result => result.observe(1));
}

/** Each metric's shape, by name. */
function shapes({ scopeMetrics }: ResourceMetrics): Record<string, string> {
  return Object.fromEntries(
    scopeMetrics[0]!.metrics.map(m => [m.descriptor.name, metricShape(m)])
  );
}

describe('metricShape', () => {
  it('should tell every instrument apart as the legacy reader collects it', async () => {
    const rig = createRig();
    try {
      recordEach(rig.provider);
      expect(shapes((await rig.reader.collect()).resourceMetrics)).toEqual({
        counter: 'monotonicSum',
        upDownCounter: 'upDownSum',
        gauge: 'gauge',
        histogram: 'exponentialHistogram',
        observableUpDownCounter: 'cumulativeGauge',
      });
    } finally {
      await rig.close();
    }
  });

  it("should give a cumulative reader's gauges and explicit-bucket histograms their shapes", async () => {
    const reader = new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 3_600_000,
    });
    const provider = new MeterProvider({ readers: [reader] });
    try {
      recordEach(provider);
      expect(shapes((await reader.collect()).resourceMetrics)).toEqual({
        counter: 'monotonicSum',
        upDownCounter: 'upDownSum',
        gauge: 'cumulativeGauge',
        histogram: 'explicitHistogram',
        observableUpDownCounter: 'upDownSum',
      });
    } finally {
      await provider.shutdown();
    }
  });
});
