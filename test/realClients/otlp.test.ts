import { ValueType } from '@opentelemetry/api';
import {
  createMeterProviderWithLegacyApi,
  type MeterProviderWithLegacyApi,
} from '../../src/provider/createMeterProviderWithLegacyApi';
import {
  startOtlpReceiver,
  type OtlpPoint,
  type OtlpReceiver,
  type OtlpRequest,
} from './otlpReceiver';

/**
 * The real OTLP exporters, configured by the standard environment variables, post to a loopback
 * receiver that decodes protobuf (protobufjs, OTLP's field numbers) and OTLP/JSON (JSON.parse).
 */

const ENV_KEYS = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE',
  'OTEL_METRIC_EXPORT_INTERVAL',
  'OTEL_METRIC_EXPORT_TIMEOUT',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
];

/** AggregationTemporality in OTLP: 1 = delta, 2 = cumulative. */
const DELTA = 1;
const CUMULATIVE = 2;

function point(
  request: OtlpRequest,
  metric: string,
  hostType: string | undefined
): OtlpPoint {
  const found = request.points.filter(
    p => p.metric === metric && p.attributes.host_type === hostType
  );
  if (found.length !== 1)
    throw new Error(
      `expected one ${metric}{host_type=${hostType}} point, found ${found.length}`
    );
  return found[0]!;
}

const hasMetric = (metric: string) => (request: OtlpRequest) =>
  request.points.some(p => p.metric === metric);

describe('OTLP export to a loopback receiver', () => {
  let receiver: OtlpReceiver;
  let telemetry: MeterProviderWithLegacyApi | undefined;
  const savedEnv: Record<string, string | undefined> = {};

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });

  afterAll(async () => {
    await receiver.close();
  });

  beforeEach(() => {
    for (const key of ENV_KEYS) {
      savedEnv[key] = process.env[key];
      delete process.env[key];
    }
    (receiver.requests as OtlpRequest[]).length = 0;
  });

  afterEach(async () => {
    await telemetry?.shutdown();
    telemetry = undefined;
    for (const key of ENV_KEYS) {
      if (savedEnv[key] === undefined) delete process.env[key];
      else process.env[key] = savedEnv[key];
    }
  });

  describe('with OTEL_EXPORTER_OTLP_METRICS_ENDPOINT (protobuf)', () => {
    it('should export every OTEL_METRIC_EXPORT_INTERVAL with host_type attributes, the resource and the headers', async () => {
      process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = receiver.url;
      process.env.OTEL_METRIC_EXPORT_INTERVAL = '200';
      process.env.OTEL_EXPORTER_OTLP_HEADERS =
        'authorization=Bearer%20test-token,x-tenant=messaging';
      process.env.OTEL_SERVICE_NAME = 'messaging-node';
      process.env.OTEL_RESOURCE_ATTRIBUTES =
        'service.instance.id=node-1,deployment.environment.name=test';
      telemetry = await createMeterProviderWithLegacyApi({ prometheus: false });
      expect(telemetry.otlpReader).toBeDefined();

      const meter = telemetry.meterProvider.getMeter('messaging-server');
      const messages = meter.createCounter('xmppMessageSent', {
        valueType: ValueType.INT,
      });
      messages.add(7, { host_type: 'localhost' });
      messages.add(5, { host_type: 'test type' });
      messages.add(2);
      meter
        .createUpDownCounter('sessionCount', { valueType: ValueType.INT })
        .add(2, { host_type: 'localhost' });
      const histogram = meter.createHistogram('backends.auth.authorize', {
        unit: 'ms',
      });
      for (const v of [5, 50, 120])
        histogram.record(v, { host_type: 'localhost' });

      // No forceFlush: the periodic reader exports on its own, at the interval from the environment
      // (the default would be 60 s), and again at the next interval.
      const request = await receiver.waitFor(
        hasMetric('xmppMessageSent'),
        5_000
      );
      await receiver.waitFor(
        r => r !== request && hasMetric('xmppMessageSent')(r),
        5_000
      );
      expect(request.contentType).toBe('application/x-protobuf');
      expect(request.headers.authorization).toBe('Bearer test-token');
      expect(request.headers['x-tenant']).toBe('messaging');
      expect(request.resource).toMatchObject({
        'service.name': 'messaging-node',
        'service.instance.id': 'node-1',
        'deployment.environment.name': 'test',
      });

      expect(point(request, 'xmppMessageSent', 'localhost')).toMatchObject({
        type: 'sum',
        monotonic: true,
        temporality: CUMULATIVE,
        scope: 'messaging-server',
        attributes: { host_type: 'localhost' },
        value: 7,
      });
      expect(point(request, 'xmppMessageSent', 'test type').value).toBe(5);
      expect(point(request, 'xmppMessageSent', undefined)).toMatchObject({
        attributes: {},
        value: 2,
      });
      expect(point(request, 'sessionCount', 'localhost')).toMatchObject({
        type: 'sum',
        monotonic: false,
        value: 2,
      });
      expect(
        point(request, 'backends.auth.authorize', 'localhost')
      ).toMatchObject({
        type: 'histogram',
        unit: 'ms',
        count: 3,
        sum: 175,
        min: 5,
        max: 120,
      });
    });

    it('should send deltas with OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=delta', async () => {
      process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = receiver.url;
      process.env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE = 'delta';
      telemetry = await createMeterProviderWithLegacyApi({
        prometheus: false,
        otlp: { exportIntervalMillis: 600_000 },
      });
      const counter = telemetry.meterProvider
        .getMeter('messaging-server')
        .createCounter('xmppMessageSent');
      counter.add(7, { host_type: 'localhost' });
      await telemetry.forceFlush();
      counter.add(3, { host_type: 'localhost' });
      await telemetry.forceFlush();

      const exported = receiver.requests.filter(hasMetric('xmppMessageSent'));
      expect(
        exported.map(r => point(r, 'xmppMessageSent', 'localhost').value)
      ).toEqual([7, 3]);
      expect(
        point(exported[0]!, 'xmppMessageSent', 'localhost').temporality
      ).toBe(DELTA);
    });
  });

  describe('with OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_PROTOCOL=http/json', () => {
    it('should post OTLP/JSON to the base endpoint plus /v1/metrics', async () => {
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url.replace(
        /\/v1\/metrics$/,
        ''
      );
      process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
      telemetry = await createMeterProviderWithLegacyApi({
        prometheus: false,
        otlp: { exportIntervalMillis: 600_000 },
      });
      const meter = telemetry.meterProvider.getMeter('messaging-server');
      meter
        .createCounter('xmppMessageSent', { valueType: ValueType.INT })
        .add(4, { host_type: 'localhost' });
      meter.createGauge('clusterSize', { valueType: ValueType.INT }).record(3);
      await telemetry.forceFlush();

      const request = await receiver.waitFor(
        hasMetric('xmppMessageSent'),
        5_000
      );
      expect(request.contentType).toBe('application/json');
      expect(point(request, 'xmppMessageSent', 'localhost')).toMatchObject({
        type: 'sum',
        monotonic: true,
        value: 4,
      });
      expect(point(request, 'clusterSize', undefined)).toMatchObject({
        type: 'gauge',
        value: 3,
      });
    });
  });

  describe('shutdown', () => {
    it('should export what was recorded since the last export', async () => {
      telemetry = await createMeterProviderWithLegacyApi({
        prometheus: false,
        otlp: { url: receiver.url, exportIntervalMillis: 600_000 },
      });
      telemetry.meterProvider
        .getMeter('messaging-server')
        .createCounter('xmppMessageSent')
        .add(9, { host_type: 'localhost' });
      await telemetry.shutdown();

      const request = await receiver.waitFor(
        hasMetric('xmppMessageSent'),
        5_000
      );
      expect(point(request, 'xmppMessageSent', 'localhost').value).toBe(9);
    });
  });

  describe('without an endpoint', () => {
    it('should not export at all', async () => {
      telemetry = await createMeterProviderWithLegacyApi({ prometheus: false });
      telemetry.meterProvider
        .getMeter('messaging-server')
        .createCounter('xmppMessageSent')
        .add(1);
      await telemetry.shutdown();
      expect(telemetry.otlpReader).toBeUndefined();
      expect(receiver.requests).toHaveLength(0);
    });
  });
});
