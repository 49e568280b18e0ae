import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import Fastify from 'fastify';
import {
  InvalidOptionError,
  legacyMetricsApi,
  LegacyMetricsReader,
  startLegacyMetricsServer,
  type DeprecationOptions,
  type LegacyMetricsServer,
  type Variant,
} from '../../src';
import { IN_BAND_METRIC_NAME } from '../../src/http/inBandSunsetMetric';
import { deprecationOption } from '../../src/http/deprecation';
import { createLegacyMetricsApp } from '../../src/http/startLegacyMetricsListeners';
import { usageOptions } from '../../src/http/usageOptions';
import { createRig, type Rig } from '../helpers';
import { SERVERS, type Injection, type ServedApi } from './servers';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** The rig's clock starts at 2023-11-14T22:13:20Z. */
const START = 1_700_000_000_000;
const SINCE = '2023-11-01';
const SUNSET = '2024-06-30T00:00:00Z';
const SUCCESSOR = 'http://127.0.0.1:9464/metrics';
const DOCUMENTATION = 'https://example.com/legacy-api-end';
const FULL: DeprecationOptions = {
  since: SINCE,
  sunset: SUNSET,
  successor: SUCCESSOR,
  documentation: DOCUMENTATION,
};
/** The headers RFC 9745, RFC 8594 and RFC 8288 define, as FULL gives them. */
const FULL_HEADERS = {
  deprecation: `@${Date.UTC(2023, 10, 1) / 1000}`,
  sunset: 'Sun, 30 Jun 2024 00:00:00 GMT',
  link: `<${SUCCESSOR}>; rel="successor-version", <${DOCUMENTATION}>; rel="deprecation"; type="text/html"`,
};

async function record(rig: Rig): Promise<void> {
  const meter = rig.provider.getMeter('server');
  meter
    .createCounter('xmppMessageSent', { valueType: 0 })
    .add(3, { host_type: 'localhost' });
  meter.createGauge('nodeUpTime', { valueType: 0 }).record(42);
  await rig.flush();
}

/** A reader beside the legacy one, standing for Prometheus and OTLP: what the SDK exports. */
class ExportedNames extends MetricReader {
  constructor() {
    super({
      aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE,
    });
  }

  async names(): Promise<string[]> {
    const { resourceMetrics } = await this.collect();
    return resourceMetrics.scopeMetrics.flatMap(scope =>
      scope.metrics.map(metric => metric.descriptor.name)
    );
  }

  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }

  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

describe.each(SERVERS)('%s', (_server, serve) =>
  describe.each<[Variant]>([['host_type'], ['host']])(
    'legacyMetricsApi with a deprecation (%s variant)',
    variant => {
      let rig: Rig;
      let app: ServedApi;
      /** The API at /api on this server, without usage telemetry. */
      const appWith = (
        reader: LegacyMetricsReader,
        variant: Variant,
        deprecation: DeprecationOptions | undefined
      ) => serve(reader, { variant, deprecation, usage: false });

      beforeEach(async () => {
        rig = createRig({ hostTypes: ['localhost'] });
        await record(rig);
      });

      afterEach(async () => {
        await app?.close();
        await rig.close();
      });

      /** [request, status]: every status and method the legacy API answers with, JSON and XML. */
      const requests: Array<[string, Injection, number]> = [
        ['GET listing', { method: 'GET', url: '/api/metrics' }, 200],
        [
          'GET a group, XML',
          {
            method: 'GET',
            url: `/api/metrics/${variant}/localhost`,
            headers: { accept: 'application/xml' },
          },
          200,
        ],
        ['HEAD', { method: 'HEAD', url: '/api/metrics/all' }, 200],
        [
          'GET 404',
          { method: 'GET', url: `/api/metrics/${variant}/nowhere` },
          404,
        ],
        [
          'GET 404, XML',
          {
            method: 'GET',
            url: '/api/metrics/global/nothing',
            headers: { accept: 'application/xml' },
          },
          404,
        ],
        [
          'GET 406',
          {
            method: 'GET',
            url: '/api/metrics',
            headers: { accept: 'text/html' },
          },
          406,
        ],
        [
          'GET 400',
          { method: 'GET', url: '/api/metrics', headers: { accept: 'a/b;;' } },
          400,
        ],
        ['OPTIONS', { method: 'OPTIONS', url: '/api/metrics' }, 200],
        ['POST 405', { method: 'POST', url: '/api/metrics' }, 405],
        ['DELETE 405', { method: 'DELETE', url: '/api/metrics/all' }, 405],
        ['TRACE 501', { method: 'TRACE', url: '/api/metrics' }, 501],
      ];

      describe('headers', () => {
        it.each(requests)(
          'should send Deprecation, Sunset and Link on %s',
          async (_name, request, status) => {
            app = await appWith(rig.reader, variant, FULL);
            const res = await app.inject(request);
            expect(res.statusCode).toBe(status);
            expect({
              deprecation: res.headers['deprecation'],
              sunset: res.headers['sunset'],
              link: res.headers['link'],
            }).toEqual(FULL_HEADERS);
          }
        );

        it.each(requests)(
          'should send only the Deprecation header on %s when only since is given',
          async (_name, request, status) => {
            app = await appWith(rig.reader, variant, {
              since: new Date('2023-11-01T12:30:45.900Z'),
            });
            const res = await app.inject(request);
            expect(res.statusCode).toBe(status);
            // RFC 9745 §2.1: an Item whose value is a Date, in whole seconds.
            expect(res.headers['deprecation']).toBe(
              `@${Date.UTC(2023, 10, 1, 12, 30, 45) / 1000}`
            );
            expect(res.headers['sunset']).toBeUndefined();
            expect(res.headers['link']).toBeUndefined();
          }
        );

        it.each(requests)(
          'should send the same response as without a deprecation on %s, apart from the headers',
          async (_name, request) => {
            const plain = await appWith(rig.reader, variant, undefined);
            const before = await plain.inject(request);
            await plain.close();
            app = await appWith(rig.reader, variant, FULL);
            const after = await app.inject(request);
            const { deprecation, sunset, link, ...rest } = after.headers;
            expect([deprecation, sunset, link]).toEqual(
              Object.values(FULL_HEADERS)
            );
            expect({ status: after.statusCode, body: after.body }).toEqual({
              status: before.statusCode,
              body: before.body,
            });
            expect(omitDate(rest)).toEqual(omitDate(before.headers));
            expect(before.headers['deprecation']).toBeUndefined();
          }
        );

        it('should send the headers on the 410 of a brownout, in JSON and XML', async () => {
          app = await appWith(rig.reader, variant, {
            ...FULL,
            brownouts: [{ start: '2023-11-14T22:00:00Z', duration: 'PT1H' }],
          });
          for (const accept of ['application/json', 'application/xml']) {
            const res = await app.inject({
              method: 'GET',
              url: '/api/metrics',
              headers: { accept },
            });
            expect(res.statusCode).toBe(410);
            expect(res.headers['content-type']).toBe(accept);
            expect(res.headers['link']).toBe(FULL_HEADERS.link);
            expect(res.headers['deprecation']).toBe(FULL_HEADERS.deprecation);
            expect(res.headers['sunset']).toBe(FULL_HEADERS.sunset);
          }
        });
      });

      describe('schedule', () => {
        it('should brown out twice, then answer 410 for good from the sunset, on one fake clock', async () => {
          // START is 2023-11-14T22:13:20Z.
          app = await appWith(rig.reader, variant, {
            since: SINCE,
            sunset: '2023-11-20T00:00:00Z',
            successor: SUCCESSOR,
            enforceSunset: true,
            brownouts: [
              { start: '2023-11-15T10:00:00Z', duration: 'PT30M' },
              { start: '2023-11-17T10:00:00+02:00', duration: 'PT2H' },
              // Overlaps the window before: one window until 12:30 local.
              { start: '2023-11-17T11:00:00+02:00', duration: 'PT1H30M' },
            ],
          });
          const at = async (iso: string) => {
            rig.clock.now = Date.parse(iso);
            const statuses: Record<string, number> = {};
            for (const method of ['GET', 'HEAD', 'OPTIONS', 'POST'] as const) {
              const res = await app.inject({ method, url: '/api/metrics' });
              statuses[method] = res.statusCode;
            }
            const get = await app.inject({
              method: 'GET',
              url: `/api/metrics/${variant}/localhost`,
            });
            return { statuses, body: get.body };
          };
          const open = { GET: 200, HEAD: 200, OPTIONS: 200, POST: 405 };
          const brownout = { GET: 410, HEAD: 410, OPTIONS: 200, POST: 405 };
          const gone = { GET: 410, HEAD: 410, OPTIONS: 410, POST: 410 };

          expect((await at('2023-11-15T09:59:59.999Z')).statuses).toEqual(open);
          const first = await at('2023-11-15T10:00:00Z');
          expect(first.statuses).toEqual(brownout);
          expect(JSON.parse(first.body)).toEqual({
            error: 'gone',
            message:
              'the legacy metrics API is being switched off: this scheduled brownout lasts until ' +
              '2023-11-15T10:30:00Z; it will be switched off for good at 2023-11-20T00:00:00Z; ' +
              'use http://127.0.0.1:9464/metrics instead',
          });
          expect((await at('2023-11-15T10:29:59Z')).statuses).toEqual(brownout);
          expect((await at('2023-11-15T10:30:00Z')).statuses).toEqual(open);
          expect((await at('2023-11-17T07:59:59Z')).statuses).toEqual(open);
          const second = await at('2023-11-17T08:00:00Z');
          expect(second.statuses).toEqual(brownout);
          expect(JSON.parse(second.body).message).toContain(
            'lasts until 2023-11-17T10:30:00Z;'
          );
          expect((await at('2023-11-17T10:29:59Z')).statuses).toEqual(brownout);
          expect((await at('2023-11-17T10:30:00Z')).statuses).toEqual(open);
          expect((await at('2023-11-19T23:59:59.999Z')).statuses).toEqual(open);
          const sunset = await at('2023-11-20T00:00:00Z');
          expect(sunset.statuses).toEqual(gone);
          expect(JSON.parse(sunset.body)).toEqual({
            error: 'gone',
            message:
              'the legacy metrics API was switched off at 2023-11-20T00:00:00Z; use http://127.0.0.1:9464/metrics instead',
          });
          expect((await at('2030-01-01T00:00:00Z')).statuses).toEqual(gone);
          // The clock may go back (a test, an NTP step): the schedule follows it.
          expect((await at('2023-11-15T10:10:00Z')).statuses).toEqual(brownout);
          expect((await at('2023-11-14T00:00:00Z')).statuses).toEqual(open);
        });

        it('should answer 410 in XML when XML is negotiated, with the same message', async () => {
          app = await appWith(rig.reader, variant, {
            since: SINCE,
            brownouts: [{ start: '2023-11-14', duration: 'P1D' }],
          });
          const res = await app.inject({
            method: 'GET',
            url: '/api/metrics/all',
            headers: { accept: 'application/xml' },
          });
          expect(res.statusCode).toBe(410);
          expect(res.body).toBe(
            "<error code='gone' message='the legacy metrics API is being switched off: this scheduled brownout lasts until 2023-11-15T00:00:00Z'/>"
          );
        });

        it('should keep serving after the sunset when enforceSunset is off', async () => {
          app = await appWith(rig.reader, variant, {
            since: SINCE,
            sunset: '2023-11-01',
          });
          expect((await app.inject({ url: '/api/metrics' })).statusCode).toBe(
            200
          );
        });
      });

      describe('in-band metric', () => {
        const inBand = { since: SINCE, sunset: SUNSET, inBand: true };

        it('should count the days left, rounded up, in count and one, from 400 days before the sunset to after it', async () => {
          app = await appWith(rig.reader, variant, inBand);
          const sunsetMs = Date.parse(SUNSET);
          // The whole last day reads 1: 0 says the sunset has passed, and only then.
          const cases: Array<[number, number]> = [
            [sunsetMs - 400 * DAY, 400],
            [sunsetMs - 400 * DAY + 1, 400],
            [sunsetMs - 399 * DAY, 399],
            [sunsetMs - 30 * DAY - HOUR, 31],
            [sunsetMs - DAY - 1, 2],
            [sunsetMs - DAY, 1],
            [sunsetMs - 3 * HOUR, 1],
            [sunsetMs - 1, 1],
            [sunsetMs, 0],
            [sunsetMs + 1, 0],
            [sunsetMs + 90 * DAY, 0],
          ];
          const seen: Array<[number, unknown]> = [];
          for (const [time, days] of cases) {
            rig.clock.now = time;
            await rig.flush();
            const res = await app.inject({
              url: `/api/metrics/${variant}/localhost`,
            });
            seen.push([
              days,
              JSON.parse(res.body).metrics[IN_BAND_METRIC_NAME],
            ]);
          }
          expect(seen).toEqual(
            cases.map(([, days]) => [days, { count: days, one: days }])
          );
        });

        it('should appear in every group, the global metrics, the listing, /all and its own paths', async () => {
          rig.clock.now = Date.parse(SUNSET) - 10 * DAY;
          await rig.flush();
          app = await appWith(rig.reader, variant, inBand);
          const json = async (url: string) => {
            const res = await app.inject({ url });
            return { status: res.statusCode, body: JSON.parse(res.body) };
          };
          const value = { count: 10, one: 10 };
          // Ten days later the window of `one` is empty.
          const sent = { count: 3, one: 0 };
          expect(await json('/api/metrics')).toEqual({
            status: 200,
            body: {
              [variant === 'host' ? 'hosts' : 'host_types']: ['localhost'],
              metrics: [IN_BAND_METRIC_NAME, 'xmppMessageSent'],
              global: [IN_BAND_METRIC_NAME, 'nodeUpTime'],
            },
          });
          expect(await json(`/api/metrics/${variant}/localhost`)).toEqual({
            status: 200,
            body: {
              metrics: {
                [IN_BAND_METRIC_NAME]: value,
                xmppMessageSent: sent,
              },
            },
          });
          expect((await json('/api/metrics/global')).body.metrics).toEqual({
            [IN_BAND_METRIC_NAME]: value,
            nodeUpTime: expect.objectContaining({ value: 42 }),
          });
          expect((await json('/api/metrics/all')).body.metrics).toEqual({
            [IN_BAND_METRIC_NAME]: value,
            xmppMessageSent: sent,
          });
          for (const path of [
            `/api/metrics/${variant}/localhost/${IN_BAND_METRIC_NAME}`,
            `/api/metrics/global/${IN_BAND_METRIC_NAME}`,
            `/api/metrics/all/${IN_BAND_METRIC_NAME}`,
          ]) {
            expect(await json(path)).toEqual({
              status: 200,
              body: { metric: value },
            });
          }
          // An unknown group stays unknown.
          expect(
            (
              await json(
                `/api/metrics/${variant}/nowhere/${IN_BAND_METRIC_NAME}`
              )
            ).status
          ).toBe(404);
          const xml = await app.inject({
            url: `/api/metrics/${variant}/localhost`,
            headers: { accept: 'application/xml' },
          });
          expect(xml.body).toBe(
            "<metrics><legacyApiSunsetDays count='10' one='10'/><xmppMessageSent count='3' one='0'/></metrics>"
          );
        });

        it('should not show in a plugin without inBand on the same reader, nor in what the SDK exports', async () => {
          // Both readers on one provider, as createMeterProviderWithLegacyApi builds it.
          const reader = new LegacyMetricsReader({ now: () => START });
          const exported = new ExportedNames();
          const provider = new MeterProvider({ readers: [reader, exported] });
          provider
            .getMeter('server')
            .createCounter('xmppMessageSent')
            .add(1, { host_type: 'localhost' });
          await reader.forceFlush();
          app = await appWith(reader, variant, inBand);
          const plain = await appWith(reader, variant, undefined);
          try {
            await app.inject({ url: `/api/metrics/${variant}/localhost` });
            const res = await plain.inject({
              url: `/api/metrics/${variant}/localhost`,
            });
            expect(Object.keys(JSON.parse(res.body).metrics)).toEqual([
              'xmppMessageSent',
            ]);
            expect(await exported.names()).not.toContain(IN_BAND_METRIC_NAME);
          } finally {
            await plain.close();
            await provider.shutdown();
          }
        });

        it('should be left out of the listing metrics when every metric is global', async () => {
          await rig.close();
          rig = createRig({
            hostTypes: ['localhost'],
            allMetricsAreGlobal: true,
          });
          await record(rig);
          app = await appWith(rig.reader, variant, inBand);
          const res = await app.inject({ url: '/api/metrics' });
          expect(JSON.parse(res.body)).toMatchObject({
            metrics: [],
            global: [IN_BAND_METRIC_NAME, 'nodeUpTime', 'xmppMessageSent'],
          });
        });
      });
    }
  )
);

function omitDate(headers: Record<string, unknown>): Record<string, unknown> {
  const { date: _date, ...rest } = headers;
  return rest;
}

describe('deprecation options', () => {
  let rig: Rig;

  beforeEach(() => {
    rig = createRig();
  });

  afterEach(async () => {
    await rig.close();
  });

  const register = async (deprecation: unknown, extra: object = {}) => {
    const app = Fastify();
    try {
      await app.register(legacyMetricsApi, {
        reader: rig.reader,
        deprecation: deprecation as DeprecationOptions,
        ...extra,
      });
      await app.ready();
    } finally {
      await app.close();
    }
  };

  it.each<[string, unknown, string]>([
    [
      'not an object',
      '2026-01-01',
      'legacyMetricsApi.deprecation: found "2026-01-01", expected an object with at least "since"',
    ],
    [
      'no since',
      { sunset: '2026-01-01' },
      'legacyMetricsApi.deprecation.since: found nothing, expected an ISO 8601 date (2026-06-30, midnight UTC) or date-time with an offset (2026-06-30T12:00:00Z)',
    ],
    [
      'an unparseable date',
      { since: '2026-02-30' },
      'legacyMetricsApi.deprecation.since: found "2026-02-30", expected an ISO 8601 date (2026-06-30, midnight UTC) or date-time with an offset (2026-06-30T12:00:00Z)',
    ],
    [
      'a date-time without an offset',
      { since: '2026-01-01T10:00:00' },
      'legacyMetricsApi.deprecation.since: found "2026-01-01T10:00:00", expected an ISO 8601 date (2026-06-30, midnight UTC) or date-time with an offset (2026-06-30T12:00:00Z)',
    ],
    [
      'an invalid Date',
      { since: new Date('nope') },
      'legacyMetricsApi.deprecation.since: found an invalid Date, expected an ISO 8601 date (2026-06-30, midnight UTC) or date-time with an offset (2026-06-30T12:00:00Z)',
    ],
    [
      'a sunset before since',
      { since: '2026-01-01', sunset: '2025-12-31T23:59:59Z' },
      'legacyMetricsApi.deprecation.sunset: found "2025-12-31T23:59:59Z", expected an instant not before since (2026-01-01T00:00:00Z)',
    ],
    [
      'a relative successor',
      { since: '2026-01-01', successor: '/metrics' },
      'legacyMetricsApi.deprecation.successor: found "/metrics", expected an absolute http or https URL',
    ],
    [
      'a non-http documentation URL',
      { since: '2026-01-01', documentation: 'ftp://example.com/end' },
      'legacyMetricsApi.deprecation.documentation: found "ftp://example.com/end", expected an absolute http or https URL',
    ],
    [
      'inBand without a sunset',
      { since: '2026-01-01', inBand: true },
      'legacyMetricsApi.deprecation.inBand: found true, expected false, or a sunset to go with it',
    ],
    [
      'enforceSunset not a boolean',
      { since: '2026-01-01', sunset: '2026-02-01', enforceSunset: 'yes' },
      'legacyMetricsApi.deprecation.enforceSunset: found "yes", expected true or false',
    ],
    [
      'an unknown option',
      { since: '2026-01-01', sunsett: '2026-02-01' },
      'legacyMetricsApi.deprecation.sunsett: found an unknown option, expected one of since, sunset, successor, documentation, inBand, enforceSunset, brownouts (did you mean sunset?)',
    ],
    [
      'brownouts not an array',
      { since: '2026-01-01', brownouts: { start: '2026-01-02' } },
      'legacyMetricsApi.deprecation.brownouts: found an object, expected an array of { start, duration } windows',
    ],
    [
      'a brownout without a duration',
      { since: '2026-01-01', brownouts: [{ start: '2026-01-02T10:00:00Z' }] },
      'legacyMetricsApi.deprecation.brownouts[0].duration: found nothing, expected a positive ISO 8601 duration in weeks, days, hours, minutes or seconds, such as PT30M, PT2H or P1D',
    ],
    [
      'a brownout in months',
      {
        since: '2026-01-01',
        brownouts: [
          { start: '2026-01-02', duration: 'PT1H' },
          { start: '2026-01-03', duration: 'P1M' },
        ],
      },
      'legacyMetricsApi.deprecation.brownouts[1].duration: found "P1M", expected a positive ISO 8601 duration in weeks, days, hours, minutes or seconds, such as PT30M, PT2H or P1D',
    ],
    [
      'a brownout of zero',
      {
        since: '2026-01-01',
        brownouts: [{ start: '2026-01-02', duration: 'PT0S' }],
      },
      'legacyMetricsApi.deprecation.brownouts[0].duration: found "PT0S", expected a positive ISO 8601 duration in weeks, days, hours, minutes or seconds, such as PT30M, PT2H or P1D',
    ],
    [
      'a brownout start that is no date',
      {
        since: '2026-01-01',
        brownouts: [{ start: 'tomorrow', duration: 'PT1H' }],
      },
      'legacyMetricsApi.deprecation.brownouts[0].start: found "tomorrow", expected an ISO 8601 date (2026-06-30, midnight UTC) or date-time with an offset (2026-06-30T12:00:00Z)',
    ],
    [
      'an unknown brownout key',
      {
        since: '2026-01-01',
        brownouts: [{ start: '2026-01-02', duration: 'PT1H', end: 'x' }],
      },
      'legacyMetricsApi.deprecation.brownouts[0].end: found an unknown option, expected start or duration',
    ],
  ])('should reject %s', async (_name, deprecation, message) => {
    const error: unknown = await register(deprecation).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toBe(message);
  });

  it('should reject a relative defaultSuccessor', async () => {
    const error: unknown = await register(undefined, {
      defaultSuccessor: 'metrics',
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'legacyMetricsApi.defaultSuccessor: found "metrics", expected an absolute http or https URL'
    );
  });

  it('should accept every form of the issue: dates, date-times with offsets, Dates, durations', async () => {
    await expect(
      register({
        since: new Date('2026-01-01T00:00:00Z'),
        sunset: '2026-12-31T23:59:59.5+01:00',
        successor: 'https://prometheus.example.com/metrics',
        documentation: 'http://example.com/end',
        inBand: true,
        enforceSunset: false,
        brownouts: [
          { start: '2026-03-01', duration: 'P1D' },
          { start: new Date('2026-04-01T10:00:00Z'), duration: 'PT30M' },
          { start: '2026-05-01T10:00:00-05:00', duration: 'P1W' },
          { start: '2026-05-01T10:00:00Z', duration: 'PT1H30M15.5S' },
        ],
      })
    ).resolves.toBeUndefined();
  });

  it('should not write into the caller options', async () => {
    const options = Object.freeze({
      since: '2026-01-01',
      brownouts: Object.freeze([
        Object.freeze({ start: '2026-01-02', duration: 'PT1H' }),
      ]),
    });
    await expect(
      register(options, { defaultSuccessor: SUCCESSOR })
    ).resolves.toBeUndefined();
    expect(options).toEqual({
      since: '2026-01-01',
      brownouts: [{ start: '2026-01-02', duration: 'PT1H' }],
    });
  });
});

describe('startLegacyMetricsServer with a deprecation', () => {
  let rig: Rig;
  let server: LegacyMetricsServer | undefined;

  beforeEach(() => {
    rig = createRig();
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await rig.close();
  });

  it('should send the headers over a real socket, with the default successor filled in', async () => {
    server = await startLegacyMetricsServer(rig.reader, {
      port: 0,
      deprecation: {
        since: SINCE,
        sunset: SUNSET,
        documentation: DOCUMENTATION,
      },
      defaultSuccessor: SUCCESSOR,
      usage: false,
    });
    const res = await fetch(`${server.url}/api/metrics`);
    expect(res.status).toBe(200);
    expect({
      deprecation: res.headers.get('deprecation'),
      sunset: res.headers.get('sunset'),
      link: res.headers.get('link'),
    }).toEqual(FULL_HEADERS);
  });

  it('should keep a successor that is given over the default one', async () => {
    server = await startLegacyMetricsServer(rig.reader, {
      port: 0,
      deprecation: { since: SINCE, successor: 'https://new.example.com/' },
      defaultSuccessor: SUCCESSOR,
      usage: false,
    });
    const res = await fetch(`${server.url}/api/metrics`);
    expect(res.headers.get('link')).toBe(
      '<https://new.example.com/>; rel="successor-version"'
    );
  });

  it('should reject a bad deprecation before listening', async () => {
    await expect(
      startLegacyMetricsServer(rig.reader, {
        port: 0,
        deprecation: { since: 'soon' },
      })
    ).rejects.toThrow(
      new InvalidOptionError(
        'deprecation.since: found "soon", expected an ISO 8601 date (2026-06-30, midnight UTC) or date-time with an offset (2026-06-30T12:00:00Z)'
      )
    );
  });

  it('should serve a handler group of a standalone app with the mount deprecation only', async () => {
    const group = {
      variant: 'host_type',
      allowedHost: '_',
      place: '',
    } as const;
    const app = createLegacyMetricsApp(
      rig.reader,
      {
        groups: [
          {
            ...group,
            path: '/old',
            deprecation: deprecationOption('deprecation', { since: SINCE }),
          },
          { ...group, path: '/api', deprecation: undefined },
        ],
      },
      usageOptions('', {})
    );
    try {
      await app.ready();
      const old = await app.inject({ url: '/old/metrics' });
      const current = await app.inject({ url: '/api/metrics' });
      expect(old.headers['deprecation']).toBe(FULL_HEADERS.deprecation);
      expect(current.headers['deprecation']).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});
