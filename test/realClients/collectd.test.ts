import { ValueType } from '@opentelemetry/api';
import { join } from 'node:path';
import { startLegacyMetricsServer, type LegacyMetricsServer } from '../../src';
import {
  createMeterProviderWithLegacyApi,
  type MeterProviderWithLegacyApi,
} from '../../src/provider/createMeterProviderWithLegacyApi';
import {
  describeWithClients,
  INSTALL_HINT,
  requireCommand,
  stop,
  temporaryDirectory,
  waitUntil,
  type Tracked,
} from './support';
import {
  exampleConfig,
  HOSTNAME,
  INSTANCE,
  LEGACY_KEYS,
  startCollectd,
  writtenValues,
} from './collectdSupport';

/**
 * collectd's curl_json plugin polls the legacy API exactly as a legacy deployment does (the keys
 * and the `absolute` type of the original documentation), and its csv writer with `StoreRates
 * false` stores the raw numbers, which must equal what the API serves. The shipped example, with
 * the types this package recommends, must do the same.
 */

/** A legacy deployment's poller, with the test's timings. */
function legacyConfig(dir: string, url: string): string {
  const keys = LEGACY_KEYS.map(
    key => `    <Key "${key}">\n      Type "absolute"\n    </Key>`
  ).join('\n');
  return `Hostname "${HOSTNAME}"
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

type LegacyMap = Record<string, Record<string, number>>;

/** The real collectd with curl_json, or a line saying it is not installed. */
const describeCollectd = describeWithClients('collectd');

describeCollectd('collectd curl_json polling the legacy API', () => {
  let telemetry: MeterProviderWithLegacyApi | undefined;
  let server: LegacyMetricsServer | undefined;
  let collectd: Tracked | undefined;
  const dir = temporaryDirectory('collectd-legacy-');
  let url = '';
  let api: LegacyMap = {};
  let collectdPath = 'collectd';

  beforeAll(async () => {
    collectdPath = requireCommand('collectd', INSTALL_HINT.collectd);

    telemetry = await createMeterProviderWithLegacyApi({
      legacy: { hostTypes: ['localhost'] },
      prometheus: false,
      otlp: { enabled: false },
    });
    server = await startLegacyMetricsServer(telemetry.legacyReader, {
      port: 0,
    });
    const meter = telemetry.meterProvider.getMeter('messaging-server');
    const localhost = { host_type: 'localhost' };
    meter
      .createCounter('xmppMessageSent', { valueType: ValueType.INT })
      .add(7, localhost);
    meter
      .createCounter('modRosterGets', { valueType: ValueType.INT })
      .add(3, localhost);
    meter
      .createCounter('xmppErrorTotal', { valueType: ValueType.INT })
      .add(2, { ...localhost, type: 'iq' });
    meter
      .createUpDownCounter('sessionCount', { valueType: ValueType.INT })
      .add(2, localhost);
    // No `count` or `one` leaf: curl_json skips histograms silently.
    meter.createHistogram('backends.auth.authorize').record(5, localhost);
    await telemetry.forceFlush();

    url = `${server.url}/api/metrics/host_type/localhost`;
    api = ((await (await fetch(url)).json()) as { metrics: LegacyMap }).metrics;
    expect(api.xmppMessageSent).toEqual({ count: 7, one: 7 });
  });

  afterAll(async () => {
    await stop(collectd);
    await server?.close();
    await telemetry?.shutdown();
    dir.remove();
  });

  /** What collectd must write, by `<type>:<key path>`, given the types of count, one and value. */
  function expectedValues(types: {
    count: string;
    one: string;
    value: string;
  }): Map<string, number> {
    const expected = new Map<string, number>([
      [`${types.value}:metrics-sessionCount-value`, api.sessionCount!.value!],
    ]);
    for (const [name, value] of Object.entries(api)) {
      if (!('count' in value)) continue;
      expected.set(`${types.count}:metrics-${name}-count`, value.count!);
      expected.set(`${types.one}:metrics-${name}-one`, value.one!);
    }
    return expected;
  }

  /** Runs collectd on `config` until it has read every expected key twice; returns what it wrote. */
  async function runCollectd(
    name: string,
    config: (runDir: string) => string,
    expected: Map<string, number>
  ): Promise<Map<string, number[]>> {
    const runDir = join(dir.path, name);
    const started = await startCollectd(collectdPath, runDir, config(runDir));
    collectd = started.collectd;
    const explain = started.explain;
    // Two reads of every key: the poller keeps polling at its interval, and gets the same values.
    const written = await waitUntil(
      `collectd (${name}) to read every key twice`,
      15_000,
      () => {
        if (collectd!.exited()) throw new Error('collectd exited');
        const values = writtenValues(runDir);
        return [...expected.keys()].every(
          key => (values.get(key)?.length ?? 0) >= 2
        )
          ? values
          : undefined;
      },
      explain
    );
    await stop(collectd);
    collectd = undefined;
    return written;
  }

  function expectWritten(
    written: Map<string, number[]>,
    expected: Map<string, number>
  ): void {
    expect([...written.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, value] of expected) {
      expect({ key, values: written.get(key)!.slice(0, 2) }).toEqual({
        key,
        values: [value, value],
      });
    }
  }

  it('should write the values the API serves with a legacy deployment configuration', async () => {
    const expected = expectedValues({
      count: 'absolute',
      one: 'absolute',
      value: 'absolute',
    });
    expect(expected.get('absolute:metrics-xmppErrorTotal.iq-one')).toBe(2);
    const written = await runCollectd(
      'legacy',
      runDir => legacyConfig(runDir, url),
      expected
    );
    expectWritten(written, expected);
  });

  it('should write the same raw values with examples/collectd.conf (derive for count, gauge for one and value)', async () => {
    const expected = expectedValues({
      count: 'derive',
      one: 'gauge',
      value: 'gauge',
    });
    const written = await runCollectd(
      'example',
      runDir => exampleConfig(runDir, url),
      expected
    );
    expectWritten(written, expected);
  });
});
