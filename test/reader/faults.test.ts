import { diag } from '@opentelemetry/api';
import { AggregationType, MeterProvider } from '@opentelemetry/sdk-metrics';
import { XMLValidator } from 'fast-xml-parser';
import { LegacyMetricsReader } from '../../src';
import { jsonSerializer } from '../../src/snapshot/jsonSerializer';
import { xmlSerializer } from '../../src/snapshot/xmlSerializer';
import { WARNING_CODES, WARNING_TYPE } from '../../src/warnings';
import { createRig, read, type Rig } from '../helpers';
import { captureDiag } from '../support/diag';

let rig: Rig;
let emitted: jest.SpyInstance;
let diagErrors: string[];

/** The operator warnings emitted so far (the calls are passed through: Node still prints them). */
function warnings(): Array<{ code: unknown; message: unknown }> {
  return emitted.mock.calls
    .filter(
      ([, options]) => (options as { type?: string })?.type === WARNING_TYPE
    )
    .map(([message, options]) => ({
      code: (options as { code?: string }).code,
      message,
    }));
}

beforeEach(() => {
  emitted = jest.spyOn(process, 'emitWarning');
  diagErrors = captureDiag().error;
});

afterEach(async () => {
  emitted.mockRestore();
  diag.disable();
  await rig?.close();
});

/** The body of a path in both formats: JSON parsed, XML checked well-formed. */
function both(path: string): unknown {
  const segments = path.split('/');
  const xml = rig.reader.snapshot
    .respond('host_type', segments, xmlSerializer)
    .body.toString();
  expect(XMLValidator.validate(xml)).toBe(true);
  return JSON.parse(
    rig.reader.snapshot
      .respond('host_type', segments, jsonSerializer)
      .body.toString()
  );
}

describe('LegacyMetricsReader under faults', () => {
  describe('a legacyName that throws for one attribute set', () => {
    it('should cost that series only, for that tick, and warn once', async () => {
      let broken = true;
      rig = createRig({
        legacyName: (name, attributes) => {
          if (broken && attributes.host_type === 'bad')
            throw new Error('no name for bad');
          return name;
        },
      });
      const meter = rig.provider.getMeter('m');
      const sent = meter.createCounter('sent');
      const sessions = meter.createUpDownCounter('sessions');
      const size = meter.createHistogram('size');
      let recorded = 0;
      for (let tick = 0; tick < 3; tick++) {
        for (let i = 0; i < 20; i++) {
          sent.add(1, { host_type: 'good' });
          sessions.add(1, { host_type: 'good' });
          size.record(i, { host_type: 'good' });
          recorded++;
        }
        sent.add(100, { host_type: 'bad' });
        await rig.advance(1_000);
      }
      // Every recording of the other series arrived.
      expect(
        read(rig.reader, 'metrics/host_type/good').json.metrics
      ).toMatchObject({
        sent: { count: recorded, one: recorded },
        sessions: { value: recorded },
        size: { n: recorded },
      });
      expect(read(rig.reader, 'metrics/host_type/bad').status).toBe(404);
      const message =
        'LegacyMetricsReader: legacyName threw for instrument sent of meter "m" (no name for bad); ' +
        'the data of {"host_type":"bad"} is left out of this tick';
      expect(warnings()).toEqual([
        { code: WARNING_CODES.seriesFault, message },
      ]);
      expect(diagErrors).toEqual([message]);

      // Once legacyName answers again, the series' next data is served.
      broken = false;
      sent.add(7, { host_type: 'bad' });
      await rig.advance(1_000);
      expect(
        read(rig.reader, 'metrics/host_type/bad/sent').json.metric
      ).toEqual({
        count: 7,
        one: 7,
      });
    });
  });

  describe('sums that overflow', () => {
    it('should serve two hosts at 1e308 as valid JSON and well-formed XML', async () => {
      rig = createRig();
      const gauge = rig.provider.getMeter('m').createGauge('big');
      gauge.record(1e308, { host_type: 'h', host: 'a' });
      gauge.record(1e308, { host_type: 'h', host: 'b' });
      const counter = rig.provider.getMeter('m').createCounter('many');
      counter.add(1e308, { host_type: 'h', host: 'a' });
      counter.add(1e308, { host_type: 'h', host: 'b' });
      await rig.flush();
      expect(both('metrics/host_type/h')).toEqual({
        metrics: {
          big: { value: Number.MAX_VALUE, ms_since_reset: 0 },
          many: { count: Number.MAX_VALUE, one: Number.MAX_VALUE },
        },
      });
      expect(both('metrics/all')).toEqual({
        metrics: {
          big: { value: Number.MAX_VALUE },
          many: { count: Number.MAX_VALUE, one: Number.MAX_VALUE },
        },
      });
      // Each host alone is finite, and exact.
      expect(
        read(rig.reader, 'metrics/host/a/big', 'host').json.metric.value
      ).toBe(1e308);
    });

    it('should recover `one` once an overflowing slot has left the window', async () => {
      rig = createRig();
      const counter = rig.provider.getMeter('m').createCounter('c');
      counter.add(1e308, { host_type: 'h' });
      await rig.advance(1_000);
      counter.add(1e308, { host_type: 'h' });
      await rig.advance(1_000);
      expect(both('metrics/host_type/h/c')).toEqual({
        metric: { count: Number.MAX_VALUE, one: Number.MAX_VALUE },
      });
      counter.add(5, { host_type: 'h' });
      await rig.advance(59_000);
      await rig.advance(1_000);
      expect(both('metrics/host_type/h/c')).toEqual({
        metric: { count: Number.MAX_VALUE, one: 5 },
      });
    });
  });

  describe('gauges and up-down counters', () => {
    it.each([
      ['an observable gauge', 'gauge'],
      ['an observable up-down counter', 'counter'],
    ])(
      'should serve %s that reports NaN once, then 12.5, as 12.5',
      async (_, kind) => {
        rig = createRig();
        let value = NaN;
        const meter = rig.provider.getMeter('m');
        const instrument =
          kind === 'gauge'
            ? meter.createObservableGauge('g')
            : meter.createObservableUpDownCounter('g');
        instrument.addCallback(result => result.observe(value));
        await rig.flush();
        expect(both('metrics/global/g')).toEqual({
          metric: { value: 0, ms_since_reset: 0 },
        });
        value = 12.5;
        await rig.advance(1_000);
        expect(both('metrics/global/g')).toEqual({
          metric: { value: 12.5, ms_since_reset: 1_000 },
        });
      }
    );

    it.each([
      ['an observable gauge', 'gauge'],
      ['an observable up-down counter', 'counter'],
    ])('should serve %s at 1e17, then 1, as 1', async (_, kind) => {
      rig = createRig();
      let value = 1e17;
      const meter = rig.provider.getMeter('m');
      const instrument =
        kind === 'gauge'
          ? meter.createObservableGauge('g')
          : meter.createObservableUpDownCounter('g');
      instrument.addCallback(result =>
        result.observe(value, { host_type: 'h' })
      );
      await rig.flush();
      expect(both('metrics/host_type/h/g')).toMatchObject({
        metric: { value: 1e17 },
      });
      value = 1;
      await rig.advance(1_000);
      expect(both('metrics/host_type/h/g')).toMatchObject({
        metric: { value: 1 },
      });
      expect(both('metrics/all/g')).toEqual({ metric: { value: 1 } });
    });

    it('should serve ±Infinity as ±Number.MAX_VALUE, and the next finite value as it is', async () => {
      rig = createRig();
      const gauge = rig.provider.getMeter('m').createGauge('g');
      for (const [value, served] of [
        [Infinity, Number.MAX_VALUE],
        [-Infinity, -Number.MAX_VALUE],
        [Infinity, Number.MAX_VALUE],
        [3, 3],
      ] as const) {
        gauge.record(value);
        await rig.advance(1_000);
        expect(both('metrics/global/g')).toMatchObject({
          metric: { value: served },
        });
      }
    });

    it('should leave a non-finite increase of an up-down counter out, with one warning, and keep the exact total', async () => {
      rig = createRig();
      const counter = rig.provider.getMeter('m').createUpDownCounter('u');
      counter.add(5);
      await rig.advance(1_000);
      counter.add(NaN);
      await rig.advance(1_000);
      counter.add(Infinity);
      await rig.advance(1_000);
      counter.add(2);
      await rig.advance(1_000);
      expect(both('metrics/global/u')).toMatchObject({ metric: { value: 7 } });
      expect(warnings()).toEqual([
        {
          code: WARNING_CODES.seriesFault,
          message:
            'LegacyMetricsReader: instrument u of meter "m" reported an increase of NaN; the increases that are not finite numbers are left out (this one for {})',
        },
      ]);
    });
  });

  describe('explicit-bucket histograms', () => {
    it('should leave them out with one operator warning per instrument', async () => {
      const reader = new LegacyMetricsReader();
      const provider = new MeterProvider({
        readers: [reader],
        views: [
          {
            instrumentName: 'explicit*',
            aggregation: { type: AggregationType.EXPLICIT_BUCKET_HISTOGRAM },
          },
        ],
      });
      rig = { close: () => provider.shutdown() } as Rig;
      const meter = provider.getMeter('m');
      for (let tick = 0; tick < 3; tick++) {
        meter.createHistogram('explicitA').record(1);
        meter.createHistogram('explicitB').record(1);
        meter.createHistogram('exponential').record(1);
        await reader.forceFlush();
      }
      expect(warnings()).toEqual(
        ['explicitA', 'explicitB'].map(name => ({
          code: WARNING_CODES.explicitBuckets,
          message: `LegacyMetricsReader: instrument ${name} is aggregated as an explicit-bucket histogram (a View chose it); it is left out of the legacy API, which needs exponential histograms for its percentiles`,
        }))
      );
      expect(read(reader, 'metrics/global/exponential').json.metric.n).toBe(3);
    });
  });
});
