import { ValueType, type Meter } from '@opentelemetry/api';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type LegacyMetricsReaderOptions } from '../../src';
import { type Variant, VARIANTS } from '../../src/attributes';
import { jsonSerializer } from '../../src/snapshot/jsonSerializer';
import { MetricStore } from '../../src/reader/MetricStore';
import { resolveReaderOptions } from '../../src/reader/options';
import { Snapshot } from '../../src/snapshot/Snapshot';
import { xmlSerializer } from '../../src/snapshot/xmlSerializer';
import { SERVED_SNAPSHOT } from '../../src/reader/ServedStore';
import { createApp, createRig, type Rig } from '../helpers';

const HOST_TYPES = ['localhost', 'test type'];
/** Host types that only the recordings bring, beyond the declared ones. */
const DISCOVERED = Array.from({ length: 30 }, (_, i) => `vhost${i}.example`);
/** Slots of a minute: no tick of the reader's own timer falls within a test. */
const QUIET: LegacyMetricsReaderOptions = {
  hostTypes: HOST_TYPES,
  slotMs: 60_000,
  windowMs: 60_000,
};

/** Recordings of every kind, on two meters, many host types and hosts: a tick of many slices. */
function record(meter: Meter, other: Meter, round: number): void {
  const sent = meter.createCounter('xmppMessageSent', {
    valueType: ValueType.INT,
  });
  const sessions = meter.createUpDownCounter('sessionCount');
  const queue = meter.createGauge('queueLength');
  const auth = meter.createHistogram('authTime', { valueType: ValueType.INT });
  for (const [i, hostType] of [...HOST_TYPES, ...DISCOVERED].entries()) {
    if ((i + round) % 3 === 0) continue;
    sent.add(i + round, { host_type: hostType });
    sent.add(1, { host_type: hostType, host: `h${round}.${hostType}` });
    sessions.add(round % 2 === 0 ? 2 : -1, { host_type: hostType });
    queue.record(i * 1.5 + round, { host_type: hostType });
    for (const value of [i, 10 * round, 2_000_000 + i])
      auth.record(value, { host_type: hostType });
  }
  // The same name from a second meter, in floating point from the second round: combined with
  // the first meter's series, and served as floating point once that round is published.
  if (round > 0) {
    other
      .createCounter('xmppMessageSent')
      .add(round + 0.5, { host_type: 'localhost' });
    other.createHistogram('authTime').record(0.25, { host_type: 'localhost' });
  }
  other.createGauge('clusterSize').record(round + 1);
  other.createCounter(`round${round}`).add(1);
}

/** Every endpoint of both variants. */
function paths(): string[][] {
  const groups = [...HOST_TYPES, 'test_type', ...DISCOVERED, 'h1.localhost'];
  const names = [
    'xmppMessageSent',
    'sessionCount',
    'queueLength',
    'authTime',
    'clusterSize',
    'round0',
    'round1',
  ];
  const result = [['metrics'], ['metrics', 'all'], ['metrics', 'global']];
  for (const name of names)
    result.push(['metrics', 'all', name], ['metrics', 'global', name]);
  for (const word of ['host_type', 'host'])
    for (const group of groups) {
      result.push(['metrics', word, group]);
      for (const name of names) result.push(['metrics', word, group, name]);
    }
  return result;
}

/** A request: its variant, format and path, and its name in a map of answers. */
interface Asked {
  readonly name: string;
  readonly variant: Variant;
  readonly serializer: typeof jsonSerializer;
  readonly path: string[];
}

/** Every request of both variants and formats. */
const EVERY_REQUEST: readonly Asked[] = VARIANTS.flatMap(variant =>
  [jsonSerializer, xmlSerializer].flatMap(serializer =>
    paths().map(path => ({
      name: `${variant} ${serializer.contentType} /${path.join('/')}`,
      variant,
      serializer,
      path,
    }))
  )
);

/** What `snapshot` answers to `asked`: status and body. */
function answerOf(snapshot: Snapshot, asked: Asked): string {
  const response = snapshot.respond(
    asked.variant,
    asked.path,
    asked.serializer
  );
  return `${response.status} ${response.body.toString()}`;
}

/** Every answer of a snapshot: status and body, per variant, format and path. */
function answers(snapshot: Snapshot): Map<string, string> {
  return new Map(
    EVERY_REQUEST.map(asked => [asked.name, answerOf(snapshot, asked)])
  );
}

const turn = (): Promise<void> => new Promise(resolve => setImmediate(resolve));

let rigs: Rig[] = [];
afterEach(async () => {
  await Promise.all(rigs.map(rig => rig.close()));
  rigs = [];
});

function rig(options: LegacyMetricsReaderOptions): Rig {
  const created = createRig(options);
  rigs.push(created);
  return created;
}

/** Flushes `rig`, running `during` at each turn of the event loop until the flush is over. */
async function flushObserved(
  rig: Rig,
  during: (turns: number) => void
): Promise<number> {
  let done = false;
  const flushing = rig.flush().then(() => {
    done = true;
  });
  let turns = 0;
  while (!done) {
    await turn();
    if (!done) during(++turns);
  }
  await flushing;
  return turns;
}

describe('LegacyMetricsReader sliced tick', () => {
  describe('snapshot', () => {
    it('should answer exactly as the snapshot published before while a tick is applied in slices', async () => {
      // A twin without slicing publishes the same content in one block: the reference.
      const live = rig({ ...QUIET, slicePoints: 3 });
      const twin = rig(QUIET);
      for (const each of [live, twin]) {
        // Meter n first: its floating-point counter is applied early in the sliced tick.
        const other = each.provider.getMeter('n');
        const meter = each.provider.getMeter('m');
        record(meter, other, 0);
        await each.flush();
        record(meter, other, 1);
      }
      const before = live.reader.snapshot;
      const expected = answers(twin.reader.snapshot);

      let during: Map<string, string> | undefined;
      const turns = await flushObserved(live, turns => {
        expect(live.reader.snapshot).toBe(before);
        // Asked first halfway through the tick, when part of it is applied.
        if (turns === 20) during = answers(live.reader.snapshot);
      });

      // Turn 20 falls well within the tick.
      expect(turns).toBeGreaterThan(30);
      expect(during).toEqual(expected);
      // Published whole once the last slice ends: as the twin publishes it in one block.
      await twin.flush();
      expect(live.reader.snapshot.generation).toBe(before.generation + 1);
      const after = answers(live.reader.snapshot);
      expect(after).toEqual(answers(twin.reader.snapshot));
      const changed = [...after].filter(
        ([key, body]) => expected.get(key) !== body
      );
      expect(changed.length).toBeGreaterThan(200);
    });
  });

  describe('forceFlush', () => {
    it('should resolve only once the last slice is published', async () => {
      const live = rig({ ...QUIET, slicePoints: 1 });
      record(live.provider.getMeter('m'), live.provider.getMeter('n'), 0);
      const turns = await flushObserved(live, () => {
        expect(live.reader.snapshot.generation).toBe(0);
      });
      expect(turns).toBeGreaterThan(100);
      expect(live.reader.snapshot.generation).toBe(1);
      const body = live.reader.snapshot.respond(
        'host_type',
        ['metrics', 'all', 'xmppMessageSent'],
        jsonSerializer
      );
      // Every host type but every third, each i + 0, plus one per host, plus nothing from meter n.
      const hostTypes = [...HOST_TYPES, ...DISCOVERED].length;
      let count = 0;
      for (let i = 0; i < hostTypes; i++) if (i % 3 !== 0) count += i + 1;
      expect(JSON.parse(body.body.toString())).toEqual({
        metric: { count, one: count },
      });
      // One point per slice: a slice for each data point, and one more for each series published.
      expect(live.reader.lastTickSlices.slices).toBeGreaterThan(turns / 2);
      expect(live.reader.lastTickSlices.longestMs).toBeGreaterThan(0);
    });
  });

  describe('the collection', () => {
    it('should be let go of once copied, well before the tick is published', async () => {
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      const live = rig({ ...QUIET, slicePoints: 1 });
      record(live.provider.getMeter('m'), live.provider.getMeter('n'), 0);
      const reader = live.reader;
      const collect = reader.collect.bind(reader);
      let collected: WeakRef<object> | undefined;
      reader.collect = async options => {
        const result = await collect(options);
        collected = new WeakRef(result.resourceMetrics);
        return result;
      };
      let goneAt: number | undefined;
      const turns = await flushObserved(live, turn => {
        // A collection now and then (each costs a few milliseconds), until it is gone.
        if (goneAt !== undefined || collected === undefined || turn % 10 !== 0)
          return;
        gc();
        if (collected.deref() === undefined) goneAt = turn;
      });
      expect(collected).toBeDefined();
      // Gone while the points were still being applied: one data point a slice, about half of
      // the tick's turns after the copy.
      expect(goneAt).toBeDefined();
      expect(goneAt!).toBeLessThan(turns * 0.75);
      expect(reader.snapshot.generation).toBe(1);
    });
  });

  describe('shutdown', () => {
    it('should resolve only once the tick under way is published', async () => {
      const live = rig({ ...QUIET, slicePoints: 1 });
      record(live.provider.getMeter('m'), live.provider.getMeter('n'), 0);
      const flushing = live.flush();
      await turn();
      await turn();
      expect(live.reader.snapshot.generation).toBe(0);
      await live.close();
      expect(live.reader.snapshot.generation).toBe(1);
      expect(live.reader.status).toBe('shutdown');
      await flushing;
    });
  });

  describe('ticks', () => {
    it('should never collect before the last slice of the tick before is published', async () => {
      // Slots of 5 ms, each tick of hundreds of slices: the timer comes due during every tick.
      const live = rig({
        hostTypes: HOST_TYPES,
        slotMs: 5,
        windowMs: 50,
        slicePoints: 1,
      });
      const meter = live.provider.getMeter('m');
      const seen: number[] = [];
      meter.createObservableGauge('generationAtCollect').addCallback(result => {
        seen.push(live.reader.snapshot.generation);
        result.observe(seen.length);
      });
      const sent = meter.createCounter('xmppMessageSent');
      const started = Date.now();
      while (seen.length < 6 && Date.now() - started < 10_000) {
        for (const hostType of DISCOVERED) sent.add(1, { host_type: hostType });
        await new Promise(resolve => setTimeout(resolve, 2));
      }
      // A forceFlush beside the timer's ticks waits its turn too.
      await Promise.all([live.flush(), live.flush()]);
      expect(seen.length).toBeGreaterThanOrEqual(6);
      // Each collection sees the snapshot of the tick before it: one generation more each time.
      expect(seen).toEqual(seen.map((_, i) => seen[0]! + i));
    });
  });
});

/** More series than one chunk of a publication's copies (4,096 values) holds. */
const MANY = Array.from({ length: 5_000 }, (_, i) => `d${i}.example`);

/** `/metrics/host_type/<hostType>/xmppMessageSent`'s count in `snapshot`. */
function sentCount(snapshot: Snapshot, hostType: string): number {
  const response = snapshot.respond(
    'host_type',
    ['metrics', 'host_type', hostType, 'xmppMessageSent'],
    jsonSerializer
  );
  return (JSON.parse(response.body.toString()) as { metric: { count: number } })
    .metric.count;
}

describe('The publication of a sliced tick', () => {
  it('should copy the columns in slices and serve the snapshot before until every copy is made', async () => {
    const live = rig({ ...QUIET, slicePoints: 1 });
    const sent = live.provider.getMeter('m').createCounter('xmppMessageSent');
    MANY.forEach((hostType, i) => sent.add(i + 1, { host_type: hostType }));
    await live.flush();
    const before = live.reader.snapshot;
    MANY.forEach((hostType, i) =>
      sent.add(1_000_000 + i, { host_type: hostType })
    );
    const last = MANY[MANY.length - 1]!;
    await flushObserved(live, () => {
      // The series numbered last sit in the copies' last chunk: still as published before.
      expect(live.reader.snapshot).toBe(before);
      expect(sentCount(live.reader.snapshot, last)).toBe(MANY.length);
    });
    const after = live.reader.snapshot;
    expect(after.generation).toBe(before.generation + 1);
    // Every series whole in the new snapshot, the one before unchanged.
    MANY.forEach((hostType, i) => {
      expect(sentCount(after, hostType)).toBe(1_000_000 + 2 * i + 1);
      expect(sentCount(before, hostType)).toBe(i + 1);
    });
  });

  it('should cut the copies into chunks, each a unit of the slicer', async () => {
    const hostTypes = MANY.slice(0, 4_097);
    const collector = rig({ ...QUIET, hostTypes });
    const sent = collector.provider
      .getMeter('m')
      .createCounter('xmppMessageSent');
    hostTypes.forEach((hostType, i) =>
      sent.add(i + 1, { host_type: hostType })
    );
    const { resourceMetrics } = await collector.reader.collect();
    const store = new MetricStore(
      resolveReaderOptions({ ...QUIET, hostTypes, slicePoints: 1 })
    );
    store.apply(resourceMetrics, 0, 0);
    const slicer = store.slicer();
    const snapshot = new Snapshot(await store.publishSliced(0, 0, slicer));
    // A spiral's count and one, 4,097 of each: two chunks each, and a slice after each of the
    // four but the last, which the empty copies of the other kinds follow.
    expect(slicer.slices).toBe(5);
    expect(sentCount(snapshot, hostTypes[4_096]!)).toBe(4_097);
    expect(sentCount(snapshot, hostTypes[0]!)).toBe(1);
  });

  it('should reuse the arrays of snapshots no longer reachable, and never those of one held', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const collector = rig(QUIET);
    const meter = collector.provider.getMeter('m');
    const other = collector.provider.getMeter('n');
    const options = resolveReaderOptions({ ...QUIET, slicePoints: 7 });
    // The same collections published in slices from recycled arrays, and at once from new ones.
    const sliced = new MetricStore(options);
    const atOnce = new MetricStore(options);
    const tick = async (round: number) => {
      record(meter, other, round);
      const { resourceMetrics } = await collector.reader.collect();
      atOnce.apply(resourceMetrics, round, round);
      atOnce.expire(round);
      const expected = answers(new Snapshot(atOnce.publish(round, round)));
      const slicer = sliced.slicer();
      await sliced.captureSliced(resourceMetrics, slicer);
      await sliced.applyCapturedSliced(round, round, slicer);
      await sliced.expireSliced(round, slicer);
      const snapshot = new Snapshot(
        await sliced.publishSliced(round, round, slicer)
      );
      return { expected, snapshot };
    };

    const first = await tick(0);
    const held = answers(first.snapshot);
    expect(held).toEqual(first.expected);
    for (let round = 1; round <= 12; round++) {
      const { expected, snapshot } = await tick(round);
      expect(answers(snapshot)).toEqual(expected);
      // The snapshots of the rounds before are unreachable, but the first.
      gc();
      await new Promise(resolve => setTimeout(resolve, 2));
    }
    // The gauges' and histograms' columns keep their length from the second round (a new host
    // each round lengthens the spirals'): their arrays came back and were filled again.
    expect(sliced.recycler.cameBack).toBeGreaterThanOrEqual(8);
    expect(answers(first.snapshot)).toEqual(held);
  });

  it('should reuse at once the arrays of a snapshot only requests read, and keep whole one a caller was handed', async () => {
    // A twin without slicing, read the same way, publishes the same content: the reference.
    // A slice per point, and per chunk of a copy.
    const live = rig({ ...QUIET, slicePoints: 1 });
    const twin = rig(QUIET);
    const app = await createApp(live.reader);
    const recycler = (live.reader as unknown as { _store: MetricStore })._store
      .recycler;
    const served = (each: Rig): Snapshot => each.reader[SERVED_SNAPSHOT]();
    const meters = [live, twin].map(each => ({
      other: each.provider.getMeter('n'),
      meter: each.provider.getMeter('m'),
    }));
    const sample = '/api/metrics/host_type/localhost/xmppMessageSent';
    const made: number[] = [];
    const released: number[] = [];
    let held: { snapshot: Snapshot; answers: Map<string, string> } | undefined;
    for (let round = 0; round <= 9; round++) {
      for (const { meter, other } of meters) record(meter, other, round);
      const expected = answers(served(twin));
      // A few requests at each turn, each asked first there (a snapshot caches its answers), and
      // every request at each turn of the copies, of a snapshot over the same content that has
      // none cached: the copies may fill the arrays of a snapshot released.
      const during = new Map<string, string>();
      const copying: Map<string, string>[] = [];
      // The arrays made ready wait until the copies take them.
      let ready = recycler.waiting;
      const turns = await flushObserved(live, () => {
        for (let i = 0; i < 8; i++) {
          // In a mixed order (7,919 is prime to their number).
          const asked =
            EVERY_REQUEST[(during.size * 7_919) % EVERY_REQUEST.length]!;
          during.set(asked.name, answerOf(served(live), asked));
        }
        ready = Math.max(ready, recycler.waiting);
        if (recycler.waiting < ready)
          copying.push(answers(served(live).withContent(content => content)));
      });
      expect(turns).toBeGreaterThan(150);
      expect(during.size).toBe(8 * turns);
      if (round >= 1) expect(copying.length).toBeGreaterThanOrEqual(3);
      await twin.flush();
      // Served while the tick was sliced: the snapshot before, whole.
      for (const [name, answer] of during)
        expect([name, answer]).toEqual([name, expected.get(name)]);
      for (const answered of copying) expect(answered).toEqual(expected);
      expect(answers(served(live))).toEqual(answers(served(twin)));
      const response = await app.inject(sample);
      expect(response.body).toBe(
        served(twin)
          .respond('host_type', sample.split('/').slice(2), jsonSerializer)
          .body.toString()
      );
      if (round === 5)
        held = {
          snapshot: live.reader.snapshot,
          answers: answers(served(live)),
        };
      made.push(recycler.made);
      released.push(recycler.released);
    }
    // The snapshot handed to a caller answers as it did, nothing of it cached.
    expect(answers(held!.snapshot.withContent(content => content))).toEqual(
      held!.answers
    );
    // One publication's arrays: what each round released once the next replaced it.
    const perPublication = released[3]! - released[2]!;
    expect(perPublication).toBeGreaterThanOrEqual(4);
    // New arrays for the first two publications only, without any collection: each round
    // since has taken those of the snapshot the round before replaced...
    expect(made.slice(1, 7)).toEqual(Array(6).fill(made[1]));
    expect(made[1]).toBe(2 * perPublication);
    // ...but for round 5's, handed to a caller: not released when round 6 replaced it, so round
    // 7 made one publication's worth anew.
    expect(released[6]! - released[5]!).toBe(0);
    expect(made[7]).toBe(made[1]! + perPublication);
    expect(made.slice(7)).toEqual(Array(3).fill(made[7]));
    await app.close();
  });
});

describe('MetricStore captureSliced and applyCapturedSliced', () => {
  it("should keep each source's last values apart, as apply does, and forget a source's", async () => {
    const hostTypes = ['a', 'b', 'c'];
    const collector = rig({ ...QUIET, hostTypes });
    const queue = collector.provider.getMeter('app').createGauge('queueLength');
    hostTypes.forEach((hostType, i) =>
      queue.record(i + 1, { host_type: hostType })
    );
    const { resourceMetrics } = await collector.reader.collect();
    const store = new MetricStore(
      resolveReaderOptions({ ...QUIET, hostTypes, slicePoints: 1 })
    );
    const slicer = store.slicer();
    store.apply(resourceMetrics, 0, 0, 'worker 2');
    await store.captureSliced(resourceMetrics, slicer, 'worker 1');
    await store.applyCapturedSliced(0, 0, slicer);
    // Consumed: each metric's points were released once copied.
    expect(
      resourceMetrics.scopeMetrics.flatMap(s =>
        s.metrics.map(m => m.dataPoints.length)
      )
    ).toEqual([0]);
    const values = (): number[] => {
      const snapshot = new Snapshot(store.publish(0, 0));
      return hostTypes.map(hostType => {
        const response = snapshot.respond(
          'host_type',
          ['metrics', 'host_type', hostType, 'queueLength'],
          jsonSerializer
        );
        return JSON.parse(response.body.toString()).metric.value;
      });
    };
    // One slice per data point: the copy and the apply were each cut, and resumed where they
    // stopped (three points: two pauses in each).
    expect(slicer.slices).toBe(5);
    expect(values()).toEqual([2, 4, 6]);
    store.forgetSource('worker 1');
    expect(values()).toEqual([1, 2, 3]);
  });

  it('should let go of the collection once copied, before any of it is applied', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const hostTypes = ['a', 'b', 'c'];
    const collector = rig({ ...QUIET, hostTypes });
    const meter = collector.provider.getMeter('app');
    const sent = meter.createCounter('xmppMessageSent');
    const auth = meter.createHistogram('authTime');
    hostTypes.forEach((hostType, i) => {
      sent.add(i + 1, { host_type: hostType });
      auth.record(10 * (i + 1), { host_type: hostType });
    });
    const store = new MetricStore(
      resolveReaderOptions({ ...QUIET, hostTypes, slicePoints: 1 })
    );
    const slicer = store.slicer();
    // Collected and copied in a function of its own, whose locals are gone once it returns.
    const { collected, histogram } = await (async () => {
      const { resourceMetrics } = await collector.reader.collect();
      const point = resourceMetrics.scopeMetrics[0]!.metrics[1]!.dataPoints[0]!;
      const refs = {
        collected: new WeakRef(resourceMetrics),
        histogram: new WeakRef(point.value as object),
      };
      await store.captureSliced(resourceMetrics, slicer);
      return refs;
    })();
    // One data point a slice: the apply pauses after its first point.
    const applying = store.applyCapturedSliced(0, 0, slicer);
    // A WeakRef holds its target to the end of the job that made or read it.
    await new Promise(resolve => setImmediate(resolve));
    gc();
    expect(collected.deref()).toBeUndefined();
    expect(histogram.deref()).toBeUndefined();
    await applying;
    const snapshot = new Snapshot(store.publish(0, 0));
    const answer = (name: string, hostType: string) =>
      JSON.parse(
        snapshot
          .respond(
            'host_type',
            ['metrics', 'host_type', hostType, name],
            jsonSerializer
          )
          .body.toString()
      ).metric;
    expect(hostTypes.map(h => answer('xmppMessageSent', h).count)).toEqual([
      1, 2, 3,
    ]);
    expect(hostTypes.map(h => answer('authTime', h).n)).toEqual([1, 1, 1]);
    expect(hostTypes.map(h => answer('authTime', h).max)).toEqual([10, 20, 30]);
  });
});
