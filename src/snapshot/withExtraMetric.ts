import type { Variant } from '../attributes';
import { getOrMake } from '../getOrMake';
import type { LegacyValue } from './legacyValues';
import type { SnapshotContent, SortedNames } from './Snapshot';

/** Inserts `name` into a list sorted in code-point order, unless it is there already. */
function insertName(list: readonly string[], name: string): readonly string[] {
  if (list.includes(name)) return list;
  const at = list.findIndex(item => item > name);
  return at < 0
    ? [...list, name]
    : [...list.slice(0, at), name, ...list.slice(at)];
}

/**
 * `content` with one more metric that is not an instrument: `value` in every map of metrics
 * (each host type or host, the global metrics, `/all`), at its own single-metric paths and in
 * the listing, in sorted position; a series of the same name is replaced. The listing's
 * `metrics` (per-group names) names it only when groups are served, as it is otherwise empty.
 */
export function withExtraMetric(
  content: SnapshotContent,
  name: string,
  value: LegacyValue
): SnapshotContent {
  const sorted = new Map<Variant, SortedNames>();
  return {
    generation: content.generation,
    timeMs: content.timeMs,
    allMetricsAreGlobal: content.allMetricsAreGlobal,
    names: variant =>
      getOrMake(sorted, variant, () => {
        const base = content.names(variant);
        return {
          groups: base.groups,
          catalog: insertName(base.catalog, name),
          global: insertName(base.global, name),
          listedCatalog: content.allMetricsAreGlobal
            ? base.listedCatalog
            : insertName(base.listedCatalog, name),
          listedGlobal: insertName(base.listedGlobal, name),
        };
      }),
    group: (variant, segment) => content.group(variant, segment),
    value: (variant, group, metric) =>
      metric === name ? value : content.value(variant, group, metric),
    total: metric => (metric === name ? value : content.total(metric)),
  };
}
