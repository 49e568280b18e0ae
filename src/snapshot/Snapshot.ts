import type { Variant } from '../attributes';
import type { LegacyValue } from './legacyValues';
import type { LegacySerializer, MetricEntries } from './serializer';

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

/** The path word of each variant's per-group routes, and the listing's key. */
const GROUP_WORD: Record<Variant, string> = {
  host_type: 'host_type',
  host: 'host',
};
const LISTING_KEY: Record<Variant, string> = {
  host_type: 'host_types',
  host: 'hosts',
};
const GROUP_NOUN: Record<Variant, string> = {
  host_type: 'host type',
  host: 'host',
};

/**
 * What the legacy API serves during one slot. The reader publishes a new snapshot after every
 * tick, and a published snapshot never changes: its content answers as of its generation even
 * after later ticks. Each body is serialized at most once per snapshot, on first request, and
 * reused: requests never collect and never serialize twice.
 */
export class Snapshot {
  private readonly _bodies = new Map<string, LegacyResponse>();

  constructor(private readonly _content: SnapshotContent) {}

  /** Increases by one per snapshot. */
  get generation(): number {
    return this._content.generation;
  }

  /** The wall-clock time the snapshot stands for, in ms since the epoch. */
  get timeMs(): number {
    return this._content.timeMs;
  }

  /**
   * The response to a path below the API prefix, split into percent-decoded segments
   * (`['metrics', 'host_type', 'localhost']`).
   */
  respond(
    variant: Variant,
    segments: readonly string[],
    serializer: LegacySerializer
  ): LegacyResponse {
    const cacheKey = `${variant}\u0000${serializer.cacheKey ?? serializer.contentType}\u0000${segments.join('\u0000')}`;
    const cached = this._bodies.get(cacheKey);
    if (cached !== undefined) return cached;
    const result = this._resolve(variant, segments, serializer);
    const response: LegacyResponse = {
      status: result.status,
      body: Buffer.from(result.text),
    };
    // Only existing resources are cached: arbitrary 404 paths must not grow the cache.
    if (response.status === 200) this._bodies.set(cacheKey, response);
    return response;
  }

  private _resolve(
    variant: Variant,
    segments: readonly string[],
    serializer: LegacySerializer
  ): { status: 200 | 404; text: string } {
    const content = this._content;
    const notFound = (message: string) => ({
      status: 404 as const,
      text: serializer.error('not_found', message),
    });
    const ok = (text: string) => ({ status: 200 as const, text });
    const [root, section, name, metric, ...rest] = segments;
    if (root !== 'metrics' || rest.length > 0)
      return notFound(`no such resource: /${segments.join('/')}`);
    if (section === undefined) {
      const names = content.names(variant);
      return ok(
        serializer.listing(
          LISTING_KEY[variant],
          names.groups,
          names.listedCatalog,
          names.listedGlobal
        )
      );
    }
    if (section === 'all') {
      if (name === undefined)
        return ok(serializer.metrics(this._allEntries(variant)));
      if (metric !== undefined)
        return notFound(`no such resource: /${segments.join('/')}`);
      const total = content.total(name);
      return total === undefined
        ? notFound(`no metric named ${JSON.stringify(name)}`)
        : ok(serializer.metric(total));
    }
    if (section === 'global') {
      if (metric !== undefined)
        return notFound(`no such resource: /${segments.join('/')}`);
      if (name === undefined)
        return ok(
          serializer.metrics(
            this._groupEntries(
              variant,
              undefined,
              content.names(variant).global
            )
          )
        );
      const value = content.value(variant, undefined, name);
      return value === undefined
        ? notFound(`no global metric named ${JSON.stringify(name)}`)
        : ok(serializer.metric(value));
    }
    if (section === GROUP_WORD[variant] && name !== undefined) {
      const noun = GROUP_NOUN[variant];
      if (content.allMetricsAreGlobal) {
        return notFound(
          `no ${noun} named ${JSON.stringify(name)}: all metrics are global`
        );
      }
      const group = content.group(variant, name);
      if (group === undefined)
        return notFound(`no ${noun} named ${JSON.stringify(name)}`);
      if (metric === undefined)
        return ok(
          serializer.metrics(
            this._groupEntries(variant, group, content.names(variant).catalog)
          )
        );
      const value = content.value(variant, group, metric);
      return value === undefined
        ? notFound(
            `no metric named ${JSON.stringify(metric)} for ${noun} ${JSON.stringify(group)}`
          )
        : ok(serializer.metric(value));
    }
    return notFound(`no such resource: /${segments.join('/')}`);
  }

  private _groupEntries(
    variant: Variant,
    group: string | undefined,
    names: readonly string[]
  ): MetricEntries {
    const entries: Array<readonly [string, LegacyValue]> = [];
    for (const name of names) {
      const value = this._content.value(variant, group, name);
      if (value !== undefined) entries.push([name, value]);
    }
    return entries;
  }

  private _allEntries(variant: Variant): MetricEntries {
    const entries: Array<readonly [string, LegacyValue]> = [];
    for (const name of this._content.names(variant).catalog) {
      const total = this._content.total(name);
      if (total !== undefined) entries.push([name, total]);
    }
    return entries;
  }
}
