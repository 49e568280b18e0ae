import { metrics } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import Fastify from 'fastify';
import { Agent, request } from 'node:http';
import {
  InvalidOptionError,
  legacyMetricsApi,
  LegacyMetricsReader,
} from '../../src';
import { OTHER_CLIENT } from '../../src/http/clientIdentity';
import { USAGE_INSTRUMENTS } from '../../src/http/usageInstruments';
import { WARNING_CODES } from '../../src/warnings';
import { httpRequest } from '../support/http';
import { watchWarnings } from './operatorWarnings';
import { LISTENING_SERVERS, type ListeningApi } from './servers';
import { byAttributes, UsageCollector } from './usageCollector';
import { captureDiag } from '../support/diag';

const NOW = 1_700_000_000_000;
const LOG_PREFIX = 'legacy metrics API: ';

/** One GET over a real socket from a chosen loopback address, with an optional User-Agent. */
const get = async (
  url: string,
  localAddress: string,
  userAgent: string | undefined
): Promise<number> =>
  (
    await httpRequest(url, {
      localAddress,
      agent: false,
      headers: userAgent === undefined ? {} : { 'user-agent': userAgent },
    })
  ).status;

/** Collects the operator warnings (through the diag logger) that start with `prefix` while `fn` runs. */
async function warningsDuring(
  prefix: string,
  fn: () => Promise<void>
): Promise<string[]> {
  const diag = captureDiag();
  try {
    await fn();
  } finally {
    diag.stop();
  }
  return diag.warn.filter(message => message.startsWith(prefix));
}

describe.each(LISTENING_SERVERS)('usage telemetry (%s)', (_server, start) => {
  let reader: LegacyMetricsReader;
  let collector: UsageCollector;
  let provider: MeterProvider;
  let server: ListeningApi | undefined;
  const clock = { now: NOW };

  beforeEach(() => {
    clock.now = NOW;
    reader = new LegacyMetricsReader({
      hostTypes: ['localhost'],
      now: () => clock.now,
    });
    collector = new UsageCollector();
    provider = new MeterProvider({ readers: [reader, collector] });
    provider
      .getMeter('server')
      .createCounter('xmppMessageSent')
      .add(1, { host_type: 'localhost' });
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await provider.shutdown();
  });

  describe('three clients over real sockets', () => {
    it('should count requests by User-Agent, address and route template, and log each new client once', async () => {
      server = await start(reader, { meterProvider: provider });
      const base = `${server.url}/api/metrics`;
      const logged = await warningsDuring(LOG_PREFIX, async () => {
        expect(
          await get(
            `${base}/host_type/localhost`,
            '127.0.0.2',
            'collectd/5.12.0'
          )
        ).toBe(200);
        clock.now += 1_000;
        expect(
          await get(
            `${base}/host_type/localhost`,
            '127.0.0.2',
            'collectd/5.12.0'
          )
        ).toBe(200);
        expect(
          await get(`${base}/all?poll=1`, '127.0.0.3', 'curl/8.1.2 libcurl')
        ).toBe(200);
        clock.now += 1_000;
        expect(
          await get(`${base}/host_type/nowhere`, '127.0.0.1', undefined)
        ).toBe(404);
      });

      expect(logged).toEqual([
        'legacy metrics API: first request from a new client: 127.0.0.2, User-Agent "collectd/5.12.0", GET /api/metrics/host_type/:host_type',
        'legacy metrics API: first request from a new client: 127.0.0.3, User-Agent "curl/8.1.2 libcurl", GET /api/metrics/all',
        'legacy metrics API: first request from a new client: 127.0.0.1, User-Agent "", GET /api/metrics/host_type/:host_type',
      ]);
      const route = '/api/metrics/host_type/:host_type';
      const collectd = {
        'client.address': '127.0.0.2',
        'user_agent.name': 'collectd',
        'user_agent.version': '5.12.0',
      };
      const curl = {
        'client.address': '127.0.0.3',
        'user_agent.name': 'curl',
        'user_agent.version': '8.1.2',
      };
      const anonymous = {
        'client.address': '127.0.0.1',
        'user_agent.name': 'unknown',
      };
      expect(await collector.points(USAGE_INSTRUMENTS.clientRequests)).toEqual(
        [
          {
            attributes: {
              ...anonymous,
              'http.response.status_code': 404,
              'http.route': route,
            },
            value: 1,
          },
          {
            attributes: {
              ...collectd,
              'http.response.status_code': 200,
              'http.route': route,
            },
            value: 2,
          },
          {
            attributes: {
              ...curl,
              'http.response.status_code': 200,
              'http.route': '/api/metrics/all',
            },
            value: 1,
          },
        ].sort(byAttributes)
      );
      const lastSeen = await collector.points(
        USAGE_INSTRUMENTS.clientLastRequest
      );
      expect(
        lastSeen.map(p => [p.attributes['client.address'], p.value])
      ).toEqual(
        expect.arrayContaining([
          ['127.0.0.2', (NOW + 1_000) / 1000],
          ['127.0.0.3', (NOW + 1_000) / 1000],
          ['127.0.0.1', (NOW + 2_000) / 1000],
        ])
      );
      expect(lastSeen).toHaveLength(3);

      // The HTTP semantic conventions: the route template, never the raw path; seconds.
      const duration = await collector.metric(
        USAGE_INSTRUMENTS.requestDuration
      );
      expect(duration?.descriptor.unit).toBe('s');
      expect(await collector.points(USAGE_INSTRUMENTS.requestDuration)).toEqual(
        [
          {
            attributes: {
              'http.request.method': 'GET',
              'http.response.status_code': 200,
              'http.route': '/api/metrics/all',
              'url.scheme': 'http',
            },
            value: 1,
          },
          {
            attributes: {
              'http.request.method': 'GET',
              'http.response.status_code': 200,
              'http.route': route,
              'url.scheme': 'http',
            },
            value: 2,
          },
          {
            attributes: {
              'http.request.method': 'GET',
              'http.response.status_code': 404,
              'http.route': route,
              'url.scheme': 'http',
            },
            value: 1,
          },
        ]
      );
    });

    it('should leave its own instruments out of the legacy API', async () => {
      server = await start(reader, { meterProvider: provider });
      await get(`${server.url}/api/metrics`, '127.0.0.1', 'collectd/5.12.0');
      await reader.forceFlush();
      const listing = (await (
        await fetch(`${server.url}/api/metrics`)
      ).json()) as {
        metrics: string[];
        global: string[];
      };
      expect(listing).toEqual({
        host_types: ['localhost'],
        metrics: ['xmppMessageSent'],
        global: [],
      });
      expect(
        await collector.metric(USAGE_INSTRUMENTS.clientRequests)
      ).toBeDefined();
    });
  });

  describe('one keep-alive connection', () => {
    it('should record each request under its own route, method, status and client when they change between requests', async () => {
      server = await start(reader, { meterProvider: provider });
      const base = `${server.url}/api/metrics`;
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const sockets = new Set<unknown>();
      const send = (
        method: string,
        url: string,
        headers: Record<string, string>
      ): Promise<number> =>
        new Promise((done, fail) => {
          const req = request(url, { method, agent, headers }, res => {
            res.resume();
            res.on('end', () => done(res.statusCode!));
          });
          req.on('socket', socket => sockets.add(socket));
          req.on('error', fail);
          req.end();
        });
      const collectd = { 'user-agent': 'collectd/5.12.0' };
      const curl = { 'user-agent': 'curl/8.1.2' };
      const here = `${base}/host_type/localhost`;
      const nowhere = `${base}/host_type/nowhere`;
      const all = `${base}/all`;
      // Each step changes one thing from the step before it.
      const steps: Array<[string, string, Record<string, string>, number]> = [
        ['GET', here, collectd, 200],
        ['GET', here, collectd, 200],
        ['GET', here, curl, 200],
        ['HEAD', here, curl, 200],
        ['GET', here, curl, 200],
        ['GET', all, curl, 200],
        ['GET', all, { ...curl, accept: 'image/png' }, 406],
        ['GET', nowhere, curl, 404],
        ['DELETE', nowhere, curl, 405],
        ['GET', here, collectd, 200],
      ];
      try {
        await warningsDuring(LOG_PREFIX, async () => {
          for (const [method, url, headers, status] of steps)
            expect(await send(method, url, headers)).toBe(status);
        });
      } finally {
        agent.destroy();
      }
      expect(sockets.size).toBe(1);

      const route = '/api/metrics/host_type/:host_type';
      const client = (
        name: string,
        version: string,
        status: number,
        at = route
      ) => ({
        'client.address': '127.0.0.1',
        'user_agent.name': name,
        'user_agent.version': version,
        'http.response.status_code': status,
        'http.route': at,
      });
      expect(await collector.points(USAGE_INSTRUMENTS.clientRequests)).toEqual(
        [
          { attributes: client('collectd', '5.12.0', 200), value: 3 },
          { attributes: client('curl', '8.1.2', 200), value: 3 },
          { attributes: client('curl', '8.1.2', 404), value: 1 },
          { attributes: client('curl', '8.1.2', 405), value: 1 },
          {
            attributes: client('curl', '8.1.2', 200, '/api/metrics/all'),
            value: 1,
          },
          {
            attributes: client('curl', '8.1.2', 406, '/api/metrics/all'),
            value: 1,
          },
        ].sort(byAttributes)
      );
      const duration = (
        method: string,
        status: number,
        value: number,
        at = route
      ) => ({
        attributes: {
          'http.request.method': method,
          'http.response.status_code': status,
          'http.route': at,
          'url.scheme': 'http',
        },
        value,
      });
      expect(await collector.points(USAGE_INSTRUMENTS.requestDuration)).toEqual(
        [
          duration('GET', 200, 5),
          duration('HEAD', 200, 1),
          duration('GET', 200, 1, '/api/metrics/all'),
          duration('GET', 406, 1, '/api/metrics/all'),
          duration('GET', 404, 1),
          duration('DELETE', 405, 1),
        ].sort(byAttributes)
      );
    });
  });

  describe("the package's own tools", () => {
    it('should count migrate and compare as tools, with no new-client warning, beside a poller that gets one', async () => {
      server = await start(reader, { meterProvider: provider });
      const base = `${server.url}/api/metrics`;
      const warnings = watchWarnings();
      try {
        for (const userAgent of [
          'legacy-metrics-api/1.4.0 (migrate)',
          'legacy-metrics-api/1.4.0 (compare)',
          'legacy-metrics-api/1.4.0 (compare)',
        ])
          expect(await get(`${base}/all`, '127.0.0.4', userAgent)).toBe(200);
        expect(
          await get(
            `${base}/host_type/localhost`,
            '127.0.0.5',
            'collectd/5.12.0'
          )
        ).toBe(200);
      } finally {
        warnings.stop();
      }
      const seen = warnings.emitted();
      expect(seen).toEqual([
        {
          code: WARNING_CODES.newClient,
          message:
            'legacy metrics API: first request from a new client: 127.0.0.5, User-Agent "collectd/5.12.0", GET /api/metrics/host_type/:host_type',
        },
      ]);
      const tool = (name: string) => ({
        'client.address': '127.0.0.4',
        'user_agent.name': 'legacy-metrics-api',
        'user_agent.version': '1.4.0',
        'legacy_api.client.tool': name,
        'http.response.status_code': 200,
        'http.route': '/api/metrics/all',
      });
      expect(await collector.points(USAGE_INSTRUMENTS.clientRequests)).toEqual(
        [
          { attributes: tool('migrate'), value: 1 },
          { attributes: tool('compare'), value: 2 },
          {
            attributes: {
              'client.address': '127.0.0.5',
              'user_agent.name': 'collectd',
              'user_agent.version': '5.12.0',
              'http.response.status_code': 200,
              'http.route': '/api/metrics/host_type/:host_type',
            },
            value: 1,
          },
        ].sort(byAttributes)
      );
    });

    it.each([
      'legacy-metrics-api/1.4.0 (poll)',
      'legacy-metrics-api/1.4.0',
      'Mozilla/5.0 legacy-metrics-api/1.4.0 (migrate)',
    ])('should count %j as a poller, with its warning', async userAgent => {
      const app = Fastify({ logger: false });
      await app.register(legacyMetricsApi, {
        reader,
        prefix: '/api',
        meterProvider: provider,
      });
      try {
        const logged = await warningsDuring(LOG_PREFIX, async () => {
          await app.inject({
            url: '/api/metrics',
            headers: { 'user-agent': userAgent },
          });
        });
        expect(logged).toEqual([
          `legacy metrics API: first request from a new client: 127.0.0.1, User-Agent ${JSON.stringify(userAgent)}, GET /api/metrics`,
        ]);
        const [point] = await collector.points(
          USAGE_INSTRUMENTS.clientRequests
        );
        expect(point?.attributes['legacy_api.client.tool']).toBeUndefined();
      } finally {
        await app.close();
      }
    });
  });

  describe('the client table', () => {
    it('should keep maxClients clients and fold the rest into other, warning once', async () => {
      const app = Fastify();
      await app.register(legacyMetricsApi, {
        reader,
        prefix: '/api',
        meterProvider: provider,
        usage: { maxClients: 2 },
      });
      try {
        const logged = await warningsDuring(LOG_PREFIX, async () => {
          for (let i = 1; i <= 6; i++) {
            const res = await app.inject({
              url: '/api/metrics/global',
              remoteAddress: `10.0.0.${i}`,
              headers: { 'user-agent': `scanner/${i}` },
            });
            expect(res.statusCode).toBe(200);
          }
          // A known client stays itself after the table is full.
          await app.inject({
            url: '/api/metrics/global',
            remoteAddress: '10.0.0.1',
            headers: { 'user-agent': 'scanner/1' },
          });
        });
        expect(logged).toEqual([
          'legacy metrics API: first request from a new client: 10.0.0.1, User-Agent "scanner/1", GET /api/metrics/global',
          'legacy metrics API: first request from a new client: 10.0.0.2, User-Agent "scanner/2", GET /api/metrics/global',
          'legacy metrics API: more than 2 clients; 10.0.0.3 (User-Agent "scanner/3") and later new clients are counted as "other"',
        ]);
        const points = await collector.points(USAGE_INSTRUMENTS.clientRequests);
        expect(
          points.map(p => [
            p.attributes['client.address'],
            p.attributes['user_agent.name'],
            p.value,
          ])
        ).toEqual([
          ['10.0.0.1', 'scanner', 2],
          ['10.0.0.2', 'scanner', 1],
          [OTHER_CLIENT, OTHER_CLIENT, 4],
        ]);
      } finally {
        await app.close();
      }
    });
  });

  describe('request durations', () => {
    it('should hand every duration to the SDK by the next collection, in batches or not, and on close', async () => {
      const app = Fastify();
      await app.register(legacyMetricsApi, {
        reader,
        prefix: '/api',
        meterProvider: provider,
      });
      const requests = async (count: number) => {
        for (let i = 0; i < count; i++)
          expect(
            (await app.inject({ url: '/api/metrics/all' })).statusCode
          ).toBe(200);
      };
      const count = async () =>
        (await collector.points(USAGE_INSTRUMENTS.requestDuration)).map(
          p => p.value
        );
      try {
        // Fewer than a batch: recorded when the collection starts.
        await requests(3);
        expect(await count()).toEqual([3]);
        // More than a batch (256): one batch recorded at once, the rest at the collection.
        await requests(300);
        expect(await count()).toEqual([303]);
      } finally {
        await requests(2);
        await app.close();
      }
      // What was pending when the app closed is recorded too.
      expect(await count()).toEqual([305]);
    });
  });

  describe('when it is on', () => {
    afterEach(() => {
      metrics.disable();
    });

    const register = async (options: object) => {
      const app = Fastify();
      await app.register(legacyMetricsApi, {
        reader,
        prefix: '/api',
        ...options,
      });
      await app.inject({ url: '/api/metrics' });
      await app.close();
    };

    it('should record nothing when nothing is configured, even with a global MeterProvider', async () => {
      metrics.setGlobalMeterProvider(provider);
      const logged = await warningsDuring(LOG_PREFIX, () => register({}));
      expect(logged).toEqual([]);
      expect(
        await collector.metric(USAGE_INSTRUMENTS.clientRequests)
      ).toBeUndefined();
    });

    it('should record on the global MeterProvider when a deprecation is configured', async () => {
      metrics.setGlobalMeterProvider(provider);
      await register({ deprecation: { since: '2026-01-01' } });
      expect(
        await collector.points(USAGE_INSTRUMENTS.requestDuration)
      ).toHaveLength(1);
    });

    it('should record nothing with usage: false', async () => {
      const logged = await warningsDuring(LOG_PREFIX, () =>
        register({ meterProvider: provider, usage: false })
      );
      expect(logged).toEqual([]);
      expect(
        await collector.metric(USAGE_INSTRUMENTS.clientRequests)
      ).toBeUndefined();
    });

    it.each<[string, object, string]>([
      [
        'a meterProvider that is none',
        { meterProvider: {} },
        'legacyMetricsApi.meterProvider: found an object, expected a MeterProvider',
      ],
      [
        'usage that is a number',
        { usage: 20 },
        'legacyMetricsApi.usage: found 20, expected false, true or { maxClients, logNewClients }',
      ],
      [
        'a negative maxClients',
        { usage: { maxClients: -1 } },
        'legacyMetricsApi.usage.maxClients: found -1, expected a non-negative integer',
      ],
      [
        'an unknown usage option',
        { usage: { maxClient: 5 } },
        'legacyMetricsApi.usage.maxClient: found an unknown option, expected maxClients or logNewClients (did you mean maxClients?)',
      ],
    ])('should reject %s', async (_name, options, message) => {
      const error: unknown = await register(options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message).toBe(message);
    });
  });
});
