import type { Variant } from '../../src';
import { WARNING_CODES, WARNING_TYPE } from '../../src/warnings';
import { createRig, read, type Rig } from '../helpers';

/*
 * Past an instrument's cardinality limit the SDK sums the further attribute sets into one series
 * with the attribute `otel.metric.overflow: true`. Its data is the instrument's: it is counted in
 * the instrument's global metric and in `/all`, and is never a name of its own (`wide.true`).
 */

const LIMIT = 1_000;
const SETS = 5_000;

let rig: Rig;
let emitted: jest.SpyInstance;
beforeEach(() => {
  emitted = jest.spyOn(process, 'emitWarning');
});
afterEach(async () => {
  emitted.mockRestore();
  await rig?.close();
});

describe.each<Variant>(['host_type', 'host'])(
  'LegacyMetricsReader overflow series (%s variant)',
  variant => {
    const get = (path: string) => read(rig.reader, `metrics${path}`, variant);
    const noTrue = (names: readonly string[]) =>
      expect(names.filter(name => name.endsWith('.true'))).toEqual([]);

    it('should count every add of 5,000 attribute sets over a limit of 1,000 in /all, and serve no .true name', async () => {
      rig = createRig({ cardinalityLimit: LIMIT });
      const meter = rig.provider.getMeter('app');
      const wide = meter.createCounter('wide');
      const byUser = meter.createCounter('logins');
      for (let i = 0; i < SETS; i++) {
        wide.add(1, { host_type: `h${i}` });
        byUser.add(1, { host_type: 'X', user: `u${i}` });
      }
      await rig.flush();

      expect(get('/all/wide').json).toEqual({
        metric: { count: SETS, one: SETS },
      });
      // The host types it kept apart, and the rest in the instrument's global metric.
      expect(get('/global/wide').json).toEqual({
        metric: { count: SETS - (LIMIT - 1), one: SETS - (LIMIT - 1) },
      });
      expect(get(`/${variant}/h0/wide`).json).toEqual({
        metric: { count: 1, one: 1 },
      });
      const listing = get('').json;
      expect(listing.global).toEqual(['logins', 'wide']);
      noTrue(listing.metrics);
      const global = get('/global').json.metrics;
      noTrue(Object.keys(global));
      expect(global.logins).toEqual({
        count: SETS - (LIMIT - 1),
        one: SETS - (LIMIT - 1),
      });
      noTrue(Object.keys(get('/all').json.metrics));
      noTrue(Object.keys(get(`/${variant}/X`).json.metrics));
      expect(get('/all/logins.true').status).toBe(404);
      expect(get('/global/wide.true').status).toBe(404);

      const warnings = emitted.mock.calls
        .filter(([, o]) => (o as { type?: string })?.type === WARNING_TYPE)
        .map(([message, o]) => [(o as { code: string }).code, message]);
      expect(warnings).toEqual(
        ['wide', 'logins'].map(name => [
          WARNING_CODES.cardinalityOverflow,
          `LegacyMetricsReader: instrument ${name} of meter "app" passed its cardinality limit: ` +
            'in one collection it kept 999 attribute sets apart and summed every further one ' +
            '(the SDK does not say how many) into one overflow series. Their data is counted in the ' +
            "instrument's global metric and in /all, not under host types or names of their own. " +
            "Raise the reader's cardinalityLimit option (now 1000; legacy.cardinalityLimit in " +
            'createMeterProviderWithLegacyApi), or the aggregationCardinalityLimit of a View that sets one',
        ])
      );
    });

    it('should fold the overflow of a gauge into its global metric as one more source of the sum', async () => {
      rig = createRig({ cardinalityLimit: 3 });
      const gauge = rig.provider.getMeter('app').createGauge('depth');
      for (let i = 0; i < 5; i++) gauge.record(10, { host_type: `h${i}` });
      await rig.flush();
      // Two host types kept; the SDK keeps the last of the other three in the overflow series.
      expect(get('/all/depth').json).toEqual({ metric: { value: 30 } });
      expect(get('/global/depth').json).toEqual({
        metric: { value: 10, ms_since_reset: 0 },
      });
    });
  }
);
