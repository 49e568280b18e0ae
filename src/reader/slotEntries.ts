import {
  H_BUCKETS,
  H_COUNT,
  H_MAX,
  H_MIN,
  H_NEGATIVE_PAIRS,
  H_POSITIVE_PAIRS,
  H_SCALE,
  H_SUM,
  H_ZERO_COUNT,
} from './CapturedCollection';
import {
  absorbScale,
  addScalars,
  addToBucket,
  emptyAggregate,
  type HistogramAggregate,
  type HistogramSummary,
} from './histogramBuckets';

/**
 * One slot's data of a windowed histogram, packed as an entry in an array of numbers (the
 * {@link SlotEntries} of one slot of a histogram name, see `HistogramSlots.ts`), rather than an
 * array per slot or an object holding bucket arrays: every histogram series holds a window, so
 * their size and their number of objects are much of the reader's heap and of what each tick's
 * expiry reads. One slot's entry, from `at`:
 * `[slot, scale, count, sum, min, max, zeroCount, negativeAt, length, prevSlot, prevAt,
 * nextSlot, nextAt, …positive, …negative]`, where `negativeAt` and `length` count from the
 * entry's start and the non-empty buckets are `index, count` pairs, positive ones from
 * {@link BUCKETS} up to `negativeAt`, negative ones from there to `length`. An entry is only ever
 * added to and subtracted from an aggregate whole.
 *
 * The entries of one series link its window: `prevSlot, prevAt` name the entry before, written
 * with the entry and never changed, which is what published records follow; `nextSlot, nextAt`
 * the entry after, written when that one comes, which is what the window's expiry follows.
 */
export type SlotEntries = Float64Array;
const SLOT = 0;
export const SCALE = 1;
export const COUNT = 2;
export const SUM = 3;
export const MIN = 4;
export const MAX = 5;
export const ZERO_COUNT = 6;
const NEGATIVE_AT = 7;
/** Where the entry's numbers end, from its start: where the next entry begins. */
const LENGTH = 8;
export const PREV_SLOT = 9;
export const PREV_AT = 10;
export const NEXT_SLOT = 11;
export const NEXT_AT = 12;
const BUCKETS = 13;

/** The slot of a link to no entry: below every slot a clock gives. */
export const NO_SLOT = -(2 ** 30);

/** Where the entry's buckets start: its positive ones, then its negative ones. */
function bucketsAt(at: number): number {
  return at + BUCKETS;
}

/** Where the entry's negative buckets start. */
function negativeAt(entries: SlotEntries, at: number): number {
  return at + entries[at + NEGATIVE_AT]!;
}

/** Where the entry's buckets end. */
function entryEnd(entries: SlotEntries, at: number): number {
  return at + entries[at + LENGTH]!;
}

/** Writes an entry's scalars and its link to the entry before; its buckets follow, written by the caller. */
function writeHeader(
  entries: SlotEntries,
  at: number,
  slot: number,
  scale: number,
  count: number,
  sum: number,
  min: number,
  max: number,
  zeroCount: number,
  positivePairs: number,
  negativePairs: number,
  prevSlot: number,
  prevAt: number
): void {
  entries[at + SLOT] = slot;
  entries[at + SCALE] = scale;
  entries[at + COUNT] = count;
  entries[at + SUM] = sum;
  entries[at + MIN] = min;
  entries[at + MAX] = max;
  entries[at + ZERO_COUNT] = zeroCount;
  entries[at + NEGATIVE_AT] = BUCKETS + 2 * positivePairs;
  entries[at + LENGTH] = BUCKETS + 2 * (positivePairs + negativePairs);
  entries[at + PREV_SLOT] = prevSlot;
  entries[at + PREV_AT] = prevAt;
  entries[at + NEXT_SLOT] = NO_SLOT;
  entries[at + NEXT_AT] = 0;
}

/** Writes `buckets` as pairs from `at`; returns where they end. */
function writeBuckets(
  entries: SlotEntries,
  at: number,
  buckets: Map<number, number>
): number {
  for (const [index, count] of buckets) {
    entries[at++] = index;
    entries[at++] = count;
  }
  return at;
}

/** How many numbers the entry of the histogram point packed in `packed` at `from` takes. */
export function packedEntryLength(packed: Float64Array, from: number): number {
  return (
    BUCKETS +
    2 * (packed[from + H_POSITIVE_PAIRS]! + packed[from + H_NEGATIVE_PAIRS]!)
  );
}

/**
 * Writes the histogram point packed in `packed` at `from` (see `CapturedCollection.ts`) as the
 * entry of `slot` at `at`, after the entry at `prevSlot, prevAt`; `entries` has room for
 * {@link packedEntryLength} numbers there.
 */
export function writeEntry(
  entries: SlotEntries,
  at: number,
  slot: number,
  packed: Float64Array,
  from: number,
  prevSlot: number,
  prevAt: number
): void {
  const positivePairs = packed[from + H_POSITIVE_PAIRS]!;
  const pairs = positivePairs + packed[from + H_NEGATIVE_PAIRS]!;
  writeHeader(
    entries,
    at,
    slot,
    packed[from + H_SCALE]!,
    packed[from + H_COUNT]!,
    packed[from + H_SUM]!,
    packed[from + H_MIN]!,
    packed[from + H_MAX]!,
    packed[from + H_ZERO_COUNT]!,
    positivePairs,
    pairs - positivePairs,
    prevSlot,
    prevAt
  );
  const buckets = from + H_BUCKETS;
  const first = at + BUCKETS;
  for (let i = 0; i < 2 * pairs; i++) entries[first + i] = packed[buckets + i]!;
}

/** Where buckets are added up, by index: a map of an aggregate, or a {@link BucketSum}'s array. */
export interface BucketTarget {
  /** Adds `count` (negative to take away) to bucket `index`. */
  add(index: number, count: number): void;
}

/**
 * Adds (or, with sign -1, takes away) the buckets of the entry at `at`, brought down by `shift`:
 * its positive ones to `positive`, its negative ones to `negative`.
 */
export function addEntryBuckets(
  positive: BucketTarget,
  negative: BucketTarget,
  entries: SlotEntries,
  at: number,
  shift: number,
  sign: 1 | -1
): void {
  const negativeStart = negativeAt(entries, at);
  const end = entryEnd(entries, at);
  for (let i = bucketsAt(at); i < negativeStart; i += 2)
    positive.add(entries[i]! >> shift, sign * entries[i + 1]!);
  for (let i = negativeStart; i < end; i += 2)
    negative.add(entries[i]! >> shift, sign * entries[i + 1]!);
}

/** The buckets of a map-based aggregate as a {@link BucketTarget}. */
class MapBuckets implements BucketTarget {
  constructor(private readonly _map: Map<number, number>) {}

  add(index: number, count: number): void {
    addToBucket(this._map, index, 0, count);
  }
}

/** Adds the buckets of the entry at `at` into `target`'s maps, brought down by `shift`. */
function addEntryToMaps(
  target: HistogramAggregate,
  entries: SlotEntries,
  at: number,
  shift: number
): void {
  addEntryBuckets(
    new MapBuckets(target.positive),
    new MapBuckets(target.negative),
    entries,
    at,
    shift,
    1
  );
}

/** Adds the data of the entry at `at` into `target`, at the coarser of their scales. */
function addEntry(
  target: HistogramAggregate,
  entries: SlotEntries,
  at: number
): void {
  const shift = absorbScale(target, entries[at + SCALE]!);
  addEntryToMaps(target, entries, at, shift);
  addScalars(
    target,
    entries[at + COUNT]!,
    entries[at + SUM]!,
    entries[at + ZERO_COUNT]!,
    entries[at + MIN]!,
    entries[at + MAX]!
  );
}

/**
 * The buckets of the entries at `ats` of `arrays` (one array per entry, oldest first) summed,
 * with the scalars of `summary`, at `summary`'s scale.
 */
export function aggregateOf(
  summary: Readonly<HistogramSummary>,
  arrays: readonly SlotEntries[],
  ats: readonly number[]
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
  for (let i = 0; i < ats.length; i++) {
    const entries = arrays[i]!;
    const at = ats[i]!;
    addEntryToMaps(
      aggregate,
      entries,
      at,
      entries[at + SCALE]! - aggregate.scale
    );
  }
  return aggregate;
}

/** Where {@link mergedEntry} writes the point it merges: read at once, then written over. */
let pointScratch = new Float64Array(256);

/**
 * The entry at `a` in `entries` and the point packed in `packed` at `from` (of the same slot) as
 * one, at the coarser of their scales: what {@link writeMerged} writes. The point, as an entry,
 * is valid until the next call.
 */
export function mergedEntry(
  entries: SlotEntries,
  a: number,
  packed: Float64Array,
  from: number
): MergedEntry {
  const length = packedEntryLength(packed, from);
  if (pointScratch.length < length) pointScratch = new Float64Array(2 * length);
  const point = pointScratch;
  writeEntry(point, 0, entries[a + SLOT]!, packed, from, NO_SLOT, 0);
  const aggregate = emptyAggregate();
  addEntry(aggregate, entries, a);
  addEntry(aggregate, point, 0);
  return {
    point,
    aggregate,
    sum: entries[a + SUM]! + point[SUM]!,
    length: BUCKETS + 2 * (aggregate.positive.size + aggregate.negative.size),
  };
}

/** Two entries of one slot merged, to be written as one. */
export interface MergedEntry {
  /** The point alone, as an entry at 0, until the next merge. */
  readonly point: SlotEntries;
  readonly aggregate: HistogramAggregate;
  /** The two sums added, in the order they came. */
  readonly sum: number;
  /** How many numbers the entry takes. */
  readonly length: number;
}

/**
 * Writes `merged` as the entry of `slot` at `at`, after the entry at `prevSlot, prevAt`;
 * `entries` has room for its length there.
 */
export function writeMerged(
  entries: SlotEntries,
  at: number,
  slot: number,
  merged: MergedEntry,
  prevSlot: number,
  prevAt: number
): void {
  const { aggregate } = merged;
  writeHeader(
    entries,
    at,
    slot,
    aggregate.scale,
    aggregate.count,
    merged.sum,
    aggregate.min,
    aggregate.max,
    aggregate.zeroCount,
    aggregate.positive.size,
    aggregate.negative.size,
    prevSlot,
    prevAt
  );
  writeBuckets(
    entries,
    writeBuckets(entries, at + BUCKETS, aggregate.positive),
    aggregate.negative
  );
}
