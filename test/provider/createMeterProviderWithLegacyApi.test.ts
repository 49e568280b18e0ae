import { diag, ValueType } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  InstrumentType,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import Fastify, { type FastifyInstance } from 'fastify';
import { request as httpRequest } from 'node:http';
import { resolveOptions } from '../../src/provider/resolveOptions';
import { createServer, type Server } from 'node:net';
import {
  InvalidOptionError,
  ListenError,
  startLegacyMetricsServer,
  type LegacyMetricsServer,
} from '../../src';
import {
  createMeterProviderWithLegacyApi,
  DEFAULT_METER_PROVIDER_OPTIONS,
  type MeterProviderWithLegacyApi,
  type MeterProviderWithLegacyApiOptions,
} from '../../src/provider/createMeterProviderWithLegacyApi';
import { captureDiag } from '../support/diag';

const ENV_KEYS = [
  'OTEL_EXPORTER_PROMETHEUS_HOST',
  'OTEL_EXPORTER_PROMETHEUS_PORT',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL',
  'OTEL_EXPORTER_OTLP_METRICS_TIMEOUT',
  'OTEL_METRIC_EXPORT_INTERVAL',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
];
/** Never the default port 9464 in tests: a free one on loopback. */
const LOOPBACK_ANY_PORT = { address: '127.0.0.1', port: 0 } as const;

const savedEnv: Record<string, string | undefined> = {};
let telemetry: MeterProviderWithLegacyApi | undefined;
let app: FastifyInstance | undefined;

beforeEach(() => {
  for (const key of ENV_KEYS) {
    savedEnv[key] = process.env[key];
    delete process.env[key];
  }
});

afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
  await app?.close();
  app = undefined;
  diag.disable();
  for (const key of ENV_KEYS) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
});

/** Builds with Prometheus on a free loopback port and OTLP off, unless the test says otherwise. */
async function build(
  options: MeterProviderWithLegacyApiOptions = {}
): Promise<MeterProviderWithLegacyApi> {
  telemetry = await createMeterProviderWithLegacyApi({
    prometheus: LOOPBACK_ANY_PORT,
    otlp: { enabled: false },
    ...options,
  });
  return telemetry;
}

function warnings(): string[] {
  return captureDiag().errorsAndWarnings;
}

describe('DEFAULT_METER_PROVIDER_OPTIONS', () => {
  it('should hold the documented defaults', () => {
    expect(DEFAULT_METER_PROVIDER_OPTIONS).toEqual({
      prometheus: { address: '127.0.0.1', port: 9464, endpoint: '/metrics' },
      otlp: {
        enabled: 'auto',
        protocol: 'http/protobuf',
        exportIntervalMillis: 60_000,
        exportTimeoutMillis: 30_000,
      },
    });
    expect(Object.isFrozen(DEFAULT_METER_PROVIDER_OPTIONS.prometheus)).toBe(
      true
    );
  });
});

describe('createMeterProviderWithLegacyApi', () => {
  describe('options', () => {
    const notAnApp = { route: 'no' };
    it.each<[string, unknown, string]>([
      ['null', null, 'options: found null, expected an object'],
      [
        'an unknown key',
        { prometheous: {} },
        'prometheous: found an unknown option, expected one of legacy, prometheus, otlp, views, readers, resource, cluster (did you mean prometheus?)',
      ],
      [
        'an unknown Prometheus key',
        { prometheus: { path: '/x' } },
        'prometheus.path: found an unknown option, expected one of app, address, port, allowedHost, endpoint, requestTimeout, headersTimeout, keepAliveTimeout, prefix, appendTimestamp, withResourceConstantLabels, withoutScopeInfo, withoutTargetInfo, metricProducers',
      ],
      [
        'prometheus: true',
        { prometheus: true },
        'prometheus: found true, expected an object or false',
      ],
      [
        'a negative port',
        { prometheus: { port: -1 } },
        'prometheus.port: found -1, expected an integer from 0 to 65535',
      ],
      [
        'a fractional port',
        { prometheus: { port: 9464.5 } },
        'prometheus.port: found 9464.5, expected an integer from 0 to 65535',
      ],
      [
        'an empty address',
        { prometheus: { address: '' } },
        'prometheus.address: found "", expected a non-empty string',
      ],
      [
        'a relative endpoint',
        { prometheus: { endpoint: 'metrics' } },
        'prometheus.endpoint: found "metrics", expected a path starting with "/"',
      ],
      [
        'an app without routes',
        { prometheus: { app: notAnApp } },
        'prometheus.app: found an object, expected a fastify instance',
      ],
      [
        'an app and a port',
        { prometheus: { app: { route: () => {} }, port: 1 } },
        "prometheus.port: found 1, expected nothing beside prometheus.app: the app's own listener serves the route",
      ],
      [
        'otlp: false',
        { otlp: false },
        'otlp: found false, expected an object such as { enabled: false }',
      ],
      [
        'an unknown OTLP key',
        { otlp: { endpoint: 'http://127.0.0.1:4318' } },
        'otlp.endpoint: found an unknown option, expected one of enabled, url, protocol, exportIntervalMillis, exportTimeoutMillis',
      ],
      [
        'otlp.enabled: "yes"',
        { otlp: { enabled: 'yes' } },
        'otlp.enabled: found "yes", expected one of true, false, "auto"',
      ],
      [
        'a relative OTLP URL',
        { otlp: { url: '/v1/metrics' } },
        'otlp.url: found "/v1/metrics", expected an absolute URL',
      ],
      [
        'gRPC',
        { otlp: { protocol: 'grpc' } },
        'otlp.protocol: found "grpc", expected "http/protobuf" or "http/json"',
      ],
      [
        'a zero interval',
        { otlp: { exportIntervalMillis: 0 } },
        'otlp.exportIntervalMillis: found 0, expected a positive integer',
      ],
      [
        'a timeout longer than the interval',
        { otlp: { exportIntervalMillis: 1000, exportTimeoutMillis: 2000 } },
        'otlp.exportTimeoutMillis: found 2000, expected at most otlp.exportIntervalMillis (1000)',
      ],
      [
        'legacy options that are not an object',
        { legacy: 'x' },
        'legacy: found "x", expected an object of LegacyMetricsReader options',
      ],
      [
        'invalid legacy options',
        { legacy: { windowMs: -5 } },
        'legacy.windowMs: found -5, expected a positive integer',
      ],
      [
        'a resource that is not one',
        { resource: {} },
        'resource: found an object, expected a Resource from @opentelemetry/resources',
      ],
    ])(
      'should reject %s with an InvalidOptionError',
      async (_, options, message) => {
        const attempt = createMeterProviderWithLegacyApi(
          options as MeterProviderWithLegacyApiOptions
        );
        await expect(attempt).rejects.toThrow(InvalidOptionError);
        await expect(attempt).rejects.toThrow(message);
      }
    );

    it('should reject OTEL_EXPORTER_OTLP_PROTOCOL=grpc rather than post HTTP to a gRPC port', async () => {
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://127.0.0.1:4317';
      process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'grpc';
      await expect(
        createMeterProviderWithLegacyApi({ prometheus: false })
      ).rejects.toThrow(
        'OTEL_EXPORTER_OTLP_PROTOCOL must be "http/protobuf" or "http/json" (got "grpc"); ' +
          'for an OpenTelemetry Collector, use http/protobuf on its port 4318'
      );
    });

    it('should not write into the caller options', async () => {
      const options = Object.freeze({
        prometheus: Object.freeze({ ...LOOPBACK_ANY_PORT }),
        otlp: Object.freeze({}),
      });
      telemetry = await createMeterProviderWithLegacyApi(options);
      expect(options).toEqual({ prometheus: LOOPBACK_ANY_PORT, otlp: {} });
    });
  });

  describe('OTLP', () => {
    it('should be off when no endpoint is configured', async () => {
      const built = await build({ otlp: {} });
      expect(built.otlpReader).toBeUndefined();
    });

    it.each([
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
    ])('should be on when %s is set', async key => {
      process.env[key] = 'http://127.0.0.1:9/v1/metrics';
      process.env.OTEL_EXPORTER_OTLP_METRICS_TIMEOUT = '50';
      const built = await build({ otlp: { exportIntervalMillis: 600_000 } });
      expect(built.otlpReader).toBeDefined();
    });

    it('should be off with enabled: false even when the environment names an endpoint', async () => {
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://127.0.0.1:9';
      const built = await build({ otlp: { enabled: false } });
      expect(built.otlpReader).toBeUndefined();
    });

    it('should be on with enabled: true and no endpoint anywhere', async () => {
      process.env.OTEL_EXPORTER_OTLP_METRICS_TIMEOUT = '50';
      const built = await build({
        otlp: { enabled: true, exportIntervalMillis: 600_000 },
      });
      expect(built.otlpReader).toBeDefined();
    });

    it('should warn about an invalid OTEL_METRIC_EXPORT_INTERVAL and use the default', async () => {
      const logged = warnings();
      process.env.OTEL_METRIC_EXPORT_INTERVAL = 'soon';
      process.env.OTEL_EXPORTER_OTLP_METRICS_TIMEOUT = '50';
      const built = await build({ otlp: { enabled: true } });
      expect(built.otlpReader).toBeDefined();
      expect(logged).toContain(
        'OTEL_METRIC_EXPORT_INTERVAL must be a positive integer of milliseconds (got "soon"); using the default'
      );
    });
  });

  describe('cardinality', () => {
    it("should give the Prometheus exporter and the OTLP reader the legacy reader's limit", async () => {
      process.env.OTEL_EXPORTER_OTLP_METRICS_TIMEOUT = '50';
      const built = await build({
        legacy: { cardinalityLimit: 4321 },
        otlp: { enabled: true, exportIntervalMillis: 600_000 },
      });
      for (const type of Object.values(InstrumentType)) {
        expect(built.legacyReader.selectCardinalityLimit(type)).toBe(4321);
        expect(built.prometheusExporter!.selectCardinalityLimit(type)).toBe(
          4321
        );
        expect(built.otlpReader!.selectCardinalityLimit(type)).toBe(4321);
      }
    });

    it('should expose more host types than the SDK default of 2000 without an overflow series', async () => {
      const built = await build();
      const counter = built.meterProvider
        .getMeter('test')
        .createCounter('xmppMessageSent', { valueType: ValueType.INT });
      for (let i = 0; i < 2500; i++) counter.add(1, { host_type: `host${i}` });
      const exposition = await (await fetch(built.prometheusUrl!)).text();
      expect(
        exposition.match(/^xmppMessageSent_total\{host_type="host\d+"/gm)
      ).toHaveLength(2500);
      expect(exposition).not.toContain('otel_metric_overflow');
    });
  });

  describe('resource', () => {
    it('should come from OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, with the resource option on top', async () => {
      process.env.OTEL_SERVICE_NAME = 'messaging-node';
      process.env.OTEL_RESOURCE_ATTRIBUTES =
        'service.instance.id=node-1,deployment.environment.name=test';
      const built = await build({
        resource: resourceFromAttributes({
          'deployment.environment.name': 'staging',
        }),
      });
      built.meterProvider.getMeter('test').createCounter('c').add(1);
      const exposition = await (await fetch(built.prometheusUrl!)).text();
      const info = exposition
        .split('\n')
        .find(line => line.startsWith('target_info{'))!;
      expect(info).toContain('service_name="messaging-node"');
      expect(info).toContain('service_instance_id="node-1"');
      expect(info).toContain('deployment_environment_name="staging"');
    });
  });

  describe('prometheus listener', () => {
    it('should listen on the port it was given, 0 picking a free one, and report the URL', async () => {
      const built = await build();
      expect(built.prometheusUrl).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/metrics$/
      );
      expect(built.prometheusUrl).not.toMatch(/:0\//);
      built.meterProvider
        .getMeter('test')
        .createCounter('xmppMessageSent')
        .add(3, { host_type: 'localhost' });
      const response = await fetch(`${built.prometheusUrl!}?debug=1`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain');
      expect(await response.text()).toContain(
        'xmppMessageSent_total{host_type="localhost",otel_scope_name="test"} 3'
      );
    });

    it('should serve another endpoint when told, and answer 404 and 405 elsewhere', async () => {
      const built = await build({
        prometheus: { ...LOOPBACK_ANY_PORT, endpoint: '/prom' },
      });
      const base = new URL(built.prometheusUrl!);
      expect(base.pathname).toBe('/prom');
      expect((await fetch(new URL('/metrics', base))).status).toBe(404);
      const post = await fetch(base, { method: 'POST' });
      expect(post.status).toBe(405);
      expect(await post.json()).toEqual({
        error: 'method_not_allowed',
        message: 'POST is not allowed; allowed: GET, HEAD',
      });
    });

    it('should reject with a ListenError when the port is taken', async () => {
      const blocker: Server = createServer();
      await new Promise<void>(resolve =>
        blocker.listen({ host: '127.0.0.1', port: 0 }, resolve)
      );
      const port = (blocker.address() as { port: number }).port;
      try {
        const attempt = createMeterProviderWithLegacyApi({
          prometheus: { address: '127.0.0.1', port },
          otlp: { enabled: false },
        });
        await expect(attempt).rejects.toThrow(ListenError);
        await expect(attempt).rejects.toThrow(
          `prometheus: cannot listen on 127.0.0.1:${port}: EADDRINUSE`
        );
      } finally {
        await new Promise(resolve => blocker.close(resolve));
      }
    });
  });

  describe('prometheus listener from the environment', () => {
    it('should bind OTEL_EXPORTER_PROMETHEUS_HOST and OTEL_EXPORTER_PROMETHEUS_PORT when the code names none', async () => {
      const port = await freePort();
      process.env.OTEL_EXPORTER_PROMETHEUS_HOST = '::1';
      process.env.OTEL_EXPORTER_PROMETHEUS_PORT = String(port);
      telemetry = await createMeterProviderWithLegacyApi({
        otlp: { enabled: false },
      });
      expect(telemetry.prometheusUrl).toBe(`http://[::1]:${port}/metrics`);
      expect((await fetch(telemetry.prometheusUrl!)).status).toBe(200);
    });

    it('should let the code win over the environment', async () => {
      process.env.OTEL_EXPORTER_PROMETHEUS_HOST = '::1';
      process.env.OTEL_EXPORTER_PROMETHEUS_PORT = '1';
      const built = await build();
      expect(built.prometheusUrl).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/metrics$/
      );
      expect(built.prometheusUrl).not.toContain(':1/');
    });

    it('should warn about an invalid OTEL_EXPORTER_PROMETHEUS_PORT and use the default', () => {
      const logged = warnings();
      process.env.OTEL_EXPORTER_PROMETHEUS_PORT = 'ninety';
      expect(resolveOptions({}).prometheus?.listener).toMatchObject({
        address: '127.0.0.1',
        port: 9464,
      });
      expect(logged).toContain(
        'OTEL_EXPORTER_PROMETHEUS_PORT must be an integer from 0 to 65535 (got "ninety"); using the default'
      );
    });
  });

  describe('prometheus listener hardening', () => {
    it('should answer only loopback names in Host when bound to loopback', async () => {
      const built = await build();
      const url = new URL(built.prometheusUrl!);
      const asHost = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            url,
            { headers: { host }, timeout: 5_000 },
            res => {
              res.resume();
              resolve(res.statusCode!);
            }
          );
          req.on('error', reject);
          req.end();
        });
      expect(await asHost(`localhost:${url.port}`)).toBe(200);
      expect(await asHost('attacker.example')).toBe(404);
    });

    it.each<[string, object, string]>([
      [
        'an unknown key',
        { hots: 'x' },
        'prometheus.hots: found an unknown option, expected one of app, address, port, allowedHost, endpoint, requestTimeout, headersTimeout, keepAliveTimeout, prefix, appendTimestamp, withResourceConstantLabels, withoutScopeInfo, withoutTargetInfo, metricProducers',
      ],
      [
        'a bad timeout',
        { keepAliveTimeout: -1 },
        'prometheus.keepAliveTimeout: found -1, expected a positive integer',
      ],
    ])(
      'should reject %s with an InvalidOptionError and bind nothing',
      async (_case, extra, message) => {
        const port = await freePort();
        const attempt = createMeterProviderWithLegacyApi({
          prometheus: { address: '127.0.0.1', port, ...extra },
          otlp: { enabled: false },
        });
        await expect(attempt).rejects.toThrow(new InvalidOptionError(message));
        await expect(
          fetch(`http://127.0.0.1:${port}/metrics`)
        ).rejects.toThrow();
      }
    );
  });

  describe('prometheus mounted on a fastify app', () => {
    it('should add a GET /metrics route to the app and open no listener', async () => {
      app = Fastify();
      const built = await build({ prometheus: { app } });
      await app.ready();
      expect(built.prometheusUrl).toBeUndefined();
      built.meterProvider
        .getMeter('test')
        .createUpDownCounter('sessionCount')
        .add(2, { host_type: 'localhost' });
      const response = await app.inject({ method: 'GET', url: '/metrics' });
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain(
        'sessionCount{host_type="localhost",otel_scope_name="test"} 2'
      );
    });

    it('should answer 503 once the provider is shut down', async () => {
      app = Fastify();
      const built = await build({
        prometheus: { app, endpoint: '/otel/metrics' },
      });
      await app.ready();
      await built.shutdown();
      const response = await app.inject({
        method: 'GET',
        url: '/otel/metrics',
      });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({
        error: 'unavailable',
        message: 'the meter provider is shut down',
      });
    });

    it('should reject an app that is already ready', async () => {
      app = Fastify();
      await app.ready();
      await expect(build({ prometheus: { app } })).rejects.toThrow(
        InvalidOptionError
      );
    });
  });

  describe('prometheus: false', () => {
    it('should build no exporter and no listener', async () => {
      const built = await build({ prometheus: false });
      expect(built.prometheusExporter).toBeUndefined();
      expect(built.prometheusUrl).toBeUndefined();
    });
  });
});

describe('createMeterProviderWithLegacyApi SDK options', () => {
  let server: LegacyMetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it.each<[string, MeterProviderWithLegacyApiOptions, string]>([
    [
      'views that are no array',
      { views: {} as never },
      'views: found an object, expected an array of view options',
    ],
    [
      'a view with an unknown field',
      { views: [{ instrumentNme: 'x' } as never] },
      'views[0].instrumentNme: found an unknown option, expected one of name, description, attributesProcessors, aggregation, aggregationCardinalityLimit, instrumentType, instrumentName, instrumentUnit, meterName, meterVersion, meterSchemaUrl (did you mean instrumentName?)',
    ],
    [
      'a view the SDK refuses',
      { views: [{ name: 'renamed', instrumentName: 'requests*' }] },
      'views[0]: found an object, expected a view the SDK accepts (Views with a specified name must be declared with an instrument selector that selects at most one instrument per meter.)',
    ],
    [
      'a reader that is no reader',
      { readers: [{ collect: 1 } as never] },
      'readers[0]: found an object, expected a metric reader, such as a PeriodicExportingMetricReader',
    ],
    [
      'a Prometheus prefix that is no string',
      { prometheus: { ...LOOPBACK_ANY_PORT, prefix: 5 as never } },
      'prometheus.prefix: found 5, expected a string',
    ],
    [
      'resource labels that are no RegExp',
      {
        prometheus: {
          ...LOOPBACK_ANY_PORT,
          withResourceConstantLabels: 'service_.+' as never,
        },
      },
      'prometheus.withResourceConstantLabels: found "service_.+", expected a RegExp such as /service_.+/',
    ],
    [
      'withoutTargetInfo that is no boolean',
      { prometheus: { ...LOOPBACK_ANY_PORT, withoutTargetInfo: 1 as never } },
      'prometheus.withoutTargetInfo: found 1, expected a boolean',
    ],
  ])('should reject %s, naming it', async (_case, options, message) => {
    await expect(build(options)).rejects.toThrow(
      new InvalidOptionError(message)
    );
  });

  it('should reject the same reader twice and a reader bound to another provider', async () => {
    const reader = new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 60_000,
    });
    await expect(build({ readers: [reader, reader] })).rejects.toThrow(
      new InvalidOptionError(
        'readers[1]: found an object, expected each reader once (the same as readers[0])'
      )
    );
    const other = new MeterProvider({ readers: [reader] });
    await expect(build({ readers: [reader] })).rejects.toThrow(
      new InvalidOptionError(
        'readers: found a reader the SDK refuses (MetricReader can not be bound to a MeterProvider again.), expected readers bound to no other MeterProvider'
      )
    );
    await other.shutdown();
  });

  it('should apply a view to the legacy API, the Prometheus endpoint and an extra reader', async () => {
    const exporter = new InMemoryMetricExporter(
      AggregationTemporality.CUMULATIVE
    );
    const extra = new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: 60_000,
    });
    const built = await build({
      legacy: { hostTypes: ['localhost'] },
      views: [{ instrumentName: 'requests', name: 'xmppMessageSent' }],
      readers: [extra],
    });
    built.meterProvider
      .getMeter('test')
      .createCounter('requests', { valueType: ValueType.INT })
      .add(3, { host_type: 'localhost' });
    await built.forceFlush();

    server = await startLegacyMetricsServer(built.legacyReader, { port: 0 });
    const legacy = await fetch(
      `${server.url}/api/metrics/host_type/localhost/xmppMessageSent`
    );
    expect(legacy.status).toBe(200);
    expect(await legacy.json()).toMatchObject({
      metric: { count: 3 },
    });
    const exposition = await (await fetch(built.prometheusUrl!)).text();
    expect(exposition).toMatch(
      /^xmppMessageSent_total\{host_type="localhost",[^}]*\} 3$/m
    );
    expect(exposition).not.toMatch(/^requests_total/m);
    const exported = exporter
      .getMetrics()
      .flatMap(resource => resource.scopeMetrics)
      .flatMap(scope => scope.metrics);
    const metric = exported.find(m => m.descriptor.name === 'xmppMessageSent');
    expect(metric?.dataPoints.map(point => point.value)).toEqual([3]);
  });

  it("should pass the exporter's own options to the Prometheus exporter", async () => {
    const built = await build({
      prometheus: {
        ...LOOPBACK_ANY_PORT,
        prefix: 'app',
        withoutTargetInfo: true,
        withoutScopeInfo: true,
      },
    });
    built.meterProvider
      .getMeter('test')
      .createCounter('xmppMessageSent', { valueType: ValueType.INT })
      .add(2, { host_type: 'localhost' });
    const exposition = await (await fetch(built.prometheusUrl!)).text();
    expect(exposition).toMatch(
      /^app_xmppMessageSent_total\{host_type="localhost"\} 2$/m
    );
    expect(exposition).not.toContain('target_info');
    expect(exposition).not.toContain('otel_scope_name');
  });
});

describe('MeterProviderWithLegacyApi', () => {
  describe('forceFlush', () => {
    it('should publish a new legacy snapshot', async () => {
      const built = await build({ legacy: { hostTypes: ['localhost'] } });
      const before = built.legacyReader.snapshot.generation;
      built.meterProvider
        .getMeter('test')
        .createCounter('xmppMessageSent')
        .add(1, { host_type: 'localhost' });
      await built.forceFlush();
      expect(built.legacyReader.snapshot.generation).toBeGreaterThan(before);
    });
  });

  describe('shutdown', () => {
    it('should be idempotent and close the Prometheus listener', async () => {
      const built = await build();
      const url = built.prometheusUrl!;
      expect((await fetch(url)).status).toBe(200);
      const first = built.shutdown();
      expect(built.shutdown()).toBe(first);
      await first;
      await expect(fetch(url)).rejects.toThrow();
      await expect(built.shutdown()).resolves.toBeUndefined();
    });
  });
});

/** A port nothing listens on (bound once by the system, then released). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise(resolve => probe.close(resolve));
  return port;
}
