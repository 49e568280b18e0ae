/**
 * The legacy API's URL grammar, in one place: a path below the API's prefix
 * (`/metrics/host_type/test_type/xmppMessageSent`) parsed once into a {@link LegacyRoute} that
 * the HTTP layer, the snapshot, usage telemetry and `migrate` all read. Pure: no HTTP, no data.
 *
 * ```
 * /metrics                              listing
 * /metrics/all[/<metric>]               all, all-metric
 * /metrics/global[/<metric>]            global, global-metric
 * /metrics/host_type/<group>[/<metric>] group, group-metric (variant host_type)
 * /metrics/host/<group>[/<metric>]      group, group-metric (variant host)
 * ```
 */
import type { Variant } from '../attributes';

/** A resource of the grammar; names percent-decoded, the group as the URL spells it. */
export type ResourceRoute = { readonly path: string } & (
  | { readonly kind: 'listing' | 'all' | 'global' }
  | { readonly kind: 'all-metric' | 'global-metric'; readonly metric: string }
  | {
      readonly kind: 'group';
      readonly variant: Variant;
      readonly group: string;
    }
  | {
      readonly kind: 'group-metric';
      readonly variant: Variant;
      readonly group: string;
      readonly metric: string;
    }
);

/**
 * A parsed legacy path: a resource, or why it is none: `unknown` (404), an empty inner segment
 * `//` (404), malformed percent-encoding (400). `path` is the decoded path, e.g.
 * `/metrics/host_type/test type`: it tells resources apart and names them in messages.
 */
export type LegacyRoute =
  | ResourceRoute
  | { readonly kind: 'unknown'; readonly path: string }
  | { readonly kind: 'empty-segment' | 'malformed' };

const EMPTY_SEGMENT: LegacyRoute = Object.freeze({ kind: 'empty-segment' });
const MALFORMED: LegacyRoute = Object.freeze({ kind: 'malformed' });

/**
 * The URL segment a group is also served at: its spaces spelled `_`, as the original's prefixes
 * did (`test type` is served at `/host_type/test_type`). A group's exact name always wins.
 */
export function groupAlias(name: string): string {
  return name.replaceAll(' ', '_');
}

/**
 * Parses a path below the API's prefix, e.g. `/metrics/host_type/a%20b/c?x=1`: the query is
 * ignored, one trailing slash is ignored, each segment is percent-decoded. `migrate` passes the
 * part of a legacy URL's pathname from `/metrics` on; a request handler passes the whole URL
 * and where the path below its prefix starts.
 */
export function parseLegacyRoute(path: string, start = 0): LegacyRoute {
  const queryAt = path.indexOf('?', start);
  const parts = path.slice(start, queryAt < 0 ? undefined : queryAt).split('/');
  // parts[0] is the empty string before the leading slash.
  const end = parts[parts.length - 1] === '' ? parts.length - 1 : parts.length;
  const segments: string[] = [];
  for (let i = 1; i < end; i++) {
    const part = parts[i]!;
    if (part === '') return EMPTY_SEGMENT;
    try {
      segments.push(part.includes('%') ? decodeURIComponent(part) : part);
    } catch {
      return MALFORMED;
    }
  }
  return routeOfSegments(segments);
}

/** The route of a path already split into decoded segments (`['metrics', 'all']`). */
export function routeOfSegments(segments: readonly string[]): LegacyRoute {
  const path = `/${segments.join('/')}`;
  const [root, section, name, metric, ...rest] = segments;
  if (root === 'metrics' && rest.length === 0) {
    if (section === undefined) return { kind: 'listing', path };
    if (section === 'all' || section === 'global') {
      if (name === undefined) return { kind: section, path };
      if (metric === undefined)
        return { kind: `${section}-metric`, path, metric: name };
    } else if (
      (section === 'host_type' || section === 'host') &&
      name !== undefined
    ) {
      return metric === undefined
        ? { kind: 'group', path, variant: section, group: name }
        : { kind: 'group-metric', path, variant: section, group: name, metric };
    }
  }
  return { kind: 'unknown', path };
}

/** Whether `route` names a resource of the grammar (rather than why it does not). */
export function isResourceRoute(route: LegacyRoute): route is ResourceRoute {
  return (
    route.kind !== 'unknown' &&
    route.kind !== 'empty-segment' &&
    route.kind !== 'malformed'
  );
}

/**
 * The route template of `route` as the HTTP semantic conventions' `http.route` names it
 * (`/api/metrics/host_type/:host_type/:metric`, never the raw path), for an API at `prefix`
 * serving `variant`; undefined when the route is not one the API serves.
 */
export function routeTemplate(
  route: LegacyRoute,
  prefix: string,
  variant: Variant
): string | undefined {
  const base = `${prefix}/metrics`;
  switch (route.kind) {
    case 'listing':
      return base;
    case 'all':
    case 'global':
      return `${base}/${route.kind}`;
    case 'all-metric':
      return `${base}/all/:metric`;
    case 'global-metric':
      return `${base}/global/:metric`;
    case 'group':
    case 'group-metric':
      if (route.variant !== variant) return undefined;
      return route.kind === 'group'
        ? `${base}/${variant}/:${variant}`
        : `${base}/${variant}/:${variant}/:metric`;
    default:
      return undefined;
  }
}
