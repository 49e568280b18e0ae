import {
  createMeterProviderWithLegacyApi,
  startLegacyMetricsServer,
  type LegacyMetricsServer,
  type MeterProviderWithLegacyApi,
} from '../../src';
import { IN_BAND_METRIC_NAME } from '../../src/http/inBandSunsetMetric';

describe('createMeterProviderWithLegacyApi with a deprecated legacy API', () => {
  let telemetry: MeterProviderWithLegacyApi | undefined;
  let server: LegacyMetricsServer | undefined;

  afterEach(async () => {
    await server?.close();
    await telemetry?.shutdown();
    server = undefined;
    telemetry = undefined;
  });

  it('should name its Prometheus URL as the successor and send usage telemetry to Prometheus only', async () => {
    telemetry = await createMeterProviderWithLegacyApi({
      legacy: { hostTypes: ['localhost'] },
      prometheus: { port: 0 },
      otlp: { enabled: false },
    });
    const prometheusUrl = telemetry.prometheusUrl!;
    expect(telemetry.legacyApiOptions).toEqual({
      meterProvider: telemetry.meterProvider,
      defaultSuccessor: prometheusUrl,
    });
    server = await startLegacyMetricsServer(telemetry.legacyReader, {
      port: 0,
      deprecation: { since: '2026-01-01', sunset: '2099-01-01', inBand: true },
      ...telemetry.legacyApiOptions,
    });
    const api = `${server.url}/api/metrics`;
    const res = await fetch(api, {
      headers: { 'user-agent': 'collectd/5.12.0' },
    });
    expect(res.headers.get('link')).toBe(
      `<${prometheusUrl}>; rel="successor-version"`
    );
    await res.arrayBuffer();
    await telemetry.forceFlush();

    // The official exporter's exposition: the usage instruments are there, the in-band metric is not.
    const exposition = await (await fetch(prometheusUrl)).text();
    expect(exposition).toMatch(
      /^legacy_api_client_requests_total\{[^}]*user_agent_name="collectd"[^}]*http_route="\/api\/metrics"[^}]*\} 1$/m
    );
    expect(exposition).toMatch(
      /^http_server_request_duration_count\{(?=[^}]*http_route="\/api\/metrics")(?=[^}]*http_response_status_code="200")[^}]*\} 1$/m
    );
    expect(exposition).not.toContain(IN_BAND_METRIC_NAME);

    // The legacy API shows the in-band metric and none of the usage instruments.
    const listing = (await (await fetch(api)).json()) as {
      metrics: string[];
      global: string[];
    };
    expect(listing.global).toEqual([IN_BAND_METRIC_NAME]);
  });
});
