/**
 * The naming rules against the official exporter: what `src/migrate/prometheusNames.ts` says an
 * instrument becomes must be what @opentelemetry/exporter-prometheus exposes, and its legacy name
 * (`src/reader/naming.ts`) what the reader serves.
 */
import { ValueType, type Attributes } from '@opentelemetry/api';
import {
  PrometheusExporter,
  PrometheusSerializer,
} from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { LegacyMetricsReader } from '../../src';
import { parseExposition } from '../migrate/exposition';
import { defaultLegacyName } from '../../src/reader/naming';
import { legacyKeyQuery } from '../../src/migrate/legacyKeyQuery';
import {
  legacyNameKey,
  legacyNameKeysOfSeries,
  prometheusSeries,
} from '../../src/migrate/prometheusNames';
import { recordingRuleName } from '../../src/migrate/ruleNames';
import { jsonSerializer } from '../../src/snapshot/jsonSerializer';
import type { MetricKind } from '../../src/snapshot/legacyValues';

interface Instrument {
  readonly name: string;
  readonly kind: MetricKind;
  readonly attributes: Attributes;
}

const INSTRUMENTS: readonly Instrument[] = [
  {
    name: 'xmppMessageSent',
    kind: 'spiral',
    attributes: { host_type: 'localhost' },
  },
  {
    name: 'xmppErrorTotal',
    kind: 'spiral',
    attributes: { host_type: 'test type', type: 'iq' },
  },
  { name: 'requests_total', kind: 'spiral', attributes: {} },
  {
    name: 'data.xmpp.sent.bytes',
    kind: 'spiral',
    attributes: { host_type: 'localhost' },
  },
  {
    name: 'sessionCount',
    kind: 'counter',
    attributes: { host_type: 'test type' },
  },
  { name: 'nodeUpTime', kind: 'gauge', attributes: {} },
  {
    name: 'backends.auth',
    kind: 'histogram',
    attributes: { host_type: 'localhost', operation: 'authorize' },
  },
  {
    name: 'mod-muc.rooms',
    kind: 'counter',
    attributes: { host_type: 'localhost', b: 'x', a: 'y' },
  },
];

describe('naming', () => {
  let provider: MeterProvider;
  let exporter: PrometheusExporter;
  let legacy: LegacyMetricsReader;

  beforeAll(async () => {
    exporter = new PrometheusExporter({ preventServerStart: true });
    legacy = new LegacyMetricsReader({ hostTypes: ['localhost', 'test type'] });
    provider = new MeterProvider({ readers: [exporter, legacy] });
    const meter = provider.getMeter('naming-test');
    for (const { name, kind, attributes } of INSTRUMENTS) {
      switch (kind) {
        case 'spiral':
          meter
            .createCounter(name, { valueType: ValueType.INT })
            .add(3, attributes);
          break;
        case 'counter':
          meter.createUpDownCounter(name).add(2, attributes);
          break;
        case 'gauge':
          meter.createGauge(name).record(5, attributes);
          break;
        case 'histogram':
          meter.createHistogram(name).record(7, attributes);
          break;
      }
    }
    await legacy.forceFlush();
  });

  afterAll(async () => {
    await provider.shutdown();
  });

  it('should give the family and labels the official exporter exposes', async () => {
    const { resourceMetrics } = await exporter.collect();
    const families = parseExposition(
      new PrometheusSerializer().serialize(resourceMetrics)
    );
    for (const { name, kind, attributes } of INSTRUMENTS) {
      const series = prometheusSeries(name, kind, attributes);
      const family = families.get(series.family);
      expect({ name, type: family?.type }).toEqual({ name, type: series.type });
      const sample = family!.samples.find(s =>
        Object.entries(series.labels).every(([k, v]) => s.labels[k] === v)
      );
      expect({ name, found: sample !== undefined }).toEqual({
        name,
        found: true,
      });
      // And back: the series gives the legacy name the reader serves.
      expect(
        legacyNameKeysOfSeries(family!.name, family!.type, sample!.labels)
      ).toContain(legacyNameKey(defaultLegacyName(name, attributes)));
    }
  });

  it('should give the legacy names the reader serves', async () => {
    const response = legacy.snapshot.respond(
      'host_type',
      ['metrics', 'host_type', 'localhost'],
      jsonSerializer
    );
    const body = JSON.parse(String(response.body)) as {
      metrics: Record<string, unknown>;
    };
    expect(Object.keys(body.metrics)).toEqual(
      expect.arrayContaining([
        'xmppMessageSent',
        'data.xmpp.sent.bytes',
        'backends.auth.authorize',
        'mod-muc.rooms.y.x',
      ])
    );
    expect(
      defaultLegacyName('mod-muc.rooms', {
        host_type: 'localhost',
        b: 'x',
        a: 'y',
      })
    ).toBe('mod-muc.rooms.y.x');
  });

  it('should name a set by its own attributes only, past the placement ones and those without a value', () => {
    const withPrototype = Object.create({ inherited: 'z' }) as Attributes;
    Object.assign(withPrototype, { host: 'h1', code: 7, tags: ['a', 'b'] });
    expect(defaultLegacyName('errors', withPrototype)).toBe('errors.7.a,b');
    // A null value is outside the 2.x line's type, but JavaScript callers pass it.
    const withoutValues = { z: undefined, y: null, host_type: 'x' };
    expect(
      defaultLegacyName('errors', withoutValues as unknown as Attributes)
    ).toBe('errors');
    expect(defaultLegacyName('errors', {})).toBe('errors');
  });

  it('should name rules legacy:<name>:<key> with every other character replaced by _', () => {
    expect(recordingRuleName('backends.auth.authorize', '95')).toBe(
      'legacy:backends_auth_authorize:95'
    );
    expect(recordingRuleName('mod-muc.rooms.y.x', 'value')).toBe(
      'legacy:mod_muc_rooms_y_x:value'
    );
  });

  it('should select the raw host types, several with a regular expression', () => {
    const series = prometheusSeries('xmppMessageSent', 'spiral');
    expect(
      legacyKeyQuery(series, 'count', {
        label: 'host_type',
        values: ['a.b', 'test type'],
      })
    ).toBe(
      'sum by (job, instance, host_type) (xmppMessageSent_total{host_type=~"a\\\\.b|test type"})' +
        ' or label_replace(sum by (job, instance) (target_info) * 0, "host_type", "a.b", "", "")' +
        ' or label_replace(sum by (job, instance) (target_info) * 0, "host_type", "test type", "", "")'
    );
    expect(
      legacyKeyQuery(series, 'ms_since_reset', { label: 'global' })
    ).toBeUndefined();
  });
});
