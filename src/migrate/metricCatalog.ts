/**
 * What `migrate` knows of the metrics one legacy URL serves: each legacy name's kind and the
 * fields a poller can read, from the server's map or, without a server, from the names the
 * poller's file itself names.
 */
import { HISTOGRAM_FIELDS, type MetricKind } from '../snapshot/legacyValues';
import { getOrMake } from '../getOrMake';
import { LEGACY_KEYS } from './legacyKeyQuery';
import type { CurlJsonPoller } from './curlJsonPoller';
import type { LegacyMetricValue } from './fetchServer';
import { parseLegacyUrl } from './legacyUrl';

/** Legacy name → kind, fields and, when read from a server, the value. */
export type Catalog = Map<
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

/** The catalog of a map the server served. */
export function catalogOf(map: Map<string, LegacyMetricValue>): Catalog {
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

function kindFromFields(fields: ReadonlySet<string>): MetricKind | undefined {
  if (fields.has('count') || fields.has('one')) return 'spiral';
  if ([...fields].some(f => f !== 'value' && HISTOGRAM_FIELDS.includes(f)))
    return 'histogram';
  if (fields.has('value')) return 'gauge';
  return undefined;
}

/** The names the file itself names, with the kind their fields imply: what expands wildcards without a server. */
export function explicitCatalog(poller: CurlJsonPoller): Catalog {
  const fields = new Map<string, Set<string>>();
  for (const url of poller.urls) {
    const single = parseLegacyUrl(url.url)?.metric;
    for (const key of url.keys) {
      const parts = key.path.split('/');
      const name = single ?? parts[1];
      const field = single === undefined ? parts[2] : parts[1];
      if (name === undefined || name === '*' || field === undefined) continue;
      const set = getOrMake(fields, name, () => new Set<string>());
      if (field !== '*') set.add(field);
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
