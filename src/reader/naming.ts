/**
 * The naming rules, in one place: how an instrument and its attributes become a legacy metric
 * name and a place (host type, host or global), how the official Prometheus exporter names the
 * same instrument, and the PromQL that gives each legacy key from those series. The reader, the
 * migration tools and docs/MIGRATION.md all derive from this module.
 */
import type { Attributes } from '@opentelemetry/api';
import { HOST_ATTRIBUTE, HOST_TYPE_ATTRIBUTE } from '../attributes';
import {
  HISTOGRAM_FIELDS,
  HISTOGRAM_QUANTILES,
  type MetricKind,
} from '../snapshot/legacyValues';

/** An attribute value as text: arrays joined with `,`, as the legacy name shows them. */
export function attributeText(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(',') : String(value);
}

/** The default legacy name: the instrument name, then each remaining attribute value (by key) after a `.`. */
export function defaultLegacyName(
  instrumentName: string,
  attributes: Attributes
): string {
  let name = instrumentName;
  for (const key of Object.keys(attributes).sort()) {
    if (key === HOST_TYPE_ATTRIBUTE || key === HOST_ATTRIBUTE) continue;
    const value = attributes[key];
    if (value === undefined || value === null) continue;
    name += `.${attributeText(value)}`;
  }
  return name;
}

/** The host type or host an attribute value places a series under; undefined for none (global). */
export function placementName(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = attributeText(value);
  return text === '' ? undefined : text;
}

/**
 * The URL segment the legacy API also accepts for a host type: spaces become `_`, as the
 * original's prefixes did (`test type` is served at `/host_type/test_type`).
 */
export function hostTypeSegment(hostType: string): string {
  return hostType.replaceAll(' ', '_');
}

// As @opentelemetry/exporter-prometheus sanitises metric and label names.
const INVALID_PROMETHEUS_CHARACTERS = /[^a-z0-9_]/gi;
const MULTIPLE_UNDERSCORES = /_{2,}/g;
const TOTAL_SUFFIX = '_total';

/** A metric or label name as the official exporter writes it: invalid characters and runs of `_` become one `_`. */
export function prometheusName(name: string): string {
  const sanitized = name
    .replace(INVALID_PROMETHEUS_CHARACTERS, '_')
    .replace(MULTIPLE_UNDERSCORES, '_');
  return /^[0-9]/.test(sanitized) ? `_${sanitized}` : sanitized;
}

/** The Prometheus metric type the exporter gives each legacy kind. */
export const PROMETHEUS_TYPES: Readonly<
  Record<MetricKind, 'counter' | 'gauge' | 'histogram'>
> = Object.freeze({
  spiral: 'counter',
  counter: 'gauge',
  gauge: 'gauge',
  histogram: 'histogram',
});

/**
 * The family name the exporter gives an instrument: its sanitised name, with `_total` appended to
 * monotonic counters (even after `Total`), and no unit suffix. A histogram's samples are this name
 * with `_count`, `_sum` and `_bucket`.
 */
export function prometheusFamily(
  instrumentName: string,
  kind: MetricKind
): string {
  const name = prometheusName(instrumentName);
  return kind === 'spiral' && !name.endsWith(TOTAL_SUFFIX)
    ? `${name}${TOTAL_SUFFIX}`
    : name;
}

/**
 * The identity of a legacy name that survives the exporter's sanitising, to match a legacy name
 * with the Prometheus series it comes from: `backends.auth.authorize` and the family `backends_auth`
 * with `operation="authorize"` both give `backends_auth_authorize`.
 */
export function legacyNameKey(legacyName: string): string {
  return prometheusName(legacyName);
}

/** Labels the exporter and Prometheus add that are not attributes folded into a legacy name. */
export const NON_NAME_LABELS: ReadonlySet<string> = new Set([
  HOST_TYPE_ATTRIBUTE,
  HOST_ATTRIBUTE,
  'otel_scope_name',
  'otel_scope_version',
  'otel_scope_schema_url',
  'le',
  'job',
  'instance',
]);

/**
 * The legacy name keys a series of the exposition gives, by {@link legacyNameKey}: the family's
 * instrument name (without the `_total` the exporter appended, or with it when the instrument's
 * name had it) and the values of its other labels, sorted by label name.
 */
export function legacyNameKeysOfSeries(
  family: string,
  type: string,
  labels: Readonly<Record<string, string>>
): string[] {
  const values = Object.keys(labels)
    .filter(key => !NON_NAME_LABELS.has(key) && labels[key] !== '')
    .sort()
    .map(key => labels[key]!);
  const bases =
    type === 'counter' && family.endsWith(TOTAL_SUFFIX)
      ? [family.slice(0, -TOTAL_SUFFIX.length), family]
      : [family];
  return bases.map(base => legacyNameKey([base, ...values].join('.')));
}

/** The name of the recording rule that reproduces a legacy key: `legacy:<name>:<key>`. */
export function recordingRuleName(legacyName: string, key: string): string {
  return `legacy:${legacyName.replace(/[^A-Za-z0-9_]/g, '_')}:${key}`;
}

/** Where a legacy URL reads its values from. */
export type LegacyPlacement =
  | {
      /** The label that holds the host type (or host), and its raw values (spaces kept). */
      readonly label: typeof HOST_TYPE_ATTRIBUTE | typeof HOST_ATTRIBUTE;
      readonly values: readonly string[];
    }
  | { readonly label: 'global' }
  | { readonly label: 'all' };

/** The Prometheus side of one legacy metric: a family, its type, and the labels its name folds in. */
export interface PrometheusSeries {
  /** The family as exposed: `xmppMessageSent_total`, `sessionCount`, `backends_auth`. */
  readonly family: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  /** Attribute labels that the legacy name carries as `.value` parts: `{ operation: "authorize" }`. */
  readonly labels: Readonly<Record<string, string>>;
  /** Other attribute labels of the family, which must be empty for this legacy name. */
  readonly absentLabels?: readonly string[];
}

/** The series of an instrument recorded with `attributes` (placement attributes aside). */
export function prometheusSeries(
  instrumentName: string,
  kind: MetricKind,
  attributes: Attributes = {}
): PrometheusSeries {
  const labels: Record<string, string> = {};
  for (const key of Object.keys(attributes).sort()) {
    if (key === HOST_TYPE_ATTRIBUTE || key === HOST_ATTRIBUTE) continue;
    const value = attributes[key];
    if (value === undefined || value === null) continue;
    labels[prometheusName(key)] = attributeText(value);
  }
  return {
    family: prometheusFamily(instrumentName, kind),
    type: PROMETHEUS_TYPES[kind],
    labels,
  };
}

/** The legacy window in PromQL, from its length in milliseconds: `1m`, `90s`. */
export function promqlDuration(windowMs: number): string {
  return windowMs % 60_000 === 0
    ? `${windowMs / 60_000}m`
    : `${Math.ceil(windowMs / 1000)}s`;
}

/** The legacy window of a spiral's `one` and of histograms, by default. */
export const DEFAULT_WINDOW_MS = 60_000;

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

function quote(value: string): string {
  return JSON.stringify(value);
}

function regexEscape(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function matchers(
  series: PrometheusSeries,
  placement: LegacyPlacement,
  extra: readonly string[] = []
): string {
  const parts = Object.entries(series.labels).map(
    ([key, value]) => `${key}=${quote(value)}`
  );
  parts.push(...extra);
  for (const key of series.absentLabels ?? []) parts.push(`${key}=""`);
  if (placement.label === 'global')
    parts.push(`${HOST_TYPE_ATTRIBUTE}=""`, `${HOST_ATTRIBUTE}=""`);
  else if (placement.label !== 'all') {
    parts.push(
      placement.values.length === 1
        ? `${placement.label}=${quote(placement.values[0]!)}`
        : `${placement.label}=~${quote(placement.values.map(regexEscape).join('|'))}`
    );
  }
  return parts.length === 0 ? '' : `{${parts.join(', ')}}`;
}

function groupingLabels(placement: LegacyPlacement, extra: string[] = []) {
  const labels = ['job', 'instance'];
  if (
    placement.label === HOST_TYPE_ATTRIBUTE ||
    placement.label === HOST_ATTRIBUTE
  )
    labels.push(placement.label);
  return [...labels, ...extra].join(', ');
}

/**
 * The increase over the window, as the legacy API computes it: the difference from the sample one
 * window ago, or the whole total when the series is younger than the window or restarted (negative
 * difference). `increase()` would extrapolate to the window's edges and miss what was counted
 * before the first scrape.
 */
function windowIncrease(
  select: (offset: string) => string,
  window: string
): string {
  return `${select('')} - ${select(` offset ${window}`)} >= 0 or ${select('')}`;
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
    values: placement.values,
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
  placement: LegacyPlacement,
  windowMs: number = DEFAULT_WINDOW_MS
): string | undefined {
  const query = placedQuery(series, key, placement, windowMs);
  if (
    query === undefined ||
    (placement.label !== HOST_TYPE_ATTRIBUTE &&
      placement.label !== HOST_ATTRIBUTE)
  )
    return query;
  // The legacy API serves zeros for a metric that only another host type has; Prometheus has no
  // series there. One zero per node (the exporter's target_info) and host type stands in for it.
  const zeros = placement.values.map(
    value =>
      `label_replace(sum by (job, instance) (${ZERO_SOURCE}) * 0, ${quote(placement.label)}, ${quote(value)}, "", "")`
  );
  return [query, ...zeros].join(' or ');
}

/** A series the exporter exposes once per node, whatever was recorded: what zeros are made of. */
export const ZERO_SOURCE = 'target_info';

function placedQuery(
  series: PrometheusSeries,
  key: string,
  placement: LegacyPlacement,
  windowMs: number
): string | undefined {
  const window = promqlDuration(windowMs);
  const by = groupingLabels(placement);
  const select = (suffix: string): ((offset: string) => string) =>
    selector(series, suffix, placement);
  switch (series.type) {
    case 'counter':
      if (key === 'count') return `sum by (${by}) (${select('')('')})`;
      if (key === 'one')
        return `sum by (${by}) (${windowIncrease(select(''), window)})`;
      return undefined;
    case 'gauge':
      return key === 'value' ? `sum by (${by}) (${select('')('')})` : undefined;
    case 'histogram': {
      const count = `sum by (${by}) (${windowIncrease(select('_count'), window)})`;
      if (key === 'n') return count;
      if (key === 'mean') {
        const sum = `sum by (${by}) (${windowIncrease(select('_sum'), window)})`;
        // An empty window is 0 in the legacy API, where 0/0 would be NaN.
        return `${sum} / (${count} > 0) or ${count}`;
      }
      const q = quantileOf(key);
      if (q === undefined) return undefined;
      return `histogram_quantile(${q}, sum by (${groupingLabels(placement, ['le'])}) (${windowIncrease(select('_bucket'), window)}))`;
    }
  }
}
