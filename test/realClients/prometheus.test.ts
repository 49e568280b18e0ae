import { ValueType } from '@opentelemetry/api';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { agreementOf } from '../../src/migrate/legacyKeyQuery';
import { startLegacyMetricsServer, type LegacyMetricsServer } from '../../src';
import {
  createMeterProviderWithLegacyApi,
  type MeterProviderWithLegacyApi,
} from '../../src/provider/createMeterProviderWithLegacyApi';
import {
  bucketIndex,
  describeWithClients,
  freePort,
  INSTALL_HINT,
  requireCommand,
  start,
  stop,
  temporaryDirectory,
  waitUntil,
  type Tracked,
} from './support';
import { query as promQuery, type VectorSample } from '../support/promql';
import { startLiveDemo, type LiveDemo } from '../migrate/liveDemo';

/**
 * A real Prometheus server scrapes the official exporter that the setup feeds beside the legacy
 * reader; its query API must give the numbers the legacy API serves.
 */

const EXAMPLE = join(__dirname, '..', '..', 'examples', 'prometheus.yml');
const MIGRATION = join(__dirname, '..', '..', 'docs', 'MIGRATION.md');
const PROMQL_BLOCK = /```promql\n([\s\S]*?)```/g;

/** A PromQL expression of the migration guide and the legacy value it says it gives. */
interface DocumentedQuery {
  /** The legacy API path, under the API's base: `/metrics/host_type/localhost`. */
  readonly path: string;
  /** The metric and key, or `host_types` for the listing. */
  readonly metric: string;
  readonly key: string | undefined;
  readonly expression: string;
}

const ANNOTATION = /^# legacy (\S+) (\S+)(?: (\S+))?$/;

/**
 * Every expression of the migration guide's `promql` code blocks, each after the
 * `# legacy PATH METRIC KEY` comment that names the legacy value it gives.
 */
function documentedQueries(): DocumentedQuery[] {
  const text = readFileSync(MIGRATION, 'utf8');
  const queries: DocumentedQuery[] = [];
  for (const block of text.matchAll(PROMQL_BLOCK)) {
    let annotation: RegExpExecArray | null = null;
    for (const line of block[1]!.split('\n')) {
      if (line.trim() === '') continue;
      if (line.startsWith('#')) {
        annotation = ANNOTATION.exec(line);
        if (annotation === null)
          throw new Error(
            `docs/MIGRATION.md: ${line}: expected # legacy PATH METRIC KEY`
          );
        continue;
      }
      if (annotation === null)
        throw new Error(
          `docs/MIGRATION.md: ${line}: no # legacy comment names the value it gives`
        );
      queries.push({
        path: annotation[1]!,
        metric: annotation[2]!,
        key: annotation[3],
        expression: line,
      });
      annotation = null;
    }
  }
  return queries;
}

interface ScrapeConfig {
  job_name: string;
  metrics_path?: string;
  static_configs: Array<{ targets: string[] }>;
}
interface PrometheusConfig {
  global: { scrape_interval: string; scrape_timeout: string };
  scrape_configs: ScrapeConfig[];
}

/** The shipped example with the test's target and a 1 s scrape. */
function testConfig(target: URL): { config: PrometheusConfig; job: string } {
  const config = parse(readFileSync(EXAMPLE, 'utf8')) as PrometheusConfig;
  expect(config.scrape_configs).toHaveLength(1);
  const scrape = config.scrape_configs[0]!;
  expect({
    path: scrape.metrics_path,
    targets: scrape.static_configs[0]!.targets,
  }).toEqual({
    path: '/metrics',
    targets: ['127.0.0.1:9464'],
  });
  config.global = { scrape_interval: '1s', scrape_timeout: '1s' };
  scrape.metrics_path = target.pathname;
  scrape.static_configs = [{ targets: [target.host] }];
  return { config, job: scrape.job_name };
}

const JOB = 'messaging-server';
type LegacyMap = Record<string, Record<string, number>>;

/** The real Prometheus and promtool, or a line saying they are not installed. */
const describeProm = describeWithClients('prometheus', 'promtool');

describeProm('Prometheus scraping the exporter beside the legacy API', () => {
  let telemetry: MeterProviderWithLegacyApi | undefined;
  let legacyServer: LegacyMetricsServer | undefined;
  let prometheus: Tracked | undefined;
  let queryUrl = '';
  let promtool = 'promtool';
  const dir = temporaryDirectory('prometheus-legacy-');
  const legacy: Record<string, LegacyMap> = {};

  /** An instant query; fails on any error the query API reports. */
  const query = (expression: string): Promise<VectorSample[]> =>
    promQuery(queryUrl, expression);

  /** The value of a query that must give exactly one series. */
  async function single(expression: string): Promise<number> {
    const result = await query(expression);
    if (result.length !== 1)
      throw new Error(
        `query ${expression} gave ${result.length} series, expected 1`
      );
    return Number(result[0]!.value[1]);
  }

  beforeAll(async () => {
    const prometheusPath = requireCommand(
      'prometheus',
      INSTALL_HINT.prometheus
    );
    promtool = requireCommand('promtool', INSTALL_HINT.prometheus);

    telemetry = await createMeterProviderWithLegacyApi({
      legacy: { hostTypes: ['localhost', 'test type'] },
      prometheus: { address: '127.0.0.1', port: 0 },
      otlp: { enabled: false },
    });
    legacyServer = await startLegacyMetricsServer(telemetry.legacyReader, {
      port: 0,
    });
    const meter = telemetry.meterProvider.getMeter('messaging-server');
    const messages = meter.createCounter('xmppMessageSent', {
      valueType: ValueType.INT,
    });
    const sessions = meter.createUpDownCounter('sessionCount', {
      valueType: ValueType.INT,
    });
    const authorize = meter.createHistogram('backends.auth.authorize', {
      unit: 'ms',
    });
    messages.add(7, { host_type: 'localhost' });
    messages.add(5, { host_type: 'test type' });
    messages.add(2);
    sessions.add(2, { host_type: 'localhost' });
    sessions.add(1, { host_type: 'test type' });
    meter.createGauge('clusterSize', { valueType: ValueType.INT }).record(3);
    for (const v of [5, 50, 120])
      authorize.record(v, { host_type: 'localhost' });
    await telemetry.forceFlush();
    for (const [key, path] of [
      ['localhost', 'host_type/localhost'],
      ['test type', 'host_type/test_type'],
      ['global', 'global'],
    ] as const) {
      const response = await fetch(`${legacyServer.url}/api/metrics/${path}`);
      legacy[key] = ((await response.json()) as { metrics: LegacyMap }).metrics;
    }
    const all = await fetch(
      `${legacyServer.url}/api/metrics/all/xmppMessageSent`
    );
    legacy.all = {
      xmppMessageSent: (
        (await all.json()) as { metric: Record<string, number> }
      ).metric,
    };

    const target = new URL(telemetry.prometheusUrl!);
    const webPort = await freePort();
    queryUrl = `http://127.0.0.1:${webPort}`;
    const { config, job } = testConfig(target);
    expect(job).toBe(JOB);
    const configFile = join(dir.path, 'prometheus.yml');
    writeFileSync(configFile, stringify(config));
    prometheus = start(prometheusPath, [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir.path, 'data')}`,
      `--web.listen-address=127.0.0.1:${webPort}`,
      '--log.level=warn',
    ]);
    // Targets are applied on a 5 s tick: the first scrape comes 5–6 s after start.
    await waitUntil(
      'a successful scrape (up == 1)',
      20_000,
      async () => {
        if (prometheus!.exited()) throw new Error('prometheus exited');
        const up = await query(`up{job="${JOB}"}`);
        return up.length === 1 && up[0]!.value[1] === '1' ? true : undefined;
      },
      () => `prometheus output:\n${prometheus!.output()}`
    );
  }, 40_000);

  afterAll(async () => {
    await stop(prometheus);
    await legacyServer?.close();
    await telemetry?.shutdown();
    dir.remove();
  });

  describe.each([
    ['localhost', 'localhost'],
    ['test type', 'test type'],
  ])('host type %s', (hostType, label) => {
    it('should give the counter total of the legacy count', async () => {
      const value = await single(
        `xmppMessageSent_total{job="${JOB}",host_type="${label}"}`
      );
      expect(value).toBe(legacy[hostType]!.xmppMessageSent!.count);
    });

    it('should give the up-down counter value of the legacy value', async () => {
      const value = await single(
        `sessionCount{job="${JOB}",host_type="${label}"}`
      );
      expect(value).toBe(legacy[hostType]!.sessionCount!.value);
    });
  });

  describe('global and summed metrics', () => {
    it('should give /all as the sum over host_type, global included', async () => {
      const total = legacy.all!.xmppMessageSent!.count;
      expect(
        await single(
          `sum without(host_type)(xmppMessageSent_total{job="${JOB}"})`
        )
      ).toBe(total);
      expect(await single(`sum(xmppMessageSent_total{job="${JOB}"})`)).toBe(
        total
      );
    });

    it('should give global metrics as the series without a host_type label', async () => {
      expect(
        await single(`xmppMessageSent_total{job="${JOB}",host_type=""}`)
      ).toBe(legacy.global!.xmppMessageSent!.count);
      expect(await single(`clusterSize{job="${JOB}"}`)).toBe(
        legacy.global!.clusterSize!.value
      );
    });

    it('should give the histogram count and sum of the legacy n and mean', async () => {
      const histogram = legacy.localhost!['backends.auth.authorize']!;
      const count = await single(
        `backends_auth_authorize_count{job="${JOB}",host_type="localhost"}`
      );
      const sum = await single(
        `backends_auth_authorize_sum{job="${JOB}",host_type="localhost"}`
      );
      expect(count).toBe(histogram.n);
      expect(sum).toBeCloseTo(histogram.n! * histogram.mean!, 9);
      const selector = `{job="${JOB}",host_type="localhost"}`;
      const mean = await single(
        `backends_auth_authorize_sum${selector} / backends_auth_authorize_count${selector}`
      );
      expect(mean).toBeCloseTo(histogram.mean!, 9);
    });
  });

  describe('histogram percentiles', () => {
    it('should estimate percentiles only to the explicit bucket that holds the legacy one', async () => {
      // 5, 50 and 120 ms: the median is 50. The default buckets put it in (25, 50], where
      // histogram_quantile interpolates; the legacy API's exponential buckets are far finer.
      const legacyMedian =
        legacy.localhost!['backends.auth.authorize']!.median!;
      const estimate = await single(
        'histogram_quantile(0.5, sum by (le) (backends_auth_authorize_bucket{host_type="localhost"}))'
      );
      expect(legacyMedian).toBeCloseTo(50, 0);
      expect(estimate).toBeGreaterThan(25);
      expect(estimate).toBeLessThanOrEqual(50);
    });
  });

  describe('promtool check config', () => {
    it('should accept examples/prometheus.yml', () => {
      const check = spawnSync(promtool, ['check', 'config', EXAMPLE], {
        encoding: 'utf8',
        timeout: 10_000,
      });
      expect({
        status: check.status,
        output: `${check.stdout}${check.stderr}`,
      }).toEqual({
        status: 0,
        output: expect.stringContaining('SUCCESS') as unknown,
      });
    });
  });

  describe('promtool check metrics', () => {
    it('should parse the exposition (exit 0, or 3 for lint findings only)', async () => {
      const response = await fetch(telemetry!.prometheusUrl!, {
        headers: { accept: 'text/plain;version=0.0.4' },
      });
      const exposition = await response.text();
      const check = spawnSync(promtool, ['check', 'metrics'], {
        input: exposition,
        encoding: 'utf8',
        timeout: 10_000,
      });
      // Exit 1 is a parse error; 3 means lint findings only: camelCase names, as the exporter keeps
      // them, always give some, and 2.42 cannot turn linting off.
      const output = `${check.stdout}${check.stderr}`;
      expect({
        parsed: check.status === 0 || check.status === 3,
        output,
      }).toEqual({ parsed: true, output });
      expect(output).not.toMatch(/error/i);
    });
  });
});

describeProm(
  'docs/MIGRATION.md against a real Prometheus scraping the demo',
  () => {
    let demo: LiveDemo | undefined;
    let prometheus: Tracked | undefined;
    let queryUrl = '';
    const dir = temporaryDirectory('prometheus-guide-');

    const query = (expression: string): Promise<VectorSample[]> =>
      promQuery(queryUrl, expression);

    beforeAll(async () => {
      const prometheusPath = requireCommand(
        'prometheus',
        INSTALL_HINT.prometheus
      );
      // The demo as `npm start` runs it, on free ports; its traffic records everything for a while.
      demo = await startLiveDemo();
      const webPort = await freePort();
      queryUrl = `http://127.0.0.1:${webPort}`;
      const { config } = testConfig(new URL(demo.prometheus));
      const configFile = join(dir.path, 'prometheus.yml');
      writeFileSync(configFile, stringify(config));
      prometheus = start(prometheusPath, [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${join(dir.path, 'data')}`,
        `--web.listen-address=127.0.0.1:${webPort}`,
        '--log.level=warn',
      ]);
      await waitUntil(
        'a successful scrape (up == 1)',
        20_000,
        async () => {
          if (prometheus!.exited()) throw new Error('prometheus exited');
          const up = await query('up');
          return up.length === 1 && up[0]!.value[1] === '1' ? true : undefined;
        },
        () => `prometheus output:\n${prometheus!.output()}`
      );
      // Stop the traffic; from the next scrape on, Prometheus and the legacy API hold the same data.
      await demo.pause();
      const paused = Date.now() / 1000;
      await waitUntil(
        'a scrape after the traffic stopped',
        10_000,
        async () => {
          const up = await query('timestamp(up)');
          return Number(up[0]?.value[1]) > paused ? true : undefined;
        }
      );
    }, 40_000);

    afterAll(async () => {
      await stop(prometheus);
      await demo?.close();
      dir.remove();
    });

    it('should give the legacy value with every PromQL expression of the guide', async () => {
      const queries = documentedQueries();
      expect(queries.length).toBeGreaterThanOrEqual(15);
      const wrong: unknown[] = [];
      for (const { path, metric, key, expression } of queries) {
        const response = await fetch(`${demo!.legacy}${path}`);
        const body = (await response.json()) as {
          host_types?: string[];
          metrics?: LegacyMap;
          metric?: Record<string, number>;
        };
        const result = await query(expression);
        if (metric === 'host_types') {
          const found = result.map(s => s.metric.host_type).sort();
          if (
            JSON.stringify(found) !==
            JSON.stringify([...body.host_types!].sort())
          )
            wrong.push({
              expression,
              legacy: body.host_types,
              prometheus: found,
            });
          continue;
        }
        const legacy = (body.metrics?.[metric] ?? body.metric)?.[key!];
        const prometheusValue =
          result.length === 1 ? Number(result[0]!.value[1]) : undefined;
        let agree: boolean;
        if (legacy === undefined || prometheusValue === undefined)
          agree = false;
        else if (key === 'mean')
          // An integer histogram's legacy mean is truncated.
          agree = prometheusValue >= legacy && prometheusValue < legacy + 1;
        else if (agreementOf(key!) === 'bucket') {
          // The legacy estimate (within 4.4 %) and histogram_quantile's interpolation lie in the
          // same explicit bucket or the next one.
          const at = bucketIndex(prometheusValue);
          agree =
            at >= bucketIndex(legacy * (1 - 0.044)) - 1 &&
            at <= bucketIndex(legacy * (1 + 0.044)) + 1;
        }
        // count and value are exact; one and n too here: the traffic has stopped and the demo is
        // younger than the 60 s window, so the window holds every value (the tolerance the guide
        // states, what a scrape interval and a slot add at each end of the window, is zero).
        else agree = prometheusValue === legacy;
        if (!agree)
          wrong.push({
            expression,
            path,
            metric,
            key,
            legacy,
            prometheus: result.map(s => s.value[1]),
          });
      }
      expect(wrong).toEqual([]);
    });
  }
);
