import { existsSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer, type Server } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';
import {
  defaultDemoConfigPath,
  startDemo,
  type RunningDemo,
} from '../../src/cli/demoCommand';
import {
  ConfigError,
  parseLegacyApiConfig,
  type LegacyApiConfig,
} from '../../src';

const ROOT = resolve(__dirname, '..', '..');

/** A server on a free loopback port, keeping it busy. */
async function occupyPort(): Promise<Server> {
  const server = createServer();
  await new Promise<void>(done => server.listen(0, '127.0.0.1', done));
  return server;
}

function portOf(server: Server): number {
  return (server.address() as { port: number }).port;
}

function closeServer(server: Server): Promise<void> {
  return new Promise(done => server.close(() => done()));
}

/** A port that was free a moment ago (for the Prometheus exporter, which cannot report its own). */
async function freePort(): Promise<number> {
  const server = await occupyPort();
  const port = portOf(server);
  await closeServer(server);
  return port;
}

/** The status of a GET over a real socket, with the given Host header. */
function statusOf(url: string, host: string): Promise<number> {
  return new Promise((done, fail) => {
    const req = get(url, { headers: { host }, timeout: 5_000 }, res => {
      res.resume();
      res.on('end', () => done(res.statusCode!));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', fail);
  });
}

/** A configuration file's content with every listener's port replaced by 0. */
function configOf(text: string, file: string): LegacyApiConfig {
  const config = parseLegacyApiConfig(text, file);
  return {
    ...config,
    listeners: config.listeners.map(listener => ({ ...listener, port: 0 })),
  };
}

function exampleConfig(name: string): LegacyApiConfig {
  return configOf(
    readFileSync(join(ROOT, 'examples', name), 'utf8'),
    `examples/${name}`
  );
}

describe('startDemo', () => {
  let demo: RunningDemo | undefined;

  afterEach(async () => {
    await demo?.stop();
    demo = undefined;
  });

  it('should serve the simulated catalog on the example listener and Prometheus from one provider', async () => {
    const lines: string[] = [];
    demo = await startDemo({
      config: exampleConfig('server.toml'),
      prometheus: { port: 0 },
      out: line => lines.push(line),
    });
    const [listener] = demo.listeners;
    const api = listener!.metricsUrl;
    expect(api).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/metrics$/);
    // The demo's reader ticks once a second: wait for the first snapshot with traffic in it.
    const deadline = Date.now() + 10_000;
    let listing:
      { host_types: string[]; metrics: string[]; global: string[] } | undefined;
    while (Date.now() < deadline) {
      listing = (await (await fetch(api)).json()) as typeof listing;
      const global = (await (await fetch(`${api}/global`)).json()) as {
        metrics: object;
      };
      // Stanza sizes appear with the first messages, once sessions are open.
      const messages = 'data.xmpp.sent.xml_stanza_size' in global.metrics;
      if (
        listing!.global.includes('nodeUpTime') &&
        listing!.metrics.includes('sessionCount') &&
        messages
      )
        break;
      await new Promise(done => setTimeout(done, 200));
    }
    expect(listing!.host_types).toEqual(['localhost', 'test type']);
    expect(listing!.metrics).toEqual(
      expect.arrayContaining([
        'sessionCount',
        'xmppMessageSent',
        'sessionSuccessfulLogins',
        'modRosterGets',
        'xmppErrorTotal',
      ])
    );
    expect(listing!.global).toEqual(
      expect.arrayContaining([
        'nodeSessionCount',
        'totalSessionCount',
        'uniqueSessionCount',
        'nodeUpTime',
      ])
    );
    const global = (await (await fetch(`${api}/global`)).json()) as {
      metrics: Record<string, unknown>;
    };
    expect(global.metrics['data.xmpp.sent.xml_stanza_size']).toBeDefined();
    const exposition = await (await fetch(demo.prometheusUrl!)).text();
    expect(exposition).toContain('xmppMessageSent_total{host_type="localhost"');
    expect(lines).toEqual([
      `legacy metrics API: ${api} (bound to 127.0.0.1:${listener!.port}, Host localhost, variant host_type, max_connections 1024, no authentication)`,
      `Prometheus:         ${demo.prometheusUrl}`,
      'try:',
      `  curl ${api}`,
      `  curl ${api}/host_type/localhost`,
      `  curl ${api}/host_type/localhost/xmppMessageSent`,
      `  curl ${api}/all`,
      `  curl ${api}/global`,
      `  curl -H 'Accept: application/xml' ${api}/global/nodeUpTime`,
      `  curl ${demo.prometheusUrl}`,
    ]);
  });

  it('should start the listeners of the term-form example too', async () => {
    demo = await startDemo({
      config: exampleConfig('server.cfg'),
      prometheus: { port: 0 },
      out: () => undefined,
    });
    expect(
      demo.listeners.map(({ address, path, variant, host }) => ({
        address,
        path,
        variant,
        host,
      }))
    ).toEqual([
      {
        address: '127.0.0.1',
        path: '/api',
        variant: 'host_type',
        host: 'localhost',
      },
    ]);
    expect((await fetch(demo.listeners[0]!.metricsUrl)).status).toBe(200);
  });

  it('should print one line per handler group, and curl examples that reach the first', async () => {
    const text = `
[[listen.http]]
  port = 0
  ip_address = "0.0.0.0"
  transport.max_connections = "infinity"
  [[listen.http.handlers.service_api]]
    host = "metrics.example.com"
    path = "/legacy"
    variant = "host"
  [[listen.http.handlers.service_api]]
    host = "_"
    path = "/api"
[[listen.http]]
  port = 0
  ip_version = 6
  [[listen.http.handlers.service_api]]
    host = "localhost"
    path = "/api"
`;
    const lines: string[] = [];
    demo = await startDemo({
      config: configOf(text, 'demo.toml'),
      prometheus: { port: 0 },
      out: line => lines.push(line),
    });
    const [first, second, third] = demo.listeners as [
      RunningDemo['listeners'][0],
      RunningDemo['listeners'][0],
      RunningDemo['listeners'][0],
    ];
    const local = `http://127.0.0.1:${first.port}/legacy/metrics`;
    expect(lines).toEqual([
      `legacy metrics API: ${local} (bound to 0.0.0.0:${first.port}, Host metrics.example.com, variant host, max_connections infinity, no authentication, reachable from other machines)`,
      `legacy metrics API: http://127.0.0.1:${second.port}/api/metrics (bound to 0.0.0.0:${second.port}, any Host, variant host_type, max_connections infinity, no authentication, reachable from other machines)`,
      `legacy metrics API: http://[::1]:${third.port}/api/metrics (bound to [::1]:${third.port}, Host localhost, variant host_type, max_connections 1024, no authentication)`,
      `Prometheus:         ${demo.prometheusUrl}`,
      'try:',
      `  curl -H 'Host: metrics.example.com' ${local}`,
      `  curl -H 'Host: metrics.example.com' ${local}/host/localhost`,
      `  curl -H 'Host: metrics.example.com' ${local}/host/localhost/xmppMessageSent`,
      `  curl -H 'Host: metrics.example.com' ${local}/all`,
      `  curl -H 'Host: metrics.example.com' ${local}/global`,
      `  curl -H 'Host: metrics.example.com' -H 'Accept: application/xml' ${local}/global/nodeUpTime`,
      `  curl ${demo.prometheusUrl}`,
    ]);
    expect(await statusOf(local, 'metrics.example.com')).toBe(200);
    expect(await statusOf(local, 'localhost')).toBe(404);
  });

  it('should refuse a configuration without a listener serving the API, naming the file', async () => {
    const usersOnly =
      '{listen, [{0, http_listener, [{modules, [{"_", "/api", service_api, [{handlers, [service_api_users]}]}]}]}]}.';
    for (const config of [
      configOf(usersOnly, 'users.cfg'),
      configOf('[general]\n', 'plain.toml'),
    ]) {
      await expect(
        startDemo({ config, prometheus: false, out: () => undefined })
      ).rejects.toThrow(
        new ConfigError(
          config.file,
          '',
          'found no listener serving the legacy metrics API, expected an HTTP listener with a service_api handler group listing service_api_metrics'
        )
      );
    }
  });

  it('should close its listeners again when Prometheus cannot bind', async () => {
    const blocker = await occupyPort();
    const legacyPort = await freePort();
    try {
      const config = exampleConfig('server.toml');
      const listeners = config.listeners.map(listener => ({
        ...listener,
        port: legacyPort,
      }));
      await expect(
        startDemo({
          config: { ...config, listeners },
          prometheus: { port: portOf(blocker) },
          out: () => undefined,
        })
      ).rejects.toThrow(
        expect.objectContaining({
          name: 'ListenError',
          message: `prometheus: cannot listen on 127.0.0.1:${portOf(blocker)}: EADDRINUSE`,
          cause: expect.objectContaining({ code: 'EADDRINUSE' }),
        })
      );
      const again = createServer();
      await new Promise<void>((done, fail) =>
        again.once('error', fail).listen(legacyPort, '127.0.0.1', done)
      );
      await closeServer(again);
    } finally {
      await closeServer(blocker);
    }
  });
});

describe('defaultDemoConfigPath', () => {
  it('should name examples/server.toml relative to the working directory at the package root', () => {
    expect(defaultDemoConfigPath(ROOT)).toBe(join('examples', 'server.toml'));
  });

  it('should find the package file from any other working directory', () => {
    const path = defaultDemoConfigPath(join(ROOT, 'test'));
    expect(isAbsolute(path)).toBe(true);
    expect(path).toBe(join(ROOT, 'examples', 'server.toml'));
    expect(existsSync(path)).toBe(true);
  });
});
