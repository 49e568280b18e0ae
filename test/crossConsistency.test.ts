import { ValueType } from '@opentelemetry/api';
import { startLegacyMetricsServer, type LegacyMetricsServer } from '../src';
import {
  createMeterProviderWithLegacyApi,
  type MeterProviderWithLegacyApi,
} from '../src/provider/createMeterProviderWithLegacyApi';
import {
  startOtlpReceiver,
  type OtlpPoint,
  type OtlpReceiver,
} from './realClients/otlpReceiver';

/**
 * One MeterProvider feeds the legacy API, the Prometheus exposition and OTLP from the same
 * instruments: after a flush, all three must show the same numbers per host type and globally.
 */

const HOST_TYPES = ['localhost', 'test type'] as const;
/** The legacy URL segment of a host type: spaces become underscores. */
const segment = (hostType: string): string => hostType.replaceAll(' ', '_');

/** Known traffic. `undefined` host type = a global metric (no `host_type` attribute). */
const TRAFFIC = {
  xmppMessageSent: { localhost: [3, 4], 'test type': [5], global: [2] },
  sessionCount: { localhost: [3, -1], 'test type': [1] },
  xmppQueueLength: { localhost: 4, 'test type': 9 },
  clusterSize: 3,
  'backends.auth.authorize': { localhost: [5, 50], 'test type': [10, 20, 30] },
  'data.xmpp.sent.xml_stanza_size': [100, 300],
} as const;

const sum = (values: readonly number[]): number =>
  values.reduce((a, b) => a + b, 0);

/** One sample line of a Prometheus text exposition. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE_LINE.exec(line);
    if (match === null) throw new Error(`unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(LABEL_PAIR)) {
      labels[key!] = raw!.replace(/\\(.)/g, (_, c: string) =>
        c === 'n' ? '\n' : c
      );
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The one sample of `name` for a host type (undefined = global: no host_type label). */
function promValue(
  samples: readonly Sample[],
  name: string,
  hostType: string | undefined
): number {
  const found = samples.filter(
    s => s.name === name && s.labels.host_type === hostType
  );
  if (found.length !== 1)
    throw new Error(
      `expected one ${name}{host_type=${hostType}} sample, found ${found.length}`
    );
  return found[0]!.value;
}

function otlpPoint(
  points: readonly OtlpPoint[],
  name: string,
  hostType: string | undefined
): OtlpPoint {
  const found = points.filter(
    p => p.metric === name && p.attributes.host_type === hostType
  );
  if (found.length !== 1)
    throw new Error(
      `expected one OTLP ${name}{host_type=${hostType}} point, found ${found.length}`
    );
  return found[0]!;
}

type LegacyMap = Record<string, Record<string, number>>;

describe('createMeterProviderWithLegacyApi: legacy API, Prometheus and OTLP agree', () => {
  let receiver: OtlpReceiver | undefined;
  let telemetry: MeterProviderWithLegacyApi | undefined;
  let legacyServer: LegacyMetricsServer | undefined;
  const legacy: Record<string, LegacyMap> = {};
  let allMessages: Record<string, number>;
  let samples: Sample[];
  let points: readonly OtlpPoint[];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    telemetry = await createMeterProviderWithLegacyApi({
      legacy: { hostTypes: [...HOST_TYPES] },
      prometheus: { address: '127.0.0.1', port: 0 },
      // Exports happen on forceFlush; the interval only has to stay out of the way.
      otlp: { url: receiver.url, exportIntervalMillis: 600_000 },
    });
    legacyServer = await startLegacyMetricsServer(telemetry.legacyReader, {
      port: 0,
    });

    const meter = telemetry.meterProvider.getMeter('messaging-server');
    const messages = meter.createCounter('xmppMessageSent', {
      valueType: ValueType.INT,
    });
    const sessions = meter.createUpDownCounter('sessionCount', {
      valueType: ValueType.INT,
    });
    const queue = meter.createGauge('xmppQueueLength', {
      valueType: ValueType.INT,
    });
    const clusterSize = meter.createGauge('clusterSize', {
      valueType: ValueType.INT,
    });
    const authorize = meter.createHistogram('backends.auth.authorize', {
      unit: 'ms',
    });
    const stanzaSize = meter.createHistogram('data.xmpp.sent.xml_stanza_size', {
      unit: 'By',
    });
    for (const hostType of HOST_TYPES) {
      const attributes = { host_type: hostType };
      for (const n of TRAFFIC.xmppMessageSent[hostType])
        messages.add(n, attributes);
      for (const n of TRAFFIC.sessionCount[hostType])
        sessions.add(n, attributes);
      queue.record(TRAFFIC.xmppQueueLength[hostType], attributes);
      for (const v of TRAFFIC['backends.auth.authorize'][hostType])
        authorize.record(v, attributes);
    }
    for (const n of TRAFFIC.xmppMessageSent.global) messages.add(n);
    clusterSize.record(TRAFFIC.clusterSize);
    for (const v of TRAFFIC['data.xmpp.sent.xml_stanza_size'])
      stanzaSize.record(v);

    // A legacy tick and an OTLP export, of the same recordings; Prometheus collects when scraped.
    await telemetry.forceFlush();

    for (const hostType of HOST_TYPES) {
      const response = await fetch(
        `${legacyServer.url}/api/metrics/host_type/${segment(hostType)}`
      );
      expect(response.status).toBe(200);
      legacy[hostType] = (
        (await response.json()) as { metrics: LegacyMap }
      ).metrics;
    }
    const global = await fetch(`${legacyServer.url}/api/metrics/global`);
    legacy.global = ((await global.json()) as { metrics: LegacyMap }).metrics;
    const all = await fetch(
      `${legacyServer.url}/api/metrics/all/xmppMessageSent`
    );
    allMessages = ((await all.json()) as { metric: Record<string, number> })
      .metric;

    const exposition = await fetch(telemetry.prometheusUrl!, {
      headers: { accept: 'text/plain;version=0.0.4' },
    });
    expect(exposition.status).toBe(200);
    samples = parseExposition(await exposition.text());

    points = (
      await receiver.waitFor(
        r => r.points.some(p => p.metric === 'xmppMessageSent'),
        5_000
      )
    ).points;
  });

  afterAll(async () => {
    await legacyServer?.close();
    await telemetry?.shutdown();
    await receiver?.close();
  });

  describe.each(HOST_TYPES)('host type %s', hostType => {
    it('should show the same counter total', () => {
      const expected = sum(TRAFFIC.xmppMessageSent[hostType]);
      expect(legacy[hostType]!.xmppMessageSent).toEqual({
        count: expected,
        one: expected,
      });
      expect(promValue(samples, 'xmppMessageSent_total', hostType)).toBe(
        expected
      );
      expect(otlpPoint(points, 'xmppMessageSent', hostType).value).toBe(
        expected
      );
    });

    it('should show the same up-down counter value', () => {
      const expected = sum(TRAFFIC.sessionCount[hostType]);
      expect(legacy[hostType]!.sessionCount!.value).toBe(expected);
      expect(promValue(samples, 'sessionCount', hostType)).toBe(expected);
      expect(otlpPoint(points, 'sessionCount', hostType).value).toBe(expected);
    });

    it('should show the same gauge value', () => {
      const expected = TRAFFIC.xmppQueueLength[hostType];
      expect(legacy[hostType]!.xmppQueueLength!.value).toBe(expected);
      expect(promValue(samples, 'xmppQueueLength', hostType)).toBe(expected);
      expect(otlpPoint(points, 'xmppQueueLength', hostType).value).toBe(
        expected
      );
    });

    it('should show the same histogram count and sum', () => {
      const values = TRAFFIC['backends.auth.authorize'][hostType];
      const legacyHistogram = legacy[hostType]!['backends.auth.authorize']!;
      expect(legacyHistogram.n).toBe(values.length);
      expect(legacyHistogram.n! * legacyHistogram.mean!).toBeCloseTo(
        sum(values),
        9
      );
      expect(legacyHistogram.min).toBe(Math.min(...values));
      expect(legacyHistogram.max).toBe(Math.max(...values));
      expect(
        promValue(samples, 'backends_auth_authorize_count', hostType)
      ).toBe(values.length);
      expect(promValue(samples, 'backends_auth_authorize_sum', hostType)).toBe(
        sum(values)
      );
      const point = otlpPoint(points, 'backends.auth.authorize', hostType);
      expect([point.count, point.sum, point.min, point.max]).toEqual([
        values.length,
        sum(values),
        Math.min(...values),
        Math.max(...values),
      ]);
    });
  });

  describe('global metrics', () => {
    it('should show the same global counter, and the same total over host types and global', () => {
      const global = sum(TRAFFIC.xmppMessageSent.global);
      const total =
        global + sum(HOST_TYPES.flatMap(h => TRAFFIC.xmppMessageSent[h]));
      expect(legacy.global!.xmppMessageSent).toEqual({
        count: global,
        one: global,
      });
      expect(promValue(samples, 'xmppMessageSent_total', undefined)).toBe(
        global
      );
      expect(otlpPoint(points, 'xmppMessageSent', undefined).value).toBe(
        global
      );

      // `/all/xmppMessageSent` ↔ `sum(xmppMessageSent_total)` ↔ the sum of the OTLP points.
      expect(allMessages).toEqual({ count: total, one: total });
      expect(
        sum(
          samples
            .filter(s => s.name === 'xmppMessageSent_total')
            .map(s => s.value)
        )
      ).toBe(total);
      expect(
        sum(
          points.filter(p => p.metric === 'xmppMessageSent').map(p => p.value!)
        )
      ).toBe(total);
    });

    it('should show the same global gauge value', () => {
      expect(legacy.global!.clusterSize!.value).toBe(TRAFFIC.clusterSize);
      expect(promValue(samples, 'clusterSize', undefined)).toBe(
        TRAFFIC.clusterSize
      );
      expect(otlpPoint(points, 'clusterSize', undefined).value).toBe(
        TRAFFIC.clusterSize
      );
    });

    it('should show the same global histogram count and sum', () => {
      const values = TRAFFIC['data.xmpp.sent.xml_stanza_size'];
      const legacyHistogram = legacy.global!['data.xmpp.sent.xml_stanza_size']!;
      expect(legacyHistogram.n).toBe(values.length);
      expect(legacyHistogram.n! * legacyHistogram.mean!).toBeCloseTo(
        sum(values),
        9
      );
      expect(
        promValue(samples, 'data_xmpp_sent_xml_stanza_size_count', undefined)
      ).toBe(values.length);
      expect(
        promValue(samples, 'data_xmpp_sent_xml_stanza_size_sum', undefined)
      ).toBe(sum(values));
      const point = otlpPoint(
        points,
        'data.xmpp.sent.xml_stanza_size',
        undefined
      );
      expect([point.count, point.sum]).toEqual([values.length, sum(values)]);
    });

    it('should carry the same resource on OTLP and in target_info', () => {
      const request = receiver!.requests.at(-1)!;
      const info = samples.find(s => s.name === 'target_info')!;
      expect(info.labels.service_name).toBe(request.resource['service.name']);
    });
  });
});
