import { ValueType } from '@opentelemetry/api';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLegacyMetricsServer, type LegacyMetricsServer } from '../../src';
import {
  createMeterProviderWithLegacyApi,
  type MeterProviderWithLegacyApi,
} from '../../src/createMeterProviderWithLegacyApi';
import {
  INSTALL_HINT,
  requireCommand,
  requireLinkedLibraries,
  start,
  stop,
  temporaryDirectory,
  waitUntil,
  type Tracked,
} from './support';

/**
 * collectd's curl_json plugin polls the legacy API exactly as a legacy deployment does (the keys
 * and the `absolute` type of the original documentation), and its csv writer with `StoreRates
 * false` stores the raw numbers, which must equal what the API serves.
 */

const HOSTNAME = 'legacy-poller';
const INSTANCE = 'messaging';
const CURL_JSON = '/usr/lib/collectd/curl_json.so';
/** curl_json keys of a legacy deployment: one per line of its `<URL>` block. */
const KEYS = ['metrics/sessionCount/value', 'metrics/*/count', 'metrics/*/one'];
/** The csv writer's file name: `absolute-<key path joined with '-'>-YYYY-MM-DD`. */
const CSV_FILE = /^absolute-(.+)-\d{4}-\d{2}-\d{2}$/;

function collectdConfig(dir: string, url: string): string {
  const keys = KEYS.map((key) => `    <Key "${key}">\n      Type "absolute"\n    </Key>`).join('\n');
  return `# A legacy deployment's poller, with the test's timings.
Hostname "${HOSTNAME}"
FQDNLookup false
BaseDir "${dir}"
TypesDB "/usr/share/collectd/types.db"
Interval 1
MaxReadInterval 1

LoadPlugin logfile
<Plugin logfile>
  LogLevel "info"
  File "${join(dir, 'collectd.log')}"
  Timestamp true
</Plugin>

LoadPlugin curl_json
LoadPlugin csv

<Plugin curl_json>
  <URL "${url}">
    Instance "${INSTANCE}"
${keys}
  </URL>
</Plugin>

<Plugin csv>
  DataDir "${join(dir, 'csv')}"
  StoreRates false
</Plugin>
`;
}

/** Every value collectd wrote for each key path, e.g. `metrics-xmppMessageSent-count` → [7, 7]. */
function writtenValues(dir: string): Map<string, number[]> {
  const values = new Map<string, number[]>();
  const out = join(dir, 'csv', HOSTNAME, `curl_json-${INSTANCE}`);
  if (!existsSync(out)) return values;
  // Sorted, so that after midnight the later day's file wins.
  for (const file of readdirSync(out).sort()) {
    const match = CSV_FILE.exec(file);
    if (match === null) continue;
    // Header `epoch,value`, then one `<epoch>,<value>` line per read.
    const lines = readFileSync(join(out, file), 'utf8').trim().split('\n').slice(1);
    const list = values.get(match[1]!) ?? [];
    for (const line of lines) list.push(Number(line.split(',')[1]));
    values.set(match[1]!, list);
  }
  return values;
}

type LegacyMap = Record<string, Record<string, number>>;

describe('collectd curl_json polling the legacy API', () => {
  let telemetry: MeterProviderWithLegacyApi | undefined;
  let server: LegacyMetricsServer | undefined;
  let collectd: Tracked | undefined;
  const dir = temporaryDirectory('collectd-legacy-');

  afterAll(async () => {
    await stop(collectd);
    await server?.close();
    await telemetry?.shutdown();
    dir.remove();
  });

  it('should write the values the API serves', async () => {
    requireCommand('collectd', INSTALL_HINT.collectd);
    requireLinkedLibraries(CURL_JSON, INSTALL_HINT.collectd);

    telemetry = await createMeterProviderWithLegacyApi({
      legacy: { hostTypes: ['localhost'] },
      prometheus: false,
      otlp: { enabled: false },
    });
    server = await startLegacyMetricsServer(telemetry.legacyReader, { port: 0 });
    const meter = telemetry.meterProvider.getMeter('messaging-server');
    const localhost = { host_type: 'localhost' };
    meter.createCounter('xmppMessageSent', { valueType: ValueType.INT }).add(7, localhost);
    meter.createCounter('modRosterGets', { valueType: ValueType.INT }).add(3, localhost);
    meter.createCounter('xmppErrorTotal', { valueType: ValueType.INT }).add(2, { ...localhost, type: 'iq' });
    meter.createUpDownCounter('sessionCount', { valueType: ValueType.INT }).add(2, localhost);
    // No `count` or `one` leaf: curl_json skips histograms silently.
    meter.createHistogram('backends.auth.authorize').record(5, localhost);
    await telemetry.forceFlush();

    const url = `${server.url}/api/metrics/host_type/localhost`;
    const api = ((await (await fetch(url)).json()) as { metrics: LegacyMap }).metrics;
    const expected = new Map<string, number>([['metrics-sessionCount-value', api.sessionCount!.value!]]);
    for (const [name, value] of Object.entries(api)) {
      if ('count' in value) {
        expected.set(`metrics-${name}-count`, value.count!);
        expected.set(`metrics-${name}-one`, value.one!);
      }
    }
    expect(expected.get('metrics-xmppMessageSent-count')).toBe(7);
    expect(expected.get('metrics-xmppErrorTotal.iq-one')).toBe(2);

    const config = join(dir.path, 'collectd.conf');
    writeFileSync(config, collectdConfig(dir.path, url));
    collectd = start('collectd', ['-f', '-C', config]);
    const explain = (): string => {
      const log = join(dir.path, 'collectd.log');
      return `collectd output:\n${collectd!.output()}\ncollectd.log:\n${existsSync(log) ? readFileSync(log, 'utf8') : '(none)'}`;
    };
    // Two reads of every key: the poller keeps polling at its interval, and gets the same values.
    const written = await waitUntil(
      'collectd to read every key twice',
      15_000,
      () => {
        if (collectd!.exited()) throw new Error('collectd exited');
        const values = writtenValues(dir.path);
        return [...expected.keys()].every((key) => (values.get(key)?.length ?? 0) >= 2) ? values : undefined;
      },
      explain,
    );
    await stop(collectd);

    expect([...written.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, value] of expected) {
      expect({ key, values: written.get(key)!.slice(0, 2) }).toEqual({ key, values: [value, value] });
    }
  });
});
