import { diag } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import { createApp, createRig, type Rig } from '../helpers';
import { captureDiag } from '../support/diag';

/**
 * Messaging servers with dynamic domains run thousands of host types, each a distinct attribute
 * set of every instrument. The SDK folds the attribute sets beyond an instrument's cardinality
 * limit (2000 by default) into one series with the attribute `otel.metric.overflow: true`; the
 * reader asks for a limit that holds them all.
 */

const HOST_TYPES = 10_000;
const hostType = (i: number): string =>
  `domain-${String(i).padStart(5, '0')}.example`;
const SAMPLE = [0, 1, 1_999, 2_000, 2_001, 4_242, 7_777, HOST_TYPES - 1];

/** The sum of f(i) over every host type i. */
const sum = (f: (i: number) => number): number =>
  Array.from({ length: HOST_TYPES }, (_, i) => f(i)).reduce((a, b) => a + b, 0);

let rig: Rig;
let app: FastifyInstance;
let warnings: string[];

/** Records into every host type: spiral i + 1, counter i, gauge 3 i, histogram one value i + 0.5. */
async function recordAll(
  options: { cardinalityLimit?: number } = {}
): Promise<void> {
  rig = createRig(options);
  const meter = rig.provider.getMeter('scale');
  const spiral = meter.createCounter('stanzasSent');
  const counter = meter.createUpDownCounter('sessionCount');
  const gauge = meter.createGauge('queueLength');
  const histogram = meter.createHistogram('authTime');
  for (let i = 0; i < HOST_TYPES; i++) {
    const attributes = { host_type: hostType(i) };
    spiral.add(i + 1, attributes);
    counter.add(i, attributes);
    gauge.record(3 * i, attributes);
    histogram.record(i + 0.5, attributes);
  }
  await rig.flush();
  app = await createApp(rig.reader);
}

async function get(path: string): Promise<{ status: number; json: any }> {
  const response = await app.inject({
    method: 'GET',
    url: `/api/metrics${path}`,
  });
  return {
    status: response.statusCode,
    json: response.statusCode === 200 ? response.json() : undefined,
  };
}

beforeEach(() => {
  warnings = captureDiag().warn;
});

afterEach(async () => {
  diag.disable();
  await app?.close();
  await rig?.close();
});

describe('LegacyMetricsReader at scale', () => {
  it('should serve 10,000 host types without folding any into an overflow series', async () => {
    await recordAll();
    expect(rig.reader.seriesCount).toBe(4 * HOST_TYPES);

    const listing = await get('');
    expect(listing.status).toBe(200);
    // Host types that only data names are listed after the declared ones, in code-point order.
    expect(listing.json.host_types).toEqual(
      Array.from({ length: HOST_TYPES }, (_, i) => hostType(i))
    );
    expect(listing.json.metrics).toEqual([
      'authTime',
      'queueLength',
      'sessionCount',
      'stanzasSent',
    ]);
    expect(listing.json.global).toEqual([]);
    // The overflow series would have no host type: it would be served as a global metric.
    expect(Object.keys((await get('/global')).json?.metrics ?? {})).toEqual([]);
    expect(warnings).toEqual([]);

    for (const i of SAMPLE) {
      const { status, json } = await get(`/host_type/${hostType(i)}`);
      expect(status).toBe(200);
      expect(json.metrics.stanzasSent).toEqual({ count: i + 1, one: i + 1 });
      expect(json.metrics.sessionCount).toEqual({
        value: i,
        ms_since_reset: 0,
      });
      expect(json.metrics.queueLength).toEqual({
        value: 3 * i,
        ms_since_reset: 0,
      });
      expect(json.metrics['authTime']).toMatchObject({
        n: 1,
        mean: i + 0.5,
        min: i + 0.5,
        max: i + 0.5,
        median: i + 0.5,
      });
    }

    const all = (await get('/all')).json.metrics;
    expect(all.stanzasSent).toEqual({
      count: sum(i => i + 1),
      one: sum(i => i + 1),
    });
    expect(all.sessionCount).toEqual({ value: sum(i => i) });
    expect(all.queueLength).toEqual({ value: sum(i => 3 * i) });
    expect(all.authTime).toMatchObject({
      n: HOST_TYPES,
      min: 0.5,
      max: HOST_TYPES - 0.5,
    });
  });

  it('should fold the host types beyond a small cardinalityLimit into the overflow series', async () => {
    // The SDK keeps limit - 1 attribute sets and sums the rest into one overflow set.
    const limit = 1_000;
    await recordAll({ cardinalityLimit: limit });

    const listing = await get('');
    expect(listing.json.host_types).toHaveLength(limit - 1);
    expect(listing.json.host_types).not.toContain(hostType(HOST_TYPES - 1));
    expect((await get(`/host_type/${hostType(HOST_TYPES - 1)}`)).status).toBe(
      404
    );
    // The overflow set has no host type: it is each instrument's global metric, never a name of its own.
    expect(listing.json.global).toEqual([
      'authTime',
      'queueLength',
      'sessionCount',
      'stanzasSent',
    ]);
    const global = (await get('/global')).json.metrics;
    const overflowed = Array.from(
      { length: HOST_TYPES - (limit - 1) },
      (_, k) => k + limit - 1
    );
    expect(Object.keys(global).sort()).toEqual(listing.json.global);
    expect(global.stanzasSent).toEqual({
      count: overflowed.reduce((a, i) => a + i + 1, 0),
      one: overflowed.reduce((a, i) => a + i + 1, 0),
    });
    expect(global.authTime.n).toBe(overflowed.length);
    // `/all` counts every add, those of the overflow series included.
    expect((await get('/all/stanzasSent')).json.metric).toEqual({
      count: sum(i => i + 1),
      one: sum(i => i + 1),
    });
    expect((await get('/all/authTime')).json.metric.n).toBe(HOST_TYPES);
    expect(warnings).toContain(
      'LegacyMetricsReader: instrument stanzasSent of meter "scale" passed its cardinality limit: ' +
        'in one collection it kept 999 attribute sets apart and summed every further one ' +
        '(the SDK does not say how many) into one overflow series. Their data is counted in the ' +
        "instrument's global metric and in /all, not under host types or names of their own. " +
        "Raise the reader's cardinalityLimit option (now 1000; legacy.cardinalityLimit in " +
        'createMeterProviderWithLegacyApi), or the aggregationCardinalityLimit of a View that sets one'
    );
  });
});
