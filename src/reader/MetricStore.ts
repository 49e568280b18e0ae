import { diag, type Attributes } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  type MetricData,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  HOST_ATTRIBUTE,
  HOST_TYPE_ATTRIBUTE,
  VARIANTS,
  type Variant,
} from '../attributes';
import type { MetricKind } from '../snapshot/legacyValues';
import { attributeText, defaultLegacyName, placementName } from './naming';
import type { ResolvedReaderOptions } from './options';
import {
  HistogramSeries,
  NameTotals,
  Series,
  SpiralSeries,
  ValueSeries,
} from './series';

/** ValueType.INT of `@opentelemetry/api`, without a runtime import of the enum. */
const VALUE_TYPE_INT = 0;
const OVERFLOW_ATTRIBUTE = 'otel.metric.overflow';

/**
 * The series served under one legacy name of a group: one series, or several when the domains
 * of one host type are summed. A lone series is stored as itself, without an array around it.
 */
export type Members = Series | readonly Series[];

/** A host type, a host, or the global group: the legacy metrics served under one URL. */
export class Group {
  /** Legacy name → the series that make it up. */
  readonly members = new Map<string, Members>();
  constructor(readonly name: string) {}

  /** Adds `series` to the members of `name`. */
  addMember(name: string, series: Series): void {
    const members = this.members.get(name);
    if (members === undefined) this.members.set(name, series);
    else if (members instanceof Series)
      this.members.set(name, [members, series]);
    else (members as Series[]).push(series);
  }
}

/** What a per-group metric name is, for the groups that have no data for it yet. */
export interface CatalogEntry {
  readonly kind: MetricKind;
  readonly integer: boolean;
  readonly createdAtMs: number;
}

/** The names a listing and the maps show, sorted once per change of structure. */
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

const byCodePoint = (a: string, b: string): number =>
  a < b ? -1 : a > b ? 1 : 0;
const singlePart = (name: string): boolean => !name.includes('.');

/** The groups of one variant of the API. */
export class VariantIndex {
  readonly groups = new Map<string, Group>();
  readonly global = new Group('global');
  /** Names that appear in any non-global group. */
  readonly catalog = new Map<string, CatalogEntry>();
  /** `test_type` → `test type`: host types with spaces are also reachable with underscores. */
  readonly aliases = new Map<string, string>();
  /** Bumped when a group or a catalog name appears, so listings can be cached until then. */
  structureVersion = 0;

  private _sorted: SortedNames | undefined;
  private _sortedVersion = -1;

  constructor(readonly declared: readonly string[]) {
    for (const name of declared) this.group(name);
  }

  sortedNames(): SortedNames {
    if (
      this._sorted === undefined ||
      this._sortedVersion !== this.structureVersion
    ) {
      const declared = new Set(this.declared);
      const discovered = [...this.groups.keys()]
        .filter(name => !declared.has(name))
        .sort(byCodePoint);
      const catalog = [...this.catalog.keys()].sort(byCodePoint);
      const global = [...this.global.members.keys()].sort(byCodePoint);
      this._sorted = Object.freeze({
        groups: Object.freeze([...this.declared, ...discovered]),
        catalog,
        global,
        listedCatalog: catalog.filter(singlePart),
        listedGlobal: global.filter(singlePart),
      });
      this._sortedVersion = this.structureVersion;
    }
    return this._sorted;
  }

  group(name: string): Group {
    let group = this.groups.get(name);
    if (group === undefined) {
      group = new Group(name);
      this.groups.set(name, group);
      if (name.includes(' ')) {
        const alias = name.replaceAll(' ', '_');
        if (!this.aliases.has(alias)) this.aliases.set(alias, name);
      }
      this.structureVersion++;
    }
    return group;
  }

  /** A group by its URL segment: the exact name first, then the underscore spelling. */
  lookup(segment: string): Group | undefined {
    const group = this.groups.get(segment);
    if (group !== undefined) return group;
    const name = this.aliases.get(segment);
    return name === undefined ? undefined : this.groups.get(name);
  }
}

/** An attribute set of one instrument, resolved once to the series it feeds. */
interface Binding {
  readonly series: Series;
  /** The last cumulative value seen (sums) or the last gauge value: deltas are taken against it. */
  last: number;
}

interface InstrumentState {
  readonly name: string;
  readonly kind: MetricKind;
  readonly integer: boolean;
  /** Fast path: the SDK hands the same attributes object back while a series stays active. */
  readonly byIdentity: WeakMap<Attributes, Binding | null>;
  /** Attribute sets that hold only a string `host_type`, by that string: no key to build or keep. */
  readonly byHostType: Map<string, Binding | null>;
  /** Every other attribute set, by {@link attributesKey}. */
  readonly byKey: Map<string, Binding | null>;
}

function kindOf(metric: MetricData): MetricKind | undefined {
  switch (metric.dataPointType) {
    case DataPointType.SUM:
      return metric.isMonotonic ? 'spiral' : 'counter';
    case DataPointType.GAUGE:
      return 'gauge';
    case DataPointType.EXPONENTIAL_HISTOGRAM:
      return 'histogram';
    default:
      return undefined;
  }
}

/** A set's identity as one flat string (a joined array, not a tree of concatenations that would stay in the heap). */
function attributesKey(
  keys: readonly string[],
  attributes: Attributes
): string {
  const parts: string[] = [];
  for (const k of keys)
    parts.push(k, '\u0000', attributeText(attributes[k]), '\u0001');
  return parts.join('');
}

/** The key of the global group among host types. */
const NO_HOST_TYPE = '\u0000';

function submap<K, V>(map: Map<K, Map<string, V>>, key: K): Map<string, V> {
  let inner = map.get(key);
  if (inner === undefined) {
    inner = new Map();
    map.set(key, inner);
  }
  return inner;
}

/**
 * Every legacy series the reader knows, and the two variants' views of them. The reader's tick
 * is the only writer: `apply` feeds the delta data points of one collection into the current
 * slot and `expire` slides the window. Work per tick is proportional to the data points and
 * the expiring slots, never to the number of series.
 */
export class MetricStore {
  readonly views: Record<Variant, VariantIndex>;
  /**
   * Legacy name → host type → series without a host attribute, and legacy name → host type →
   * host → series with one. Keyed by the attribute strings themselves, so that holding a
   * series costs no key of its own.
   */
  private readonly _series = new Map<string, Map<string, Series>>();
  private readonly _hostSeries = new Map<
    string,
    Map<string, Map<string, Series>>
  >();
  private _seriesCount = 0;
  /** Legacy name → the totals of every series of that name: what `/all` serves. */
  readonly totals = new Map<string, NameTotals>();
  private readonly _instruments = new Map<string, InstrumentState>();
  /** Expiry wheel: slot at which to expire → series that got data `windowSlots` earlier. */
  private readonly _expiries = new Map<number, Series[]>();
  private readonly _windowSlots: number;
  private readonly _warned = new Set<string>();

  constructor(private readonly _options: ResolvedReaderOptions) {
    this._windowSlots = _options.windowMs / _options.slotMs;
    this.views = {
      host_type: new VariantIndex(_options.hostTypes),
      host: new VariantIndex(_options.hosts ?? _options.hostTypes),
    };
  }

  get allMetricsAreGlobal(): boolean {
    return this._options.allMetricsAreGlobal;
  }

  /** How many distinct legacy series are held (both variants' sources counted once). */
  get seriesCount(): number {
    return this._seriesCount;
  }

  /** Slides the window to end at `slot`: slots at or before `slot - windowSlots` leave it. */
  expire(slot: number): void {
    const through = slot - this._windowSlots;
    for (const [at, list] of this._expiries) {
      if (at > slot) continue;
      this._expiries.delete(at);
      for (const series of list) series.expireThrough(through);
    }
  }

  /** Feeds one collection's data points into `slot`. */
  apply(resourceMetrics: ResourceMetrics, slot: number, nowMs: number): void {
    for (const scopeMetrics of resourceMetrics.scopeMetrics) {
      for (const metric of scopeMetrics.metrics)
        this._applyMetric(metric, slot, nowMs);
    }
  }

  private _applyMetric(metric: MetricData, slot: number, nowMs: number): void {
    const instrument = this._instrument(metric);
    if (instrument === undefined) return;
    const delta =
      metric.aggregationTemporality === AggregationTemporality.DELTA;
    for (const point of metric.dataPoints) {
      const binding = this._binding(instrument, point.attributes, nowMs);
      if (binding === null) continue;
      const series = binding.series;
      if (series instanceof HistogramSeries) {
        if (typeof point.value === 'object' && 'scale' in point.value) {
          if (series.add(slot, point.value)) this._scheduleExpiry(slot, series);
        }
        continue;
      }
      const value = point.value as number;
      if (series instanceof SpiralSeries) {
        const increase = delta ? value : value - binding.last;
        binding.last = value;
        if (series.add(slot, increase)) this._scheduleExpiry(slot, series);
      } else if (series instanceof ValueSeries) {
        // A gauge (or a cumulative sum) replaces its contribution; a delta up-down counter adds to it.
        const replaces = series.kind === 'gauge' || !delta;
        series.adjust(replaces ? value - binding.last : value);
        if (replaces) binding.last = value;
      }
    }
  }

  private _scheduleExpiry(slot: number, series: Series): void {
    const at = slot + this._windowSlots;
    const list = this._expiries.get(at);
    if (list === undefined) this._expiries.set(at, [series]);
    else list.push(series);
  }

  private _warnOnce(key: string, message: string): void {
    if (this._warned.has(key)) return;
    this._warned.add(key);
    diag.warn(`LegacyMetricsReader: ${message}`);
  }

  private _instrument(metric: MetricData): InstrumentState | undefined {
    const name = metric.descriptor.name;
    const kind = kindOf(metric);
    const known = this._instruments.get(name);
    if (known !== undefined && known.kind === kind) return known;
    if (kind === undefined) {
      this._warnOnce(
        `explicit:${name}`,
        `instrument ${name} is aggregated as an explicit-bucket histogram (a View chose it); ` +
          'it is left out of the legacy API, which needs exponential histograms for its percentiles'
      );
      return undefined;
    }
    if (known !== undefined) {
      this._warnOnce(
        `kind:${name}`,
        `instrument ${name} is registered twice with different kinds; the second is left out`
      );
      return undefined;
    }
    const state: InstrumentState = {
      name,
      kind,
      integer: metric.descriptor.valueType === VALUE_TYPE_INT,
      byIdentity: new WeakMap(),
      byHostType: new Map(),
      byKey: new Map(),
    };
    this._instruments.set(name, state);
    return state;
  }

  private _binding(
    instrument: InstrumentState,
    attributes: Attributes,
    nowMs: number
  ): Binding | null {
    const cached = instrument.byIdentity.get(attributes);
    if (cached !== undefined) return cached;
    const keys = Object.keys(attributes).sort();
    const hostType = attributes[HOST_TYPE_ATTRIBUTE];
    const byHostType =
      keys.length === 1 &&
      keys[0] === HOST_TYPE_ATTRIBUTE &&
      typeof hostType === 'string';
    const map = byHostType ? instrument.byHostType : instrument.byKey;
    const key = byHostType ? hostType : attributesKey(keys, attributes);
    let binding = map.get(key);
    if (binding === undefined) {
      binding = this._bind(instrument, attributes, nowMs);
      map.set(key, binding);
    }
    instrument.byIdentity.set(attributes, binding);
    return binding;
  }

  private _bind(
    instrument: InstrumentState,
    attributes: Attributes,
    nowMs: number
  ): Binding | null {
    if (attributes[OVERFLOW_ATTRIBUTE] === true) {
      this._warnOnce(
        `overflow:${instrument.name}`,
        `instrument ${instrument.name} reached its cardinality limit; further attribute sets are summed ` +
          'into an overflow series (raise cardinalityLimit)'
      );
    }
    const name = (this._options.legacyName ?? defaultLegacyName)(
      instrument.name,
      attributes
    );
    if (name === undefined) return null;
    if (typeof name !== 'string' || name === '' || name.includes('/')) {
      this._warnOnce(
        `name:${instrument.name}:${String(name)}`,
        `legacyName gave ${JSON.stringify(name)} for ${instrument.name}: expected a non-empty string without "/"; the series is left out`
      );
      return null;
    }
    let totals = this.totals.get(name);
    if (totals === undefined) {
      totals = new NameTotals(instrument.kind, instrument.integer);
      this.totals.set(name, totals);
    } else if (totals.kind !== instrument.kind) {
      this._warnOnce(
        `clash:${name}`,
        `legacy name ${name} is used by a ${totals.kind} and a ${instrument.kind}; the ${instrument.kind} is left out`
      );
      return null;
    }
    const global = this._options.allMetricsAreGlobal;
    const hostType = global
      ? undefined
      : placementName(attributes[HOST_TYPE_ATTRIBUTE]);
    const host = global ? undefined : placementName(attributes[HOST_ATTRIBUTE]);
    return {
      series: this._seriesFor(totals, name, hostType, host, nowMs),
      last: 0,
    };
  }

  private _seriesFor(
    totals: NameTotals,
    name: string,
    hostType: string | undefined,
    host: string | undefined,
    nowMs: number
  ): Series {
    const byPlacement =
      host === undefined
        ? submap(this._series, name)
        : submap(submap(this._hostSeries, name), hostType ?? NO_HOST_TYPE);
    const key = host ?? hostType ?? NO_HOST_TYPE;
    let series = byPlacement.get(key);
    if (series !== undefined) return series;
    series = createSeries(totals, nowMs);
    byPlacement.set(key, series);
    this._seriesCount++;
    for (const variant of VARIANTS) {
      const groupName = variant === 'host_type' ? hostType : (host ?? hostType);
      const view = this.views[variant];
      const group =
        groupName === undefined ? view.global : view.group(groupName);
      group.addMember(name, series);
      if (groupName !== undefined && !view.catalog.has(name)) {
        view.catalog.set(name, {
          kind: totals.kind,
          integer: totals.integer,
          createdAtMs: nowMs,
        });
      }
      view.structureVersion++;
    }
    return series;
  }
}

function createSeries(totals: NameTotals, nowMs: number): Series {
  switch (totals.kind) {
    case 'spiral':
      return new SpiralSeries(totals, nowMs);
    case 'histogram':
      return new HistogramSeries(totals, nowMs);
    case 'counter':
    case 'gauge':
      return new ValueSeries(totals.kind, totals, nowMs);
  }
}
