/**
 * Real clients against a cluster primary, in one cluster run across a worker's SIGKILL and
 * replacement: collectd's curl_json polls the legacy API every second, and Prometheus scrapes
 * the primary's exposition every second. Neither may see the braid of per-worker counters.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import {
  exampleConfig,
  startCollectd,
  writtenValues,
} from '../realClients/collectdSupport';
import {
  describeWithClients,
  freePort,
  INSTALL_HINT,
  requireCommand,
  start,
  stop,
  temporaryDirectory,
  waitUntil,
  type Tracked,
} from '../realClients/support';
import { get, startCluster, type RunningCluster } from './clusterHarness';

const { STEADY_ADDS } = require('./fixtures/recordings') as {
  STEADY_ADDS: number[];
};
/** Three workers, the first killed once done and replaced by a fourth. */
const TOTAL = STEADY_ADDS.reduce((a, b) => a + b, 0);
const SERIES = 'loop_total{host_type="a"}';

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

describeWithClients('collectd', 'prometheus')(
  'collectd and Prometheus polling a cluster primary across a worker restart',
  () => {
    const dir = temporaryDirectory('cluster-clients-');
    let running: RunningCluster | undefined;
    let collectd: Tracked | undefined;
    let prometheus: Tracked | undefined;
    let queryUrl = '';
    let explain = (): string => '';

    async function query(expression: string, time?: number): Promise<Sample[]> {
      const at = time === undefined ? '' : `&time=${time}`;
      const response = await fetch(
        `${queryUrl}/api/v1/query?query=${encodeURIComponent(expression)}${at}`
      );
      const body = (await response.json()) as { data: { result: Sample[] } };
      return body.data.result;
    }

    afterAll(async () => {
      await stop(collectd);
      await stop(prometheus);
      await running?.stop();
      dir.remove();
    }, 20_000);

    it('should never see a counter go down, and count every add once', async () => {
      const collectdPath = requireCommand('collectd', INSTALL_HINT.collectd);
      const prometheusPath = requireCommand(
        'prometheus',
        INSTALL_HINT.prometheus
      );
      running = await startCluster({
        SETUP: 'config',
        WORKERS: '3',
        ROLE: 'steady',
      });
      const legacy = `${running.urls.hostType}/api/metrics/host_type/a`;
      // Every worker has shown its counter at 0.
      await waitUntil('the counter at 0', 20_000, async () => {
        const { status, json } = await get(
          running!.urls.hostType,
          '/host_type/a/loop'
        );
        return status === 200 && json.metric.count === 0 ? true : undefined;
      });

      const runDir = join(dir.path, 'collectd');
      const started = await startCollectd(
        collectdPath,
        runDir,
        exampleConfig(runDir, legacy)
      );
      collectd = started.collectd;
      const target = new URL(running.urls.prometheus!);
      const webPort = await freePort();
      queryUrl = `http://127.0.0.1:${webPort}`;
      const configFile = join(dir.path, 'prometheus.yml');
      writeFileSync(
        configFile,
        stringify({
          global: { scrape_interval: '1s', scrape_timeout: '1s' },
          scrape_configs: [
            {
              job_name: 'cluster',
              static_configs: [{ targets: [target.host] }],
            },
          ],
        })
      );
      prometheus = start(prometheusPath, [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${join(dir.path, 'data')}`,
        `--web.listen-address=127.0.0.1:${webPort}`,
        '--log.level=warn',
      ]);
      explain = () =>
        `${started.explain()}\nprometheus output:\n${prometheus!.output()}`;
      // Both clients have read the counter at 0 before a worker adds to it.
      await waitUntil(
        'both clients reading 0',
        30_000,
        async () => {
          if (collectd!.exited() || prometheus!.exited())
            throw new Error('a client exited');
          const zero = await query(SERIES);
          const read = writtenValues(runDir).get('derive:metrics-loop-count');
          return zero.length === 1 &&
            zero[0]!.value[1] === '0' &&
            (read?.length ?? 0) > 0
            ? true
            : undefined;
        },
        explain
      );
      const from = Date.now() / 1000;
      running.send({ cmd: 'go' });
      const [first] = await running.waitFor(
        e => e.event === 'recorded',
        1,
        30_000
      );
      running.send({ cmd: 'kill', id: first!['id'] });
      await running.waitFor(
        e => e.event === 'exit' && e['signal'] === 'SIGKILL'
      );
      running.send({ cmd: 'fork', role: 'steady', go: true });
      await running.waitFor(e => e.event === 'recorded', 4, 40_000);
      // Both clients read the total, twice for collectd.
      await waitUntil(
        'both clients reading the total',
        20_000,
        async () => {
          const total = await query(SERIES);
          const counts =
            writtenValues(runDir).get('derive:metrics-loop-count') ?? [];
          return total[0]?.value[1] === String(TOTAL) &&
            counts.slice(-2).every(count => count === TOTAL) &&
            counts.length >= 2
            ? true
            : undefined;
        },
        explain
      );
      await stop(collectd);

      const written = writtenValues(runDir);
      const counts = written.get('derive:metrics-loop-count')!;
      const ones = written.get('gauge:metrics-loop-one')!;
      expect(counts.length).toBeGreaterThanOrEqual(10);
      for (let i = 1; i < counts.length; i++)
        expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1]!);
      // The window (60 s) holds the whole run: `one` is the sum over the workers, as `count` is.
      expect(ones).toEqual(counts);
      expect(counts[counts.length - 1]).toBe(TOTAL);

      // rate() at every second of the run, the restart included, is never negative.
      const to = Date.now() / 1000;
      const range = await fetch(
        `${queryUrl}/api/v1/query_range?query=${encodeURIComponent(`rate(${SERIES}[5s])`)}&start=${from}&end=${to}&step=1`
      );
      const rates = (
        (await range.json()) as {
          data: { result: { values: [number, string][] }[] };
        }
      ).data.result;
      expect(rates).toHaveLength(1);
      expect(rates[0]!.values.length).toBeGreaterThan(10);
      for (const [, rate] of rates[0]!.values)
        expect(Number(rate)).toBeGreaterThanOrEqual(0);
      expect(Number((await query(`resets(${SERIES}[10m])`))[0]!.value[1])).toBe(
        0
      );
      // increase() at the last sample, over a range from before the first (which was 0): no
      // extrapolation, so exactly the adds recorded.
      const last = Number((await query(`timestamp(${SERIES})`))[0]!.value[1]);
      const increase = await query(`increase(${SERIES}[10m])`, last);
      expect(Number(increase[0]!.value[1])).toBe(TOTAL);
    }, 120_000);
  }
);
