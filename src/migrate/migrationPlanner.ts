/**
 * The plan of a migration, from the poller and what was read of the server (see
 * migrationInputs): which legacy key each `<Key>` reads on each `<URL>`, wildcards expanded; the
 * recording rule that reproduces it; and what cannot be mapped. Reads nothing: a pure function
 * of its inputs.
 */
import { getOrMake } from '../getOrMake';
import { legacyKeyQuery } from './legacyKeyQuery';
import { prometheusSeries, type PrometheusSeries } from './prometheusNames';
import type {
  CurlJsonKey,
  CurlJsonPoller,
  CurlJsonUrl,
} from './curlJsonPoller';
import { HistogramBuckets } from './percentileBuckets';
import { KeyTree } from './keyTree';
import { parseLegacyUrl, type LegacyTarget, type Placement } from './legacyUrl';
import { catalogOf, explicitCatalog, type Catalog } from './metricCatalog';
import { servedMap, type MigrationInputs } from './migrationInputs';
import { findPitfalls, where } from './migrationPitfalls';
import type { Finding, Mapping, MigrationPlan } from './migrationPlan';
import { ruleNamesFor } from './ruleNames';
import type { SeriesMatch } from './seriesMatch';

/** The placements one recording rule reads its series from: the host types or hosts of each. */
interface RuleParts {
  readonly series: PrometheusSeries;
  readonly field: string;
  readonly placements: Map<Placement['label'], Set<string>>;
}

/** The order of a rule's placements. */
const PLACEMENT_ORDER = ['host_type', 'host', 'global', 'all'] as const;

/** The findings of a plan, by report section. */
interface Findings {
  readonly unmapped: Finding[];
  readonly notes: Finding[];
}

/**
 * The catalog a URL's keys are matched against, and the map it reads (a host type as the server
 * spells it); or undefined, with the finding that says why, where the server serves nothing for it.
 */
function urlCatalog(
  url: CurlJsonUrl,
  target: LegacyTarget,
  inputs: MigrationInputs,
  fallback: Catalog,
  findings: Findings
): { catalog: Catalog; placement: Placement } | undefined {
  const { served } = inputs;
  const { placement } = target;
  if (served === undefined) return { catalog: fallback, placement };
  const { listing } = served;
  const map = servedMap(target, served.base, listing);
  const unmapped = (text: string): undefined => {
    findings.unmapped.push({
      tag: 'unknown-host-type',
      text: `${where(url)} URL ${url.url}: ${text}; its keys are not mapped.`,
    });
    return undefined;
  };
  const segment = 'value' in placement ? placement.value : undefined;
  if ('unserved' in map)
    return map.unserved === 'variant'
      ? unmapped(
          `uses /${placement.label}/ but the server serves the ${listing.variant} variant (/${listing.variant}/)`
        )
      : unmapped(
          `the server serves no ${placement.label} "${segment}" (it serves ${listing.groups.map(g => JSON.stringify(g)).join(', ') || 'none'})`
        );
  const group = 'value' in map.placement ? map.placement.value : undefined;
  if (group !== segment)
    findings.notes.push({
      tag: 'host-type-spelling',
      text: `${where(url)} URL ${url.url}: "${segment}" is the underscore spelling of "${group}"; the rules select ${placement.label}="${group}", as Prometheus labels keep the space.`,
    });
  const values = served.maps.get(map.url);
  if (values === undefined) return unmapped(`${map.url} answers 404`);
  return { catalog: catalogOf(values), placement: map.placement };
}

/**
 * Plans the migration of `poller` from what was read (see readMigrationInputs): with the server,
 * over its listing, its maps and its exposition; without it, expanding wildcards over the names
 * the file itself names.
 */
export function planMigration(
  poller: CurlJsonPoller,
  inputs: MigrationInputs
): MigrationPlan {
  const findings: Findings = { unmapped: [], notes: [...inputs.notes] };
  const { unmapped, notes } = findings;
  const matcher = inputs.served?.matcher;
  const fallbackCatalog = explicitCatalog(poller);
  const buckets = new HistogramBuckets(inputs.served?.exposition);
  const mappings: Mapping[] = [];
  const rules = new Map<string, RuleParts>();
  /** Keys mapped, or whose URL a finding already names: the others match no metric. */
  const settledKeys = new Set<CurlJsonKey>();
  const missingSeries = new Set<string>();

  for (const url of poller.urls) {
    const target = parseLegacyUrl(url.url);
    if (target === undefined) {
      unmapped.push({
        tag: 'not-legacy-url',
        text: `${where(url)} URL ${url.url}: not a legacy metrics API map (expected …/metrics/host_type/<host type>, …/metrics/host/<host>, …/metrics/global or …/metrics/all); its keys are not mapped.`,
      });
      for (const key of url.keys) settledKeys.add(key);
      continue;
    }
    const single = target.metric !== undefined;
    const tree = new KeyTree(url.keys, single);
    for (const key of tree.misshapen) {
      unmapped.push({
        tag: 'key-shape',
        text: `${where(key)} Key "${key.path}": not a ${single ? 'metric/<key>' : 'metrics/<name>/<key>'} path of this URL; not mapped.`,
      });
      settledKeys.add(key);
    }
    const read = urlCatalog(url, target, inputs, fallbackCatalog, findings);
    if (read === undefined) {
      for (const key of url.keys) settledKeys.add(key);
      continue;
    }
    const { catalog, placement } = read;
    const group = 'value' in placement ? placement.value : undefined;
    const names = single ? [target.metric!] : [...catalog.keys()].sort();
    for (const name of names) {
      const entry = catalog.get(name);
      if (entry === undefined) continue;
      for (const field of entry.fields) {
        const key = tree.match(name, field);
        if (key === undefined) continue;
        settledKeys.add(key);
        const path = single ? `metric/${field}` : `metrics/${name}/${field}`;
        const match: SeriesMatch = matcher?.match(name, entry.kind) ?? {
          status: 'missing',
          series: prometheusSeries(name, entry.kind),
          instrument: name,
        };
        const mapping = {
          url,
          key,
          path,
          name,
          field,
          kind: entry.kind,
          group,
        };
        if (match.status === 'collision') {
          mappings.push({ ...mapping, rule: undefined });
          unmapped.push({
            tag: 'name-collision',
            text: `${url.url} ${path}: ${match.why}; no rule is written for it. Rename one of the instruments (or give it an attribute) so that each legacy name has a series of its own.`,
          });
          continue;
        }
        const series = match.series;
        if (
          match.status === 'missing' &&
          matcher !== undefined &&
          !missingSeries.has(name)
        ) {
          missingSeries.add(name);
          notes.push({
            tag: 'no-series',
            text: `${name}: no series of the exposition gives it yet; mapped to ${series.family} as an instrument without attributes.`,
          });
        }
        // The rule's name waits for every name to be known: two may share it.
        const record = `${name}\u0000${field}`;
        buckets.check(
          match.instrument,
          series,
          `${url.url} ${path}`,
          field,
          entry.value
        );
        const query = legacyKeyQuery(series, field, placement);
        mappings.push({
          ...mapping,
          rule: query === undefined ? undefined : record,
        });
        if (query === undefined) {
          unmapped.push({
            tag: 'no-prometheus-equivalent',
            text: `${url.url} ${path}: no Prometheus series gives ${field}${entry.kind === 'histogram' ? ' (the exposition has no min or max; OTLP histogram points carry them)' : ' (time since the series was first seen)'}.`,
          });
          continue;
        }
        const { placements } = getOrMake(rules, record, () => ({
          series,
          field,
          placements: new Map(),
        }));
        const groups = getOrMake(placements, placement.label, () => new Set());
        if (group !== undefined) groups.add(group);
      }
    }
  }

  for (const url of poller.urls)
    for (const key of url.keys)
      if (!settledKeys.has(key))
        unmapped.push({
          tag: 'unknown-key',
          text: `${where(key)} Key "${key.path}" on ${url.url}: matches no metric ${inputs.served === undefined ? 'this file names' : 'the server serves there'}.`,
        });

  for (const missing of poller.missingIncludes)
    notes.push({
      tag: 'missing-include',
      text: `${missing}: the included file is not there; anything it would poll is not mapped.`,
    });
  const { ruleName, collisions } = ruleNamesFor(mappings.map(m => m.name));
  const named = mappings.map(m =>
    m.rule === undefined ? m : { ...m, rule: ruleName(m.name, m.field) }
  );
  const pitfalls = findPitfalls(poller, named);
  for (const collision of collisions)
    pitfalls.push({
      tag: 'name-collision',
      text: `${collision.names.map(([n]) => n).join(' and ')} would share the rule ${collision.shared}: ${collision.names.map(([n, rule]) => `${n} is ${rule}`).join(', ')}, each reading its own series.`,
    });
  pitfalls.push(...buckets.findings());
  const intervals = new Set(
    poller.urls.map(url => url.intervalS ?? poller.intervalS)
  );
  const intervalS = Math.min(
    ...(intervals.size === 0 ? [poller.intervalS] : intervals)
  );
  if (intervals.size > 1)
    notes.push({
      tag: 'intervals',
      text: `The URLs are polled every ${[...intervals].sort((a, b) => a - b).join(', ')} s; Prometheus scrapes every ${intervalS} s, the shortest.`,
    });

  return {
    poller,
    legacy: inputs.legacy,
    prometheusTargets: inputs.prometheusTargets,
    intervalS,
    mappings: named,
    rules: [...rules].map(([record, parts]) => ({
      record: ruleName(record.split('\u0000')[0]!, parts.field),
      expr: ruleExpression(parts),
    })),
    pitfalls,
    unmapped,
    notes,
  };
}

function ruleExpression(parts: RuleParts): string {
  // Defined for every placement: the mapping that made the rule had a query.
  const queries = PLACEMENT_ORDER.filter(label =>
    parts.placements.has(label)
  ).map(label =>
    legacyKeyQuery(
      parts.series,
      parts.field,
      label === 'global' || label === 'all'
        ? { label }
        : { label, values: [...parts.placements.get(label)!].sort() }
    )!
  );
  return queries.length === 1
    ? queries[0]!
    : queries.map(q => `(${q})`).join(' or ');
}
