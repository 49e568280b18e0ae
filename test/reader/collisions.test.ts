import { ValueType, type Attributes } from '@opentelemetry/api';
import type { Variant } from '../../src';
import { WARNING_CODES, WARNING_TYPE } from '../../src/warnings';
import { createRig, read, type Rig } from '../helpers';

/*
 * Series that share a legacy name within a host type (or host, or the global group) combine by
 * one rule whatever their kind and wherever they come from: sums for counters, up-down counters
 * and gauges, merged windows for histograms.
 */

type Kind =
  | 'Counter'
  | 'ObservableCounter'
  | 'UpDownCounter'
  | 'ObservableUpDownCounter'
  | 'Gauge'
  | 'ObservableGauge'
  | 'Histogram';

const KINDS: readonly Kind[] = [
  'Counter',
  'ObservableCounter',
  'UpDownCounter',
  'ObservableUpDownCounter',
  'Gauge',
  'ObservableGauge',
  'Histogram',
];

/** What one instrument contributes: recorded in that order (observables observe the last). */
interface Contribution {
  readonly meter: string;
  readonly valueType: ValueType;
  /** An attribute besides the placement, which the scenario's legacyName ignores. */
  readonly side?: string;
  readonly values: readonly number[];
}

interface Scenario {
  readonly name: string;
  /** Keeps the instrument name only: attribute sets that differ by `side` share a legacy name. */
  readonly renamed: boolean;
  contributions(kind: Kind): readonly Contribution[];
}

const lastValueKind = (kind: Kind): boolean =>
  kind.startsWith('Observable') || kind === 'Gauge';

const SCENARIOS: readonly Scenario[] = [
  {
    name: 'two attribute sets',
    renamed: true,
    contributions: () => [
      { meter: 'app', valueType: ValueType.INT, side: 'a', values: [10] },
      { meter: 'app', valueType: ValueType.INT, side: 'b', values: [5] },
    ],
  },
  {
    name: 'two meters',
    renamed: false,
    contributions: () => [
      { meter: 'app', valueType: ValueType.INT, values: [20] },
      { meter: 'library', valueType: ValueType.INT, values: [30] },
    ],
  },
  {
    name: 'INT + DOUBLE',
    renamed: false,
    contributions: kind => [
      { meter: 'app', valueType: ValueType.INT, values: [1] },
      {
        meter: 'library',
        valueType: ValueType.DOUBLE,
        // 0.75 as three recordings of 0.25 where they add up.
        values: lastValueKind(kind) ? [0.75] : [0.25, 0.25, 0.25],
      },
    ],
  },
];

const NAME = 'shared';
const PLACEMENTS: readonly Attributes[] = [{ host_type: 'X' }, {}];

/** Creates one instrument per meter and value type, and records every contribution in every placement. */
function record(rig: Rig, kind: Kind, contributions: readonly Contribution[]) {
  const byInstrument = new Map<string, Contribution[]>();
  for (const c of contributions) {
    const key = `${c.meter}:${c.valueType}`;
    byInstrument.set(key, [...(byInstrument.get(key) ?? []), c]);
  }
  for (const list of byInstrument.values()) {
    const { meter: meterName, valueType } = list[0]!;
    const meter = rig.provider.getMeter(meterName);
    const points = list.flatMap(c =>
      PLACEMENTS.map(placement => ({
        attributes:
          c.side === undefined ? placement : { ...placement, side: c.side },
        values: c.values,
      }))
    );
    if (kind.startsWith('Observable')) {
      const instrument =
        kind === 'ObservableCounter'
          ? meter.createObservableCounter(NAME, { valueType })
          : kind === 'ObservableUpDownCounter'
            ? meter.createObservableUpDownCounter(NAME, { valueType })
            : meter.createObservableGauge(NAME, { valueType });
      instrument.addCallback(result => {
        for (const p of points) result.observe(p.values.at(-1)!, p.attributes);
      });
      continue;
    }
    const instrument =
      kind === 'Counter'
        ? meter.createCounter(NAME, { valueType })
        : kind === 'UpDownCounter'
          ? meter.createUpDownCounter(NAME, { valueType })
          : kind === 'Gauge'
            ? meter.createGauge(NAME, { valueType })
            : meter.createHistogram(NAME, { valueType });
    for (const p of points)
      for (const value of p.values)
        if ('add' in instrument) instrument.add(value, p.attributes);
        else instrument.record(value, p.attributes);
  }
}

/** What one placement holds: the sum of each contribution, or every recorded value (histograms). */
function expected(kind: Kind, contributions: readonly Contribution[]) {
  const sum = contributions
    .map(c =>
      lastValueKind(kind) ? c.values.at(-1)! : c.values.reduce((a, b) => a + b)
    )
    .reduce((a, b) => a + b);
  const values = contributions.flatMap(c => c.values);
  return { sum, values };
}

let rig: Rig;
afterEach(async () => {
  await rig?.close();
});

describe.each<Variant>(['host_type', 'host'])(
  'LegacyMetricsReader series sharing a legacy name (%s variant)',
  variant => {
    const get = (path: string) => read(rig.reader, `metrics${path}`, variant);

    describe.each(SCENARIOS)('from $name', scenario => {
      it.each(KINDS)('should combine %s series by the one rule', async kind => {
        rig = createRig(scenario.renamed ? { legacyName: name => name } : {});
        const contributions = scenario.contributions(kind);
        record(rig, kind, contributions);
        await rig.flush();
        const { sum, values } = expected(kind, contributions);
        const group = get(`/${variant}/X/${NAME}`).json.metric;
        const global = get(`/global/${NAME}`).json.metric;
        const all = get(`/all/${NAME}`).json.metric;
        switch (kind) {
          case 'Counter':
          case 'ObservableCounter':
            expect(group).toEqual({ count: sum, one: sum });
            expect(global).toEqual({ count: sum, one: sum });
            expect(all).toEqual({ count: 2 * sum, one: 2 * sum });
            break;
          case 'Histogram': {
            // Every field of an integer histogram is truncated; one DOUBLE instrument keeps them whole.
            const integer = contributions.every(
              c => c.valueType === ValueType.INT
            );
            const mean = values.reduce((a, b) => a + b) / values.length;
            const window = {
              n: values.length,
              mean: integer ? Math.trunc(mean) : mean,
              min: Math.min(...values),
              max: Math.max(...values),
            };
            expect(group).toMatchObject(window);
            expect(global).toMatchObject(window);
            expect(all).toMatchObject({ ...window, n: 2 * values.length });
            break;
          }
          default:
            expect(group).toEqual({ value: sum, ms_since_reset: 0 });
            expect(global).toEqual({ value: sum, ms_since_reset: 0 });
            expect(all).toEqual({ value: 2 * sum });
        }
      });
    });
  }
);

describe('LegacyMetricsReader integer names', () => {
  it('should stop truncating every series of a name once a DOUBLE instrument joins it', async () => {
    rig = createRig();
    rig.provider
      .getMeter('app')
      .createHistogram('size', { valueType: ValueType.INT })
      .record(1, { host_type: 'Y' });
    rig.provider
      .getMeter('app')
      .createHistogram('size', { valueType: ValueType.INT })
      .record(2, { host_type: 'Y' });
    await rig.flush();
    expect(read(rig.reader, 'metrics/host_type/Y/size').json.metric.mean).toBe(
      1
    );
    rig.provider
      .getMeter('library')
      .createHistogram('size', { valueType: ValueType.DOUBLE })
      .record(0.5, { host_type: 'X' });
    await rig.advance(1_000);
    // Y's window did not change, and is no longer truncated.
    expect(read(rig.reader, 'metrics/host_type/Y/size').json.metric.mean).toBe(
      1.5
    );
    expect(read(rig.reader, 'metrics/all/size').json.metric).toMatchObject({
      n: 3,
      mean: 3.5 / 3,
      min: 0.5,
      max: 2,
    });
  });
});

describe('LegacyMetricsReader names taken by two kinds', () => {
  it('should serve the first registered, never a mix, and warn once naming both meters and instruments', async () => {
    const emitted = jest.spyOn(process, 'emitWarning');
    try {
      rig = createRig();
      const counter = rig.provider.getMeter('app').createCounter('latency');
      const histogram = rig.provider
        .getMeter('library', '2.0.0')
        .createHistogram('latency');
      for (const host_type of ['X', 'Y']) {
        counter.add(3, { host_type });
        histogram.record(250, { host_type });
      }
      await rig.flush();
      histogram.record(100, { host_type: 'X' });
      counter.add(1, { host_type: 'X' });
      await rig.advance(1_000);
      expect(read(rig.reader, 'metrics/host_type/X/latency').json).toEqual({
        metric: { count: 4, one: 4 },
      });
      expect(read(rig.reader, 'metrics/all/latency').json).toEqual({
        metric: { count: 7, one: 7 },
      });
      const warnings = emitted.mock.calls
        .filter(([, o]) => (o as { type?: string })?.type === WARNING_TYPE)
        .map(([message, o]) => [(o as { code: string }).code, message]);
      expect(warnings).toEqual([
        [
          WARNING_CODES.seriesLeftOut,
          'LegacyMetricsReader: legacy name latency is given by instrument latency of meter "app" (a spiral) and by ' +
            'instrument latency of meter "library" (a histogram); the first registered is served, and the histogram ' +
            'is left out of that name',
        ],
      ]);
    } finally {
      emitted.mockRestore();
    }
  });
});
