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
 * The slots of a windowed histogram, packed one after another into one array of numbers (the
 * {@link SlotEntries} of a window), rather than an array per slot or an object holding bucket
 * arrays: every histogram series holds a window, so their size and their number of objects are
 * much of the reader's heap and of what each tick's expiry reads. One slot's entry, from `at`:
 * `[slot, scale, count, sum, min, max, zeroCount, negativeAt, length, …positive, …negative]`,
 * where `negativeAt` and `length` count from the entry's start and the non-empty buckets are
 * `index, count` pairs, positive ones from {@link BUCKETS} up to `negativeAt`, negative ones
 * from there to `length`. An entry is only ever added to and subtracted from an aggregate whole.
 */
export type SlotEntries = number[];
export const SLOT = 0;
export const SCALE = 1;
export const COUNT = 2;
export const SUM = 3;
export const MIN = 4;
export const MAX = 5;
export const ZERO_COUNT = 6;
const NEGATIVE_AT = 7;
/** Where the entry's numbers end, from its start: where the next entry begins. */
const LENGTH = 8;
const BUCKETS = 9;

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

/**
 * Where the entry after the one at `at` starts. As a small integer: a position read from the
 * array of numbers would otherwise make the fields that keep it numbers of their own on the heap.
 */
export function nextEntry(entries: SlotEntries, at: number): number {
  return (at + entries[at + LENGTH]!) | 0;
}

/** Appends an entry with its scalars set; its buckets follow, written by the caller. */
function pushHeader(
  entries: SlotEntries,
  slot: number,
  scale: number,
  count: number,
  sum: number,
  min: number,
  max: number,
  zeroCount: number,
  positivePairs: number,
  negativePairs: number
): void {
  entries.push(
    slot,
    scale,
    count,
    sum,
    min,
    max,
    zeroCount,
    BUCKETS + 2 * positivePairs,
    BUCKETS + 2 * (positivePairs + negativePairs)
  );
}

function pushBuckets(entries: SlotEntries, buckets: Map<number, number>): void {
  for (const [index, count] of buckets) entries.push(index, count);
}

/**
 * Appends the histogram point packed in `packed` at `from` (see `CapturedCollection.ts`) as
 * the entry of `slot`; returns where it starts.
 */
export function appendEntry(
  entries: SlotEntries,
  slot: number,
  packed: Float64Array,
  from: number
): number {
  const positivePairs = packed[from + H_POSITIVE_PAIRS]!;
  const pairs = positivePairs + packed[from + H_NEGATIVE_PAIRS]!;
  const at = entries.length;
  pushHeader(
    entries,
    slot,
    packed[from + H_SCALE]!,
    packed[from + H_COUNT]!,
    packed[from + H_SUM]!,
    packed[from + H_MIN]!,
    packed[from + H_MAX]!,
    packed[from + H_ZERO_COUNT]!,
    positivePairs,
    pairs - positivePairs
  );
  const buckets = from + H_BUCKETS;
  for (let i = 0; i < 2 * pairs; i++) entries.push(packed[buckets + i]!);
  return at;
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

/** The buckets of the entries from `from` to `to` summed, with the scalars of `summary`, at `summary`'s scale. */
export function aggregateOf(
  summary: Readonly<HistogramSummary>,
  entries: SlotEntries,
  from: number,
  to: number
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
  for (let at = from; at < to; at = nextEntry(entries, at))
    addEntryToMaps(
      aggregate,
      entries,
      at,
      entries[at + SCALE]! - aggregate.scale
    );
  return aggregate;
}

/**
 * Appends to `target` the entries at `a` and `b` (of the same slot) as one, at the coarser of
 * their scales.
 */
export function appendMerged(
  target: SlotEntries,
  entries: SlotEntries,
  a: number,
  b: number
): void {
  const merged = emptyAggregate();
  addEntry(merged, entries, a);
  addEntry(merged, entries, b);
  pushHeader(
    target,
    entries[a + SLOT]!,
    merged.scale,
    merged.count,
    entries[a + SUM]! + entries[b + SUM]!,
    merged.min,
    merged.max,
    merged.zeroCount,
    merged.positive.size,
    merged.negative.size
  );
  pushBuckets(target, merged.positive);
  pushBuckets(target, merged.negative);
}
