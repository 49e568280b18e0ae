import { publishedAggregate } from '../support/publishedAggregate';
import { packed } from '../support/packedHistogram';
import type { ExponentialHistogram } from '@opentelemetry/sdk-metrics';
import { BucketSum } from '../../src/reader/BucketSum';
import {
  emptyAggregate,
  mergeInto,
  type HistogramAggregate,
} from '../../src/reader/histogramBuckets';
import {
  NO_SLOT,
  packedEntryLength,
  writeEntry,
  type SlotEntries,
} from '../../src/reader/slotEntries';

/** A delta point as the SDK hands it: dense counts from an offset, at a scale. */
function point(
  scale: number,
  positive: Record<number, number>,
  negative: Record<number, number> = {},
  zeroCount = 0
): ExponentialHistogram {
  const dense = (buckets: Record<number, number>) => {
    const indexes = Object.keys(buckets).map(Number);
    if (indexes.length === 0) return { offset: 0, bucketCounts: [] };
    const offset = Math.min(...indexes);
    const bucketCounts = Array.from(
      { length: Math.max(...indexes) - offset + 1 },
      (_, i) => buckets[offset + i] ?? 0
    );
    return { offset, bucketCounts };
  };
  const count =
    zeroCount +
    [...Object.values(positive), ...Object.values(negative)].reduce(
      (a, b) => a + b,
      0
    );
  return {
    scale,
    count,
    sum: count,
    min: 1,
    max: 2,
    zeroCount,
    positive: dense(positive),
    negative: dense(negative),
  };
}

/** The same entries merged one by one into a map-based aggregate, as a window's `aggregate` is. */
function reference(points: ExponentialHistogram[]) {
  const merged = emptyAggregate();
  for (const p of points) {
    const toMap = (b: { offset: number; bucketCounts: number[] }) =>
      new Map(
        b.bucketCounts.flatMap((c, i) => (c > 0 ? [[b.offset + i, c]] : []))
      ) as Map<number, number>;
    const aggregate: HistogramAggregate = {
      scale: p.scale,
      count: p.count,
      sum: p.sum!,
      min: p.min!,
      max: p.max!,
      zeroCount: p.zeroCount,
      positive: toMap(p.positive),
      negative: toMap(p.negative),
    };
    mergeInto(merged, aggregate);
  }
  return merged;
}

/** Writes each point as a slot's entry after the last; returns where it starts. */
function entryWriter(entries: SlotEntries) {
  let end = 0;
  return (slot: number, p: ExponentialHistogram): number => {
    const point = packed(p);
    const at = end;
    writeEntry(entries, at, slot, point, 0, NO_SLOT, 0);
    end += packedEntryLength(point, 0);
    return at;
  };
}

function added(points: ExponentialHistogram[]) {
  const entries: SlotEntries = new Float64Array(4096);
  const write = entryWriter(entries);
  const sum = new BucketSum();
  const starts = points.map((p, slot) => {
    const at = write(slot, p);
    sum.addEntry(entries, at);
    return at;
  });
  return { entries, sum, starts, write };
}

describe('BucketSum', () => {
  it('should sum buckets as merging them into maps does, growing its array either way', () => {
    const points = [
      point(4, { 10: 1, 12: 2 }),
      point(4, { 3: 1, 40: 5 }, { 7: 2 }),
      point(4, { [-30]: 1 }, {}, 3),
      point(4, { 200: 4 }),
    ];
    const { sum } = added(points);
    expect(publishedAggregate(sum)).toEqual(reference(points));
  });

  it('should bring its buckets down to the coarsest scale added', () => {
    const points = [
      point(6, { 100: 1, 101: 1, 130: 2 }),
      point(3, { 14: 3 }),
      point(6, { 90: 1 }, { 50: 1 }),
    ];
    const { sum } = added(points);
    const aggregate = publishedAggregate(sum);
    expect(aggregate.scale).toBe(3);
    expect(aggregate).toEqual(reference(points));
    // 100 >> 3 = 12 and 101 >> 3 = 12; 130 >> 3 = 16; 90 >> 3 = 11.
    expect(aggregate.positive).toEqual(
      new Map([
        [12, 2],
        [16, 2],
        [14, 3],
        [11, 1],
      ])
    );
  });

  it('should keep buckets that span past its array in a map, with the same sums', () => {
    // Single values at the finest scale, octaves apart: 2^20 buckets an octave.
    const far = 5 * 2 ** 20;
    const points = [
      point(20, { 0: 1 }),
      point(20, { [far]: 2 }),
      point(20, { [-far]: 1 }, { [far]: 1 }),
      point(20, { 1: 1 }),
    ];
    const { entries, sum, starts } = added(points);
    expect(publishedAggregate(sum)).toEqual(reference(points));
    sum.subtractEntry(entries, starts[1]!);
    const left = publishedAggregate(sum);
    expect(left.count).toBe(4);
    expect(left.positive).toEqual(
      new Map([
        [0, 1],
        [-far, 1],
        [1, 1],
      ])
    );
  });

  it('should take out what expires, and start afresh at full resolution once empty', () => {
    const points = [
      point(5, { 20: 2 }),
      point(2, { 3: 1 }),
      point(5, { 21: 1 }),
    ];
    const { entries, sum, starts, write } = added(points);
    expect(sum.scale).toBe(2);
    sum.subtractEntry(entries, starts[0]!);
    sum.subtractEntry(entries, starts[1]!);
    // Still at the coarser scale: detail once merged away is gone.
    expect(publishedAggregate(sum)).toMatchObject({
      scale: 2,
      count: 1,
      positive: new Map([[21 >> 3, 1]]),
    });
    sum.subtractEntry(entries, starts[2]!);
    expect(publishedAggregate(sum)).toEqual(emptyAggregate());
    const again = write(9, point(5, { 20: 1 }));
    sum.addEntry(entries, again);
    expect(publishedAggregate(sum)).toMatchObject({
      scale: 5,
      positive: new Map([[20, 1]]),
    });
  });

  it('should hand out aggregates that later changes leave alone', () => {
    const points = [point(3, { 5: 1 }), point(3, { 5: 2, 6: 1 })];
    const { entries, sum, starts } = added(points);
    const before = publishedAggregate(sum);
    sum.subtractEntry(entries, starts[0]!);
    expect(before.positive).toEqual(
      new Map([
        [5, 3],
        [6, 1],
      ])
    );
    expect(publishedAggregate(sum).positive).toEqual(
      new Map([
        [5, 2],
        [6, 1],
      ])
    );
  });
});
