/**
 * Where a legacy value is read, for `migrate` and `compare`: the {@link Placement} of a legacy
 * map, read from a legacy API URL (a poller's `<URL>`) by the one legacy route grammar
 * (src/route), the host type a segment names, and the URL of a placement's map.
 */
import type { Variant } from '../attributes';
import {
  groupAlias,
  isResourceRoute,
  parseLegacyRoute,
} from '../route/legacyRoute';

/**
 * One legacy map: a host type's or a host's (`value`, raw: spaces kept), the global metrics', or
 * /all's (every placement summed).
 */
export type Placement =
  | { readonly label: Variant; readonly value: string }
  | { readonly label: 'global' }
  | { readonly label: 'all' };

/** Where the reader places a series: a host type, a host, or the global metrics (/all sums them). */
export type SeriesPlacement = Exclude<Placement, { readonly label: 'all' }>;

/** The URL of `placement`'s map below the API's `base`: `<base>/metrics/host_type/test%20type`. */
export function mapUrl(base: string, placement: Placement): string {
  const group =
    'value' in placement ? `/${encodeURIComponent(placement.value)}` : '';
  return `${base}/metrics/${placement.label}${group}`;
}

/**
 * The host type (or host) of `groups` that a URL segment names: the one spelt so, else the one
 * whose alias it is (spaces become `_`, as the original's prefixes did: `test type` is served at
 * `/host_type/test_type`).
 */
export function groupOfSegment(
  groups: readonly string[],
  segment: string
): string | undefined {
  return (
    groups.find(g => g === segment) ??
    groups.find(g => groupAlias(g) === segment)
  );
}

/** Where a legacy URL points. */
export interface LegacyTarget {
  /** Its map; a host type (or host) as the URL spells it, percent-decoded. */
  readonly placement: Placement;
  /** The metric of a single-metric URL. */
  readonly metric?: string;
}

/** Reads a legacy API URL: `…/metrics/host_type/<x>[/<metric>]`, `…/metrics/global[/<metric>]`, `…/metrics/all[/<metric>]`. */
export function parseLegacyUrl(url: string): LegacyTarget | undefined {
  if (!URL.canParse(url)) return undefined;
  const segments = new URL(url).pathname.replace(/\/+$/, '').split('/');
  const metricsAt = segments.lastIndexOf('metrics');
  if (metricsAt === -1) return undefined;
  const route = parseLegacyRoute(`/${segments.slice(metricsAt).join('/')}`);
  if (!isResourceRoute(route) || route.kind === 'listing') return undefined;
  return {
    placement:
      'group' in route
        ? { label: route.variant, value: route.group }
        : { label: route.kind.startsWith('all') ? 'all' : 'global' },
    metric: 'metric' in route ? route.metric : undefined,
  };
}
