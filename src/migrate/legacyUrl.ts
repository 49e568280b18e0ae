/**
 * How `migrate` and `compare` read a legacy API URL (a poller's `<URL>`, `--host-type`) and which
 * host type a segment names, by the one legacy route grammar (src/route).
 */
import {
  groupAlias,
  isResourceRoute,
  parseLegacyRoute,
} from '../route/legacyRoute';

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
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const segments = parsed.pathname.replace(/\/+$/, '').split('/');
  const metricsAt = segments.lastIndexOf('metrics');
  if (metricsAt === -1) return undefined;
  const base = `${parsed.origin}${segments.slice(0, metricsAt).join('/')}`;
  const route = parseLegacyRoute(`/${segments.slice(metricsAt).join('/')}`);
  if (!isResourceRoute(route) || route.kind === 'listing') return undefined;
  const metric = 'metric' in route ? route.metric : undefined;
  return 'group' in route
    ? { placement: route.variant, segment: route.group, metric, base }
    : {
        placement: route.kind.startsWith('all') ? 'all' : 'global',
        metric,
        base,
      };
}
