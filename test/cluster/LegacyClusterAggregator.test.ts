/**
 * The cluster aggregator over real node:cluster workers: a primary process (the fixture, run
 * with the project's Node) forks workers whose readers send to it over the cluster's IPC
 * channel, and serves both variants of the legacy API on real sockets.
 */
import { createRig, read } from '../helpers';
import {
  get,
  pollUntil,
  startCluster,
  withoutAges,
  type RunningCluster,
} from './clusterHarness';
import { waitUntil } from '../support/waitUntil';

const { BURST, SCALE } = require('./fixtures/recordings') as {
  BURST: number;
  SCALE: number;
};

/** What the three workers' latency recordings give when one process records them all. */
async function referenceLatency(): Promise<unknown> {
  const rig = createRig({ hostTypes: ['a', 'b', 'c'] });
  try {
    const latency = rig.provider.getMeter('app').createHistogram('latency');
    for (let k = 1; k <= 3; k++)
      for (const value of [10 * k, 100 * k, 1_000_000 + k])
        latency.record(value, { host_type: 'a' });
    await rig.flush();
    return read(rig.reader, '/metrics/host_type/a/latency').json.metric;
  } finally {
    await rig.close();
  }
}

const ZERO_SPIRAL = { count: 0, one: 0 };
const ZERO_VALUE = { value: 0 };
const ZERO_HISTOGRAM = {
  '50': 0,
  '75': 0,
  '90': 0,
  '95': 0,
  '99': 0,
  '999': 0,
  n: 0,
  mean: 0,
  min: 0,
  max: 0,
  median: 0,
};

describe('LegacyClusterAggregator', () => {
  describe('with 3 workers recording into every kind', () => {
    let running: RunningCluster;
    let latency: any;

    beforeAll(async () => {
      latency = await referenceLatency();
      running = await startCluster({ WORKERS: '3', ROLE: 'record' });
      await running.waitFor(e => e.event === 'recorded', 3);
      // Each worker flushed before it said so: the primary has it all after its next tick.
      await pollUntil(
        running.urls.hostType,
        '/host_type/a/sent',
        json => json.metric.count === 606
      );
    }, 30_000);

    afterAll(() => running?.stop(), 10_000);

    it('should merge the histogram windows exactly: n, min, max and mean', () => {
      // k = 1, 2, 3 each recorded 10k, 100k and 1,000,000 + k.
      expect(latency).toMatchObject({
        n: 9,
        min: 10,
        max: 1_000_003,
        mean: (60 + 600 + 3_000_006) / 9,
      });
    });

    it('should serve /host_type/X with the sums over the workers (gauges summed)', async () => {
      const a = await get(running.urls.hostType, '/host_type/a');
      expect(a.status).toBe(200);
      expect(withoutAges(a.json)).toEqual({
        metrics: {
          // 1 + 2 + 3 from meter "app", 100 + 200 + 300 from meter "billing".
          sent: { count: 606, one: 606 },
          // Σ (5k − 2)
          sessions: { value: 24 },
          // Σ (k + 0.5): each worker's gauge is a source of its own.
          load: { value: 7.5 },
          latency,
          conns: { count: 6, one: 6 },
          received: ZERO_SPIRAL,
          pool: ZERO_VALUE,
          queue: ZERO_VALUE,
        },
      });
      const b = await get(running.urls.hostType, '/host_type/b');
      expect(withoutAges(b.json)).toEqual({
        metrics: {
          sent: { count: 60, one: 60 },
          // Observable gauges and up-down counters: each worker's last observation, summed.
          queue: { value: 6 },
          pool: { value: 300 },
          sessions: ZERO_VALUE,
          load: ZERO_VALUE,
          latency: ZERO_HISTOGRAM,
          conns: ZERO_SPIRAL,
          received: ZERO_SPIRAL,
        },
      });
      const c = await get(running.urls.hostType, '/host_type/c/received');
      // Observable counters: cumulative 7k per worker, sent as deltas.
      expect(c.json).toEqual({ metric: { count: 42, one: 42 } });
    });

    it('should serve the listing, /global, /all and single metrics', async () => {
      const base = running.urls.hostType;
      expect((await get(base, '')).json).toEqual({
        host_types: ['a', 'b', 'c'],
        metrics: [
          'conns',
          'latency',
          'load',
          'pool',
          'queue',
          'received',
          'sent',
          'sessions',
        ],
        global: ['uptime'],
      });
      expect((await get(base, '/global')).json).toEqual({
        metrics: { uptime: { count: 3, one: 3 } },
      });
      expect((await get(base, '/global/uptime')).json).toEqual({
        metric: { count: 3, one: 3 },
      });
      expect((await get(base, '/all')).json).toEqual({
        metrics: {
          sent: { count: 666, one: 666 },
          sessions: { value: 24 },
          load: { value: 7.5 },
          queue: { value: 6 },
          pool: { value: 300 },
          received: { count: 42, one: 42 },
          conns: { count: 6, one: 6 },
          latency,
        },
      });
      expect((await get(base, '/all/sent')).json).toEqual({
        metric: { count: 666, one: 666 },
      });
      expect((await get(base, '/host_type/a/latency')).json).toEqual({
        metric: latency,
      });
      expect((await get(base, '/host_type/d')).status).toBe(404);
    });

    it('should serve the host variant from the same data', async () => {
      const base = running.urls.host;
      const listing = (await get(base, '')).json;
      expect(listing.hosts).toEqual(['h1', 'h2', 'a', 'b', 'c']);
      expect(listing.global).toEqual(['uptime']);
      const h1 = await get(base, '/host/h1/conns');
      expect(h1.json).toEqual({ metric: { count: 6, one: 6 } });
      const a = withoutAges((await get(base, '/host/a')).json) as any;
      expect(a.metrics.sent).toEqual({ count: 606, one: 606 });
      expect(a.metrics.load).toEqual({ value: 7.5 });
      expect(a.metrics.latency).toEqual(latency);
      expect(a.metrics.conns).toEqual(ZERO_SPIRAL);
    });
  });

  describe('when a worker is killed and replaced', () => {
    it('should never let count decrease, and end with every recording counted', async () => {
      const running = await startCluster({ WORKERS: '3', ROLE: 'burst' });
      const seen: { count: number; one: number }[] = [];
      let polling = true;
      const poller = (async () => {
        while (polling) {
          const { status, json } = await get(
            running.urls.hostType,
            '/host_type/a/loop'
          );
          if (status === 200) seen.push(json.metric);
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
        const total = 4 * BURST;
        await pollUntil(
          running.urls.hostType,
          '/host_type/a/loop',
          json => json.metric.count === total
        );
        // A few more polls after the end, to see that nothing is taken back.
        const polled = seen.length;
        await waitUntil('three more polls', 5_000, () =>
          seen.length >= polled + 3 ? true : undefined
        );
      } finally {
        polling = false;
        await poller;
        await running.stop();
      }
      expect(seen.length).toBeGreaterThan(5);
      for (let i = 1; i < seen.length; i++)
        expect(seen[i]!.count).toBeGreaterThanOrEqual(seen[i - 1]!.count);
      // The window (60 s) holds the whole test: `one` has no dip and no double count.
      for (const value of seen) expect(value.one).toBe(value.count);
      expect(seen[seen.length - 1]).toEqual({
        count: 4 * BURST,
        one: 4 * BURST,
      });
    }, 30_000);
  });

  describe('when a worker shuts its provider down on SIGTERM', () => {
    it('should count what it recorded after its last regular tick', async () => {
      const running = await startCluster({ WORKERS: '1', ROLE: 'late' });
      try {
        const [recorded] = await running.waitFor(e => e.event === 'recorded');
        running.send({ cmd: 'kill', id: recorded!['id'], signal: 'SIGTERM' });
        const [exit] = await running.waitFor(e => e.event === 'exit');
        expect(exit).toMatchObject({ code: 0, signal: null });
        await pollUntil(
          running.urls.hostType,
          '/host_type/a/sent',
          json => json.metric.count === 101
        );
        const a = withoutAges(
          (await get(running.urls.hostType, '/host_type/a')).json
        ) as any;
        expect(a.metrics.latency).toMatchObject({ n: 3, min: 10 });
        // Gone: its gauge no longer counts.
        expect(a.metrics.load).toEqual({ value: 0 });
      } finally {
        await running.stop();
      }
    }, 30_000);
  });

  describe('with 8 workers at 100 host types × 100 metrics each', () => {
    it('should serve every series summed over the workers', async () => {
      const running = await startCluster({ WORKERS: '8', ROLE: 'scale' });
      try {
        await running.waitFor(e => e.event === 'recorded', 8, 45_000);
        const base = running.urls.hostType;
        // Each worker added 1 to every counter for every host type.
        const all = await pollUntil(
          base,
          '/all',
          json =>
            Object.keys(json.metrics).length === SCALE &&
            Object.values(json.metrics).every(
              (value: any) => value.count === 8 * SCALE
            ),
          20_000
        );
        expect(all.metrics.m99).toEqual({ count: 800, one: 800 });
        const h42 = await get(base, '/host_type/h42');
        expect(Object.keys(h42.json.metrics)).toHaveLength(SCALE);
        for (const value of Object.values(h42.json.metrics))
          expect(value).toEqual({ count: 8, one: 8 });
        expect((await get(base, '/host_type/h0/m0')).json).toEqual({
          metric: { count: 8, one: 8 },
        });
      } finally {
        await running.stop();
      }
    }, 90_000);
  });

  describe('when a worker sends malformed messages', () => {
    it("should keep serving the others' data, with one warning", async () => {
      const running = await startCluster({
        WORKERS: '2',
        ROLE: 'record',
        MALFORMED: '1',
      });
      try {
        await running.waitFor(e => e.event === 'recorded', 3);
        await pollUntil(
          running.urls.hostType,
          '/host_type/a/sent',
          json => json.metric.count === 303
        );
        // Malformed messages go on arriving every 50 ms meanwhile.
        await new Promise(done => setTimeout(done, 1_000));
        const a = withoutAges(
          (await get(running.urls.hostType, '/host_type/a')).json
        ) as any;
        expect(a.metrics.sent).toEqual({ count: 303, one: 303 });
        expect(a.metrics.load).toEqual({ value: 4 });
        expect(a.metrics.latency).toMatchObject({
          n: 6,
          min: 10,
          max: 1_000_002,
        });
        const warnings = running.events.filter(e => e.event === 'warning');
        expect(warnings).toHaveLength(1);
        expect(warnings[0]!['code']).toBe('LEGACY_API_CLUSTER_MESSAGE_DROPPED');
        expect(warnings[0]!['message']).toMatch(
          /^LegacyClusterAggregator: dropped a message of cluster worker 3 \(pid \d+\): meter 0 metric 0 point 0 value: expected a number or null; the other workers' data is served as before/
        );
      } finally {
        await running.stop();
      }
    }, 30_000);
  });

  describe('when a live worker stops sending', () => {
    it('should drop its gauges after silentSlots slots, with a warning naming it, and keep its counts', async () => {
      const running = await startCluster({ WORKERS: '1', ROLE: 'silent' });
      try {
        await running.waitFor(e => e.event === 'recorded');
        const started = Date.now();
        // silentSlots (10) × slotMs (200 ms) after its last message.
        await pollUntil(
          running.urls.hostType,
          '/host_type/a/load',
          json => json.metric.value === 0
        );
        expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
        const a = withoutAges(
          (await get(running.urls.hostType, '/host_type/a')).json
        ) as any;
        expect(a.metrics.sent).toEqual({ count: 101, one: 101 });
        expect(a.metrics.sessions).toEqual({ value: 3 });
        const b = withoutAges(
          (await get(running.urls.hostType, '/host_type/b')).json
        ) as any;
        expect(b.metrics.queue).toEqual({ value: 0 });
        expect(b.metrics.pool).toEqual({ value: 0 });
        const warnings = running.events.filter(e => e.event === 'warning');
        expect(warnings).toHaveLength(1);
        expect(warnings[0]!['code']).toBe('LEGACY_API_CLUSTER_WORKER_SILENT');
        expect(warnings[0]!['message']).toMatch(
          /^LegacyClusterAggregator: cluster worker 1 \(pid \d+\) sent nothing for 10 slots \(2000 ms\); its gauges are no longer counted/
        );
      } finally {
        await running.stop();
      }
    }, 30_000);
  });

  describe('createClusterPrimaryWithLegacyApi', () => {
    it("should serve the workers' data on a configuration file's listener, with the gauges option's rules", async () => {
      const running = await startCluster({
        SETUP: 'config',
        WORKERS: '3',
        ROLE: 'record',
      });
      try {
        await running.waitFor(e => e.event === 'recorded', 3);
        const base = running.urls.hostType;
        await pollUntil(
          base,
          '/host_type/a/sent',
          json => json.metric.count === 606
        );
        expect((await get(base, '/all/sent')).json).toEqual({
          metric: { count: 666, one: 666 },
        });
        // gauges: { load: 'max', queue: 'average' }; pool stays summed.
        expect((await get(base, '/host_type/a/load')).json.metric.value).toBe(
          3.5
        );
        const b = withoutAges((await get(base, '/host_type/b')).json) as any;
        expect(b.metrics.queue).toEqual({ value: 2 });
        expect(b.metrics.pool).toEqual({ value: 300 });
      } finally {
        await running.stop();
      }
      // `stop` ran the setup's shutdown(): the primary exited by itself.
      expect(running.primary.exitCode).toBe(0);
    }, 30_000);
  });
});
