import type { ExponentialHistogram } from '@opentelemetry/sdk-metrics';
import {
  HISTOGRAM_FIELDS,
  HISTOGRAM_QUANTILES,
  zeroValue,
  type LegacyValue,
} from '../snapshot/legacyValues';

/**
 * A histogram over a sliding window of slots, fed by the SDK's base-2 exponential histogram
 * deltas (one per slot). It keeps a running aggregate at the coarsest scale seen in the window,
 * so adding a slot and expiring one cost only the buckets those slots touched.
 *
 * A value v > 0 falls into bucket i at scale s when base^i < v <= base^(i+1), base = 2^(2^-s)
 * (OpenTelemetry data model). Percentiles are estimated at the geometric centre of their
 * bucket and clamped to the exact min and max, so the relative error is at most
 * 2^(2^-(s+1)) - 1. The SDK's histograms take no negative values; the aggregate still orders
 * them correctly should a producer send some.
 */

/** The SDK's largest exponential histogram scale. */
export const MAX_SCALE = 20;

/** What a window, or several windows merged, hold besides their buckets. */
export interface HistogramSummary {
  scale: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  zeroCount: number;
}

/** The merged buckets of a window, or of several windows (`/all`). */
export interface HistogramAggregate extends HistogramSummary {
  positive: Map<number, number>;
  negative: Map<number, number>;
}

/**
 * One slot's data, packed into one array of numbers rather than an object holding bucket
 * arrays: a window holds an entry per slot with data for every histogram series, so their
 * size is much of the reader's heap. Layout:
 * `[slot, scale, count, sum, min, max, zeroCount, negativeAt, …positive, …negative]`, where the
 * non-empty buckets are `index, count` pairs, positive ones from {@link BUCKETS} up to
 * `negativeAt`, negative ones from there to the end. An entry is only ever added to and
 * subtracted from an aggregate whole.
 */
type SlotEntry = number[];
const SLOT = 0;
const SCALE = 1;
const COUNT = 2;
const SUM = 3;
const MIN = 4;
const MAX = 5;
const ZERO_COUNT = 6;
const NEGATIVE_AT = 7;
const BUCKETS = 8;

function emptySummary(): HistogramSummary {
  return {
    scale: MAX_SCALE,
    count: 0,
    sum: 0,
    min: Infinity,
    max: -Infinity,
    zeroCount: 0,
  };
}

export function emptyAggregate(): HistogramAggregate {
  return { ...emptySummary(), positive: new Map(), negative: new Map() };
}

function addBuckets(
  target: Map<number, number>,
  source: Map<number, number>,
  shift: number,
  sign: 1 | -1
): void {
  for (const [index, count] of source) {
    const key = index >> shift;
    const next = (target.get(key) ?? 0) + sign * count;
    if (next > 0) target.set(key, next);
    else target.delete(key);
  }
}

function downscale(
  buckets: Map<number, number>,
  shift: number
): Map<number, number> {
  if (shift === 0) return buckets;
  const result = new Map<number, number>();
  addBuckets(result, buckets, shift, 1);
  return result;
}

function nonEmpty(counts: readonly number[]): number {
  let n = 0;
  for (let i = 0; i < counts.length; i++) if (counts[i]! > 0) n++;
  return n;
}

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

/** Writes the non-empty buckets of the SDK's dense counts as pairs from `at`; returns where they end. */
function writeCounts(
  entry: SlotEntry,
  at: number,
  offset: number,
  counts: readonly number[]
): number {
  for (let i = 0; i < counts.length; i++) {
    const count = counts[i]!;
    if (count > 0) {
      entry[at++] = offset + i;
      entry[at++] = count;
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

/** Adds (or, with sign -1, subtracts) the bucket pairs of `entry` in [from, to) into `target`, brought down by `shift`. */
function addPairs(
  target: Map<number, number>,
  entry: SlotEntry,
  from: number,
  to: number,
  shift: number,
  sign: 1 | -1
): void {
  for (let i = from; i < to; i += 2) {
    const key = entry[i]! >> shift;
    const next = (target.get(key) ?? 0) + sign * entry[i + 1]!;
    if (next > 0) target.set(key, next);
    else target.delete(key);
  }
}

/** Brings `target` down to `scale` (never up: detail once merged away is gone). */
function rescale(target: HistogramAggregate, scale: number): void {
  if (scale >= target.scale) return;
  const shift = target.scale - scale;
  target.positive = downscale(target.positive, shift);
  target.negative = downscale(target.negative, shift);
  target.scale = scale;
}

/** Adds `source` into `target`, at the coarser of their scales. */
export function mergeInto(
  target: HistogramAggregate,
  source: Readonly<HistogramAggregate>
): void {
  if (source.count === 0) return;
  if (
    target.count === 0 &&
    target.positive.size === 0 &&
    target.negative.size === 0
  )
    target.scale = source.scale;
  rescale(target, source.scale);
  const shift = source.scale - target.scale;
  addBuckets(target.positive, source.positive, shift, 1);
  addBuckets(target.negative, source.negative, shift, 1);
  target.count += source.count;
  target.sum += source.sum;
  target.zeroCount += source.zeroCount;
  target.min = Math.min(target.min, source.min);
  target.max = Math.max(target.max, source.max);
}

/** Adds (or, with sign -1, subtracts) the buckets of `entry` into `target`, brought down to `target`'s scale. */
function addEntryBuckets(
  target: HistogramAggregate,
  entry: SlotEntry,
  sign: 1 | -1
): void {
  const shift = entry[SCALE]! - target.scale;
  const negativeAt = entry[NEGATIVE_AT]!;
  addPairs(target.positive, entry, BUCKETS, negativeAt, shift, sign);
  addPairs(target.negative, entry, negativeAt, entry.length, shift, sign);
}

/** Adds a slot's data into `target`, at the coarser of their scales. */
function addEntry(target: HistogramAggregate, entry: SlotEntry): void {
  if (
    target.count === 0 &&
    target.positive.size === 0 &&
    target.negative.size === 0
  )
    target.scale = entry[SCALE]!;
  rescale(target, entry[SCALE]!);
  addEntryBuckets(target, entry, 1);
  target.count += entry[COUNT]!;
  target.sum += entry[SUM]!;
  target.zeroCount += entry[ZERO_COUNT]!;
  target.min = Math.min(target.min, entry[MIN]!);
  target.max = Math.max(target.max, entry[MAX]!);
}

/** Takes a slot's data out of `target`, which holds it at `target`'s scale or a coarser one. */
function subtractEntry(target: HistogramAggregate, entry: SlotEntry): void {
  addEntryBuckets(target, entry, -1);
  target.count -= entry[COUNT]!;
  target.sum -= entry[SUM]!;
  target.zeroCount -= entry[ZERO_COUNT]!;
}

/** Two entries of the same slot as one, at the coarser of their scales. */
function mergeEntries(a: SlotEntry, b: SlotEntry): SlotEntry {
  const merged: HistogramAggregate = {
    ...emptyAggregate(),
    scale: Math.min(a[SCALE]!, b[SCALE]!),
  };
  addEntryBuckets(merged, a, 1);
  addEntryBuckets(merged, b, 1);
  const entry = newEntry(
    a[SLOT]!,
    merged.scale,
    a[COUNT]! + b[COUNT]!,
    a[SUM]! + b[SUM]!,
    Math.min(a[MIN]!, b[MIN]!),
    Math.max(a[MAX]!, b[MAX]!),
    a[ZERO_COUNT]! + b[ZERO_COUNT]!,
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

export class WindowedHistogram {
  /** Slots with data, oldest first. */
  private readonly _entries: SlotEntry[] = [];
  /**
   * The window's scalars, kept as slots come and go. Its scale is the coarsest of the slots
   * added since the window was last empty (detail once merged away is gone, as in a running
   * aggregate). The buckets are not kept here: {@link aggregate} sums them from the slots when
   * asked, which is rare (a request for this series), while every histogram series holds a window.
   */
  private readonly _summary: HistogramSummary = emptySummary();

  /**
   * @param _shared An aggregate that several windows feed (a name's histograms across host
   *   types): every slot added here is added there too, and taken out again when it expires.
   *   Its buckets are the sum of those windows' buckets, at a scale no finer than any of theirs.
   */
  constructor(private readonly _shared?: HistogramAggregate) {}

  /** The window's count, sum, min, max and scale, without its buckets. Read-only for callers. */
  get summary(): Readonly<HistogramSummary> {
    return this._summary;
  }

  /** The window's merged data, buckets included, at the window's scale. A new object on every call. */
  get aggregate(): Readonly<HistogramAggregate> {
    const aggregate: HistogramAggregate = {
      ...this._summary,
      positive: new Map(),
      negative: new Map(),
    };
    for (const entry of this._entries) addEntryBuckets(aggregate, entry, 1);
    return aggregate;
  }

  /** Oldest slot still holding data, or undefined when the window is empty. */
  get oldestSlot(): number | undefined {
    return this._entries[0]?.[SLOT];
  }

  /**
   * Adds one delta data point of the SDK to `slot`. Returns true when the slot had no data
   * yet, i.e. when the caller must schedule its expiry.
   */
  add(slot: number, point: ExponentialHistogram): boolean {
    if (point.count === 0) return false;
    const { positive, negative } = point;
    const entry = newEntry(
      slot,
      point.scale,
      point.count,
      point.sum ?? 0,
      point.min ?? -Infinity,
      point.max ?? Infinity,
      point.zeroCount,
      nonEmpty(positive.bucketCounts),
      nonEmpty(negative.bucketCounts)
    );
    writeCounts(
      entry,
      writeCounts(entry, BUCKETS, positive.offset, positive.bucketCounts),
      negative.offset,
      negative.bucketCounts
    );
    const summary = this._summary;
    summary.scale =
      this._entries.length === 0
        ? entry[SCALE]!
        : Math.min(summary.scale, entry[SCALE]!);
    summary.count += entry[COUNT]!;
    summary.sum += entry[SUM]!;
    summary.zeroCount += entry[ZERO_COUNT]!;
    summary.min = Math.min(summary.min, entry[MIN]!);
    summary.max = Math.max(summary.max, entry[MAX]!);
    if (this._shared !== undefined) addEntry(this._shared, entry);
    const lastAt = this._entries.length - 1;
    if (lastAt >= 0 && this._entries[lastAt]![SLOT] === slot) {
      this._entries[lastAt] = mergeEntries(this._entries[lastAt]!, entry);
      return false;
    }
    this._entries.push(entry);
    return true;
  }

  /** Drops the slots up to and including `slot`. Returns true when anything was dropped. */
  expireThrough(slot: number): boolean {
    let dropped = 0;
    const summary = this._summary;
    const shared = this._shared;
    while (
      dropped < this._entries.length &&
      this._entries[dropped]![SLOT]! <= slot
    ) {
      const entry = this._entries[dropped]!;
      summary.count -= entry[COUNT]!;
      summary.sum -= entry[SUM]!;
      summary.zeroCount -= entry[ZERO_COUNT]!;
      if (shared !== undefined) subtractEntry(shared, entry);
      dropped++;
    }
    if (dropped === 0) return false;
    // Once every window that fed it is empty, the shared aggregate too may regain full resolution.
    if (shared !== undefined && shared.count === 0)
      Object.assign(shared, emptyAggregate());
    this._entries.copyWithin(0, dropped).length -= dropped; // in place: no array of what left
    if (this._entries.length === 0) {
      // Start afresh so that the next data regains full resolution.
      Object.assign(summary, emptySummary());
      return true;
    }
    let min = Infinity;
    let max = -Infinity;
    let sum = 0;
    // Summed afresh, not by subtraction: a slot whose sum overflowed to Infinity would leave NaN.
    for (const entry of this._entries) {
      if (entry[MIN]! < min) min = entry[MIN]!;
      if (entry[MAX]! > max) max = entry[MAX]!;
      sum += entry[SUM]!;
    }
    summary.min = min;
    summary.max = max;
    summary.sum = sum;
    return true;
  }

  /** The window as it is now, as an immutable record that later changes leave alone. */
  record(): HistogramRecord {
    const entries = this._entries;
    if (entries.length === 0) return EMPTY_HISTOGRAM_RECORD;
    // The sum of the slots' sums, oldest first, whatever order they arrived and merged in.
    let sum = 0;
    for (const entry of entries) sum += entry[SUM]!;
    return new HistogramRecord({ ...this._summary, sum }, entries.slice());
  }
}

/**
 * A window's content at one moment, as a snapshot serves it: shared by reference, never
 * changed. Its legacy value (which sorts the buckets) is computed on first request and kept.
 */
export class HistogramRecord {
  private _value: LegacyValue | undefined;

  constructor(
    /** The window's count, sum, min, max and scale. */
    readonly summary: Readonly<HistogramSummary>,
    private readonly _entries: readonly SlotEntry[]
  ) {}

  /** The window's merged data, buckets included, at the window's scale. A new object on every call. */
  get aggregate(): HistogramAggregate {
    const aggregate: HistogramAggregate = {
      ...this.summary,
      positive: new Map(),
      negative: new Map(),
    };
    for (const entry of this._entries) addEntryBuckets(aggregate, entry, 1);
    return aggregate;
  }

  /** The legacy datapoints of the window. */
  value(integer: boolean): LegacyValue {
    // Kept per integer flag: a DOUBLE instrument joining the name turns it off.
    if (this._value?.integer !== integer)
      this._value = histogramValue(this.aggregate, integer);
    return this._value;
  }
}

/** The record of an empty window. */
export const EMPTY_HISTOGRAM_RECORD = new HistogramRecord(emptySummary(), []);

/** The legacy histogram datapoints of an aggregate: all zeros when it is empty. */
export function histogramValue(
  aggregate: Readonly<HistogramSummary> | Readonly<HistogramAggregate>,
  integer: boolean
): LegacyValue {
  const n = aggregate.count;
  if (n === 0) return zeroValue('histogram', 0);
  return {
    names: HISTOGRAM_FIELDS,
    numbers: [
      n,
      aggregate.sum / n,
      aggregate.min,
      aggregate.max,
      ...quantiles(
        aggregate as Readonly<HistogramAggregate>,
        HISTOGRAM_QUANTILES
      ),
    ],
    integer,
  };
}

function bucketCentre(index: number, scale: number): number {
  return Math.pow(2, (index + 0.5) * Math.pow(2, -scale));
}

/**
 * Estimates the given quantiles (ascending, in [0, 1]) of an aggregate: the value of rank
 * ceil(q·n) (nearest rank), at the geometric centre of its bucket, clamped to [min, max].
 */
export function quantiles(
  aggregate: Readonly<HistogramAggregate>,
  qs: readonly number[]
): number[] {
  const n = aggregate.count;
  if (n === 0) return qs.map(() => 0);
  const negative = [...aggregate.negative.keys()].sort((a, b) => b - a);
  const positive = [...aggregate.positive.keys()].sort((a, b) => a - b);
  const result: number[] = [];
  let q = 0;
  let seen = 0;
  const settle = (value: number, upTo: number): void => {
    while (q < qs.length) {
      const rank = Math.max(1, Math.ceil(qs[q]! * n));
      if (rank > upTo) return;
      // The lowest and highest ranks are known exactly.
      const estimate =
        rank === 1 ? aggregate.min : rank === n ? aggregate.max : value;
      result.push(Math.min(aggregate.max, Math.max(aggregate.min, estimate)));
      q++;
    }
  };
  for (const index of negative) {
    seen += aggregate.negative.get(index)!;
    settle(-bucketCentre(index, aggregate.scale), seen);
  }
  seen += aggregate.zeroCount;
  settle(0, seen);
  for (const index of positive) {
    seen += aggregate.positive.get(index)!;
    settle(bucketCentre(index, aggregate.scale), seen);
  }
  // Rounding in the counts can leave the top ranks unreached: they are the maximum.
  while (result.length < qs.length) result.push(aggregate.max);
  return result;
}
