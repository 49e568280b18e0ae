/**
 * The PromQL that gives each legacy key from the exporter's series, per host type (or host) as
 * a legacy URL addresses it, and how closely it agrees with the legacy number.
 */
import {
  HOST_ATTRIBUTE,
  HOST_TYPE_ATTRIBUTE,
  type Variant,
} from '../attributes';
import {
  HISTOGRAM_FIELDS,
  HISTOGRAM_QUANTILES,
  type MetricKind,
} from '../snapshot/legacyValues';
import type { Placement } from './legacyUrl';
import type { PrometheusSeries } from './prometheusNames';

/**
 * The legacy maps a query reads: one placement, or several host types (or hosts) at once, raw
 * (spaces kept), as one recording rule reads every one the poller reads.
 */
export type LegacyPlacement =
  Placement | { readonly label: Variant; readonly values: readonly string[] };

/** The host types (or hosts) `placement` selects; undefined for global and /all. */
function groupsOf(placement: LegacyPlacement): readonly string[] | undefined {
  if ('values' in placement) return placement.values;
  return 'value' in placement ? [placement.value] : undefined;
}

/** The legacy window of a spiral's `one` and of histograms, by default. */
export const DEFAULT_WINDOW_MS = 60_000;

/** The legacy window in PromQL, from its length in milliseconds: `1m`, `90s`. */
const WINDOW =
  DEFAULT_WINDOW_MS % 60_000 === 0
    ? `${DEFAULT_WINDOW_MS / 60_000}m`
    : `${Math.ceil(DEFAULT_WINDOW_MS / 1000)}s`;

/** How exactly a legacy key is reproduced. */
export type Agreement =
  /** The same number (`count`, `value`). */
  | 'exact'
  /** A difference over the window: exact while the series is younger than the window, else within the increments of one scrape interval plus one slot at each end. */
  | 'window'
  /** Within the explicit bucket that holds the same rank (percentiles). */
  | 'bucket'
  /** No Prometheus series has it. */
  | 'none';

/** How each legacy key compares with its Prometheus expression. */
export function agreementOf(key: string): Agreement {
  if (key === 'count' || key === 'value') return 'exact';
  if (key === 'one' || key === 'n' || key === 'mean') return 'window';
  if (quantileOf(key) !== undefined) return 'bucket';
  return 'none';
}

/** The quantile a histogram field stands for (`median` and `50` are 0.5), or undefined. */
export function quantileOf(key: string): number | undefined {
  const index = HISTOGRAM_FIELDS.indexOf(key);
  const first = HISTOGRAM_FIELDS.indexOf('median');
  return index < first ? undefined : HISTOGRAM_QUANTILES[index - first];
}

/** The keys each legacy kind serves that a poller reads. */
export const LEGACY_KEYS: Readonly<Record<MetricKind, readonly string[]>> =
  Object.freeze({
    spiral: ['count', 'one'],
    counter: ['value', 'ms_since_reset'],
    gauge: ['value', 'ms_since_reset'],
    histogram: HISTOGRAM_FIELDS,
  });

function regexEscape(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function matchers(
  series: PrometheusSeries,
  placement: LegacyPlacement,
  extra: readonly string[] = []
): string {
  const parts = Object.entries(series.labels).map(
    ([key, value]) => `${key}=${JSON.stringify(value)}`
  );
  parts.push(...extra);
  for (const key of series.absentLabels ?? []) parts.push(`${key}=""`);
  const groups = groupsOf(placement);
  if (placement.label === 'global')
    parts.push(`${HOST_TYPE_ATTRIBUTE}=""`, `${HOST_ATTRIBUTE}=""`);
  else if (groups !== undefined) {
    parts.push(
      groups.length === 1
        ? `${placement.label}=${JSON.stringify(groups[0]!)}`
        : `${placement.label}=~${JSON.stringify(groups.map(regexEscape).join('|'))}`
    );
  }
  return parts.length === 0 ? '' : `{${parts.join(', ')}}`;
}

function groupingLabels(placement: LegacyPlacement, extra: string[] = []) {
  const group = groupsOf(placement) === undefined ? [] : [placement.label];
  return ['job', 'instance', ...group, ...extra].join(', ');
}

/**
 * The increase over the window, as the legacy API computes it: the difference from the sample one
 * window ago, or the whole total when the series is younger than the window or restarted (negative
 * difference). `increase()` would extrapolate to the window's edges and miss what was counted
 * before the first scrape.
 */
function windowIncrease(select: (offset: string) => string): string {
  return `${select('')} - ${select(` offset ${WINDOW}`)} >= 0 or ${select('')}`;
}

/**
 * A selector of the series a placement reads, optionally `offset`. In the `host` variant a host
 * also holds the series that have its name as `host_type` and no `host`, as the reader places them.
 */
function selector(
  series: PrometheusSeries,
  suffix: string,
  placement: LegacyPlacement
): (offset: string) => string {
  const name = `${series.family}${suffix}`;
  if (placement.label !== HOST_ATTRIBUTE)
    return offset => `${name}${matchers(series, placement)}${offset}`;
  const byHostType: LegacyPlacement = {
    label: HOST_TYPE_ATTRIBUTE,
    values: groupsOf(placement)!,
  };
  return offset =>
    `(${name}${matchers(series, placement)}${offset} or label_replace(${name}${matchers(series, byHostType, [`${HOST_ATTRIBUTE}=""`])}${offset}, "${HOST_ATTRIBUTE}", "$1", "${HOST_TYPE_ATTRIBUTE}", "(.*)"))`;
}

/**
 * The PromQL that gives one legacy key of one legacy metric, per node (`job`, `instance`) and per
 * host type (or host) as the URL addresses it; undefined where no series carries it (`min`,
 * `max`, `ms_since_reset`). A host type's series from several hosts or scopes are summed, as the
 * legacy API sums them.
 */
export function legacyKeyQuery(
  series: PrometheusSeries,
  key: string,
  placement: LegacyPlacement
): string | undefined {
  const query = placedQuery(series, key, placement);
  const groups = groupsOf(placement);
  if (query === undefined || groups === undefined) return query;
  // The legacy API serves zeros for a metric that only another host type has; Prometheus has no
  // series there. One zero per node (the exporter's target_info) and host type stands in for it.
  const zeros = groups.map(
    value =>
      `label_replace(sum by (job, instance) (${ZERO_SOURCE}) * 0, ${JSON.stringify(placement.label)}, ${JSON.stringify(value)}, "", "")`
  );
  return [query, ...zeros].join(' or ');
}

/** A series the exporter exposes once per node, whatever was recorded: what zeros are made of. */
export const ZERO_SOURCE = 'target_info';

function placedQuery(
  series: PrometheusSeries,
  key: string,
  placement: LegacyPlacement
): string | undefined {
  const by = groupingLabels(placement);
  const select = (suffix: string): ((offset: string) => string) =>
    selector(series, suffix, placement);
  switch (series.type) {
    case 'counter':
      if (key === 'count') return `sum by (${by}) (${select('')('')})`;
      if (key === 'one')
        return `sum by (${by}) (${windowIncrease(select(''))})`;
      return undefined;
    case 'gauge':
      return key === 'value' ? `sum by (${by}) (${select('')('')})` : undefined;
    case 'histogram': {
      const count = `sum by (${by}) (${windowIncrease(select('_count'))})`;
      if (key === 'n') return count;
      if (key === 'mean') {
        const sum = `sum by (${by}) (${windowIncrease(select('_sum'))})`;
        // An empty window is 0 in the legacy API, where 0/0 would be NaN.
        return `${sum} / (${count} > 0) or ${count}`;
      }
      const q = quantileOf(key);
      if (q === undefined) return undefined;
      return `histogram_quantile(${q}, sum by (${groupingLabels(placement, ['le'])}) (${windowIncrease(select('_bucket'))}))`;
    }
  }
}
