/**
 * `compare`: the legacy API and the Prometheus exposition of one server, read together, metric by
 * metric and key by key.
 */
import { DEFAULT_READER_OPTIONS } from '../reader/options';
import {
  agreementOf,
  hostTypeSegment,
  legacyNameKey,
  PROMETHEUS_TYPES,
  prometheusSeries,
  quantileOf,
  type PrometheusSeries,
} from '../reader/naming';
import type { Family } from './exposition';
import {
  fetchExposition,
  fetchListing,
  fetchMetricsMap,
  legacyBase,
  type LegacyMetricValue,
} from './fetchServer';
import { kindOfValue, seriesIndex } from './migrationPlan';
import { MigrationError } from './MigrationError';

/**
 * The largest relative error of a legacy percentile at the default 160 buckets (scale 3, values
 * spanning up to 10⁶× in one slot): 2^(2^-4) − 1.
 */
export const PERCENTILE_RELATIVE_ERROR = 0.044;

/** How late a reader's tick may run on a busy machine, beyond its slot. */
const TICK_MARGIN_MS = 250;

/** How often a disagreement is measured again before it counts: values move while they are read. */
export const COMPARE_ROUNDS = 3;

/**
 * How often the exposition is read while the legacy snapshot's slot runs. A gauge (an up-down
 * counter, an observable gauge) moves both ways: two reads one slot apart do not bound the value
 * it had at the snapshot's moment, two reads this close together do.
 */
export const SAMPLE_INTERVAL_MS = 50;

/** What each kind of key must satisfy, as `compare` states it. */
export const TOLERANCES: Readonly<Record<string, string>> = Object.freeze({
  exact: `count, value: equal to the exposition at a moment within the legacy snapshot's slot: between two consecutive reads of the exposition, read every ${SAMPLE_INTERVAL_MS} ms from before the slot began until after the legacy API was read (a gauge moves both ways: it is taken to move in one direction between two reads)`,
  window:
    'one, n: equal to the total while nothing has left the legacy window (count = one), otherwise at most the total; mean: within 1 (integer histograms are truncated) of _sum/_count while the window holds every value',
  bucket: `percentiles: within the exposition's explicit bucket that holds the same rank, widened by ${(PERCENTILE_RELATIVE_ERROR * 100).toFixed(1)} % (the legacy estimate's error at 160 buckets), while the window holds every value`,
  none: 'min, max, ms_since_reset: no Prometheus series has them; not compared',
});

/** Options of {@link compareServers}. */
export interface CompareOptions {
  /** The legacy API's base, e.g. `http://127.0.0.1:8088/api`. */
  readonly legacy: string;
  /** The server's Prometheus endpoint, e.g. `http://127.0.0.1:9464/metrics`. */
  readonly prometheus: string;
  /** Host types (or hosts) to compare. @default every one the listing names, and the global metrics */
  readonly hostTypes?: readonly string[];
  /** The legacy reader's slot. @default 1000 */
  readonly slotMs?: number;
}

/** One compared key. */
export interface ComparedKey {
  readonly metric: string;
  readonly key: string;
  readonly legacy: number;
  /**
   * The exposition's value: for exact keys the read nearest to the legacy value, otherwise the
   * last read; undefined when no series has it.
   */
  readonly prometheus: number | undefined;
  readonly agree: boolean | 'not compared';
  readonly why?: string;
  /** For a percentile: the bounds of the exposition's buckets that hold its rank. */
  readonly range?: readonly [number, number];
}

/** The keys of one host type (or `global`). */
export interface ComparedGroup {
  readonly group: string;
  readonly keys: readonly ComparedKey[];
}

/** The whole comparison. */
export interface Comparison {
  readonly legacy: string;
  readonly prometheus: string;
  readonly tolerances: Readonly<Record<string, string>>;
  readonly groups: readonly ComparedGroup[];
  readonly disagreements: number;
}

type Placement =
  { label: 'host_type' | 'host'; value: string } | { label: 'global' };

function matches(
  labels: Readonly<Record<string, string>>,
  series: PrometheusSeries,
  placement: Placement
): boolean {
  for (const [k, v] of Object.entries(series.labels))
    if (labels[k] !== v) return false;
  for (const k of series.absentLabels ?? [])
    if ((labels[k] ?? '') !== '') return false;
  if (placement.label === 'global')
    return (labels.host_type ?? '') === '' && (labels.host ?? '') === '';
  if (placement.label === 'host_type')
    return labels.host_type === placement.value;
  // The host variant places a series without a host under its host type, as the reader does.
  const host = labels.host ?? '';
  return (
    host === placement.value ||
    (host === '' && labels.host_type === placement.value)
  );
}

/** The sum of a series' samples (`suffix`: '', `_count`, `_sum`) under a placement. */
function sampleSum(
  families: Map<string, Family>,
  series: PrometheusSeries,
  suffix: string,
  placement: Placement
): number | undefined {
  const family = families.get(series.family);
  let sum: number | undefined;
  for (const sample of family?.samples ?? [])
    if (
      sample.name === `${series.family}${suffix}` &&
      matches(sample.labels, series, placement)
    )
      sum = (sum ?? 0) + sample.value;
  return sum;
}

/** Cumulative bucket counts by upper bound, summed over a placement's series. */
function buckets(
  families: Map<string, Family>,
  series: PrometheusSeries,
  placement: Placement
): [number, number][] {
  const byLe = new Map<number, number>();
  for (const sample of families.get(series.family)?.samples ?? [])
    if (
      sample.name === `${series.family}_bucket` &&
      matches(sample.labels, series, placement)
    ) {
      const le =
        sample.labels.le === '+Inf' ? Infinity : Number(sample.labels.le);
      byLe.set(le, (byLe.get(le) ?? 0) + sample.value);
    }
  return [...byLe].sort((a, b) => a[0] - b[0]);
}

/** The bounds of the bucket that holds rank `rank` (1-based). */
function bucketOf(
  cumulative: [number, number][],
  rank: number
): [number, number] {
  let lower = 0;
  for (const [le, count] of cumulative) {
    if (count >= rank) return [lower, le];
    lower = le;
  }
  return [lower, Infinity];
}

interface Reading {
  /**
   * The expositions in the order they were read: the first before the legacy snapshot's slot
   * began, then one every {@link SAMPLE_INTERVAL_MS}, the last after the legacy API was read.
   */
  readonly expositions: readonly Map<string, Family>[];
  readonly maps: Map<string, Map<string, LegacyMetricValue>>;
}

/**
 * Whether `value` is one the series had at a moment of the reading: between two consecutive
 * reads (`seen`, in order), where it is taken to move in one direction. For a series that only
 * grows this is the range from the first read to the last; a gauge that went down and up again
 * is held to the reads close to the snapshot's moment.
 */
function between(seen: readonly number[], value: number): boolean {
  if (seen.length === 1) return seen[0] === value;
  for (let i = 1; i < seen.length; i++) {
    const a = seen[i - 1]!;
    const b = seen[i]!;
    if (Math.min(a, b) <= value && value <= Math.max(a, b)) return true;
  }
  return false;
}

/** The read nearest to `value`; the later one of two as near. */
function nearest(seen: readonly number[], value: number): number {
  let best = seen[seen.length - 1]!;
  for (const v of seen)
    if (Math.abs(v - value) < Math.abs(best - value)) best = v;
  return best;
}

const sleep = (ms: number): Promise<void> =>
  new Promise(resolve => setTimeout(resolve, ms));

function compareKey(
  reading: Reading,
  series: PrometheusSeries,
  placement: Placement,
  value: LegacyMetricValue,
  key: string
): Omit<ComparedKey, 'metric' | 'key'> {
  const legacy = value[key] as number;
  const agreement = agreementOf(key);
  if (agreement === 'none')
    return { legacy, prometheus: undefined, agree: 'not compared' };
  const sum = (families: Map<string, Family>, suffix: string): number =>
    sampleSum(families, series, suffix, placement) ?? 0;
  const before = reading.expositions[0]!;
  const after = reading.expositions[reading.expositions.length - 1]!;
  const within = (
    suffix: string,
    v: number
  ): { prometheus: number; agree: boolean } => {
    const seen = reading.expositions.map(families => sum(families, suffix));
    return { prometheus: nearest(seen, v), agree: between(seen, v) };
  };
  if (agreement === 'exact') return { legacy, ...within('', legacy) };
  const totalSuffix = series.type === 'histogram' ? '_count' : '';
  // Whether the legacy window still holds every value since start: a spiral says so itself
  // (one = count); a histogram's n is then the exposition's _count.
  const windowed = series.type === 'histogram' ? (value.n as number) : legacy;
  const whole =
    series.type === 'histogram'
      ? within(totalSuffix, windowed).agree
      : value.one === value.count;
  if (key === 'one' || key === 'n') {
    if (whole) return { legacy, ...within(totalSuffix, legacy) };
    const total = sum(after, totalSuffix);
    return {
      legacy,
      prometheus: total,
      agree: legacy >= 0 && legacy <= total,
      why: 'values have left the window: compared with the total as an upper bound',
    };
  }
  if (!whole)
    return {
      legacy,
      prometheus: undefined,
      agree: 'not compared',
      why: 'values have left the window',
    };
  // The legacy window holds every value of `before` and some of those that came until `after`.
  const n = value.n as number;
  const added = sum(after, '_count') - n;
  if (key === 'mean') {
    const legacySum = n * legacy;
    const low = sum(before, '_sum') - n;
    const high = sum(after, '_sum');
    return {
      legacy,
      prometheus: n === 0 ? 0 : sum(after, '_sum') / sum(after, '_count'),
      agree:
        n === 0
          ? legacy === 0
          : legacySum >= low && legacySum <= high + n * 1e-9,
      why: 'n × mean must lie between the _sum read before and after it (less n for truncation)',
    };
  }
  if (n === 0) return { legacy, prometheus: 0, agree: legacy === 0 };
  const q = quantileOf(key)!;
  const cumulative = buckets(after, series, placement);
  // The k-th smallest legacy value is at least the k-th smallest of `after` and at most its
  // (k + added)-th; one rank either side for the estimate's rank convention.
  const rank = q * n;
  const [low] = bucketOf(cumulative, Math.max(1, Math.floor(rank) - 1));
  const [, high] = bucketOf(cumulative, Math.ceil(rank) + 1 + added);
  return {
    legacy,
    prometheus: high,
    range: [low, high],
    agree:
      legacy >= low * (1 - PERCENTILE_RELATIVE_ERROR) &&
      legacy <= high * (1 + PERCENTILE_RELATIVE_ERROR),
    why: `the bucket bounds for that rank are ${low} to ${high}`,
  };
}

/**
 * Reads the legacy API and the exposition together and compares every key of every metric, per
 * host type (and the global metrics). A disagreement is measured again, up to
 * {@link COMPARE_ROUNDS} times, before it counts.
 */
export async function compareServers(
  options: CompareOptions
): Promise<Comparison> {
  const slotMs = options.slotMs ?? DEFAULT_READER_OPTIONS.slotMs;
  const base = legacyBase(options.legacy);
  const listing = await fetchListing(base);
  let groups: string[];
  if (options.hostTypes !== undefined && options.hostTypes.length > 0) {
    groups = options.hostTypes.map(name => {
      const raw =
        listing.groups.find(g => g === name) ??
        listing.groups.find(g => hostTypeSegment(g) === name);
      if (raw === undefined)
        throw new MigrationError(
          `--host-type: found ${JSON.stringify(name)}, expected one of ${listing.groups.map(g => JSON.stringify(g)).join(', ')}`
        );
      return raw;
    });
  } else groups = [...listing.groups, 'global'];
  const path = (group: string): string =>
    group === 'global' && options.hostTypes === undefined
      ? `${base}/metrics/global`
      : `${base}/metrics/${listing.variant}/${encodeURIComponent(group)}`;
  const placementOf = (group: string): Placement =>
    group === 'global' && options.hostTypes === undefined
      ? { label: 'global' }
      : { label: listing.variant, value: group };

  const read = async (): Promise<Reading> => {
    const expositions = [await fetchExposition(options.prometheus)];
    // The exposition is read all along, so that a gauge's moves are seen close to the moment of
    // the legacy snapshot, whenever in the slot it was taken.
    let sampling = true;
    const sampler = (async () => {
      let started = Date.now();
      for (;;) {
        await sleep(Math.max(0, started + SAMPLE_INTERVAL_MS - Date.now()));
        if (!sampling) return;
        started = Date.now();
        expositions.push(await fetchExposition(options.prometheus));
      }
    })().then(
      () => undefined,
      (error: unknown) => ({ error })
    );
    const maps = new Map<string, Map<string, LegacyMetricValue>>();
    let failed: { error: unknown } | undefined;
    try {
      // The legacy API serves the snapshot of the last slot: wait one, so that it was taken after
      // the first read, and a little more for a tick that runs late on a busy machine.
      await sleep(slotMs + TICK_MARGIN_MS);
      for (const group of groups)
        maps.set(group, (await fetchMetricsMap(path(group))) ?? new Map());
    } finally {
      sampling = false;
      failed = await sampler;
    }
    if (failed !== undefined) throw failed.error;
    // The last read starts after the legacy API was read.
    expositions.push(await fetchExposition(options.prometheus));
    return { expositions, maps };
  };

  let pending: Set<string> | undefined;
  const results = new Map<string, ComparedKey>();
  for (
    let round = 0;
    round < COMPARE_ROUNDS && (pending === undefined || pending.size > 0);
    round++
  ) {
    const reading = await read();
    const index = seriesIndex(
      reading.expositions[reading.expositions.length - 1]!
    );
    const next = new Set<string>();
    for (const group of groups) {
      for (const [metric, value] of reading.maps.get(group)!) {
        const kind = kindOfValue(value);
        if (kind === undefined) continue;
        const series =
          index
            .get(legacyNameKey(metric))
            ?.find(s => s.type === PROMETHEUS_TYPES[kind]) ??
          prometheusSeries(metric, kind);
        for (const key of Object.keys(value)) {
          if (typeof value[key] !== 'number') continue;
          const id = JSON.stringify([group, metric, key]);
          if (pending !== undefined && !pending.has(id)) continue;
          const result = {
            metric,
            key,
            ...compareKey(reading, series, placementOf(group), value, key),
          };
          results.set(id, result);
          if (result.agree === false) next.add(id);
        }
      }
    }
    pending = next;
  }
  const byGroup = new Map<string, ComparedKey[]>(groups.map(g => [g, []]));
  for (const [id, result] of results)
    byGroup.get((JSON.parse(id) as string[])[0]!)!.push(result);
  const compared = groups.map(group => ({
    group,
    keys: byGroup
      .get(group)!
      .sort((a, b) =>
        a.metric < b.metric
          ? -1
          : a.metric > b.metric
            ? 1
            : a.key < b.key
              ? -1
              : a.key > b.key
                ? 1
                : 0
      ),
  }));
  return {
    legacy: base,
    prometheus: options.prometheus,
    tolerances: TOLERANCES,
    groups: compared,
    disagreements: compared.reduce(
      (n, g) => n + g.keys.filter(k => k.agree === false).length,
      0
    ),
  };
}

/** The comparison as text: the tolerances, then a table per host type. */
export function comparisonText(comparison: Comparison): string[] {
  const lines = [
    `legacy API ${comparison.legacy} and Prometheus ${comparison.prometheus}`,
    'tolerances:',
    ...Object.values(comparison.tolerances).map(t => `  ${t}`),
  ];
  for (const group of comparison.groups) {
    lines.push(
      '',
      `${group.group === 'global' ? 'global metrics' : `host type "${group.group}"`}:`
    );
    const rows = group.keys.map(k => [
      `${k.metric}/${k.key}`,
      String(k.legacy),
      k.range !== undefined
        ? `${k.range[0]}..${k.range[1]}`
        : k.prometheus === undefined
          ? '-'
          : String(k.prometheus),
      k.agree === true
        ? 'agree'
        : k.agree === false
          ? `DISAGREE${k.why === undefined ? '' : ` (${k.why})`}`
          : 'not compared',
    ]);
    const header = ['metric/key', 'legacy', 'prometheus', ''];
    const widths = header.map((h, i) =>
      Math.max(h.length, ...rows.map(r => r[i]!.length))
    );
    for (const row of [header, ...rows])
      lines.push(
        `  ${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}`.trimEnd()
      );
  }
  lines.push(
    '',
    comparison.disagreements === 0
      ? 'all compared keys agree'
      : `${comparison.disagreements} key${comparison.disagreements === 1 ? '' : 's'} disagree: ${comparison.groups
          .flatMap(g =>
            g.keys
              .filter(k => k.agree === false)
              .map(k => `${g.group}: ${k.metric}/${k.key}`)
          )
          .join(', ')}`
  );
  return lines;
}
