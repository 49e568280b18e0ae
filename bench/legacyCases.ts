import type { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { FastifyInstance } from 'fastify';
import { legacyMetricsApi, type LegacyMetricsReader } from '../src';

/**
 * The legacy API as the benchmarks serve it: plain at `/api`, with deprecation headers and usage
 * telemetry at `/deprecated`, and optionally with each of them alone, all from one reader.
 */

/** Where the plain API is served. */
export const PLAIN_PREFIX = '/api';
/** Where the same API is served with deprecation headers and usage telemetry on. */
export const DEPRECATED_PREFIX = '/deprecated';
/** Where the API is served with deprecation headers alone and with usage telemetry alone. */
export const VARIANTS = Object.freeze([
  { prefix: '/headers-only', name: 'deprecation headers only' },
  { prefix: '/usage-only', name: 'usage telemetry only' },
] as const);
/** Every header a deprecation sends; no in-band metric, so that bodies stay the same size. */
const DEPRECATION = {
  since: '2026-01-01',
  sunset: '2099-12-31',
  successor: 'http://127.0.0.1:9464/metrics',
  documentation: 'https://example.com/legacy-api-end',
  brownouts: [{ start: '2099-06-01T10:00:00Z', duration: 'PT1H' }],
};

/** The plain API's endpoints the benchmarks load, one of each kind, at `hostType` and `metric`. */
export function legacyEndpoints(hostType: string, metric: string): string[] {
  return [
    `${PLAIN_PREFIX}/metrics`,
    `${PLAIN_PREFIX}/metrics/all`,
    `${PLAIN_PREFIX}/metrics/host_type/${hostType}`,
    `${PLAIN_PREFIX}/metrics/host_type/${hostType}/${metric}`,
    `${PLAIN_PREFIX}/metrics/global`,
  ];
}

/** Registers the API at {@link PLAIN_PREFIX} and {@link DEPRECATED_PREFIX}, and the {@link VARIANTS} when asked. */
export async function registerLegacyApis(
  app: FastifyInstance,
  reader: LegacyMetricsReader,
  meterProvider: MeterProvider,
  variants: boolean
): Promise<void> {
  await app.register(legacyMetricsApi, { reader, prefix: PLAIN_PREFIX });
  await app.register(legacyMetricsApi, {
    reader,
    prefix: DEPRECATED_PREFIX,
    deprecation: DEPRECATION,
    meterProvider,
  });
  if (!variants) return;
  const [headersOnly, usageOnly] = VARIANTS;
  await app.register(legacyMetricsApi, {
    reader,
    prefix: headersOnly.prefix,
    deprecation: DEPRECATION,
    usage: false,
  });
  await app.register(legacyMetricsApi, {
    reader,
    prefix: usageOnly.prefix,
    meterProvider,
  });
}

/** The three headers the deprecation sends, copied from one of its responses. */
export async function deprecationHeaders(
  app: FastifyInstance
): Promise<Array<[string, string]>> {
  const response = await app.inject({
    url: `${DEPRECATED_PREFIX}/metrics`,
    headers: { accept: 'application/json' },
  });
  return ['deprecation', 'sunset', 'link'].map(name => {
    const value = response.headers[name];
    if (typeof value !== 'string')
      throw new Error(`${DEPRECATED_PREFIX}/metrics sent no ${name} header`);
    return [name, value];
  });
}
