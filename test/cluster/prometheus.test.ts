/**
 * The primary's Prometheus endpoint over real node:cluster workers: the workers'
 * `createClusterPrometheusReader`s send their cumulative changes, and the primary serves them
 * through the official exporter's serializer, combined as one process would show them.
 */
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { pollUntil, startCluster, type RunningCluster } from './clusterHarness';

const { record, BURST } = require('./fixtures/recordings') as {
  record: (provider: MeterProvider, index: number) => void;
  BURST: number;
};

/** The sample lines of an exposition: `name{labels}` → value. */
function samples(exposition: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of exposition.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    found.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return found;
}

async function scrape(url: string): Promise<Map<string, number>> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain');
  return samples(await response.text());
}

/** Scrapes until `test` passes, or fails after `timeoutMs` with the last exposition. */
async function scrapeUntil(
  url: string,
  test: (found: Map<string, number>) => boolean,
  timeoutMs = 20_000
): Promise<Map<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await scrape(url);
    if (test(found)) return found;
    if (Date.now() > deadline)
      throw new Error(
        `the exposition never passed; last: ${JSON.stringify([...found])}`
      );
    await new Promise(done => setTimeout(done, 100));
  }
}

/**
 * What the official exporter shows in one process that made all three workers' recordings:
 * the additive instruments only (one process keeps one last value per gauge series, where the
 * cluster combines the workers' by rule).
 */
async function oneProcess(): Promise<Map<string, number>> {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ readers: [exporter] });
  try {
    for (let index = 0; index < 3; index++) record(provider, index);
    const { resourceMetrics } = await exporter.collect();
    const found = samples(
      new PrometheusSerializer().serialize(resourceMetrics)
    );
    const additive =
      /^(sent_total|sessions|latency_\w+|uptime_total|conns_total)\{/;
    return new Map([...found].filter(([key]) => additive.test(key)));
  } finally {
    await provider.shutdown();
  }
}

const A = 'host_type="a",otel_scope_name="app"';
const B = 'host_type="b",otel_scope_name="app"';

describe('createClusterPrimaryWithLegacyApi prometheus', () => {
  describe('with 3 workers recording into every kind', () => {
    let running: RunningCluster;
    let url: string;

    beforeAll(async () => {
      running = await startCluster({
        SETUP: 'config',
        WORKERS: '3',
        ROLE: 'record',
      });
      url = running.urls.prometheus!;
      await running.waitFor(e => e.event === 'recorded', 3);
    }, 30_000);

    afterAll(() => running?.stop(), 10_000);

    it('should serve the sums one process would show, through the official serializer', async () => {
      const expected = await oneProcess();
      expect(expected.get(`sent_total{${A}}`)).toBe(6);
      expect(expected.get(`latency_count{${A}}`)).toBe(9);
      const found = await scrapeUntil(
        url,
        f =>
          f.get(`latency_count{${A}}`) === 9 &&
          f.get('uptime_total{otel_scope_name="app"}') === 3
      );
      for (const [key, value] of expected)
        expect([key, found.get(key)]).toEqual([key, value]);
      // Σ (10k + 100k + 1,000,000 + k) for k = 1, 2, 3
      expect(found.get(`latency_sum{${A}}`)).toBe(3_000_666);
      expect(found.get(`latency_bucket{${A},le="100"}`)).toBe(4);
      expect(found.get(`latency_bucket{${A},le="+Inf"}`)).toBe(9);
      expect(
        found.get('sent_total{host_type="a",otel_scope_name="billing"}')
      ).toBe(600);
    });

    it("should combine gauges by the legacy API's rules, and sum observable counters", async () => {
      const found = await scrapeUntil(url, f => f.get(`pool{${B}}`) === 300);
      // gauges: { load: 'max', queue: 'average' }; pool (an observable up-down counter) summed.
      expect(found.get(`load{${A}}`)).toBe(3.5);
      expect(found.get(`queue{${B}}`)).toBe(2);
      expect(
        found.get('received_total{host_type="c",otel_scope_name="app"}')
      ).toBe(42);
    });
  });

  describe('with workers set up by createMeterProviderWithLegacyApi({ cluster: true })', () => {
    it('should serve their instruments in the legacy API and the exposition', async () => {
      const running = await startCluster({
        SETUP: 'config',
        WORKERS: '2',
        ROLE: 'provider',
      });
      try {
        await running.waitFor(e => e.event === 'recorded', 2);
        const found = await scrapeUntil(
          running.urls.prometheus!,
          f => f.get(`sent_total{${A}}`) === 3
        );
        expect(found.get(`latency_count{${A}}`)).toBe(6);
        await pollUntil(
          running.urls.hostType,
          '/host_type/a/sent',
          json => json.metric.count === 303
        );
      } finally {
        await running.stop();
      }
    }, 30_000);
  });

  describe('when a worker is killed and replaced', () => {
    it('should never let a counter go down, and end with every recording counted', async () => {
      const running = await startCluster({
        SETUP: 'config',
        WORKERS: '3',
        ROLE: 'burst',
      });
      const url = running.urls.prometheus!;
      const key = `loop_total{${A}}`;
      const seen: number[] = [];
      let polling = true;
      const poller = (async () => {
        while (polling) {
          const value = (await scrape(url)).get(key);
          if (value !== undefined) seen.push(value);
          await new Promise(done => setTimeout(done, 200));
        }
      })();
      try {
        const [first] = await running.waitFor(e => e.event === 'recorded');
        running.send({ cmd: 'kill', id: first!['id'] });
        await running.waitFor(
          e => e.event === 'exit' && e['signal'] === 'SIGKILL'
        );
        running.send({ cmd: 'fork', role: 'burst' });
        await running.waitFor(e => e.event === 'recorded', 4);
        await scrapeUntil(url, f => f.get(key) === 4 * BURST);
        // A few more scrapes after the end, to see that nothing is taken back.
        const last = seen.length;
        await scrapeUntil(url, () => seen.length >= last + 3);
      } finally {
        polling = false;
        await poller;
        await running.stop();
      }
      expect(seen.length).toBeGreaterThan(5);
      for (let i = 1; i < seen.length; i++)
        expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]!);
      expect(seen[seen.length - 1]).toBe(4 * BURST);
    }, 45_000);
  });

  describe('when a worker shuts its provider down on SIGTERM', () => {
    it('should carry its totals and drop its gauges', async () => {
      const running = await startCluster({
        SETUP: 'config',
        WORKERS: '1',
        ROLE: 'late',
      });
      try {
        const url = running.urls.prometheus!;
        const [recorded] = await running.waitFor(e => e.event === 'recorded');
        running.send({ cmd: 'kill', id: recorded!['id'], signal: 'SIGTERM' });
        await running.waitFor(e => e.event === 'exit');
        // Its last export went out on shutdown, after its only interval had not yet come.
        const found = await scrapeUntil(
          url,
          f =>
            f.get(`sent_total{${A}}`) === 1 && f.get(`load{${A}}`) === undefined
        );
        expect(found.get(`latency_count{${A}}`)).toBe(3);
        expect(found.get(`sessions{${A}}`)).toBe(3);
        expect(found.get(`pool{${B}}`)).toBeUndefined();
      } finally {
        await running.stop();
      }
    }, 30_000);
  });
});
