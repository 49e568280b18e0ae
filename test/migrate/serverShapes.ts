import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Meter } from '@opentelemetry/api';
import {
  startLegacyMetricsServer,
  type LegacyMetricsServer,
} from '../../src/http/startLegacyMetricsServer';
import {
  createMeterProviderWithLegacyApi,
  type MeterProviderWithLegacyApi,
} from '../../src/provider/createMeterProviderWithLegacyApi';

/** The package's own server, on free loopback ports, with what `record` records. */
export interface ShapedServer {
  readonly telemetry: MeterProviderWithLegacyApi;
  readonly server: LegacyMetricsServer;
  /** The legacy API's base: `http://127.0.0.1:<port>/api`. */
  readonly legacy: string;
  readonly prometheus: string;
  close(): Promise<void>;
}

/** Starts a server with `hostTypes`, records with `record`, and makes it visible to the legacy API. */
export async function startShapedServer(
  hostTypes: readonly string[],
  record: (meter: Meter) => void
): Promise<ShapedServer> {
  const telemetry = await createMeterProviderWithLegacyApi({
    legacy: { hostTypes: [...hostTypes] },
    prometheus: { address: '127.0.0.1', port: 0 },
    otlp: { enabled: false },
  });
  const server = await startLegacyMetricsServer(telemetry.legacyReader, {
    port: 0,
  });
  record(telemetry.meterProvider.getMeter('shapes'));
  await telemetry.forceFlush();
  return {
    telemetry,
    server,
    legacy: `${server.url}/api`,
    prometheus: telemetry.prometheusUrl!,
    async close() {
      await server.close();
      await telemetry.shutdown();
    },
  };
}

/** A collectd file polling `paths` (under the legacy base) for every key of every metric. */
export function writePoller(
  dir: string,
  legacy: string,
  paths: readonly string[],
  keys: readonly string[]
): string {
  const file = join(dir, 'collectd.conf');
  writeFileSync(
    file,
    [
      'Interval 1',
      'LoadPlugin curl_json',
      '<Plugin curl_json>',
      ...paths.flatMap(path => [
        `  <URL "${legacy}/metrics/${path}">`,
        '    Instance "x"',
        ...keys.flatMap(key => [
          `    <Key "metrics/*/${key}">`,
          '      Type "gauge"',
          '    </Key>',
        ]),
        '  </URL>',
      ]),
      '</Plugin>',
      '',
    ].join('\n')
  );
  return file;
}
