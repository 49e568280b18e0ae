import { diag, DiagLogLevel } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import {
  AggregationTemporality,
  AggregationType,
  InstrumentType,
  MeterProvider,
} from '@opentelemetry/sdk-metrics';
import { LegacyMetricsReader } from '../../src';
import { createRig, read, type Rig } from '../helpers';
import { captureDiag } from '../support/diag';
import { takeWarningCodes, takeWarnings } from '../support/warnings';
import { WARNING_CODES } from '../../src/warnings';

let rig: Rig;
afterEach(async () => {
  await rig?.close();
});

describe('LegacyMetricsReader', () => {
  describe('constructor', () => {
    it('should choose delta temporality, exponential histograms and a cardinality limit for itself', () => {
      const reader = new LegacyMetricsReader({
        cardinalityLimit: 12_345,
        histogramMaxBuckets: 256,
      });
      expect(reader.selectAggregationTemporality(InstrumentType.COUNTER)).toBe(
        AggregationTemporality.DELTA
      );
      expect(
        reader.selectAggregationTemporality(InstrumentType.OBSERVABLE_GAUGE)
      ).toBe(AggregationTemporality.DELTA);
      expect(reader.selectAggregation(InstrumentType.HISTOGRAM)).toEqual({
        type: 5, // AggregationType.EXPONENTIAL_HISTOGRAM
        options: { maxSize: 256, recordMinMax: true },
      });
      expect(reader.selectCardinalityLimit(InstrumentType.COUNTER)).toBe(
        12_345
      );
    });

    it('should take observable up-down counters as cumulative last values, which are exact', () => {
      const reader = new LegacyMetricsReader();
      expect(
        reader.selectAggregationTemporality(
          InstrumentType.OBSERVABLE_UP_DOWN_COUNTER
        )
      ).toBe(AggregationTemporality.CUMULATIVE);
      expect(
        reader.selectAggregation(InstrumentType.OBSERVABLE_UP_DOWN_COUNTER)
      ).toEqual({ type: AggregationType.LAST_VALUE });
      expect(
        reader.selectAggregationTemporality(InstrumentType.UP_DOWN_COUNTER)
      ).toBe(AggregationTemporality.DELTA);
    });

    it('should serve an empty listing before it is registered', () => {
      const reader = new LegacyMetricsReader({ hostTypes: ['localhost'] });
      expect(read(reader, 'metrics').json).toEqual({
        host_types: ['localhost'],
        metrics: [],
        global: [],
      });
    });
  });

  describe('spirals (Counter, ObservableCounter)', () => {
    it('should serve count since start and one within the window, dropping back once the window passes', async () => {
      // Spec: `one` = sum over the last 60 s, 1 s slots, current second included.
      rig = createRig();
      const sent = rig.provider.getMeter('m').createCounter('xmppMessageSent');
      sent.add(3, { host_type: 'localhost' });
      await rig.flush();
      expect(
        read(rig.reader, 'metrics/host_type/localhost/xmppMessageSent').json
      ).toEqual({ metric: { count: 3, one: 3 } });
      await rig.advance(30_000);
      sent.add(2, { host_type: 'localhost' });
      await rig.flush();
      expect(
        read(rig.reader, 'metrics/host_type/localhost/xmppMessageSent').json
      ).toEqual({ metric: { count: 5, one: 5 } });
      await rig.advance(30_000);
      expect(
        read(rig.reader, 'metrics/host_type/localhost/xmppMessageSent').json
      ).toEqual({ metric: { count: 5, one: 2 } });
      await rig.advance(30_000);
      expect(
        read(rig.reader, 'metrics/host_type/localhost/xmppMessageSent').json
      ).toEqual({ metric: { count: 5, one: 0 } });
    });

    it('should keep the data of the 59 slots before the current one in `one`', async () => {
      rig = createRig();
      const sent = rig.provider.getMeter('m').createCounter('c');
      sent.add(1, { host_type: 'h' });
      await rig.flush();
      await rig.advance(59_000);
      expect(read(rig.reader, 'metrics/host_type/h/c').json.metric.one).toBe(1);
      await rig.advance(1_000);
      expect(read(rig.reader, 'metrics/host_type/h/c').json.metric.one).toBe(0);
    });

    it('should honour windowMs and slotMs', async () => {
      rig = createRig({ windowMs: 5_000, slotMs: 500 });
      const sent = rig.provider.getMeter('m').createCounter('c');
      sent.add(4);
      await rig.flush();
      await rig.advance(4_500);
      expect(read(rig.reader, 'metrics/global/c').json.metric).toEqual({
        count: 4,
        one: 4,
      });
      await rig.advance(500);
      expect(read(rig.reader, 'metrics/global/c').json.metric).toEqual({
        count: 4,
        one: 0,
      });
    });

    it('should turn an observable counter into increases', async () => {
      rig = createRig();
      let total = 10;
      rig.provider
        .getMeter('m')
        .createObservableCounter('logins')
        .addCallback(result => result.observe(total, { host_type: 'h' }));
      await rig.flush();
      total = 15;
      await rig.advance(1_000);
      expect(
        read(rig.reader, 'metrics/host_type/h/logins').json.metric
      ).toEqual({ count: 15, one: 15 });
      await rig.advance(59_000);
      expect(
        read(rig.reader, 'metrics/host_type/h/logins').json.metric
      ).toEqual({ count: 15, one: 5 });
    });
  });

  describe('counters and gauges', () => {
    it('should serve an up-down counter as value and ms since the series was created', async () => {
      rig = createRig();
      const sessions = rig.provider
        .getMeter('m')
        .createUpDownCounter('sessionCount');
      sessions.add(3, { host_type: 'h' });
      await rig.flush();
      await rig.advance(2_000);
      sessions.add(-1, { host_type: 'h' });
      await rig.advance(1_500);
      expect(read(rig.reader, 'metrics/host_type/h/sessionCount').json).toEqual(
        {
          metric: { value: 2, ms_since_reset: 3_500 },
        }
      );
    });

    it('should follow an observable up-down counter', async () => {
      rig = createRig();
      let queue = 4;
      rig.provider
        .getMeter('m')
        .createObservableUpDownCounter('queue')
        .addCallback(result => result.observe(queue));
      await rig.flush();
      queue = 1;
      await rig.advance(1_000);
      expect(read(rig.reader, 'metrics/global/queue').json.metric.value).toBe(
        1
      );
    });

    it('should serve the last gauge value, synchronous or observable', async () => {
      rig = createRig();
      const meter = rig.provider.getMeter('m');
      const gauge = meter.createGauge('clusterSize');
      let uptime = 7;
      meter
        .createObservableGauge('nodeUpTime')
        .addCallback(result => result.observe(uptime));
      gauge.record(1);
      gauge.record(2);
      await rig.flush();
      uptime = 8;
      await rig.advance(1_000);
      expect(read(rig.reader, 'metrics/global').json.metrics).toEqual({
        clusterSize: { value: 2, ms_since_reset: 1_000 },
        nodeUpTime: { value: 8, ms_since_reset: 1_000 },
      });
      // A gauge that is not recorded again keeps its last value.
      await rig.advance(120_000);
      expect(
        read(rig.reader, 'metrics/global/clusterSize').json.metric.value
      ).toBe(2);
    });
  });

  describe('histograms', () => {
    it('should serve n, exact mean, min and max over the window, and drop to zeros after it', async () => {
      rig = createRig();
      const histogram = rig.provider
        .getMeter('m')
        .createHistogram('stanzaSize');
      for (const value of [10, 20, 30, 40])
        histogram.record(value, { host_type: 'h' });
      await rig.flush();
      const { metric } = read(
        rig.reader,
        'metrics/host_type/h/stanzaSize'
      ).json;
      expect(metric).toMatchObject({ n: 4, mean: 25, min: 10, max: 40 });
      expect(Object.keys(metric).sort()).toEqual([
        '50',
        '75',
        '90',
        '95',
        '99',
        '999',
        'max',
        'mean',
        'median',
        'min',
        'n',
      ]);
      expect(metric.median).toBe(metric['50']);
      expect(metric['999']).toBe(40);
      await rig.advance(60_000);
      expect(
        Object.values(
          read(rig.reader, 'metrics/host_type/h/stanzaSize').json.metric
        )
      ).toEqual(Array(11).fill(0));
    });

    it('should truncate every field of an integer histogram, as the original did', async () => {
      rig = createRig();
      const histogram = rig.provider
        .getMeter('m')
        .createHistogram('latency', { valueType: 0 });
      for (const value of [1, 2]) histogram.record(value);
      await rig.flush();
      const { metric } = read(rig.reader, 'metrics/global/latency').json;
      expect(metric.mean).toBe(1);
      expect(Object.values(metric).every(v => Number.isInteger(v))).toBe(true);
    });

    it('should keep fractions of a double histogram', async () => {
      rig = createRig();
      const histogram = rig.provider.getMeter('m').createHistogram('latency');
      for (const value of [1, 2]) histogram.record(value);
      await rig.flush();
      expect(read(rig.reader, 'metrics/global/latency').json.metric.mean).toBe(
        1.5
      );
    });

    it('should leave the explicit buckets the Prometheus exporter sees unchanged', async () => {
      const reader = new LegacyMetricsReader();
      const prometheus = new PrometheusExporter({ preventServerStart: true });
      const provider = new MeterProvider({ readers: [reader, prometheus] });
      rig = { close: () => provider.shutdown() } as Rig;
      provider.getMeter('m').createHistogram('latency').record(7);
      await reader.forceFlush();
      const { resourceMetrics } = await prometheus.collect();
      const metric = resourceMetrics.scopeMetrics[0]!.metrics[0]!;
      expect(metric.dataPointType).toBe(0); // DataPointType.HISTOGRAM: explicit buckets
      expect(metric.aggregationTemporality).toBe(
        AggregationTemporality.CUMULATIVE
      );
      expect(read(reader, 'metrics/global/latency').json.metric.n).toBe(1);
    });
  });

  describe('placement and names', () => {
    it('should place data points by host_type, host or neither, per variant', async () => {
      rig = createRig();
      const sent = rig.provider.getMeter('m').createCounter('sent');
      sent.add(1, { host_type: 'ht', host: 'a.example' });
      sent.add(2, { host_type: 'ht', host: 'b.example' });
      sent.add(4, { host_type: 'other' });
      sent.add(8);
      await rig.flush();
      // A host type sums its domains.
      expect(
        read(rig.reader, 'metrics/host_type/ht/sent').json.metric.count
      ).toBe(3);
      expect(
        read(rig.reader, 'metrics/host_type/other/sent').json.metric.count
      ).toBe(4);
      expect(read(rig.reader, 'metrics/global/sent').json.metric.count).toBe(8);
      expect(read(rig.reader, 'metrics').json.host_types).toEqual([
        'ht',
        'other',
      ]);
      // The host variant places by host, falling back to host_type.
      expect(
        read(rig.reader, 'metrics/host/a.example/sent', 'host').json.metric
          .count
      ).toBe(1);
      expect(
        read(rig.reader, 'metrics/host/b.example/sent', 'host').json.metric
          .count
      ).toBe(2);
      expect(
        read(rig.reader, 'metrics/host/other/sent', 'host').json.metric.count
      ).toBe(4);
      expect(read(rig.reader, 'metrics', 'host').json.hosts).toEqual([
        'a.example',
        'b.example',
        'other',
      ]);
      expect(read(rig.reader, 'metrics/all/sent').json.metric.count).toBe(15);
    });

    it('should append the remaining attribute values, sorted by key, to the instrument name', async () => {
      rig = createRig();
      const auth = rig.provider.getMeter('m').createHistogram('backends.auth');
      auth.record(5, { operation: 'authorize', host_type: 'h' });
      rig.provider
        .getMeter('m')
        .createCounter('erlang')
        .add(1, { zz: 'last', aa: 'first' });
      await rig.flush();
      expect(
        Object.keys(read(rig.reader, 'metrics/host_type/h').json.metrics)
      ).toEqual(['backends.auth.authorize']);
      expect(
        Object.keys(read(rig.reader, 'metrics/global').json.metrics)
      ).toEqual(['erlang.first.last']);
      // Multi-part names are in the maps but not in the listing, as in the original.
      expect(read(rig.reader, 'metrics').json).toEqual({
        host_types: ['h'],
        metrics: [],
        global: [],
      });
    });

    it('should rename or drop series with legacyName, once per attribute set', async () => {
      const calls: string[] = [];
      rig = createRig({
        legacyName: (name, attributes) => {
          calls.push(`${name}:${String(attributes.host_type)}`);
          return name === 'internal' ? undefined : `renamed_${name}`;
        },
      });
      const meter = rig.provider.getMeter('m');
      meter.createCounter('internal').add(1, { host_type: 'h' });
      meter.createCounter('sent').add(1, { host_type: 'h' });
      await rig.flush();
      meter.createCounter('sent').add(1, { host_type: 'h' });
      await rig.advance(1_000);
      expect(read(rig.reader, 'metrics/host_type/h').json).toEqual({
        metrics: { renamed_sent: { count: 2, one: 2 } },
      });
      expect(calls.sort()).toEqual(['internal:h', 'sent:h']);
    });

    it('should leave out a second instrument whose legacy name clashes with another kind, and warn', async () => {
      const warnings = captureDiag().warn;
      rig = createRig({ legacyName: () => 'same' });
      const meter = rig.provider.getMeter('m');
      meter.createCounter('a').add(1);
      meter.createGauge('b').record(5);
      await rig.flush();
      diag.disable();
      expect(read(rig.reader, 'metrics/global/same').json).toEqual({
        metric: { count: 1, one: 1 },
      });
      expect(warnings).toEqual([
        'LegacyMetricsReader: legacy name same is given by instrument a of meter "m" (a spiral) and by instrument b of meter "m" (a gauge); ' +
          'the first registered is served, and the gauge is left out of that name',
      ]);
      expect(takeWarnings()).toEqual(
        warnings.map(message => ({
          code: WARNING_CODES.seriesLeftOut,
          message,
        }))
      );
    });
  });

  describe('declared host types and all-global mode', () => {
    it('should list declared host types first and answer for them with zero values', async () => {
      rig = createRig({ hostTypes: ['localhost', 'test type'] });
      const meter = rig.provider.getMeter('m');
      meter.createCounter('sent').add(1, { host_type: 'localhost' });
      meter.createUpDownCounter('sessions').add(2, { host_type: 'localhost' });
      meter.createCounter('sent').add(1, { host_type: 'dynamic' });
      await rig.flush();
      expect(read(rig.reader, 'metrics').json.host_types).toEqual([
        'localhost',
        'test type',
        'dynamic',
      ]);
      expect(read(rig.reader, 'metrics/host_type/test_type').json).toEqual({
        metrics: {
          sent: { count: 0, one: 0 },
          sessions: { value: 0, ms_since_reset: 0 },
        },
      });
    });

    it('should fold per-host-type data into global metrics when all metrics are global', async () => {
      rig = createRig({ hostTypes: ['a', 'b'], allMetricsAreGlobal: true });
      const sent = rig.provider.getMeter('m').createCounter('xmppMessageSent');
      sent.add(1, { host_type: 'a' });
      sent.add(2, { host_type: 'b' });
      await rig.flush();
      expect(read(rig.reader, 'metrics').json).toEqual({
        host_types: ['a', 'b'],
        metrics: [],
        global: ['xmppMessageSent'],
      });
      expect(
        read(rig.reader, 'metrics/global/xmppMessageSent').json.metric
      ).toEqual({ count: 3, one: 3 });
      expect(read(rig.reader, 'metrics/all').json).toEqual({ metrics: [] });
      expect(
        read(rig.reader, 'metrics/all/xmppMessageSent').json.metric
      ).toEqual({ count: 3, one: 3 });
      expect(read(rig.reader, 'metrics/host_type/a').status).toBe(404);
    });
  });

  describe('forceFlush', () => {
    it('should make everything recorded before the call visible in the next response', async () => {
      rig = createRig();
      const counter = rig.provider.getMeter('m').createCounter('c');
      counter.add(1);
      expect(read(rig.reader, 'metrics/global/c').status).toBe(404);
      await rig.reader.forceFlush();
      expect(read(rig.reader, 'metrics/global/c').json.metric.count).toBe(1);
    });

    it('should publish a new snapshot per tick and reuse bodies within one', async () => {
      rig = createRig();
      rig.provider.getMeter('m').createCounter('c').add(1);
      await rig.flush();
      const snapshot = rig.reader.snapshot;
      const first = read(rig.reader, 'metrics/global/c');
      expect(rig.reader.snapshot).toBe(snapshot);
      expect(read(rig.reader, 'metrics/global/c')).toEqual(first);
      await rig.flush();
      expect(rig.reader.snapshot.generation).toBe(snapshot.generation + 1);
    });
  });

  describe('ticking', () => {
    afterEach(() => {
      jest.useRealTimers();
    });

    it('should collect once per slot by itself, so served data is at most one slot old', async () => {
      jest.useFakeTimers({ now: 1_700_000_000_000 });
      const reader = new LegacyMetricsReader();
      const provider = new MeterProvider({ readers: [reader] });
      rig = { close: () => provider.shutdown() } as Rig;
      provider.getMeter('m').createCounter('c').add(5, { host_type: 'h' });
      await jest.advanceTimersByTimeAsync(1_000);
      expect(read(reader, 'metrics/host_type/h/c').json.metric).toEqual({
        count: 5,
        one: 5,
      });
      await jest.advanceTimersByTimeAsync(60_000);
      expect(read(reader, 'metrics/host_type/h/c').json.metric).toEqual({
        count: 5,
        one: 0,
      });
      expect(reader.snapshot.generation).toBeGreaterThanOrEqual(60);
    });

    it('should keep serving the last snapshot when a tick fails, and report the failure', async () => {
      const errors = captureDiag(DiagLogLevel.ERROR).error;
      rig = createRig();
      let fail = false;
      const meter = rig.provider.getMeter('m');
      meter.createCounter('c').add(1);
      meter.createObservableGauge('g').addCallback(result => {
        if (fail) throw new Error('callback failed');
        result.observe(1);
      });
      await rig.flush();
      fail = true;
      await rig.flush();
      diag.disable();
      expect(read(rig.reader, 'metrics/global/c').json.metric.count).toBe(1);
      expect(errors.length).toBeGreaterThan(0);
      expect(takeWarningCodes()).toEqual([WARNING_CODES.collectError]);
    });

    it('should stop ticking at shutdown, and shut down once', async () => {
      jest.useFakeTimers({ now: 1_700_000_000_000 });
      const reader = new LegacyMetricsReader();
      const provider = new MeterProvider({ readers: [reader] });
      rig = { close: async () => undefined } as Rig;
      await provider.shutdown();
      const generation = reader.snapshot.generation;
      await jest.advanceTimersByTimeAsync(5_000);
      expect(reader.snapshot.generation).toBe(generation);
      expect(jest.getTimerCount()).toBe(0);
    });
  });
});
