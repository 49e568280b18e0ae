/**
 * How the official Prometheus exporter names an instrument and its attributes, and how a legacy
 * name is matched with the series it comes from: what `migrate` and `compare` derive from.
 */
import type { Attributes } from '@opentelemetry/api';
import { HOST_ATTRIBUTE, HOST_TYPE_ATTRIBUTE } from '../attributes';
import { attributeText } from '../reader/naming';
import type { MetricKind } from '../snapshot/legacyValues';

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
export const legacyNameKey: (legacyName: string) => string = prometheusName;

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
