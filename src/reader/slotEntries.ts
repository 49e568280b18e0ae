import type { ExponentialHistogram } from '@opentelemetry/sdk-metrics';
import {
  absorbScale,
  addScalars,
  addToBucket,
  emptyAggregate,
  type HistogramAggregate,
  type HistogramSummary,
} from './histogramBuckets';

/**
 * One slot's data of a windowed histogram, packed into one array of numbers rather than an
 * object holding bucket arrays: a window holds an entry per slot with data for every histogram
 * series, so their size is much of the reader's heap. Layout:
 * `[slot, scale, count, sum, min, max, zeroCount, negativeAt, …positive, …negative]`, where the
 * non-empty buckets are `index, count` pairs, positive ones from {@link BUCKETS} up to
 * `negativeAt`, negative ones from there to the end. An entry is only ever added to and
 * subtracted from an aggregate whole.
 */
export type SlotEntry = number[];
export const SLOT = 0;
export const SCALE = 1;
export const COUNT = 2;
export const SUM = 3;
export const MIN = 4;
export const MAX = 5;
export const ZERO_COUNT = 6;
const NEGATIVE_AT = 7;
const BUCKETS = 8;

/** An entry with its scalars set and room for the given numbers of bucket pairs. */
function newEntry(
  slot: number,
  scale: number,
  count: number,
  sum: number,
  min: number,
  max: number,
  zeroCount: number,
  positivePairs: number,
  negativePairs: number
): SlotEntry {
  const entry = new Array<number>(
    BUCKETS + 2 * (positivePairs + negativePairs)
  );
  entry[SLOT] = slot;
  entry[SCALE] = scale;
  entry[COUNT] = count;
  entry[SUM] = sum;
  entry[MIN] = min;
  entry[MAX] = max;
  entry[ZERO_COUNT] = zeroCount;
  entry[NEGATIVE_AT] = BUCKETS + 2 * positivePairs;
  return entry;
}

/**
 * The non-empty buckets of one data point as `index, count` pairs from 0, positive ones first:
 * the SDK's dense counts read once, into an array kept for the next point (never shortened, as
 * an assignment to `length` is a runtime call).
 */
const scratch: number[] = [];

/** Writes the non-empty buckets of the SDK's dense counts into {@link scratch} from `at` as pairs; returns where they end. */
function gatherCounts(
  at: number,
  offset: number,
  counts: readonly number[]
): number {
  for (let i = 0; i < counts.length; i++) {
    const count = counts[i]!;
    if (count > 0) {
      scratch[at++] = offset + i;
      scratch[at++] = count;
    }
  }
  return at;
}

function writeBuckets(
  entry: SlotEntry,
  at: number,
  buckets: Map<number, number>
): number {
  for (const [index, count] of buckets) {
    entry[at++] = index;
    entry[at++] = count;
  }
  return at;
}

/** One delta data point of the SDK as the entry of `slot`. */
export function entryOf(slot: number, point: ExponentialHistogram): SlotEntry {
  const { positive, negative } = point;
  const positiveEnd = gatherCounts(0, positive.offset, positive.bucketCounts);
  const end = gatherCounts(positiveEnd, negative.offset, negative.bucketCounts);
  const entry = newEntry(
    slot,
    point.scale,
    point.count,
    point.sum ?? 0,
    point.min ?? -Infinity,
    point.max ?? Infinity,
    point.zeroCount,
    positiveEnd / 2,
    (end - positiveEnd) / 2
  );
  for (let i = 0; i < end; i++) entry[BUCKETS + i] = scratch[i]!;
  return entry;
}

/** Adds (or, with sign -1, subtracts) the buckets of `entry` into `target`, brought down by `shift`. */
function addEntryBuckets(
  target: HistogramAggregate,
  entry: SlotEntry,
  shift: number,
  sign: 1 | -1
): void {
  const negativeAt = entry[NEGATIVE_AT]!;
  for (let i = BUCKETS; i < entry.length; i += 2)
    addToBucket(
      i < negativeAt ? target.positive : target.negative,
      entry[i]!,
      shift,
      sign * entry[i + 1]!
    );
}

/** Adds a slot's scalars into `target`'s (scale apart). */
function addEntryScalars(target: HistogramSummary, entry: SlotEntry): void {
  addScalars(
    target,
    entry[COUNT]!,
    entry[SUM]!,
    entry[ZERO_COUNT]!,
    entry[MIN]!,
    entry[MAX]!
  );
}

/** Adds a slot's data into `target`, at the coarser of their scales. */
export function addEntry(target: HistogramAggregate, entry: SlotEntry): void {
  const shift = absorbScale(target, entry[SCALE]!);
  addEntryBuckets(target, entry, shift, 1);
  addEntryScalars(target, entry);
}

/** Takes a slot's data out of `target`, which holds it at `target`'s scale or a coarser one. */
export function subtractEntry(
  target: HistogramAggregate,
  entry: SlotEntry
): void {
  addEntryBuckets(target, entry, entry[SCALE]! - target.scale, -1);
  target.count -= entry[COUNT]!;
  target.sum -= entry[SUM]!;
  target.zeroCount -= entry[ZERO_COUNT]!;
}

/** The buckets of `entries` summed, with the scalars of `summary`, at `summary`'s scale. */
export function aggregateOf(
  summary: Readonly<HistogramSummary>,
  entries: readonly SlotEntry[]
): HistogramAggregate {
  // Field by field: `summary` may be a record with fields of its own besides these.
  const aggregate: HistogramAggregate = {
    scale: summary.scale,
    count: summary.count,
    sum: summary.sum,
    min: summary.min,
    max: summary.max,
    zeroCount: summary.zeroCount,
    positive: new Map(),
    negative: new Map(),
  };
  for (const entry of entries)
    addEntryBuckets(aggregate, entry, entry[SCALE]! - aggregate.scale, 1);
  return aggregate;
}

/** Two entries of the same slot as one, at the coarser of their scales. */
export function mergeEntries(a: SlotEntry, b: SlotEntry): SlotEntry {
  const merged = emptyAggregate();
  addEntry(merged, a);
  addEntry(merged, b);
  const entry = newEntry(
    a[SLOT]!,
    merged.scale,
    merged.count,
    a[SUM]! + b[SUM]!,
    merged.min,
    merged.max,
    merged.zeroCount,
    merged.positive.size,
    merged.negative.size
  );
  writeBuckets(
    entry,
    writeBuckets(entry, BUCKETS, merged.positive),
    merged.negative
  );
  return entry;
}
