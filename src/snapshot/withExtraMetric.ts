import type { LegacyValue } from './legacyValues';
import type { LegacySerializer, MetricEntries } from './serializer';

/** Where an extra metric shows besides every map of metrics. */
export interface ExtraMetricPlacement {
  /**
   * Whether the listing's `metrics` (per-host-type names) names it too; false when every metric
   * is global, since the listing's `metrics` is then always empty.
   */
  readonly listedPerGroup: boolean;
}

/** Inserts `name` into a list sorted in code-point order, unless it is there already. */
function insertName(list: readonly string[], name: string): readonly string[] {
  if (list.includes(name)) return list;
  const at = list.findIndex(item => item > name);
  return at < 0
    ? [...list, name]
    : [...list.slice(0, at), name, ...list.slice(at)];
}

/**
 * A serializer that adds one metric that is not an instrument to every map of metrics it writes
 * (each host type or host, the global metrics, `/all`) and to the listing, in sorted position;
 * a series of the same name is replaced. Its `cacheKey` names the metric and its value, so a
 * snapshot keeps its bodies apart from those of the plain serializer.
 */
export function withExtraMetric(
  base: LegacySerializer,
  name: string,
  value: LegacyValue,
  placement: ExtraMetricPlacement
): LegacySerializer {
  return Object.freeze({
    contentType: base.contentType,
    cacheKey: `${base.cacheKey ?? base.contentType}\u0000${name}\u0000${value.numbers.join(',')}\u0000${placement.listedPerGroup}`,
    listing(
      groupsKey: string,
      groups: readonly string[],
      metrics: readonly string[],
      global: readonly string[]
    ): string {
      return base.listing(
        groupsKey,
        groups,
        placement.listedPerGroup ? insertName(metrics, name) : metrics,
        insertName(global, name)
      );
    },
    metrics(entries: MetricEntries): string {
      const others = entries.filter(([entryName]) => entryName !== name);
      const at = others.findIndex(([entryName]) => entryName > name);
      const entry = [name, value] as const;
      return base.metrics(
        at < 0
          ? [...others, entry]
          : [...others.slice(0, at), entry, ...others.slice(at)]
      );
    },
    metric: (v: LegacyValue) => base.metric(v),
    error: (code: string, message: string) => base.error(code, message),
  });
}
