/**
 * From a collectd curl_json poller to Prometheus: which legacy key each `<Key>` reads on each
 * `<URL>`, wildcards expanded; the recording rule that reproduces it; and what cannot be mapped
 * or is wrong in the poller itself.
 */
import { DEFAULT_METER_PROVIDER_OPTIONS } from '../provider/createMeterProviderWithLegacyApi';
import { HISTOGRAM_FIELDS, type MetricKind } from '../snapshot/legacyValues';
import {
  hostTypeSegment,
  legacyKeyQuery,
  LEGACY_KEYS,
  prometheusSeries,
  type LegacyPlacement,
  type PrometheusSeries,
} from '../reader/naming';
import { HistogramBuckets } from './histogramBuckets';
import { readExposition } from './readExposition';
import { ruleNamesFor } from './ruleNames';
import { SeriesMatcher, type SeriesMatch } from './seriesMatch';
import { ExpositionIndex } from './expositionIndex';
import {
  fetchListing,
  fetchMetricsMap,
  legacyBase,
  type LegacyListing,
  type LegacyMetricValue,
} from './fetchServer';
import type {
  CurlJsonKey,
  CurlJsonPoller,
  CurlJsonUrl,
} from './curlJsonPoller';
import { MigrationError } from './MigrationError';

/** Where `createMeterProviderWithLegacyApi` and the demo serve Prometheus by default. */
export const DEFAULT_PROMETHEUS_PORT =
  DEFAULT_METER_PROVIDER_OPTIONS.prometheus.port;
/** The Prometheus path of `createMeterProviderWithLegacyApi` and the demo. */
export const DEFAULT_PROMETHEUS_PATH =
  DEFAULT_METER_PROVIDER_OPTIONS.prometheus.endpoint;

/** Key paths at least this long are truncated by collectd 5.12's curl_json (127-character type instance). */
export const TRUNCATED_KEY_LENGTH = 114;
/** Key paths at least this long crash collectd 5.12's curl_json on the first read. */
export const CRASHING_KEY_LENGTH = 121;

/** Options of {@link planMigration}. */
export interface MigrationOptions {
  /** The legacy API's base (`http://127.0.0.1:8088/api`): read for the listing and the maps. */
  readonly legacy?: string;
  /** The server's Prometheus endpoint. @default the legacy URLs' hosts, port 9464, /metrics */
  readonly prometheus?: string;
}

/** Where a legacy URL points. */
export interface LegacyTarget {
  readonly placement: 'host_type' | 'host' | 'global' | 'all';
  /** The host type (or host) segment, percent-decoded. */
  readonly segment?: string;
  /** The metric of a single-metric URL. */
  readonly metric?: string;
  /** The URL up to `/metrics`, exclusive. */
  readonly base: string;
}

/** Reads a legacy API URL: `…/metrics/host_type/<x>[/<metric>]`, `…/metrics/global[/<metric>]`, `…/metrics/all[/<metric>]`. */
export function parseLegacyUrl(url: string): LegacyTarget | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const segments = parsed.pathname.split('/');
  while (segments.at(-1) === '') segments.pop();
  const at = segments.lastIndexOf('metrics');
  if (at === -1) return undefined;
  const rest = segments.slice(at + 1);
  const base = `${parsed.origin}${segments.slice(0, at).join('/')}`;
  const decode = (s: string | undefined): string | undefined =>
    s === undefined ? undefined : decodeURIComponent(s);
  if (
    (rest[0] === 'host_type' || rest[0] === 'host') &&
    rest.length >= 2 &&
    rest.length <= 3
  )
    return {
      placement: rest[0],
      segment: decode(rest[1]),
      metric: decode(rest[2]),
      base,
    };
  if ((rest[0] === 'global' || rest[0] === 'all') && rest.length <= 2)
    return { placement: rest[0], metric: decode(rest[1]), base };
  return undefined;
}

/** One legacy key a `<Key>` reads on one `<URL>`, and the rule that reproduces it. */
export interface Mapping {
  readonly url: CurlJsonUrl;
  readonly key: CurlJsonKey;
  /** The key path with wildcards replaced: `metrics/xmppMessageSent/count`. */
  readonly path: string;
  readonly name: string;
  readonly field: string;
  readonly kind: MetricKind;
  /** The host type or host, raw; undefined for global and /all. */
  readonly group: string | undefined;
  /** The recording rule; undefined where no Prometheus series gives the field. */
  readonly rule: string | undefined;
}

/** A recording rule. */
export interface RecordingRule {
  readonly record: string;
  readonly expr: string;
}

/** A finding for report.txt: a stable tag and one sentence. */
export interface Finding {
  readonly tag: string;
  readonly text: string;
}

/** Everything `migrate` produces, before it is written out. */
export interface MigrationPlan {
  readonly poller: CurlJsonPoller;
  /** The legacy API's base, when it was read. */
  readonly legacy: string | undefined;
  readonly prometheusTargets: readonly URL[];
  readonly intervalS: number;
  readonly mappings: readonly Mapping[];
  readonly rules: readonly RecordingRule[];
  readonly pitfalls: readonly Finding[];
  readonly unmapped: readonly Finding[];
  readonly notes: readonly Finding[];
}

/** What the migration knows of one URL's metrics: legacy name → kind and fields. */
type Catalog = Map<
  string,
  { kind: MetricKind; fields: readonly string[]; value?: LegacyMetricValue }
>;

/** The kind a legacy value shows: a gauge and an up-down counter look alike, and map alike. */
export function kindOfValue(value: LegacyMetricValue): MetricKind | undefined {
  if (typeof value.count === 'number' && typeof value.one === 'number')
    return 'spiral';
  if (typeof value.n === 'number') return 'histogram';
  if (typeof value.value === 'number') return 'gauge';
  return undefined;
}

function catalogOf(map: Map<string, LegacyMetricValue>): Catalog {
  const catalog: Catalog = new Map();
  for (const [name, value] of map) {
    const kind = kindOfValue(value);
    if (kind !== undefined)
      catalog.set(name, {
        kind,
        fields: Object.keys(value).filter(
          field => typeof value[field] === 'number'
        ),
        value,
      });
  }
  return catalog;
}

/** A tree of key paths, as curl_json matches them: at each level an exact part wins over `*`. */
class KeyTree {
  private readonly _root = new Map<
    string,
    Map<string, Map<string, CurlJsonKey>>
  >();

  constructor(
    keys: readonly CurlJsonKey[],
    readonly single: boolean
  ) {
    for (const key of keys) {
      const parts = key.path.split('/');
      if (single) parts.splice(1, 0, '');
      if (parts.length !== 3) continue;
      const [root, name, field] = parts as [string, string, string];
      const names =
        this._root.get(root) ?? new Map<string, Map<string, CurlJsonKey>>();
      this._root.set(root, names);
      const fields = names.get(name) ?? new Map<string, CurlJsonKey>();
      names.set(name, fields);
      fields.set(field, key);
    }
  }

  /** The `<Key>` that reads `field` of `name`, if any. */
  match(name: string, field: string): CurlJsonKey | undefined {
    const names =
      this._root.get(this.single ? 'metric' : 'metrics') ?? this._root.get('*');
    const fields = names?.get(this.single ? '' : name) ?? names?.get('*');
    return fields?.get(field) ?? fields?.get('*');
  }
}

function keyShapeOk(key: CurlJsonKey, single: boolean): boolean {
  const parts = key.path.split('/');
  return single
    ? parts.length === 2 && (parts[0] === 'metric' || parts[0] === '*')
    : parts.length === 3 && (parts[0] === 'metrics' || parts[0] === '*');
}

const where = (item: { file: string; line: number }): string =>
  `${item.file}:${item.line}`;

function kindFromFields(fields: Iterable<string>): MetricKind | undefined {
  const set = new Set(fields);
  if (set.has('count') || set.has('one')) return 'spiral';
  if ([...set].some(f => f !== 'value' && HISTOGRAM_FIELDS.includes(f)))
    return 'histogram';
  if (set.has('value')) return 'gauge';
  return undefined;
}

/** The names the file itself names, with the kind their fields imply: what expands wildcards without a server. */
function explicitCatalog(poller: CurlJsonPoller): Catalog {
  const fields = new Map<string, Set<string>>();
  for (const url of poller.urls) {
    const single = parseLegacyUrl(url.url)?.metric;
    for (const key of url.keys) {
      const parts = key.path.split('/');
      const name = single ?? parts[1];
      const field = single === undefined ? parts[2] : parts[1];
      if (name === undefined || name === '*' || field === undefined) continue;
      const set = fields.get(name) ?? new Set<string>();
      if (field !== '*') set.add(field);
      fields.set(name, set);
    }
  }
  const catalog: Catalog = new Map();
  for (const [name, set] of fields) {
    const kind = kindFromFields(set);
    if (kind !== undefined)
      catalog.set(name, { kind, fields: LEGACY_KEYS[kind] });
  }
  return catalog;
}

function defaultPrometheusTargets(poller: CurlJsonPoller): URL[] {
  const hosts = new Set<string>();
  for (const url of poller.urls) {
    try {
      hosts.add(new URL(url.url).hostname);
    } catch {
      // Reported as an unreadable URL.
    }
  }
  if (hosts.size === 0) hosts.add('127.0.0.1');
  return [...hosts].map(
    host =>
      new URL(
        `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${DEFAULT_PROMETHEUS_PORT}${DEFAULT_PROMETHEUS_PATH}`
      )
  );
}

interface RuleParts {
  readonly series: PrometheusSeries;
  readonly field: string;
  readonly hostTypes: Set<string>;
  readonly hosts: Set<string>;
  global: boolean;
  all: boolean;
}

/**
 * Plans the migration of a curl_json poller. With `options.server`, reads the live listing, every
 * URL's map and the Prometheus exposition; without it, expands wildcards over the names the file
 * itself names.
 */
export async function planMigration(
  poller: CurlJsonPoller,
  options: MigrationOptions = {}
): Promise<MigrationPlan> {
  const pitfalls: Finding[] = [];
  const unmapped: Finding[] = [];
  const notes: Finding[] = [];
  let prometheusTargets: URL[];
  if (options.prometheus !== undefined) {
    try {
      prometheusTargets = [new URL(options.prometheus)];
    } catch {
      throw new MigrationError(
        `--prometheus: found ${JSON.stringify(options.prometheus)}, expected a URL such as http://127.0.0.1:9464/metrics`
      );
    }
  } else prometheusTargets = defaultPrometheusTargets(poller);

  let listing: LegacyListing | undefined;
  let matcher: SeriesMatcher | undefined;
  let exposition: ExpositionIndex | undefined;
  if (options.legacy !== undefined) {
    try {
      new URL(options.legacy);
    } catch {
      throw new MigrationError(
        `--legacy: found ${JSON.stringify(options.legacy)}, expected the legacy API's base URL such as http://127.0.0.1:8088/api`
      );
    }
    listing = await fetchListing(options.legacy, { tool: 'migrate' });
    const url = prometheusTargets[0]!.href;
    try {
      exposition = new ExpositionIndex(listing.variant);
      await readExposition(url, exposition);
      matcher = new SeriesMatcher(exposition.families.values(), [
        ...listing.metrics,
        ...listing.global,
      ]);
    } catch (error) {
      exposition = undefined;
      notes.push({
        tag: 'no-exposition',
        text: `The Prometheus endpoint ${url} could not be read (${(error as Error).message}): each legacy name is mapped as an instrument name without attributes; names such as backends.auth.authorize that an attribute forms may be wrong.`,
      });
    }
  } else {
    notes.push({
      tag: 'partial',
      text: 'No --legacy: wildcards were expanded over the metric names this file names explicitly, host types were taken from the URLs as written, and names were mapped as instrument names without attributes. The result is partial: run again with --legacy to expand over what the server serves.',
    });
  }

  const fallbackCatalog = explicitCatalog(poller);
  const buckets = new HistogramBuckets(exposition);
  const mappings: Mapping[] = [];
  const rules = new Map<string, RuleParts>();
  const matchedKeys = new Set<CurlJsonKey>();
  const missingSeries = new Set<string>();

  for (const url of poller.urls) {
    const target = parseLegacyUrl(url.url);
    if (target === undefined) {
      unmapped.push({
        tag: 'not-legacy-url',
        text: `${where(url)} URL ${url.url}: not a legacy metrics API map (expected …/metrics/host_type/<host type>, …/metrics/host/<host>, …/metrics/global or …/metrics/all); its keys are not mapped.`,
      });
      continue;
    }
    const single = target.metric !== undefined;
    for (const key of url.keys) {
      if (!keyShapeOk(key, single)) {
        unmapped.push({
          tag: 'key-shape',
          text: `${where(key)} Key "${key.path}": not a ${single ? 'metric/<key>' : 'metrics/<name>/<key>'} path of this URL; not mapped.`,
        });
        matchedKeys.add(key);
      }
    }
    let group: string | undefined = target.segment;
    let catalog: Catalog = fallbackCatalog;
    if (listing !== undefined && options.legacy !== undefined) {
      if (
        (target.placement === 'host_type' || target.placement === 'host') &&
        target.placement !== listing.variant
      ) {
        unmapped.push({
          tag: 'unknown-host-type',
          text: `${where(url)} URL ${url.url}: uses /${target.placement}/ but the server serves the ${listing.variant} variant (/${listing.variant}/); its keys are not mapped.`,
        });
        for (const key of url.keys) matchedKeys.add(key);
        continue;
      }
      if (group !== undefined) {
        const raw =
          listing.groups.find(g => g === group) ??
          listing.groups.find(g => hostTypeSegment(g) === group);
        if (raw === undefined) {
          unmapped.push({
            tag: 'unknown-host-type',
            text: `${where(url)} URL ${url.url}: the server serves no ${target.placement} "${group}" (it serves ${listing.groups.map(g => JSON.stringify(g)).join(', ') || 'none'}); its keys are not mapped.`,
          });
          for (const key of url.keys) matchedKeys.add(key);
          continue;
        }
        if (raw !== group)
          notes.push({
            tag: 'host-type-spelling',
            text: `${where(url)} URL ${url.url}: "${group}" is the underscore spelling of "${raw}"; the rules select ${target.placement}="${raw}", as Prometheus labels keep the space.`,
          });
        group = raw;
      }
      const path =
        target.placement === 'global' || target.placement === 'all'
          ? target.placement
          : `${target.placement}/${encodeURIComponent(group!)}`;
      const mapUrl = `${legacyBase(options.legacy)}/metrics/${path}`;
      const map = await fetchMetricsMap(mapUrl, { tool: 'migrate' });
      if (map === undefined) {
        unmapped.push({
          tag: 'unknown-host-type',
          text: `${where(url)} URL ${url.url}: ${mapUrl} answers 404; its keys are not mapped.`,
        });
        for (const key of url.keys) matchedKeys.add(key);
        continue;
      }
      catalog = catalogOf(map);
    }
    const tree = new KeyTree(
      url.keys.filter(k => keyShapeOk(k, single)),
      single
    );
    const names = single ? [target.metric!] : [...catalog.keys()].sort();
    for (const name of names) {
      const entry = catalog.get(name);
      if (entry === undefined) continue;
      for (const field of entry.fields) {
        const key = tree.match(name, field);
        if (key === undefined) continue;
        matchedKeys.add(key);
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
        const placement: LegacyPlacement =
          target.placement === 'global' || target.placement === 'all'
            ? { label: target.placement }
            : { label: target.placement, values: [group!] };
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
        let parts = rules.get(record);
        if (parts === undefined) {
          parts = {
            series,
            field,
            hostTypes: new Set(),
            hosts: new Set(),
            global: false,
            all: false,
          };
          rules.set(record, parts);
        }
        if (placement.label === 'host_type') parts.hostTypes.add(group!);
        else if (placement.label === 'host') parts.hosts.add(group!);
        else if (placement.label === 'global') parts.global = true;
        else parts.all = true;
      }
    }
  }

  for (const url of poller.urls)
    for (const key of url.keys)
      if (!matchedKeys.has(key) && parseLegacyUrl(url.url) !== undefined)
        unmapped.push({
          tag: 'unknown-key',
          text: `${where(key)} Key "${key.path}" on ${url.url}: matches no metric ${listing === undefined ? 'this file names' : 'the server serves there'}.`,
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
  findPitfalls(poller, named, pitfalls);
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
    legacy: options.legacy,
    prometheusTargets,
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
  const queries: string[] = [];
  const add = (placement: LegacyPlacement): void => {
    const query = legacyKeyQuery(parts.series, parts.field, placement);
    if (query !== undefined) queries.push(query);
  };
  const sorted = (set: Set<string>): string[] => [...set].sort();
  if (parts.hostTypes.size > 0)
    add({ label: 'host_type', values: sorted(parts.hostTypes) });
  if (parts.hosts.size > 0) add({ label: 'host', values: sorted(parts.hosts) });
  if (parts.global) add({ label: 'global' });
  if (parts.all) add({ label: 'all' });
  return queries.length === 1
    ? queries[0]!
    : queries.map(q => `(${q})`).join(' or ');
}

function findPitfalls(
  poller: CurlJsonPoller,
  mappings: readonly Mapping[],
  pitfalls: Finding[]
): void {
  const seen = new Set<string>();
  const once = (id: string, finding: Finding): void => {
    if (seen.has(id)) return;
    seen.add(id);
    pitfalls.push(finding);
  };
  for (const m of mappings) {
    const type = m.key.type?.toLowerCase();
    if (type === 'absolute' && m.field === 'count')
      once(`absolute:${where(m.key)}`, {
        tag: 'absolute-count',
        text: `${where(m.key)} Key "${m.key.path}" reads the cumulative count as Type "absolute": collectd treats every reading as the increase since the last one, so writers that store rates divide the whole total by the interval, a wrong and ever-growing rate. Use Type "derive".`,
      });
    else if (type === 'absolute')
      once(`absolute:${where(m.key)}`, {
        tag: 'absolute-type',
        text: `${where(m.key)} Key "${m.key.path}" reads ${m.field} as Type "absolute", which parses an unsigned integer and means "reset on every read"; ${m.field} is a current value: use Type "gauge".`,
      });
    if (m.path.length >= CRASHING_KEY_LENGTH)
      once(`long:${m.path}`, {
        tag: 'long-key',
        text: `${m.url.url} ${m.path}: the key path is ${m.path.length} characters; from ${CRASHING_KEY_LENGTH} collectd 5.12's curl_json crashes on the first read.`,
      });
    else if (m.path.length >= TRUNCATED_KEY_LENGTH)
      once(`long:${m.path}`, {
        tag: 'long-key',
        text: `${m.url.url} ${m.path}: the key path is ${m.path.length} characters; from ${TRUNCATED_KEY_LENGTH} collectd truncates it to a 127-character type instance (from 118, count and one land in the same file).`,
      });
  }
  for (const url of poller.urls)
    for (const key of url.keys)
      if (key.path.length >= CRASHING_KEY_LENGTH)
        once(`long:${key.path}`, {
          tag: 'long-key',
          text: `${where(key)} Key "${key.path}": the key path is ${key.path.length} characters; from ${CRASHING_KEY_LENGTH} collectd 5.12's curl_json crashes on the first read.`,
        });
  if (poller.maxReadIntervalS === undefined)
    pitfalls.push({
      tag: 'max-read-interval',
      text: `${poller.file}: no MaxReadInterval: after a failed read (a poller started before the server, a restart) collectd backs off 2, 4, 8 … s up to 86400 s, one read a day. Set MaxReadInterval to a few intervals.`,
    });
  const valueWildcards = new Map<CurlJsonKey, Mapping[]>();
  for (const m of mappings) {
    const parts = m.key.path.split('/');
    if (
      parts.length === 3 &&
      parts[1] === '*' &&
      (parts[2] === 'value' || parts[2] === '*') &&
      m.field === 'value'
    ) {
      const list = valueWildcards.get(m.key) ?? [];
      list.push(m);
      valueWildcards.set(m.key, list);
    }
  }
  for (const [key, list] of valueWildcards) {
    const names = [...new Set(list.map(m => m.name))];
    pitfalls.push({
      tag: 'value-wildcard',
      text: `${where(key)} Key "${key.path}" reads the value of every gauge and up-down counter the URL serves, today ${names.join(', ')}, and any added later. Name the metrics you mean, one Key each.`,
    });
  }
}
