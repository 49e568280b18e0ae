/**
 * The migration tools' HTTP client on real sockets: what a well-behaved server sends is read
 * (same-origin redirects, compressed bodies), with the tool's User-Agent; the limits come from
 * the environment, and a bad value is named.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { boundedGet, toolUserAgent } from '../../src/migrate/boundedGet';
import { fetchListing, fetchMetricsMap } from '../../src/migrate/fetchServer';
import {
  DEFAULT_READ_LIMITS,
  READ_LIMIT_VARIABLES,
  readLimits,
} from '../../src/migrate/readLimits';
import { packageVersion } from '../../src/packageInfo';

const LISTING = JSON.stringify({
  host_types: ['localhost', 'global'],
  metrics: ['a'],
  global: ['b'],
});

describe('boundedGet', () => {
  let server: Server;
  let origin = '';
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      switch (req.url) {
        case '/old/api/metrics':
          res.writeHead(301, { location: '/api/metrics' });
          return void res.end();
        case '/api/metrics':
          res.writeHead(200, { 'content-encoding': 'gzip' });
          return void res.end(gzipSync(LISTING));
        case '/api/metrics/global':
          res.writeHead(200, { 'content-encoding': 'br' });
          return void res.end(
            brotliCompressSync('{"metrics":{"b":{"value":7}}}')
          );
        case '/loop':
          res.writeHead(302, { location: '/loop' });
          return void res.end();
        case '/text':
          return void res.end('ünïcode');
        default:
          res.writeHead(404).end();
      }
    });
    await new Promise<void>(done => server.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise(done => server.close(done)));

  beforeEach(() => (seen.length = 0));

  it('should follow a same-origin redirect and read a gzip body, with the tool in the User-Agent', async () => {
    const listing = await fetchListing(`${origin}/old/api`, {
      tool: 'compare',
    });
    expect(listing).toEqual({
      variant: 'host_type',
      groups: ['localhost', 'global'],
      metrics: ['a'],
      global: ['b'],
    });
    expect(seen.map(headers => headers['user-agent'])).toEqual([
      `legacy-metrics-api/${packageVersion()} (compare)`,
      `legacy-metrics-api/${packageVersion()} (compare)`,
    ]);
  });

  it('should read a brotli body', async () => {
    const map = await fetchMetricsMap(`${origin}/api/metrics/global`);
    expect([...map!]).toEqual([['b', { value: 7 }]]);
  });

  it('should resolve a 404 to its status and keep UTF-8 whole', async () => {
    const options = {
      accept: 'application/json',
      tool: 'migrate' as const,
      limits: DEFAULT_READ_LIMITS,
      maxBytes: 100,
    };
    expect(await boundedGet(`${origin}/none`, options)).toEqual({
      status: 404,
    });
    expect(await boundedGet(`${origin}/text`, options)).toEqual({
      status: 200,
      body: 'ünïcode',
    });
  });

  it('should stop after the last redirect allowed', async () => {
    await expect(
      boundedGet(`${origin}/loop`, {
        accept: 'application/json',
        tool: undefined,
        limits: DEFAULT_READ_LIMITS,
        maxBytes: 100,
      })
    ).rejects.toThrow(
      `${origin}/loop: found more than 5 redirects, expected at most 5`
    );
    expect(seen).toHaveLength(6);
  });

  it('should send once more a request whose kept-alive connection the server reset, and only once', async () => {
    // The server resets a connection on its second request, as a busy server whose idle timer
    // ran late closes a kept-alive connection while the next request is on its way.
    const requests = new Map<object, number>();
    const resetting = createServer((req, res) => {
      const count = (requests.get(req.socket) ?? 0) + 1;
      requests.set(req.socket, count);
      if (count === 2 || req.url === '/always')
        return void req.socket.destroy();
      res.end('read');
    });
    await new Promise<void>(done => resetting.listen(0, '127.0.0.1', done));
    const at = `http://127.0.0.1:${(resetting.address() as AddressInfo).port}`;
    const options = {
      accept: 'text/plain',
      tool: 'compare' as const,
      limits: DEFAULT_READ_LIMITS,
      maxBytes: 100,
    };
    try {
      for (let i = 0; i < 3; i++)
        expect(await boundedGet(`${at}/`, options)).toEqual({
          status: 200,
          body: 'read',
        });
      // Each second request on a connection was reset, and sent again on a new one.
      expect([...requests.values()]).toEqual([2, 2, 1]);
      await expect(boundedGet(`${at}/always`, options)).rejects.toThrow(
        `${at}/always: cannot connect (ECONNRESET)`
      );
    } finally {
      resetting.closeAllConnections();
      await new Promise(done => resetting.close(done));
    }
  });

  it.each([
    [
      'ftp://127.0.0.1/api',
      'ftp://127.0.0.1/api/metrics: found the scheme ftp, expected http or https',
    ],
    [
      '127.0.0.1:8088/api',
      '"127.0.0.1:8088/api/metrics": found no URL, expected one such as http://127.0.0.1:8088/api',
    ],
  ])('should refuse %s with a located message', async (server, message) => {
    await expect(fetchListing(server)).rejects.toThrow(message);
  });
});

describe('toolUserAgent', () => {
  it.each([
    ['migrate', `legacy-metrics-api/${packageVersion()} (migrate)`],
    ['compare', `legacy-metrics-api/${packageVersion()} (compare)`],
    [undefined, `legacy-metrics-api/${packageVersion()}`],
  ] as const)('should name %s', (tool, userAgent) => {
    expect(toolUserAgent(tool)).toBe(userAgent);
  });
});

describe('readLimits', () => {
  it('should give the documented defaults without the variables', () => {
    expect(readLimits({})).toEqual({
      maxJsonBytes: 8_388_608,
      maxExpositionBytes: 67_108_864,
      timeoutMs: 30_000,
      idleTimeoutMs: 10_000,
      maxRedirects: 5,
    });
  });

  it('should take the variables, one cap for both kinds of body', () => {
    expect(
      readLimits({
        [READ_LIMIT_VARIABLES.maxBodyBytes]: '1000',
        [READ_LIMIT_VARIABLES.timeoutMs]: '2000',
        [READ_LIMIT_VARIABLES.idleTimeoutMs]: '500',
      })
    ).toEqual({
      maxJsonBytes: 1000,
      maxExpositionBytes: 1000,
      timeoutMs: 2000,
      idleTimeoutMs: 500,
      maxRedirects: 5,
    });
  });

  it.each([
    [READ_LIMIT_VARIABLES.maxBodyBytes, '64M', 'bytes'],
    [READ_LIMIT_VARIABLES.timeoutMs, '0', 'milliseconds'],
    [READ_LIMIT_VARIABLES.idleTimeoutMs, '-1', 'milliseconds'],
  ])('should name %s=%s', (name, value, unit) => {
    expect(() => readLimits({ [name]: value })).toThrow(
      `${name}: found ${JSON.stringify(value)}, expected a positive integer (${unit})`
    );
  });
});
