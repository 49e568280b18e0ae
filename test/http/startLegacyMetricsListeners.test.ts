import { diag } from '@opentelemetry/api';
import { Agent } from 'node:http';
import { createServer, type Server } from 'node:net';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  InvalidOptionError,
  parseLegacyApiConfig,
  startLegacyMetricsListeners,
  type LegacyMetricsListeners,
  type ListenerConfig,
} from '../../src';
import { createRig, createServingRig, type Rig } from '../helpers';
import { captureDiag } from '../support/diag';
import { takeWarnings } from '../support/warnings';
import { WARNING_CODES } from '../../src/warnings';
import { freePort, httpRequest, type HttpExchange } from '../support/http';

const EXAMPLES = resolve(__dirname, '..', '..', 'examples');
const FIXTURES = resolve(__dirname, '..', 'config', 'fixtures');

/** One HTTP request over a real socket, with a Host header of our choosing and an optional keep-alive agent. */
const exchange = (
  url: string,
  options: { host?: string; agent?: Agent } = {}
): Promise<HttpExchange> =>
  httpRequest(url, {
    headers: options.host === undefined ? {} : { host: options.host },
    ...(options.agent === undefined ? {} : { agent: options.agent }),
  });

/** A server on a free loopback port, keeping it busy. */
async function occupyPort(): Promise<Server> {
  const blocker = createServer();
  await new Promise<void>(done => blocker.listen(0, '127.0.0.1', done));
  return blocker;
}

function portOf(server: Server): number {
  return (server.address() as { port: number }).port;
}

function closeServer(server: Server): Promise<void> {
  return new Promise(done => server.close(() => done()));
}

/** The listeners of configuration text, with every port replaced by 0 (a free port each). */
function listenersOf(text: string, file = 'listeners.toml'): ListenerConfig[] {
  return parseLegacyApiConfig(text, file).listeners.map(listener => ({
    ...listener,
    port: 0,
  }));
}

function listenersOfFile(path: string): ListenerConfig[] {
  return listenersOf(readFileSync(path, 'utf8'), path);
}

/** A TOML listener on port 0 without ip_address, with the given extra lines and handler groups. */
function toml(listenerLines: string, ...groups: string[]): string {
  return [
    '[[listen.http]]',
    '  port = 0',
    listenerLines,
    ...groups.map(group => `  [[listen.http.handlers.service_api]]\n${group}`),
  ].join('\n');
}

describe('startLegacyMetricsListeners', () => {
  let rig: Rig;
  let running: LegacyMetricsListeners | undefined;

  beforeEach(async () => {
    rig = await createServingRig();
  });

  afterEach(async () => {
    await running?.close();
    running = undefined;
    await rig.close();
  });

  it('should bind 127.0.0.1 when the file gives no ip_address', async () => {
    const listeners = listenersOf(
      toml('', '    host = "_"\n    path = "/api"')
    );
    expect(listeners[0]!.ipAddress).toBeUndefined();
    running = await startLegacyMetricsListeners(rig.reader, listeners);
    const [entry] = running.listeners;
    expect(entry!.address).toBe('127.0.0.1');
    expect(entry!.url).toBe(`http://127.0.0.1:${entry!.port}`);
    expect(entry!.port).toBeGreaterThan(0);
    const res = await exchange(
      `${entry!.metricsUrl}/host_type/localhost/xmppMessageSent`
    );
    expect(res.status).toBe(200);
    expect(res.body).toBe('{"metric":{"count":7,"one":7}}');
  });

  it('should bind ::1 when the file asks for IPv6 without an address', async () => {
    running = await startLegacyMetricsListeners(
      rig.reader,
      listenersOf(toml('  ip_version = 6', '    host = "_"\n    path = "/api"'))
    );
    const [entry] = running.listeners;
    expect(entry!.address).toBe('::1');
    expect(entry!.url).toBe(`http://[::1]:${entry!.port}`);
    expect((await exchange(`${entry!.url}/api/metrics`)).status).toBe(200);
  });

  it('should serve each handler group under its prefix and in its variant, and nothing for a users-only group', async () => {
    const listeners = listenersOf(
      toml(
        '',
        '    host = "_"\n    path = "/api"',
        '    host = "_"\n    path = "/legacy/"\n    variant = "host"\n    handlers = ["service_api_metrics"]',
        '    host = "_"\n    path = "/users"\n    handlers = ["service_api_users"]',
        '    host = "_"\n    path = "/"\n    handlers = ["service_api_metrics"]'
      )
    );
    running = await startLegacyMetricsListeners(rig.reader, listeners);
    const { url, port } = running.listeners[0]!;
    expect(running.listeners).toEqual([
      {
        url,
        metricsUrl: `${url}/api/metrics`,
        path: '/api',
        variant: 'host_type',
        host: '_',
        address: '127.0.0.1',
        port,
        maxConnections: 1024,
        place: 'listen.http[0].handlers.service_api[0]',
      },
      {
        url,
        metricsUrl: `${url}/legacy/metrics`,
        path: '/legacy',
        variant: 'host',
        host: '_',
        address: '127.0.0.1',
        port,
        maxConnections: 1024,
        place: 'listen.http[0].handlers.service_api[1]',
      },
      {
        url,
        metricsUrl: `${url}/metrics`,
        path: '/',
        variant: 'host_type',
        host: '_',
        address: '127.0.0.1',
        port,
        maxConnections: 1024,
        place: 'listen.http[0].handlers.service_api[3]',
      },
    ]);
    expect(JSON.parse((await exchange(`${url}/api/metrics`)).body)).toEqual({
      host_types: ['localhost'],
      metrics: ['xmppMessageSent'],
      global: [],
    });
    expect(JSON.parse((await exchange(`${url}/legacy/metrics`)).body)).toEqual({
      hosts: ['localhost'],
      metrics: ['xmppMessageSent'],
      global: [],
    });
    expect(
      (await exchange(`${url}/legacy/metrics/host/localhost/xmppMessageSent`))
        .status
    ).toBe(200);
    expect(
      (
        await exchange(
          `${url}/legacy/metrics/host_type/localhost/xmppMessageSent`
        )
      ).status
    ).toBe(404);
    expect(
      (await exchange(`${url}/metrics/host_type/localhost/xmppMessageSent`))
        .body
    ).toBe('{"metric":{"count":7,"one":7}}');
    const users = await exchange(`${url}/users/metrics`);
    expect(users.status).toBe(404);
    expect(JSON.parse(users.body)).toEqual({
      error: 'not_found',
      message: 'no such resource: /users/metrics',
    });
  });

  it('should route by the Host header, with the loopback names as one, and answer 404 to any other Host', async () => {
    const listeners = listenersOf(
      toml(
        '',
        '    host = "localhost"\n    path = "/api"',
        '    host = "metrics.example.com"\n    path = "/api"\n    variant = "host"'
      )
    );
    running = await startLegacyMetricsListeners(rig.reader, listeners);
    const { url, port } = running.listeners[0]!;
    for (const host of [
      'localhost',
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      '[::1]',
      'LocalHost',
    ]) {
      const res = await exchange(`${url}/api/metrics`, { host });
      expect([host, res.status, JSON.parse(res.body)]).toEqual([
        host,
        200,
        { host_types: ['localhost'], metrics: ['xmppMessageSent'], global: [] },
      ]);
    }
    const other = await exchange(`${url}/api/metrics`, {
      host: `metrics.example.com:${port}`,
    });
    expect(JSON.parse(other.body)).toEqual({
      hosts: ['localhost'],
      metrics: ['xmppMessageSent'],
      global: [],
    });
    const unknown = await exchange(`${url}/api/metrics`, {
      host: 'example.org',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toBe('application/json');
    expect(JSON.parse(unknown.body)).toEqual({
      error: 'not_found',
      message: 'no such resource: /api/metrics',
    });
  });

  it('should close connections beyond max_connections at once and accept again when one closes', async () => {
    running = await startLegacyMetricsListeners(
      rig.reader,
      listenersOf(
        toml(
          '  transport.max_connections = 2',
          '    host = "_"\n    path = "/api"'
        )
      )
    );
    const { metricsUrl } = running.listeners[0]!;
    const agents = [0, 1, 2, 3].map(
      () => new Agent({ keepAlive: true, maxSockets: 1 })
    );
    const [first, second, extra, late] = agents as [Agent, Agent, Agent, Agent];
    try {
      // Two idle keep-alive connections reach the cap.
      expect((await exchange(metricsUrl, { agent: first })).status).toBe(200);
      expect((await exchange(metricsUrl, { agent: second })).status).toBe(200);
      // A third is closed by the server before it can answer.
      await expect(exchange(metricsUrl, { agent: extra })).rejects.toThrow(
        /socket hang up|ECONNRESET|EPIPE/
      );
      // Closing one makes room. The server learns of the close asynchronously, so try a few times.
      const freed = new Promise<void>(done =>
        Object.values(first.freeSockets)
          .flat()[0]!
          .once('close', () => done())
      );
      first.destroy();
      await freed;
      let answer: HttpExchange | undefined;
      for (let attempt = 0; attempt < 20 && answer === undefined; attempt++) {
        answer = await exchange(metricsUrl, { agent: late }).catch(async () => {
          await new Promise(done => setTimeout(done, 25));
          return undefined;
        });
      }
      expect(answer?.status).toBe(200);
      // The connection kept open all along still works.
      const again = await exchange(metricsUrl, { agent: second });
      expect([again.status, again.reusedSocket]).toEqual([200, true]);
    } finally {
      for (const agent of agents) agent.destroy();
    }
  });

  it('should start one listener per [[listen.http]] with its own groups and limits', async () => {
    running = await startLegacyMetricsListeners(
      rig.reader,
      listenersOfFile(join(FIXTURES, 'multi.toml'))
    );
    const entries = running.listeners.map(
      ({ path, variant, host, address, maxConnections, place }) => ({
        path,
        variant,
        host,
        address,
        maxConnections,
        place,
      })
    );
    expect(entries).toEqual([
      {
        path: '/api',
        variant: 'host_type',
        host: 'localhost',
        address: '127.0.0.1',
        maxConnections: 1024,
        place: 'listen.http[0].handlers.service_api[0]',
      },
      {
        path: '/metrics-api',
        variant: 'host_type',
        host: '_',
        address: '127.0.0.1',
        maxConnections: 1024,
        place: 'listen.http[0].handlers.service_api[1]',
      },
      {
        path: '/api',
        variant: 'host',
        host: '_',
        address: '::1',
        maxConnections: Infinity,
        place: 'listen.http[1].handlers.service_api[0]',
      },
    ]);
    const [a, b, c] = running.listeners as [
      (typeof running.listeners)[0],
      (typeof running.listeners)[0],
      (typeof running.listeners)[0],
    ];
    expect(a.port).toBe(b.port);
    expect(c.port).not.toBe(a.port);
    expect((await exchange(`${a.metricsUrl}/host_type/localhost`)).status).toBe(
      200
    );
    expect(
      (
        await exchange(`${b.metricsUrl}/host_type/localhost`, {
          host: 'anything.example',
        })
      ).status
    ).toBe(200);
    expect((await exchange(`${c.metricsUrl}/host/localhost`)).status).toBe(200);
  });

  describe.each([['server.toml'], ['server.cfg']])('with examples/%s', name => {
    it('should load and serve the example on loopback', async () => {
      running = await startLegacyMetricsListeners(
        rig.reader,
        listenersOfFile(join(EXAMPLES, name))
      );
      expect(running.listeners).toHaveLength(1);
      const entry = running.listeners[0]!;
      expect([
        entry.address,
        entry.path,
        entry.variant,
        entry.host,
        entry.maxConnections,
      ]).toEqual(['127.0.0.1', '/api', 'host_type', 'localhost', 1024]);
      const res = await exchange(
        `${entry.metricsUrl}/host_type/localhost/xmppMessageSent`
      );
      expect([res.status, res.body]).toEqual([
        200,
        '{"metric":{"count":7,"one":7}}',
      ]);
    });
  });

  it('should report a port in use as a ListenError naming the file, the place, the address and the reason', async () => {
    const blocker = await occupyPort();
    const port = portOf(blocker);
    try {
      const [listener] = listenersOf(
        toml('', '    host = "_"\n    path = "/api"')
      );
      await expect(
        startLegacyMetricsListeners(rig.reader, [{ ...listener!, port }], {
          file: 'examples/server.toml',
        })
      ).rejects.toThrow(
        expect.objectContaining({
          name: 'ListenError',
          message: `examples/server.toml: listen.http[0]: cannot listen on 127.0.0.1:${port}: EADDRINUSE`,
          cause: expect.objectContaining({ code: 'EADDRINUSE' }),
        })
      );
      await expect(
        startLegacyMetricsListeners(rig.reader, [{ ...listener!, port }])
      ).rejects.toThrow(
        expect.objectContaining({
          name: 'ListenError',
          message: `listen.http[0]: cannot listen on 127.0.0.1:${port}: EADDRINUSE`,
          cause: expect.objectContaining({ code: 'EADDRINUSE' }),
        })
      );
    } finally {
      await closeServer(blocker);
    }
  });

  it('should close the listeners already started when a later one cannot bind', async () => {
    const blocker = await occupyPort();
    // A port that was free a moment ago, for the first listener.
    const probe = await occupyPort();
    const firstPort = portOf(probe);
    await closeServer(probe);
    try {
      const text = [
        toml('', '    host = "_"\n    path = "/api"'),
        toml('', '    host = "_"\n    path = "/api"'),
      ].join('\n');
      const [first, second] = parseLegacyApiConfig(text, 'two.toml')
        .listeners as [ListenerConfig, ListenerConfig];
      const listeners = [
        { ...first, port: firstPort },
        { ...second, port: portOf(blocker) },
      ];
      await expect(
        startLegacyMetricsListeners(rig.reader, listeners, { file: 'two.toml' })
      ).rejects.toThrow(
        `two.toml: listen.http[1]: cannot listen on 127.0.0.1:${portOf(blocker)}: EADDRINUSE`
      );
      // The first listener's port is free again.
      const again = createServer();
      await new Promise<void>((done, fail) =>
        again.once('error', fail).listen(firstPort, '127.0.0.1', done)
      );
      await closeServer(again);
    } finally {
      await closeServer(blocker);
    }
  });

  it('should warn once that the API has no authentication when bound beyond loopback', async () => {
    const warnings = captureDiag().warn;
    try {
      running = await startLegacyMetricsListeners(
        rig.reader,
        listenersOf(
          toml('  ip_address = "0.0.0.0"', '    host = "_"\n    path = "/api"')
        )
      );
    } finally {
      diag.disable();
    }
    const { port, address } = running.listeners[0]!;
    expect(address).toBe('0.0.0.0');
    expect(warnings).toEqual([
      `legacy metrics API bound to 0.0.0.0:${port}: it has no authentication, so anyone who can reach this address can read every metric; bind to loopback or restrict access with a firewall`,
    ]);
    expect(takeWarnings()).toEqual(
      warnings.map(message => ({ code: WARNING_CODES.exposed, message }))
    );
    expect(
      (await exchange(`http://127.0.0.1:${port}/api/metrics`)).status
    ).toBe(200);
  });

  it('should close once, however often it is asked', async () => {
    running = await startLegacyMetricsListeners(
      rig.reader,
      listenersOfFile(join(FIXTURES, 'multi.toml'))
    );
    const urls = running.listeners.map(entry => entry.metricsUrl);
    const first = running.close();
    expect(running.close()).toBe(first);
    await Promise.all([first, running.close()]);
    await running.close();
    for (const url of urls)
      await expect(exchange(url)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('should start nothing for an empty list', async () => {
    running = await startLegacyMetricsListeners(rig.reader, []);
    expect(running.listeners).toEqual([]);
  });

  it.each([
    [
      {},
      'config: found an object, expected a configuration from loadLegacyApiConfig or an array of listener settings',
    ],
    [
      [{ port: -1 }],
      'listeners[0].port: found -1, expected an integer from 0 to 65535',
    ],
    [
      [{ port: 0, maxConnections: 0, handlerGroups: [] }],
      'listeners[0].maxConnections: found 0, expected a positive integer or Infinity',
    ],
    [
      [{ port: 0, maxConnections: 10 }],
      'listeners[0].handlerGroups: found nothing, expected an array',
    ],
  ])('should reject %j', async (listeners, message) => {
    await expect(
      startLegacyMetricsListeners(rig.reader, listeners as never)
    ).rejects.toThrow(new InvalidOptionError(message));
  });

  it('should accept what loadLegacyApiConfig returns, and name its file in a ListenError', async () => {
    const text = toml('', '    host = "_"\n    path = "/api"');
    const config = parseLegacyApiConfig(text, 'server.toml');
    running = await startLegacyMetricsListeners(rig.reader, config);
    const { metricsUrl, port } = running.listeners[0]!;
    expect((await exchange(metricsUrl)).status).toBe(200);
    const taken = parseLegacyApiConfig(
      text.replace(/port = 0/, `port = ${port}`),
      'server.toml'
    );
    await expect(
      startLegacyMetricsListeners(rig.reader, taken)
    ).rejects.toThrow(
      `server.toml: listen.http[0]: cannot listen on 127.0.0.1:${port}: EADDRINUSE`
    );
  });

  it.each<[string, (port: number) => unknown, string]>([
    [
      'a bad variant in the second listener',
      port => [
        listenerAt(port),
        { ...listenerAt(0), handlerGroups: [{ ...group(), variant: 'hosts' }] },
      ],
      'listeners[1].handlerGroups[0].variant: found "hosts", expected "host_type" or "host" (did you mean "host"?)',
    ],
    [
      'an unknown key',
      port => [{ ...listenerAt(port), hots: 'x' }],
      'listeners[0].hots: found an unknown option, expected one of port, ipAddress, ipVersion, numAcceptors, maxConnections, handlerGroups, place, requestTimeout, headersTimeout, keepAliveTimeout',
    ],
    [
      'a bad path in the second listener',
      port => [
        listenerAt(port),
        { ...listenerAt(0), handlerGroups: [{ ...group(), path: 'api' }] },
      ],
      'listeners[1].handlerGroups[0].path: found "api", expected a string starting with "/"',
    ],
    [
      'a bad port in the second listener',
      port => [listenerAt(port), listenerAt(65536)],
      'listeners[1].port: found 65536, expected an integer from 0 to 65535',
    ],
    [
      'a headers timeout beyond the request timeout',
      port => [
        { ...listenerAt(port), requestTimeout: 1000, headersTimeout: 2000 },
      ],
      'listeners[0].headersTimeout: found 2000, expected at most requestTimeout (1000)',
    ],
    [
      'a bad deprecation in the second listener',
      port => [
        listenerAt(port),
        {
          ...listenerAt(0),
          handlerGroups: [
            group(),
            { ...group(), path: '/v2', deprecation: { since: 'soon' } },
          ],
        },
      ],
      'listeners[1].handlerGroups[1].deprecation.since: found "soon", expected an ISO 8601 date (2026-06-30, midnight UTC) or date-time with an offset (2026-06-30T12:00:00Z)',
    ],
  ])(
    'should reject %s with an InvalidOptionError before binding anything',
    async (_case, listeners, message) => {
      const port = await freePort();
      await expect(
        startLegacyMetricsListeners(rig.reader, listeners(port) as never)
      ).rejects.toThrow(new InvalidOptionError(message));
      await expect(
        exchange(`http://127.0.0.1:${port}/api/metrics`)
      ).rejects.toThrow(/ECONNREFUSED/);
    }
  );
});

describe('startLegacyMetricsListeners shared options', () => {
  it.each<[string, object, string]>([
    [
      'a relative defaultSuccessor',
      { defaultSuccessor: 'metrics' },
      'options.defaultSuccessor: found "metrics", expected an absolute http or https URL',
    ],
    [
      'usage that is a number',
      { usage: 20 },
      'options.usage: found 20, expected false, true or { maxClients, logNewClients }',
    ],
    [
      'an unknown usage option',
      { usage: { maxClient: 5 } },
      'options.usage.maxClient: found an unknown option, expected maxClients or logNewClients (did you mean maxClients?)',
    ],
  ])(
    'should reject %s naming it below options, before binding anything',
    async (_case, options, message) => {
      const rig = createRig();
      try {
        const port = await freePort();
        await expect(
          startLegacyMetricsListeners(
            rig.reader,
            [listenerAt(port)] as never,
            options as never
          )
        ).rejects.toThrow(new InvalidOptionError(message));
        await expect(
          exchange(`http://127.0.0.1:${port}/api/metrics`)
        ).rejects.toThrow(/ECONNREFUSED/);
      } finally {
        await rig.close();
      }
    }
  );
});

function group() {
  return {
    host: '_',
    path: '/api',
    variant: 'host_type',
    handlers: ['service_api_metrics'],
    place: 'test',
  };
}

function listenerAt(port: number) {
  return {
    port,
    ipAddress: '127.0.0.1',
    ipVersion: 4,
    numAcceptors: 100,
    maxConnections: 10,
    handlerGroups: [group()],
    place: 'test',
  };
}
