import { COPY_AT_ONCE } from '../../src/reader/columns';
import { publishedAggregate } from '../support/publishedAggregate';
import {
  MeterProvider,
  type ExponentialHistogram,
} from '@opentelemetry/sdk-metrics';
import {
  emptyAggregate,
  mergeInto,
  quantiles,
  type HistogramAggregate,
} from '../../src/reader/histogramBuckets';
import {
  EMPTY_HISTOGRAM_RECORD,
  type HistogramRecord,
} from '../../src/reader/HistogramRecord';
import { HistogramSeries } from '../../src/reader/HistogramSeries';
import { NameTotals, NO_SCALE } from '../../src/reader/series';
import {
  HistogramColumns,
  type HistogramFigures,
} from '../../src/reader/HistogramColumns';
import { HistogramNames } from '../../src/reader/HistogramNames';
import { packed } from '../support/packedHistogram';
import { LegacyMetricsReader } from '../../src';

/** Exponential histogram points as the SDK makes them: record values, collect one delta. */
async function sdkPoints(batches: number[][], maxSize = 1024) {
  const reader = new LegacyMetricsReader({ histogramMaxBuckets: maxSize });
  const provider = new MeterProvider({ readers: [reader] });
  const histogram = provider.getMeter('t').createHistogram('h');
  const points: ExponentialHistogram[] = [];
  for (const batch of batches) {
    for (const value of batch) histogram.record(value);
    const { resourceMetrics } = await reader.collect();
    points.push(
      resourceMetrics.scopeMetrics[0]!.metrics[0]!.dataPoints[0]!
        .value as ExponentialHistogram
    );
  }
  await provider.shutdown();
  return points;
}

const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The exact nearest-rank quantile. */
function exact(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

/** A histogram series with a name of its own, as the store makes one. */
const newWindow = (totals = new NameTotals('histogram', false, 1, 'h')) =>
  new HistogramSeries(totals, 0, 1, totals.members.length);

describe('HistogramSeries', () => {
  describe('add', () => {
    it('should count, sum and bound every value recorded in the window', async () => {
      const [point] = await sdkPoints([[5, 10, 15]]);
      const window = newWindow();
      expect(window.addPacked(7, packed(point), 0)).toBe(true);
      expect(window.aggregate).toMatchObject({
        count: 3,
        sum: 30,
        min: 5,
        max: 15,
      });
      // Its data sits in slot 7: expiring through slot 6 leaves it, through 7 drops it.
      expect(window.expireThrough(6)).toBe(false);
      expect(window.expireThrough(7)).toBe(true);
    });

    it('should merge a second point for the same slot without scheduling it again', async () => {
      const [a, b] = await sdkPoints([
        [1, 2],
        [1000, 2000],
      ]);
      const window = newWindow();
      expect(window.addPacked(3, packed(a), 0)).toBe(true);
      expect(window.addPacked(3, packed(b), 0)).toBe(false);
      expect(window.aggregate).toMatchObject({
        count: 4,
        sum: 3003,
        min: 1,
        max: 2000,
      });
    });
  });

  describe('expireThrough', () => {
    it('should drop expired slots and recompute min and max from what is left', async () => {
      const [a, b] = await sdkPoints([
        [1, 1000],
        [50, 60],
      ]);
      const window = newWindow();
      window.addPacked(1, packed(a), 0);
      window.addPacked(2, packed(b), 0);
      expect(window.expireThrough(0)).toBe(false);
      expect(window.expireThrough(1)).toBe(true);
      expect(window.aggregate).toMatchObject({
        count: 2,
        sum: 110,
        min: 50,
        max: 60,
      });
      expect(quantiles(window.aggregate, [0, 1])).toEqual([50, 60]);
    });

    it('should return to empty, and to full resolution, once every slot has left', async () => {
      const [wide, narrow] = await sdkPoints([
        [0.001, 1e9],
        [100, 101],
      ]);
      const window = newWindow();
      window.addPacked(1, packed(wide), 0);
      const coarse = window.aggregate.scale;
      window.expireThrough(1);
      expect(window.aggregate).toMatchObject({
        count: 0,
        sum: 0,
        zeroCount: 0,
      });
      expect(window.publish()).toBe(EMPTY_HISTOGRAM_RECORD);
      window.addPacked(2, packed(narrow), 0);
      expect(window.aggregate.scale).toBeGreaterThan(coarse);
    });
  });

  describe('record', () => {
    it('should answer as when it was taken, whatever the window does after: slots added, expired, moved and merged', async () => {
      const points = await sdkPoints(
        range(1, 12).map(i => [i, 10 * i, 100 * i])
      );
      const window = newWindow();
      const taken: {
        record: HistogramRecord;
        aggregate: ReturnType<typeof emptyAggregate>;
      }[] = [];
      const take = (): void => {
        const record = window.publish();
        taken.push({ record, aggregate: structuredClone(record.aggregate) });
      };
      points.forEach((point, i) => {
        // A window of three slots: each slot added expires the oldest, so the window's entries
        // move to a new array now and then, while the records keep reading the old one.
        window.expireThrough(i - 3);
        window.addPacked(i, packed(point), 0);
        take();
        // A second point for the same slot rewrites the newest entry.
        if (i % 4 === 3) {
          window.addPacked(i, packed(points[0]!), 0);
          take();
        }
      });
      expect(window.aggregate).toMatchObject({ count: 12 });
      expect(taken.at(-1)!.aggregate).toMatchObject({ count: 12 });
      expect(taken[0]!.aggregate).toMatchObject({ count: 3, sum: 111 });
      for (const { record, aggregate } of taken)
        expect(record.aggregate).toEqual(aggregate);
    });
  });
});

describe("a name's windows, side by side in its slots", () => {
  it('should keep every record as taken, and every window as a fresh one fed its slots would be, over a window of more slots than the ring', async () => {
    const points = await sdkPoints(range(1, 7).map(i => [i, 3 * i, 1000 * i]));
    const totals = new NameTotals('histogram', false, 1, 'h');
    const windows = range(0, 4).map(() => newWindow(totals));
    const fed: { slot: number; point: number }[][] = windows.map(() => []);
    const span = 150;
    const base = 1_700_000_000;
    const taken: { record: HistogramRecord; aggregate: HistogramAggregate }[] =
      [];
    for (let i = 0; i < 400; i++) {
      const slot = base + i;
      windows.forEach((window, j) => {
        window.expireThrough(slot - span);
        if (i % 13 === 0) {
          const record = window.publish();
          taken.push({ record, aggregate: structuredClone(record.aggregate) });
        }
        if ((i + j) % 3 !== 0) return;
        const point = (i * 7 + j) % points.length;
        window.addPacked(slot, packed(points[point]!), 0);
        fed[j]!.push({ slot, point });
        // Now and then a second point for the slot, as a second source gives.
        if (i % 11 === j) {
          window.addPacked(slot, packed(points[0]!), 0);
          fed[j]!.push({ slot, point: 0 });
        }
      });
    }
    const last = base + 399;
    let counted = 0;
    windows.forEach((window, j) => {
      const fresh = newWindow();
      for (const { slot, point } of fed[j]!)
        if (slot > last - span)
          fresh.addPacked(slot, packed(points[point]!), 0);
      const { count, sum, min, max, zeroCount } = fresh.aggregate;
      expect(count).toBeGreaterThan(0);
      expect(window.aggregate).toMatchObject({
        count,
        sum,
        min,
        max,
        zeroCount,
      });
      counted += count;
    });
    expect(totals.shared!.count).toBe(counted);
    expect(taken.length).toBe(windows.length * 31);
    for (const { record, aggregate } of taken)
      expect(record.aggregate).toEqual(aggregate);
    // Every slot gone: the windows and the name's sum are empty, and the slots' arrays let go.
    for (const window of windows) window.expireThrough(last);
    expect(publishedAggregate(totals.shared!)).toEqual(emptyAggregate());
    for (let slot = last - span; slot <= last; slot++)
      expect(totals.slots!.frame().entriesOf(slot)).toBeUndefined();
  });

  it('should merge a second point into a slot after others, and expire the window in order', async () => {
    const [a, b, c] = await sdkPoints([[1], [20, 30], [400]]);
    const window = newWindow();
    window.addPacked(1, packed(a), 0);
    window.addPacked(2, packed(b), 0);
    const before = window.publish();
    window.addPacked(2, packed(c), 0);
    expect(window.aggregate).toMatchObject({ count: 4, sum: 451, max: 400 });
    expect(before.aggregate).toMatchObject({ count: 3, sum: 51, max: 30 });
    expect(window.expireThrough(1)).toBe(true);
    expect(window.aggregate).toMatchObject({ count: 3, sum: 450, min: 20 });
    expect(window.expireThrough(2)).toBe(true);
    expect(window.publish()).toBe(EMPTY_HISTOGRAM_RECORD);
  });

  it('should add a point for a slot older than the newest to the newest', async () => {
    const [a, b] = await sdkPoints([[5], [7]]);
    const window = newWindow();
    expect(window.addPacked(4, packed(a), 0)).toBe(true);
    expect(window.addPacked(3, packed(b), 0)).toBe(false);
    expect(window.expireThrough(3)).toBe(false);
    expect(window.aggregate).toMatchObject({ count: 2, sum: 12 });
    expect(window.expireThrough(4)).toBe(true);
    expect(window.aggregate).toMatchObject({ count: 0 });
  });
});

/**
 * A name of its own with `count` windows numbered in `columns`, and a publication of them: the
 * numbers the windows wrote and the name's frame as it is now.
 */
function publishedName(count: number) {
  const columns = new HistogramColumns();
  const names = new HistogramNames();
  const totals = new NameTotals('histogram', false, 1, 'h');
  names.add(totals);
  const windows = Array.from(
    { length: count },
    () => new HistogramSeries(totals, 0, 1, columns.create())
  );
  const publish = () => columns.publish(names.publish().frames, COPY_AT_ONCE);
  return { columns, windows, publish };
}

describe('writeRecord', () => {
  it('should have each publication make the records the window had when it was published', async () => {
    const points = await sdkPoints(range(1, 6).map(i => [i, 100 * i]));
    const {
      columns,
      windows: [window],
      publish,
    } = publishedName(1);
    const published: HistogramFigures[] = [];
    const expected: HistogramAggregate[] = [];
    const scales: number[] = [];
    const publishNow = () => {
      scales.push(window!.writeRecord(columns));
      published.push(publish());
      expected.push(structuredClone(window!.publish().aggregate));
    };
    publishNow();
    points.forEach((point, i) => {
      // The window moves on after each publication: slots added, merged, expired, moved to new arrays.
      window!.expireThrough(i - 3);
      window!.addPacked(i, packed(point), 0);
      publishNow();
      if (i % 2 === 1) {
        window!.addPacked(i, packed(points[0]!), 0);
        publishNow();
      }
    });
    window!.expireThrough(100);
    publishNow();
    expect(scales[0]).toBe(NO_SCALE);
    expect(scales.at(-1)).toBe(NO_SCALE);
    expect(scales[1]).toBe(expected[1]!.scale);
    expect(expected.map(aggregate => aggregate.count)).toEqual([
      0, 2, 4, 6, 8, 8, 10, 8, 8, 10, 0,
    ]);
    // Read newest first and then oldest first: each answers as published, whatever was read before.
    for (const order of [[...published].reverse(), published])
      for (const figures of order)
        expect(figures.record(window!).aggregate).toEqual(
          expected[published.indexOf(figures)]
        );
    expect(published[0]!.record(window!)).toBe(EMPTY_HISTOGRAM_RECORD);
  });

  it('should serve the record made last again while the window stands at the same entries', async () => {
    const points = await sdkPoints([[1, 2, 3], [40]]);
    const {
      columns,
      windows: [window],
      publish,
    } = publishedName(1);
    window!.addPacked(1, packed(points[0]!), 0);
    window!.writeRecord(columns);
    const first = publish();
    const record = first.record(window!);
    const value = record.value(true);
    // A later publication of the window unchanged: the same record, its value worked out once.
    const unchanged = publish();
    expect(unchanged.record(window!)).toBe(record);
    expect(unchanged.record(window!).value(true)).toBe(value);
    window!.addPacked(2, packed(points[1]!), 0);
    window!.writeRecord(columns);
    const changed = publish();
    expect(changed.record(window!)).not.toBe(record);
    expect(changed.record(window!).count).toBe(4);
    expect(first.record(window!).count).toBe(3);
    expect(first.record(window!).value(true)).toEqual(value);
  });

  it('should serve every window of a publication with more windows than the first columns hold', async () => {
    const [point] = await sdkPoints([[1, 2, 3]]);
    const { columns, windows, publish } = publishedName(3000);
    windows.forEach((window, i) => {
      // Every third window empty: its record is the empty one.
      if (i % 3 !== 0) window.addPacked(1, packed(point!), 0);
      window.writeRecord(columns);
    });
    const figures = publish();
    windows.forEach((window, i) => {
      const record = figures.record(window);
      if (i % 3 === 0) expect(record).toBe(EMPTY_HISTOGRAM_RECORD);
      else expect(record.aggregate).toEqual(window.aggregate);
    });
  });
});

describe("a name's summed buckets", () => {
  it('should hold every member window merged, as slots come and expire', async () => {
    const points = await sdkPoints([
      [1, 2, 3],
      [100, 5000],
      [0.5, 7],
      [40, 41],
    ]);
    const totals = new NameTotals('histogram', false, 1, 'h');
    const [a, b] = [newWindow(totals), newWindow(totals)];
    const merged = () => {
      const aggregate = emptyAggregate();
      mergeInto(aggregate, a.aggregate);
      mergeInto(aggregate, b.aggregate);
      return aggregate;
    };
    a.addPacked(1, packed(points[0]!), 0);
    b.addPacked(1, packed(points[1]!), 0);
    a.addPacked(2, packed(points[2]!), 0);
    b.addPacked(3, packed(points[3]!), 0);
    const buckets = (aggregate: HistogramAggregate) => ({
      scale: aggregate.scale,
      count: aggregate.count,
      positive: aggregate.positive,
    });
    expect(buckets(publishedAggregate(totals.shared!))).toEqual(
      buckets(merged())
    );
    a.expireThrough(1);
    b.expireThrough(1);
    // Each window keeps the coarsest scale it took since it was last empty, and so does the sum.
    expect(buckets(publishedAggregate(totals.shared!))).toEqual(
      buckets(merged())
    );
    expect(totals.shared!.count).toBe(4);
    a.expireThrough(3);
    b.expireThrough(3);
    expect(publishedAggregate(totals.shared!)).toEqual(emptyAggregate());
  });
});

describe('quantiles', () => {
  // README: the relative error of a percentile is at most 2^(2^-(scale+1)) - 1.
  const bound = (aggregate: Readonly<HistogramAggregate>): number =>
    Math.pow(2, Math.pow(2, -(aggregate.scale + 1))) - 1;

  it.each([
    ['1..1000', range(1, 1000)],
    ['1..100000 step 7', range(0, 14285).map(i => 1 + 7 * i)],
    ['latency-like', range(1, 2000).map(i => Math.round(200 + (i * i) / 50))],
    ['tiny values', range(1, 500).map(i => i / 1e6)],
  ])(
    'should estimate the percentiles of %s within the stated bound',
    async (_name, values) => {
      const [point] = await sdkPoints([values]);
      const window = newWindow();
      window.addPacked(0, packed(point), 0);
      const qs = [0.5, 0.75, 0.9, 0.95, 0.99, 0.999];
      const estimates = quantiles(window.aggregate, qs);
      const limit = bound(window.aggregate);
      expect(limit).toBeLessThan(0.011);
      qs.forEach((q, i) => {
        const truth = exact(values, q);
        expect(Math.abs(estimates[i]! - truth) / truth).toBeLessThanOrEqual(
          limit
        );
      });
    }
  );

  it('should order negative buckets, zeros and positive buckets', () => {
    // Scale 0: bucket i holds (2^i, 2^(i+1)]; negative buckets mirror it.
    const aggregate: HistogramAggregate = {
      ...emptyAggregate(),
      scale: 0,
      count: 7,
      min: -100,
      max: 100,
      zeroCount: 2,
      negative: new Map([
        [6, 1],
        [3, 1],
      ]),
      positive: new Map([
        [3, 1],
        [6, 2],
      ]),
    };
    const [lowest, second, median, sixth, highest] = quantiles(aggregate, [
      0,
      2 / 7,
      4 / 7,
      6 / 7,
      1,
    ]);
    expect(lowest).toBe(-100);
    expect(second).toBeCloseTo(-Math.pow(2, 3.5));
    expect(median).toBe(0);
    expect(sixth).toBeCloseTo(Math.pow(2, 6.5));
    expect(highest).toBe(100);
  });

  it('should take the zero bucket from the SDK for recorded zeros', async () => {
    const [point] = await sdkPoints([[0, 0, 0, 10]]);
    const window = newWindow();
    window.addPacked(0, packed(point), 0);
    expect(window.aggregate.zeroCount).toBe(3);
    expect(quantiles(window.aggregate, [0.5, 0.75, 1])).toEqual([0, 0, 10]);
  });

  it('should give exact values when every value is equal', async () => {
    const [point] = await sdkPoints([[42, 42, 42]]);
    const window = newWindow();
    window.addPacked(0, packed(point), 0);
    expect(quantiles(window.aggregate, [0.5, 0.999])).toEqual([42, 42]);
  });

  it('should give zeros for an empty aggregate', () => {
    expect(quantiles(emptyAggregate(), [0.5, 0.99])).toEqual([0, 0]);
  });
});

describe('mergeInto', () => {
  it('should merge windows of different scales at the coarser one without losing counts', async () => {
    const [fine, coarse] = await sdkPoints([
      [100, 101, 102],
      [1, 1e6],
    ]);
    const a = newWindow();
    const b = newWindow();
    a.addPacked(0, packed(fine), 0);
    b.addPacked(0, packed(coarse), 0);
    const merged = emptyAggregate();
    mergeInto(merged, a.aggregate);
    mergeInto(merged, b.aggregate);
    expect(merged.scale).toBe(Math.min(a.aggregate.scale, b.aggregate.scale));
    expect(merged).toMatchObject({
      count: 5,
      min: 1,
      max: 1e6,
      sum: 303 + 1 + 1e6,
    });
    const total = [...merged.positive.values()].reduce((x, y) => x + y, 0);
    expect(total).toBe(5);
    expect(quantiles(merged, [0.5])[0]! / 101).toBeCloseTo(1, 1);
  });
});
