import { MeterProvider } from '@opentelemetry/sdk-metrics';
import express from 'express';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import Fastify from 'fastify';
import { XMLValidator } from 'fast-xml-parser';
import {
  InvalidOptionError,
  legacyMetricsApi,
  LegacyMetricsReader,
  legacyMetricsRequestListener,
  type Variant,
} from '../../src';
import { createLegacyMetricsApp } from '../../src/http/startLegacyMetricsListeners';
import { usageOptions } from '../../src/http/usageOptions';
import { createRig, type Rig } from '../helpers';
import { SERVERS, type Injected, type ServedApi } from './servers';

/** Known traffic: two host types (one with a space), global metrics, a histogram. */
async function recordTraffic(rig: Rig): Promise<void> {
  const meter = rig.provider.getMeter('server');
  const sent = meter.createCounter('xmppMessageSent', { valueType: 0 });
  const roster = meter.createCounter('modRosterGets', { valueType: 0 });
  const sessions = meter.createUpDownCounter('sessionCount', { valueType: 0 });
  const uptime = meter.createGauge('nodeUpTime', { valueType: 0 });
  const size = meter.createHistogram('data.xmpp.sent.xml_stanza_size', {
    valueType: 0,
  });
  sent.add(3, { host_type: 'localhost' });
  sent.add(2, { host_type: 'test type' });
  roster.add(1, { host_type: 'test type' });
  sessions.add(2, { host_type: 'localhost' });
  sessions.add(1, { host_type: 'test type' });
  uptime.record(42);
  size.record(100);
  size.record(300);
  await rig.flush();
}

/** What each server answers for a path under the prefix that is not the API's. */
const FOREIGN_NOT_FOUND: Record<string, (res: Injected) => void> = {
  // fastify's own default handler, not the API's error shape.
  'fastify plugin': res =>
    expect(res.json()).toMatchObject({ statusCode: 404 }),
  // No application to fall through to: the API's own 404, as its servers answer.
  'node:http request listener': res =>
    expect(res.json()).toMatchObject({ error: 'not_found' }),
  // Express's final handler, reached through next().
  'Express request listener': res => expect(res.body).toContain('Cannot GET'),
};

describe.each(SERVERS)('%s', (serverName, serve) =>
  describe.each<[Variant, string, string]>([
    ['host_type', 'host_type', 'host_types'],
    ['host', 'host', 'hosts'],
  ])('legacyMetricsApi (%s variant)', (variant, word, listingKey) => {
    let rig: Rig;
    let app: ServedApi;

    beforeEach(async () => {
      rig = createRig({ hostTypes: ['localhost', 'test type'] });
      await recordTraffic(rig);
      app = await serve(rig.reader, { variant });
    });

    afterEach(async () => {
      await app.close();
      await rig.close();
    });

    const get = (url: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url, headers });

    describe('GET', () => {
      it('should list the host types, the union of per-host-type metric names and the global names', async () => {
        const res = await get('/api/metrics');
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({
          [listingKey]: ['localhost', 'test type'],
          metrics: ['modRosterGets', 'sessionCount', 'xmppMessageSent'],
          global: ['nodeUpTime'],
        });
      });

      it('should send exactly application/json with Vary: Accept and a content length', async () => {
        const res = await get('/api/metrics');
        expect(res.headers['content-type']).toBe('application/json');
        expect(res.headers.vary).toBe('Accept');
        expect(Number(res.headers['content-length'])).toBe(
          res.rawPayload.length
        );
      });

      it('should serve one host type, filling in metrics it has not seen with zeros', async () => {
        const res = await get(`/api/metrics/${word}/test_type`);
        expect(res.json()).toEqual({
          metrics: {
            modRosterGets: { count: 1, one: 1 },
            sessionCount: { value: 1, ms_since_reset: 0 },
            xmppMessageSent: { count: 2, one: 2 },
          },
        });
        const localhost = await get(`/api/metrics/${word}/localhost`);
        expect(localhost.json().metrics.modRosterGets).toEqual({
          count: 0,
          one: 0,
        });
      });

      it('should reach a name with spaces both percent-encoded and with underscores', async () => {
        const encoded = await get(
          `/api/metrics/${word}/test%20type/xmppMessageSent`
        );
        const underscored = await get(
          `/api/metrics/${word}/test_type/xmppMessageSent`
        );
        expect(encoded.statusCode).toBe(200);
        expect(encoded.body).toBe('{"metric":{"count":2,"one":2}}');
        expect(underscored.body).toBe(encoded.body);
      });

      it('should aggregate over all host types in /all and /all/:metric', async () => {
        expect((await get('/api/metrics/all')).json()).toEqual({
          metrics: {
            modRosterGets: { count: 1, one: 1 },
            sessionCount: { value: 3 },
            xmppMessageSent: { count: 5, one: 5 },
          },
        });
        expect((await get('/api/metrics/all/xmppMessageSent')).body).toBe(
          '{"metric":{"count":5,"one":5}}'
        );
      });

      it('should serve global metrics, multi-part names included', async () => {
        const res = await get('/api/metrics/global');
        expect(Object.keys(res.json().metrics)).toEqual([
          'data.xmpp.sent.xml_stanza_size',
          'nodeUpTime',
        ]);
        expect(
          res.json().metrics['data.xmpp.sent.xml_stanza_size']
        ).toMatchObject({ n: 2, mean: 200, min: 100, max: 300 });
        expect((await get('/api/metrics/global/nodeUpTime')).json()).toEqual({
          metric: { value: 42, ms_since_reset: 0 },
        });
      });

      it('should agree on counter values across every endpoint (pinned by the original test suite)', async () => {
        const one = (
          await get(`/api/metrics/${word}/localhost/xmppMessageSent`)
        ).json().metric;
        const map = (await get(`/api/metrics/${word}/localhost`)).json().metrics
          .xmppMessageSent;
        const other = (
          await get(`/api/metrics/${word}/test_type/xmppMessageSent`)
        ).json().metric;
        const all = (await get('/api/metrics/all/xmppMessageSent')).json()
          .metric;
        const allMap = (await get('/api/metrics/all')).json().metrics
          .xmppMessageSent;
        expect(map).toEqual(one);
        expect(all).toEqual({
          count: one.count + other.count,
          one: one.one + other.one,
        });
        expect(allMap).toEqual(all);
        expect(Object.keys(one).sort()).toEqual(['count', 'one']);
      });

      it('should have exactly one top-level key in /all, a group and /global', async () => {
        for (const url of [
          '/api/metrics/all',
          `/api/metrics/${word}/localhost`,
          '/api/metrics/global',
        ]) {
          expect(Object.keys((await get(url)).json())).toEqual(['metrics']);
        }
      });

      it('should accept a trailing slash and ignore the query string', async () => {
        const plain = await get('/api/metrics/all');
        expect((await get('/api/metrics/all/')).body).toBe(plain.body);
        expect((await get('/api/metrics/?x=1')).body).toBe(
          (await get('/api/metrics')).body
        );
        expect((await get('/api/metrics/all?format=xml')).body).toBe(
          plain.body
        );
      });
    });

    describe('404', () => {
      it.each([
        [
          'an unknown host or host type',
          'metrics/%s/nonExistentHostType',
          'no %n named "nonExistentHostType"',
        ],
        [
          'an unknown metric of a host type',
          'metrics/%s/localhost/nonExistentMetric',
          'no metric named "nonExistentMetric" for %n "localhost"',
        ],
        [
          'a global-only name under a host type',
          'metrics/%s/localhost/nodeUpTime',
          'no metric named "nodeUpTime" for %n "localhost"',
        ],
        [
          'an unknown /all metric',
          'metrics/all/nonExistentMetric',
          'no metric named "nonExistentMetric"',
        ],
        [
          'an unknown global metric',
          'metrics/global/nonExistentMetric',
          'no global metric named "nonExistentMetric"',
        ],
        [
          'a per-host-type name under /global',
          'metrics/global/xmppMessageSent',
          'no global metric named "xmppMessageSent"',
        ],
        ['another path', 'metrics/nope', 'no such resource: /metrics/nope'],
        [
          'a path too deep',
          'metrics/all/xmppMessageSent/extra',
          'no such resource: /metrics/all/xmppMessageSent/extra',
        ],
        ['an empty inner segment', 'metrics//all', 'empty path segment'],
        [
          'the other variant',
          'metrics/%o/localhost',
          'no such resource: /metrics/%o/localhost',
        ],
      ])(
        'should answer 404 with a JSON error for %s',
        async (_case, path, message) => {
          const other = word === 'host' ? 'host_type' : 'host';
          const noun = word === 'host' ? 'host' : 'host type';
          const res = await get(
            `/api/${path.replace('%s', word).replace('%o', other)}`
          );
          expect(res.statusCode).toBe(404);
          expect(res.headers['content-type']).toBe('application/json');
          expect(res.headers.vary).toBe('Accept');
          expect(res.json()).toEqual({
            error: 'not_found',
            message: message.replace('%n', noun).replace('%o', other),
          });
        }
      );

      it.each([
        ['the prefix itself', '/api'],
        ['another word than metrics', '/api/users'],
        ['a name that only starts with metrics', '/api/metricsx'],
      ])(
        "should leave %s to the application's not-found handler",
        async (_case, url) => {
          const res = await get(url);
          expect(res.statusCode).toBe(404);
          FOREIGN_NOT_FOUND[serverName]!(res);
        }
      );

      it('should not let 404 paths grow the body cache', async () => {
        for (let i = 0; i < 50; i++)
          expect((await get(`/api/metrics/${word}/x${i}`)).statusCode).toBe(
            404
          );
        const snapshot = rig.reader.snapshot as unknown as {
          _bodies: Record<string, Map<unknown, Map<string, unknown>>>;
        };
        const cached = Object.values(snapshot._bodies).flatMap(bySerializer =>
          [...bySerializer.values()].map(bodies => bodies.size)
        );
        expect(cached.reduce((sum, size) => sum + size, 0)).toBe(0);
      });
    });

    describe('methods', () => {
      it('should answer HEAD with the GET status and headers and no body', async () => {
        const getRes = await get('/api/metrics/all');
        const head = await app.inject({
          method: 'HEAD',
          url: '/api/metrics/all',
        });
        expect(head.statusCode).toBe(200);
        expect(head.body).toBe('');
        expect(head.headers['content-length']).toBe(
          getRes.headers['content-length']
        );
        expect(head.headers['content-type']).toBe('application/json');
        expect(
          (await app.inject({ method: 'HEAD', url: '/api/metrics/nope' }))
            .statusCode
        ).toBe(404);
      });

      it('should answer OPTIONS with the allowed methods, without negotiation or existence check', async () => {
        const res = await app.inject({
          method: 'OPTIONS',
          url: '/api/metrics/nope',
          headers: { accept: 'text/html' },
        });
        expect(res.statusCode).toBe(200);
        expect(res.headers.allow).toBe('OPTIONS, HEAD, GET');
        expect(res.body).toBe('');
      });

      it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)(
        'should answer %s with 405 and the Allow header',
        async method => {
          const res = await app.inject({ method, url: '/api/metrics' });
          expect(res.statusCode).toBe(405);
          expect(res.headers.allow).toBe('OPTIONS, HEAD, GET');
          expect(res.json()).toEqual({
            error: 'method_not_allowed',
            message: `${method} is not allowed; allowed: OPTIONS, HEAD, GET`,
          });
        }
      );

      it('should answer other methods with 501', async () => {
        const res = await app.inject({ method: 'TRACE', url: '/api/metrics' });
        expect(res.statusCode).toBe(501);
        expect(res.json()).toEqual({
          error: 'not_implemented',
          message: 'TRACE is not implemented',
        });
      });
    });

    describe('content negotiation', () => {
      it.each([
        '*/*',
        'application/*',
        'application/json',
        'text/html;q=0.1, application/json',
      ])('should send JSON for %s', async accept => {
        const res = await get('/api/metrics', { accept });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('application/json');
      });

      it('should send the compact XML form for application/xml, well-formed', async () => {
        const res = await get(
          `/api/metrics/${word}/test%20type/xmppMessageSent`,
          { accept: 'application/xml' }
        );
        expect(res.headers['content-type']).toBe('application/xml');
        expect(res.body).toBe("<metric count='2' one='2'/>");
        for (const url of [
          '/api/metrics',
          '/api/metrics/all',
          '/api/metrics/global',
          `/api/metrics/${word}/localhost`,
          '/api/metrics/nope',
        ]) {
          const xml = (await get(url, { accept: 'application/xml' })).body;
          expect(XMLValidator.validate(xml)).toBe(true);
        }
        const listing = (
          await get('/api/metrics', { accept: 'application/xml' })
        ).body;
        expect(listing).toBe(
          `<list><${listingKey}><localhost/><test_x0020_type/></${listingKey}><metrics><modRosterGets/><sessionCount/><xmppMessageSent/></metrics><global><nodeUpTime/></global></list>`
        );
      });

      it('should answer 406 with an empty body for types it cannot produce', async () => {
        const res = await get('/api/metrics', { accept: 'text/html' });
        expect(res.statusCode).toBe(406);
        expect(res.body).toBe('');
        expect(
          (
            await get('/api/metrics', {
              accept: 'application/json;q=0, application/xml;q=0',
            })
          ).statusCode
        ).toBe(406);
      });

      it('should answer 400 to a malformed Accept header', async () => {
        const res = await get('/api/metrics', { accept: 'nonsense' });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({
          error: 'bad_request',
          message: 'malformed Accept header',
        });
      });
    });
  })
);

describe('legacyMetricsApi', () => {
  it('should reject a missing reader, an unknown variant and an empty host at registration', async () => {
    const reader = new LegacyMetricsReader();
    const cases: Array<[object, string]> = [
      [
        {},
        'legacyMetricsApi.reader: found nothing, expected a LegacyMetricsReader or a LegacyClusterAggregator',
      ],
      [
        { reader, variant: 'hosts' },
        'legacyMetricsApi.variant: found "hosts", expected "host_type" or "host" (did you mean "host"?)',
      ],
      [
        { reader, allowedHost: '' },
        'legacyMetricsApi.allowedHost: found "", expected a non-empty string',
      ],
      [
        { reader, allowedHots: 'x' },
        'legacyMetricsApi.allowedHots: found an unknown option, expected one of reader, variant, allowedHost, deprecation, defaultSuccessor, meterProvider, usage, prefix, logLevel, logSerializers (did you mean allowedHost?)',
      ],
      [
        { reader, host: 'localhost' },
        'legacyMetricsApi.host: found an unknown option, expected one of reader, variant, allowedHost, deprecation, defaultSuccessor, meterProvider, usage, prefix, logLevel, logSerializers (did you mean allowedHost for the Host header to answer?)',
      ],
    ];
    for (const [options, message] of cases) {
      const app = Fastify();
      await expect(
        app.register(legacyMetricsApi, options as never).ready()
      ).rejects.toThrow(new InvalidOptionError(message));
      await app.close();
    }
  });

  it('should mount under any prefix, nested ones included', async () => {
    const rig = createRig();
    rig.provider.getMeter('m').createCounter('c').add(1);
    await rig.flush();
    const app = Fastify();
    await app.register(
      async outer => {
        await outer.register(legacyMetricsApi, {
          reader: rig.reader,
          prefix: '/legacy',
        });
      },
      { prefix: '/v1' }
    );
    expect((await app.inject('/v1/legacy/metrics/global/c')).json()).toEqual({
      metric: { count: 1, one: 1 },
    });
    await app.close();
    await rig.close();
  });

  it('should serve only the Host it is bound to, with the loopback names as one', async () => {
    const rig = createRig();
    const app = Fastify();
    await app.register(legacyMetricsApi, {
      reader: rig.reader,
      prefix: '/api',
      allowedHost: 'localhost',
    });
    for (const host of [
      'localhost',
      'LOCALHOST:8088',
      '127.0.0.1:5288',
      '[::1]:80',
    ]) {
      expect(
        (await app.inject({ url: '/api/metrics', headers: { host } }))
          .statusCode
      ).toBe(200);
    }
    expect(
      (
        await app.inject({
          url: '/api/metrics',
          headers: { host: 'example.com' },
        })
      ).statusCode
    ).toBe(404);
    await app.close();
    await rig.close();
  });

  it('should never answer 5xx to any path, header or query, but 501 to unknown methods (bounded random sample)', async () => {
    const rig = createRig({ hostTypes: ['localhost'] });
    await recordTraffic(rig);
    const app = createLegacyMetricsApp(
      rig.reader,
      {
        groups: [
          {
            path: '/api',
            variant: 'host_type',
            allowedHost: '_',
            place: '',
            deprecation: undefined,
          },
        ],
      },
      usageOptions('', {})
    );
    const pieces = [
      'metrics',
      'all',
      'global',
      'host_type',
      'host',
      'localhost',
      'xmppMessageSent',
      '%',
      '%zz',
      '%20',
      '..',
      '',
      '_',
      'test_type',
      '%E2%82%AC',
      '?',
      '#',
      ';',
      '%00',
      'nodeUpTime',
    ];
    const accepts = [
      undefined,
      '*/*',
      'application/xml',
      'text/html',
      'a',
      'application/json;q=0.5',
      ',,,',
      'application/xml;q=x',
    ];
    const methods = [
      'GET',
      'HEAD',
      'OPTIONS',
      'POST',
      'TRACE',
      'PROPFIND',
      'LOCK',
    ] as const;
    let seed = 7;
    const pick = <T>(list: readonly T[]): T =>
      list[(seed = (seed * 48271) % 2147483647) % list.length]!;
    for (let i = 0; i < 400; i++) {
      const path = Array.from({ length: 1 + (i % 5) }, () => pick(pieces)).join(
        '/'
      );
      const method = pick(methods);
      const accept = pick(accepts);
      const res = await app.inject({
        method,
        url: `/api/${path}`,
        headers: accept === undefined ? {} : { accept },
      });
      const allowed5xx =
        method === 'TRACE' || method === 'PROPFIND' || method === 'LOCK'
          ? [501]
          : [];
      if (res.statusCode >= 500 && !allowed5xx.includes(res.statusCode)) {
        throw new Error(
          `${method} /api/${path} (Accept ${accept}) answered ${res.statusCode}: ${res.body}`
        );
      }
    }
    await app.close();
    await rig.close();
  });
});

describe('legacyMetricsApi beside the application', () => {
  let rig: Rig;
  let app: FastifyInstance | undefined;

  beforeEach(async () => {
    rig = createRig({ hostTypes: ['localhost'] });
    await recordTraffic(rig);
  });

  afterEach(async () => {
    await app?.close();
    app = undefined;
    await rig.close();
  });

  /** An application with its own users API, catch-all, root route, hook and not-found handler under /api. */
  async function applicationWith(catchAll: boolean): Promise<FastifyInstance> {
    const application = Fastify();
    application.addHook('onRequest', async (_request, reply) => {
      reply.header('x-app-hook', 'yes');
    });
    application.get('/api/users', async () => ({ users: ['alice'] }));
    application.post('/api/users/new', async () => ({ created: true }));
    application.get('/', async () => 'home');
    if (catchAll)
      application.all('/api/*', async request => ({
        caughtBy: 'application',
        url: request.url,
      }));
    application.setNotFoundHandler((request, reply) => {
      void reply.code(404).send({ applicationNotFound: request.url });
    });
    await application.register(legacyMetricsApi, {
      reader: rig.reader,
      prefix: '/api',
    });
    await application.ready();
    return application;
  }

  it("should serve the application's own routes, hooks and not-found handler under the same prefix", async () => {
    app = await applicationWith(false);
    const users = await app.inject('/api/users');
    expect([
      users.statusCode,
      users.json(),
      users.headers['x-app-hook'],
    ]).toEqual([200, { users: ['alice'] }, 'yes']);
    const created = await app.inject({ method: 'POST', url: '/api/users/new' });
    expect([created.statusCode, created.json()]).toEqual([
      200,
      { created: true },
    ]);
    const unknown = await app.inject('/api/unknown');
    expect([unknown.statusCode, unknown.json()]).toEqual([
      404,
      { applicationNotFound: '/api/unknown' },
    ]);
    expect((await app.inject('/')).body).toBe('home');
  });

  it('should answer with its own 404 and 405 only under <prefix>/metrics', async () => {
    app = await applicationWith(true);
    const listing = await app.inject('/api/metrics');
    expect(listing.statusCode).toBe(200);
    expect(listing.json()).toHaveProperty('host_types', [
      'localhost',
      'test type',
    ]);
    const missing = await app.inject('/api/metrics/nope');
    expect([missing.statusCode, missing.json()]).toEqual([
      404,
      { error: 'not_found', message: 'no such resource: /metrics/nope' },
    ]);
    const post = await app.inject({ method: 'POST', url: '/api/metrics' });
    expect([post.statusCode, post.headers.allow]).toEqual([
      405,
      'OPTIONS, HEAD, GET',
    ]);
    // Everything else under /api is the application's catch-all.
    for (const url of ['/api/unknown', '/api/metricsx', '/api/users/x']) {
      const res = await app.inject({ method: 'POST', url });
      expect([url, res.statusCode, res.json()]).toEqual([
        url,
        200,
        { caughtBy: 'application', url },
      ]);
    }
    const prefix = await app.inject('/api');
    expect([prefix.statusCode, prefix.json()]).toEqual([
      404,
      { applicationNotFound: '/api' },
    ]);
  });

  it('should register twice in one app, under different prefixes and variants', async () => {
    app = Fastify();
    await app.register(legacyMetricsApi, {
      reader: rig.reader,
      prefix: '/api',
    });
    await app.register(legacyMetricsApi, {
      reader: rig.reader,
      prefix: '/old',
      variant: 'host',
    });
    expect((await app.inject('/api/metrics')).json()).toHaveProperty(
      'host_types'
    );
    expect((await app.inject('/old/metrics')).json()).toHaveProperty('hosts');
    expect(
      (await app.inject('/old/metrics/host/localhost/xmppMessageSent')).json()
    ).toEqual({ metric: { count: 3, one: 3 } });
  });

  it('should not read a request body, whatever its type and length', async () => {
    app = await applicationWith(false);
    for (const [contentType, payload] of [
      ['application/json', '{not json'],
      ['text/plain', 'x'.repeat(2_000_000)],
      ['application/x-unknown', 'x'],
    ] as const) {
      const res = await app.inject({
        method: 'PUT',
        url: '/api/metrics',
        headers: { 'content-type': contentType },
        payload,
      });
      expect([contentType, res.statusCode, res.json()]).toEqual([
        contentType,
        405,
        {
          error: 'method_not_allowed',
          message: 'PUT is not allowed; allowed: OPTIONS, HEAD, GET',
        },
      ]);
    }
  });
});

describe('legacyMetricsApi and the reader lifecycle', () => {
  it('should answer 503 until the reader is registered on a MeterProvider, and 503 once it is shut down', async () => {
    const reader = new LegacyMetricsReader();
    const app = Fastify();
    await app.register(legacyMetricsApi, { reader, prefix: '/api' });
    expect(reader.status).toBe('unregistered');
    const before = await app.inject('/api/metrics');
    expect([before.statusCode, before.json()]).toEqual([
      503,
      {
        error: 'unavailable',
        message: 'the reader is not registered on a MeterProvider',
      },
    ]);
    const provider = new MeterProvider({ readers: [reader] });
    expect(reader.status).toBe('serving');
    expect((await app.inject('/api/metrics')).statusCode).toBe(200);
    await provider.shutdown();
    expect(reader.status).toBe('shutdown');
    const after = await app.inject({
      url: '/api/metrics/all',
      headers: { accept: 'application/xml' },
    });
    expect([
      after.statusCode,
      after.headers['content-type'],
      after.body,
    ]).toEqual([
      503,
      'application/xml',
      "<error code='unavailable' message='the reader is shut down'/>",
    ]);
    await app.close();
  });
});

describe('legacyMetricsRequestListener beside an Express application', () => {
  let rig: Rig;
  let server: Server | undefined;

  beforeEach(async () => {
    rig = createRig({ hostTypes: ['localhost'] });
    await recordTraffic(rig);
  });

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise(done => (server ? server.close(done) : done(undefined)));
    server = undefined;
    await rig.close();
  });

  it("should leave the application's own routes under the same prefix to it", async () => {
    const app = express();
    app.get('/api/users', (_request, response) => {
      response.json(['alice']);
    });
    app.use(
      '/api',
      legacyMetricsRequestListener(rig.reader, { prefix: '/api' })
    );
    app.get('/api/metricsx', (_request, response) => {
      response.send('not the API');
    });
    app.use((_request, response) => {
      response.status(404).send('application 404');
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const get = async (path: string) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      return { status: res.status, body: await res.text() };
    };
    expect(await get('/api/users')).toEqual({
      status: 200,
      body: '["alice"]',
    });
    expect(await get('/api/metricsx')).toEqual({
      status: 200,
      body: 'not the API',
    });
    expect(await get('/api/unknown')).toEqual({
      status: 404,
      body: 'application 404',
    });
    expect(await get('/api/metrics/global/nodeUpTime')).toEqual({
      status: 200,
      body: '{"metric":{"value":42,"ms_since_reset":0}}',
    });
    expect((await get('/api/metrics/nope')).status).toBe(404);
  });

  it('should reject bad options when it is made, naming them', () => {
    expect(() =>
      legacyMetricsRequestListener(rig.reader, { variant: 'hosts' as never })
    ).toThrow('legacyMetricsRequestListener.variant: found "hosts"');
    expect(() =>
      legacyMetricsRequestListener(rig.reader, { prefix: 'api' })
    ).toThrow(InvalidOptionError);
  });
});
