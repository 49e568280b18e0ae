import type { Variant } from '../attributes';
import {
  isResourceRoute,
  routeOfSegments,
  type LegacyRoute,
  type ResourceRoute,
} from '../route/legacyRoute';
import type { LegacyValue } from './legacyValues';
import type { LegacySerializer } from './serializer';

/** A response of the legacy API: status and a body in the negotiated format. */
export interface LegacyResponse {
  readonly status: 200 | 404;
  readonly body: Buffer;
}

/** The names a listing and the maps show, sorted. */
export interface SortedNames {
  /** Declared groups in their configured order, then discovered ones. */
  readonly groups: readonly string[];
  /** Every per-group metric name. */
  readonly catalog: readonly string[];
  /** Every global metric name. */
  readonly global: readonly string[];
  /** Single-part names (no `.`), as the original listing showed them. */
  readonly listedCatalog: readonly string[];
  readonly listedGlobal: readonly string[];
}

/**
 * The metric data one snapshot serves, as of its generation. Whoever builds a snapshot
 * guarantees that every answer stays the same for as long as the content is reachable,
 * whatever ticks come after it: the snapshot may therefore read it lazily, on first request.
 */
export interface SnapshotContent {
  /** Increases by one per published content. */
  readonly generation: number;
  /** The wall-clock time the content stands for, in ms since the epoch. */
  readonly timeMs: number;
  readonly allMetricsAreGlobal: boolean;
  /** The sorted names of a variant. */
  names(variant: Variant): SortedNames;
  /** The group a URL segment names (its exact name, or its spaces spelled `_`), if any. */
  group(variant: Variant, segment: string): string | undefined;
  /**
   * The value of `name` in a group (`undefined`: the global group). A group that lacks a name
   * some other group has answers with that kind's zero value; the global group does not.
   */
  value(
    variant: Variant,
    group: string | undefined,
    name: string
  ): LegacyValue | undefined;
  /** What `/all/:name` serves: the sum over every group and the global one. */
  total(name: string): LegacyValue | undefined;
}

/** How a variant's listing names its groups, and how a message names one. */
const GROUP_WORDS: Record<Variant, { listingKey: string; noun: string }> = {
  host_type: { listingKey: 'host_types', noun: 'host type' },
  host: { listingKey: 'hosts', noun: 'host' },
};

/**
 * What the legacy API serves during one slot. The reader publishes a new snapshot after every
 * tick, and a published snapshot never changes: its content answers as of its generation even
 * after later ticks. Each body is serialized at most once per snapshot, on first request, and
 * reused: requests never collect and never serialize twice. This is the one response cache of
 * the request path.
 */
export class Snapshot {
  /**
   * Bodies of existing resources, by variant, serializer and decoded path: nested maps, so that
   * a lookup hashes strings the route already holds instead of building a key per request.
   */
  private readonly _bodies: Record<
    Variant,
    Map<LegacySerializer, Map<string, LegacyResponse>>
  > = { host_type: new Map(), host: new Map() };

  constructor(private readonly _content: SnapshotContent) {}

  /** Increases by one per snapshot. */
  get generation(): number {
    return this._content.generation;
  }

  /** The wall-clock time the snapshot stands for, in ms since the epoch. */
  get timeMs(): number {
    return this._content.timeMs;
  }

  /** A snapshot of the same generation over `decorate`'s view of this one's content. */
  withContent(
    decorate: (content: SnapshotContent) => SnapshotContent
  ): Snapshot {
    return new Snapshot(decorate(this._content));
  }

  /**
   * The response to a path below the API prefix: its route (see `parseLegacyRoute`), or
   * its percent-decoded segments (`['metrics', 'host_type', 'localhost']`).
   */
  respond(
    variant: Variant,
    path: LegacyRoute | readonly string[],
    serializer: LegacySerializer
  ): LegacyResponse {
    const route = Array.isArray(path)
      ? routeOfSegments(path)
      : (path as LegacyRoute);
    if (!isResourceRoute(route)) return notFound(serializer, problem(route));
    if ('variant' in route && route.variant !== variant)
      return notFound(serializer, `no such resource: ${route.path}`);
    const bySerializer = this._bodies[variant];
    let bodies = bySerializer.get(serializer);
    if (bodies === undefined)
      bySerializer.set(serializer, (bodies = new Map()));
    const cached = bodies.get(route.path);
    if (cached !== undefined) return cached;
    const response = this._resolve(variant, route, serializer);
    // Only existing resources are cached: arbitrary 404 paths must not grow the cache.
    if (response.status === 200) bodies.set(route.path, response);
    return response;
  }

  private _resolve(
    variant: Variant,
    route: ResourceRoute,
    serializer: LegacySerializer
  ): LegacyResponse {
    const content = this._content;
    const ok = (text: string): LegacyResponse => ({
      status: 200,
      body: Buffer.from(text),
    });
    const found = (value: LegacyValue | undefined, missing: string) =>
      value === undefined
        ? notFound(serializer, missing)
        : ok(serializer.metric(value));
    /** The map of those of `names` that `valueOf` has a value for. */
    const map = (
      names: readonly string[],
      valueOf: (name: string) => LegacyValue | undefined
    ): LegacyResponse => {
      const entries: Array<readonly [string, LegacyValue]> = [];
      for (const name of names) {
        const value = valueOf(name);
        if (value !== undefined) entries.push([name, value]);
      }
      return ok(serializer.metrics(entries));
    };
    switch (route.kind) {
      case 'listing': {
        const names = content.names(variant);
        return ok(
          serializer.listing(
            GROUP_WORDS[variant].listingKey,
            names.groups,
            names.listedCatalog,
            names.listedGlobal
          )
        );
      }
      case 'all':
        return map(content.names(variant).catalog, name => content.total(name));
      case 'all-metric':
        return found(
          content.total(route.metric),
          `no metric named ${JSON.stringify(route.metric)}`
        );
      case 'global':
        return map(content.names(variant).global, name =>
          content.value(variant, undefined, name)
        );
      case 'global-metric':
        return found(
          content.value(variant, undefined, route.metric),
          `no global metric named ${JSON.stringify(route.metric)}`
        );
    }
    const { noun } = GROUP_WORDS[variant];
    const named = `no ${noun} named ${JSON.stringify(route.group)}`;
    if (content.allMetricsAreGlobal)
      return notFound(serializer, `${named}: all metrics are global`);
    const group = content.group(variant, route.group);
    if (group === undefined) return notFound(serializer, named);
    if (route.kind === 'group')
      return map(content.names(variant).catalog, name =>
        content.value(variant, group, name)
      );
    return found(
      content.value(variant, group, route.metric),
      `no metric named ${JSON.stringify(route.metric)} for ${noun} ${JSON.stringify(group)}`
    );
  }
}

/** The 404 message of a path that names no resource. */
function problem(route: Exclude<LegacyRoute, ResourceRoute>): string {
  return route.kind === 'unknown'
    ? `no such resource: ${route.path}`
    : route.kind === 'empty-segment'
      ? 'empty path segment'
      : 'malformed percent-encoding in the path';
}

function notFound(
  serializer: LegacySerializer,
  message: string
): LegacyResponse {
  return {
    status: 404,
    body: Buffer.from(serializer.error('not_found', message)),
  };
}
