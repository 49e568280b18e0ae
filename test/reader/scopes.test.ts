import { diag, ValueType, type Attributes } from '@opentelemetry/api';
import {
  InvalidOptionError,
  type LegacyMetricsReaderOptions,
  type MeterScope,
  type Variant,
} from '../../src';
import { PACKAGE_METER_NAME } from '../../src/attributes';
import { resolveReaderOptions } from '../../src/reader/options';
import { createRig, read, type Rig } from '../helpers';
import { captureDiag } from '../support/diag';
import { takeWarnings } from '../support/warnings';
import { WARNING_CODES } from '../../src/warnings';

/*
 * A server set up as NodeSDK with auto-instrumentations sets it up: the HTTP instrumentation's
 * meter records the server's requests beside the application's own meter, a library brings a
 * meter of its own, and the package's usage telemetry has one too. The legacy API served the
 * messaging server's own metrics only.
 */

const APP = 'messaging-server';
const HTTP = '@opentelemetry/instrumentation-http';
const LIBRARY = 'pool-library';

let rig: Rig;
afterEach(async () => {
  diag.disable();
  await rig?.close();
});

/** Records what each of the four meters records in a real server, and collects once. */
async function serve(options: LegacyMetricsReaderOptions = {}): Promise<void> {
  rig = createRig({ hostTypes: ['localhost'], ...options });
  const provider = rig.provider;
  const http = provider.getMeter(HTTP, '0.57.0');
  const request: Attributes = {
    'http.method': 'GET',
    'http.status_code': 200,
  };
  http.createHistogram('http.server.duration').record(12, request);
  http.createHistogram('http.client.duration').record(3, request);
  http.createUpDownCounter('http.server.active_requests').add(1, {
    'http.method': 'GET',
  });
  const app = provider.getMeter(APP, '1.2.3', {
    schemaUrl: 'https://opentelemetry.io/schemas/1.24.0',
  });
  app.createCounter('xmppMessageSent').add(7, { host_type: 'localhost' });
  app.createUpDownCounter('sessionCount', { valueType: ValueType.INT }).add(2);
  provider
    .getMeter(LIBRARY)
    .createGauge('pool.size')
    .record(4, { host_type: 'localhost' });
  provider
    .getMeter(PACKAGE_METER_NAME)
    .createHistogram('http.server.request.duration')
    .record(0.002);
  await rig.flush();
}

describe.each<Variant>(['host_type', 'host'])(
  'LegacyMetricsReader meters (%s variant)',
  variant => {
    const get = (path: string) => read(rig.reader, `metrics${path}`, variant);
    const listingKey = variant === 'host_type' ? 'host_types' : 'hosts';

    describe('by default', () => {
      it("should serve the application's meters only, not the instrumentation's nor the package's own", async () => {
        await serve();
        expect(get('').json).toEqual({
          [listingKey]: ['localhost'],
          // Single-part names only, as the original listing showed them.
          metrics: ['xmppMessageSent'],
          global: ['sessionCount'],
        });
        expect(get(`/${variant}/localhost`).json).toEqual({
          metrics: {
            'pool.size': { value: 4, ms_since_reset: 0 },
            xmppMessageSent: { count: 7, one: 7 },
          },
        });
        expect(get('/global').json).toEqual({
          metrics: { sessionCount: { value: 2, ms_since_reset: 0 } },
        });
        expect(get('/all').json).toEqual({
          metrics: {
            'pool.size': { value: 4 },
            xmppMessageSent: { count: 7, one: 7 },
          },
        });
        for (const name of [
          'http.server.duration.GET.200',
          'http.server.active_requests.GET',
          'http.server.request.duration',
        ]) {
          expect(get(`/all/${name}`).status).toBe(404);
          expect(get(`/global/${name}`).status).toBe(404);
        }
      });
    });

    describe('meters.include', () => {
      it('should serve exactly the meters it names, an instrumentation meter included', async () => {
        await serve({ meters: { include: [APP, HTTP] } });
        expect(get('').json).toEqual({
          [listingKey]: ['localhost'],
          metrics: ['xmppMessageSent'],
          global: ['sessionCount'],
        });
        expect(Object.keys(get('/global').json.metrics)).toEqual([
          'http.client.duration.GET.200',
          'http.server.active_requests.GET',
          'http.server.duration.GET.200',
          'sessionCount',
        ]);
        expect(get('/global/http.server.duration.GET.200').json.metric).toEqual(
          expect.objectContaining({ n: 1, min: 12, max: 12 })
        );
        expect(get('/global/http.server.active_requests.GET').json).toEqual({
          metric: { value: 1, ms_since_reset: 0 },
        });
        // Not named: the library's meter and the package's own.
        expect(get('/all/pool.size').status).toBe(404);
        expect(get('/global/http.server.request.duration').status).toBe(404);
      });

      it('should take patterns, and a RegExp with the g flag answers the same for every meter', async () => {
        await serve({ meters: { include: [/^@opentelemetry\/instr/g] } });
        expect(Object.keys(get('/global').json.metrics)).toEqual([
          'http.client.duration.GET.200',
          'http.server.active_requests.GET',
          'http.server.duration.GET.200',
        ]);
        expect(get('').json[listingKey]).toEqual(['localhost']);
        expect(get('/all').json).toEqual({ metrics: [] });
      });
    });

    describe('meters.exclude', () => {
      it('should leave out an application meter, the default still leaving out the instrumentation', async () => {
        await serve({ meters: { exclude: [LIBRARY] } });
        expect(get('').json).toEqual({
          [listingKey]: ['localhost'],
          metrics: ['xmppMessageSent'],
          global: ['sessionCount'],
        });
        expect(get('/all/pool.size').status).toBe(404);
        expect(get('/global/http.server.duration.GET.200').status).toBe(404);
      });

      it('should win over include', async () => {
        await serve({
          meters: { include: [APP, HTTP], exclude: [/instrumentation-http$/] },
        });
        expect(Object.keys(get('/global').json.metrics)).toEqual([
          'sessionCount',
        ]);
      });
    });
  }
);

describe('legacyName', () => {
  it('should receive the instrument scope, and can keep two meters apart with it', async () => {
    const seen: Array<[string, MeterScope]> = [];
    await serve({
      meters: { include: [APP, LIBRARY] },
      legacyName: (name, _attributes, scope) => {
        seen.push([name, scope]);
        return scope.name === LIBRARY ? `library.${name}` : name;
      },
    });
    expect(seen).toEqual([
      [
        'xmppMessageSent',
        {
          name: APP,
          version: '1.2.3',
          schemaUrl: 'https://opentelemetry.io/schemas/1.24.0',
        },
      ],
      [
        'sessionCount',
        {
          name: APP,
          version: '1.2.3',
          schemaUrl: 'https://opentelemetry.io/schemas/1.24.0',
        },
      ],
      ['pool.size', { name: LIBRARY, version: '' }],
    ]);
    expect(read(rig.reader, 'metrics/host_type/localhost').json).toEqual({
      metrics: {
        'library.pool.size': { value: 4, ms_since_reset: 0 },
        xmppMessageSent: { count: 7, one: 7 },
      },
    });
  });
});

describe('warnings about names', () => {
  function captureWarnings(): string[] {
    return captureDiag().warn;
  }

  it('should not blame a legacyName the user never set', async () => {
    const warnings = captureWarnings();
    rig = createRig();
    rig.provider
      .getMeter(APP)
      .createCounter('requests')
      .add(1, { route: '/users' });
    await rig.flush();
    expect(warnings).toEqual([
      'LegacyMetricsReader: the default legacy name "requests./users" of instrument requests of meter "messaging-server" ' +
        '(from {"route":"/users"}): expected a non-empty string without "/"; the series is left out ' +
        '(a legacyName option can name it otherwise)',
    ]);
    expect(takeWarnings()).toEqual(
      warnings.map(message => ({ code: WARNING_CODES.seriesLeftOut, message }))
    );
  });

  it('should name the legacyName the user set when it gives a bad name', async () => {
    const warnings = captureWarnings();
    rig = createRig({ legacyName: () => 'a/b' });
    rig.provider.getMeter(APP).createCounter('requests').add(1);
    await rig.flush();
    expect(warnings).toEqual([
      'LegacyMetricsReader: legacyName gave "a/b" for instrument requests of meter "messaging-server": ' +
        'expected a non-empty string without "/"; the series is left out',
    ]);
    expect(takeWarnings()).toEqual(
      warnings.map(message => ({ code: WARNING_CODES.seriesLeftOut, message }))
    );
  });
});

describe('resolveReaderOptions meters', () => {
  it.each([
    [{ meters: ['app'] }, 'meters: found an array, expected an object'],
    [
      { meters: { includes: ['app'] } },
      'meters.includes: found an unknown option, expected include or exclude (did you mean include?)',
    ],
    [
      { meters: { include: 'app' } },
      'meters.include: found "app", expected an array of meter names (non-empty strings) and patterns (RegExps)',
    ],
    [
      { meters: { exclude: ['app', 5] } },
      'meters.exclude[1]: found 5, expected a non-empty string or a RegExp',
    ],
    [
      { meters: { include: [''] } },
      'meters.include[0]: found "", expected a non-empty string or a RegExp',
    ],
  ])('should reject %j', (options, message) => {
    expect(() => resolveReaderOptions(options as never)).toThrow(
      new InvalidOptionError(message)
    );
  });

  it('should never write into the caller options', () => {
    const pattern = /^app/g;
    const meters = Object.freeze({ include: Object.freeze([pattern]) });
    const resolved = resolveReaderOptions({ meters });
    expect(resolved.meters.serves('app')).toBe(true);
    expect(resolved.meters.serves('app')).toBe(true);
    expect(pattern.lastIndex).toBe(0);
    expect(resolved.meters.serves(HTTP)).toBe(false);
  });
});
