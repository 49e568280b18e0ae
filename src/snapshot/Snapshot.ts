import type { Variant } from '../attributes';
import { zeroValue, type LegacyValue } from './legacyValues';
import type { Group, MetricStore, VariantIndex } from '../reader/MetricStore';
import type { LegacySerializer, MetricEntries } from './serializer';
import { combinedValue } from '../reader/series';

/** A response of the legacy API: status and a body in the negotiated format. */
export interface LegacyResponse {
  readonly status: 200 | 404;
  readonly body: Buffer;
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
 * What the legacy API serves during one slot. The reader builds a new snapshot after every
 * tick; the metric state behind it changes only in the tick, so a snapshot reads the same
 * values for as long as it is current. Each body is serialized at most once per snapshot, on
 * first request, and reused: requests never collect and never serialize twice.
 */
export class Snapshot {
  private readonly _bodies = new Map<string, LegacyResponse>();

  constructor(
    private readonly _store: MetricStore,
    /** Increases by one per snapshot. */
    readonly generation: number,
    /** The time the snapshot stands for: `ms_since_reset` is measured to it. */
    readonly timeMs: number
  ) {}

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
    const view = this._store.views[variant];
    const notFound = (message: string) => ({
      status: 404 as const,
      text: serializer.error('not_found', message),
    });
    const ok = (text: string) => ({ status: 200 as const, text });
    const [root, section, name, metric, ...rest] = segments;
    if (root !== 'metrics' || rest.length > 0)
      return notFound(`no such resource: /${segments.join('/')}`);
    if (section === undefined) {
      const names = view.sortedNames();
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
        return ok(serializer.metrics(this._allEntries(view)));
      if (metric !== undefined)
        return notFound(`no such resource: /${segments.join('/')}`);
      const totals = this._store.totals.get(name);
      return totals === undefined
        ? notFound(`no metric named ${JSON.stringify(name)}`)
        : ok(serializer.metric(totals.total()));
    }
    if (section === 'global') {
      if (metric !== undefined)
        return notFound(`no such resource: /${segments.join('/')}`);
      if (name === undefined)
        return ok(
          serializer.metrics(
            this._groupEntries(view.global, view.sortedNames().global)
          )
        );
      const members = view.global.members.get(name);
      return members === undefined
        ? notFound(`no global metric named ${JSON.stringify(name)}`)
        : ok(serializer.metric(combinedValue(members, this.timeMs)));
    }
    if (section === GROUP_WORD[variant] && name !== undefined) {
      const noun = GROUP_NOUN[variant];
      if (this._store.allMetricsAreGlobal) {
        return notFound(
          `no ${noun} named ${JSON.stringify(name)}: all metrics are global`
        );
      }
      const group = view.lookup(name);
      if (group === undefined)
        return notFound(`no ${noun} named ${JSON.stringify(name)}`);
      if (metric === undefined)
        return ok(
          serializer.metrics(
            this._groupEntries(group, view.sortedNames().catalog, view)
          )
        );
      const value = this._groupValue(group, metric, view);
      return value === undefined
        ? notFound(
            `no metric named ${JSON.stringify(metric)} for ${noun} ${JSON.stringify(group.name)}`
          )
        : ok(serializer.metric(value));
    }
    return notFound(`no such resource: /${segments.join('/')}`);
  }

  /** A group's value of `name`, or the zero value when another group has it and this one does not yet. */
  private _groupValue(
    group: Group,
    name: string,
    view?: VariantIndex
  ): LegacyValue | undefined {
    const members = group.members.get(name);
    if (members !== undefined) return combinedValue(members, this.timeMs);
    const entry = view?.catalog.get(name);
    return entry === undefined
      ? undefined
      : zeroValue(entry.kind, this.timeMs - entry.createdAtMs);
  }

  private _groupEntries(
    group: Group,
    names: readonly string[],
    view?: VariantIndex
  ): MetricEntries {
    const entries: Array<readonly [string, LegacyValue]> = [];
    for (const name of names) {
      const value = this._groupValue(group, name, view);
      if (value !== undefined) entries.push([name, value]);
    }
    return entries;
  }

  private _allEntries(view: VariantIndex): MetricEntries {
    return view
      .sortedNames()
      .catalog.map(
        name => [name, this._store.totals.get(name)!.total()] as const
      );
  }
}
