import type { Attributes } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  InstrumentType,
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
import { WARNING_CODES, WarnOnce } from '../warnings';
import { attributeText, defaultLegacyName, placementName } from './naming';
import type { ResolvedReaderOptions } from './options';
import { RecordTableEditor } from './RecordTable';
import {
  HistogramSeries,
  NameTotals,
  type Series,
  SpiralSeries,
  ValueSeries,
} from './series';
import { StoreView } from './StoreView';
import { VariantIndex } from './VariantIndex';
import type { HistogramRecord } from './WindowedHistogram';

/** ValueType.INT of `@opentelemetry/api`, without a runtime import of the enum. */
const VALUE_TYPE_INT = 0;
const OVERFLOW_ATTRIBUTE = 'otel.metric.overflow';
const OBSERVABLE_TYPES: ReadonlySet<string> = new Set([
  InstrumentType.OBSERVABLE_COUNTER,
  InstrumentType.OBSERVABLE_GAUGE,
  InstrumentType.OBSERVABLE_UP_DOWN_COUNTER,
]);

/** An attribute set of one instrument, resolved once to the series it feeds; `null`: left out for good. */
type Binding = Series | null;

interface InstrumentState {
  readonly name: string;
  readonly kind: MetricKind;
  readonly integer: boolean;
  /** The meter (instrumentation scope) the instrument was first seen in. */
  readonly meter: string;
  /** Reported by callbacks, which a collection with a time limit can leave out. */
  readonly observable: boolean;
  /** The last tick generation that brought data points of the instrument. */
  seenGen: number;
  /** Fast path: the SDK hands the same attributes object back while a series stays active. */
  readonly byIdentity: WeakMap<Attributes, Binding>;
  /** Attribute sets that hold only a string `host_type`, by that string: no key to build or keep. */
  readonly byHostType: Map<string, Binding>;
  /** Every other attribute set, by {@link attributesKey}. */
  readonly byKey: Map<string, Binding>;
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
 * is the only writer: `expire` slides the window, `apply` feeds the delta data points of one
 * collection into the current slot, both on the series' working state, and `publish` turns what
 * changed into new records and returns the content of the next snapshot. Work per tick is
 * proportional to the data points and the expiring slots, never to the number of series.
 *
 * A fault in one data point (a `legacyName` that throws, an increase that is not a finite
 * number) costs that series its data for that tick, with one warning per cause; the rest of the
 * collection is applied and published.
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
  /** Legacy name → what every series of that name shares: what `/all` serves is summed from it. */
  readonly totals = new Map<string, NameTotals>();
  private readonly _instruments = new Map<string, InstrumentState>();
  /** Expiry wheel: slot at which to expire → series that got data `windowSlots` earlier. */
  private readonly _expiries = new Map<number, Series[]>();
  private readonly _windowSlots: number;
  private readonly _warnings = new WarnOnce();
  private readonly _records = new RecordTableEditor();
  /** What changed in the tick under way: published at its end. */
  private readonly _dirty: Series[] = [];
  private readonly _dirtyTotals: NameTotals[] = [];
  /** The generation of the tick under way: one more than the last published. */
  private _tickGen = 1;
  private _view: StoreView;

  constructor(private readonly _options: ResolvedReaderOptions) {
    this._windowSlots = _options.windowMs / _options.slotMs;
    this.views = {
      host_type: new VariantIndex(_options.hostTypes),
      host: new VariantIndex(_options.hosts ?? _options.hostTypes),
    };
    this._view = new StoreView(
      this,
      this._records.publish(),
      0,
      _options.now()
    );
  }

  get allMetricsAreGlobal(): boolean {
    return this._options.allMetricsAreGlobal;
  }

  /** How many distinct legacy series are held (both variants' sources counted once). */
  get seriesCount(): number {
    let count = 0;
    for (const totals of this.totals.values()) count += totals.members.length;
    return count;
  }

  /** The content of the newest snapshot. */
  get view(): StoreView {
    return this._view;
  }

  /** Slides the window to end at `slot`: slots at or before `slot - windowSlots` leave it. */
  expire(slot: number): void {
    const through = slot - this._windowSlots;
    for (const [at, list] of this._expiries) {
      if (at > slot) continue;
      this._expiries.delete(at);
      for (const series of list)
        if (series.expireThrough(through)) this._changed(series);
    }
  }

  /** Feeds one collection's data points into `slot`. */
  apply(resourceMetrics: ResourceMetrics, slot: number, nowMs: number): void {
    for (const scopeMetrics of resourceMetrics.scopeMetrics) {
      const meter = scopeMetrics.scope.name;
      for (const metric of scopeMetrics.metrics)
        this._applyMetric(metric, meter, slot, nowMs);
    }
  }

  /**
   * Publishes what the tick changed as new records, and returns the content of the next
   * snapshot. The snapshots published before keep their own version of the records.
   */
  publish(timeMs: number): StoreView {
    const gen = this._tickGen;
    const records = this._records;
    for (const series of this._dirty) {
      const record = series.publish();
      if (series instanceof HistogramSeries) {
        const before = records.get(series.index) as HistogramRecord;
        series.totals.memberChanged(before, record as HistogramRecord);
        if (series.totals.dirtyGen !== gen) {
          series.totals.dirtyGen = gen;
          this._dirtyTotals.push(series.totals);
        }
      }
      records.set(series.index, record);
    }
    for (const totals of this._dirtyTotals)
      records.set(totals.index, totals.publish());
    this._dirty.length = 0;
    this._dirtyTotals.length = 0;
    this._view = new StoreView(this, records.publish(), gen, timeMs);
    this._tickGen = gen + 1;
    return this._view;
  }

  /**
   * The meters of the observable instruments that reported before but brought nothing in the
   * tick under way: where a callback that ran out of time is to be looked for.
   */
  silentObservableMeters(): string[] {
    const meters = new Set<string>();
    for (const instrument of this._instruments.values()) {
      if (instrument.observable && instrument.seenGen < this._tickGen)
        meters.add(instrument.meter);
    }
    return [...meters].sort();
  }

  /** Whether the instrument named `name` brought data points in the tick under way. */
  reportedThisTick(name: string): boolean {
    return this._instruments.get(name)?.seenGen === this._tickGen;
  }

  private _changed(series: Series): void {
    if (series.dirtyGen === this._tickGen) return;
    series.dirtyGen = this._tickGen;
    this._dirty.push(series);
  }

  private _applyMetric(
    metric: MetricData,
    meter: string,
    slot: number,
    nowMs: number
  ): void {
    const instrument = this._instrument(metric, meter);
    if (instrument === undefined) return;
    instrument.seenGen = this._tickGen;
    const lastValue = metric.dataPointType === DataPointType.GAUGE;
    for (const point of metric.dataPoints) {
      const series = this._binding(instrument, point.attributes, nowMs);
      if (series === null || series === undefined) continue;
      if (series instanceof HistogramSeries) {
        const value = point.value;
        if (typeof value === 'object' && 'scale' in value && value.count > 0) {
          if (series.add(slot, value)) this._scheduleExpiry(slot, series);
          this._changed(series);
        }
        continue;
      }
      const value = point.value as number;
      if (series instanceof ValueSeries && lastValue) {
        // A gauge, or an observable up-down counter's last observation: kept exactly as reported.
        if (series.set(value)) this._changed(series);
        continue;
      }
      if (!Number.isFinite(value)) {
        this._fault(
          `increase:${instrument.name}`,
          `instrument ${instrument.name} reported an increase of ${value}; the increases that are not finite numbers are left out (this one for ${JSON.stringify(point.attributes)})`
        );
        continue;
      }
      if (value === 0) continue;
      if (series instanceof SpiralSeries) {
        if (series.add(slot, value)) this._scheduleExpiry(slot, series);
        this._changed(series);
      } else if (series instanceof ValueSeries && series.add(value)) {
        this._changed(series);
      }
    }
  }

  private _scheduleExpiry(slot: number, series: Series): void {
    const at = slot + this._windowSlots;
    const list = this._expiries.get(at);
    if (list === undefined) this._expiries.set(at, [series]);
    else list.push(series);
  }

  private _warn(key: string, message: string): void {
    this._warnings.warn(
      key,
      WARNING_CODES.seriesLeftOut,
      `LegacyMetricsReader: ${message}`
    );
  }

  /** A fault that costs one series its data for this tick: one diag error and one warning per cause. */
  private _fault(key: string, message: string, error?: unknown): void {
    this._warnings.warn(
      key,
      WARNING_CODES.seriesFault,
      `LegacyMetricsReader: ${message}`,
      error ?? new Error(message)
    );
  }

  private _instrument(
    metric: MetricData,
    meter: string
  ): InstrumentState | undefined {
    const name = metric.descriptor.name;
    const kind = instrumentKind(metric);
    const known = this._instruments.get(name);
    if (known !== undefined && known.kind === kind) return known;
    if (kind === undefined) {
      this._warnings.warn(
        `explicit:${name}`,
        WARNING_CODES.explicitBuckets,
        `LegacyMetricsReader: instrument ${name} is aggregated as an explicit-bucket histogram (a View chose it); ` +
          'it is left out of the legacy API, which needs exponential histograms for its percentiles'
      );
      return undefined;
    }
    if (known !== undefined) {
      this._warn(
        `kind:${name}`,
        `instrument ${name} is registered twice with different kinds; the second is left out`
      );
      return undefined;
    }
    const state: InstrumentState = {
      name,
      kind,
      integer: metric.descriptor.valueType === VALUE_TYPE_INT,
      meter,
      observable: isObservable(metric),
      seenGen: 0,
      byIdentity: new WeakMap(),
      byHostType: new Map(),
      byKey: new Map(),
    };
    this._instruments.set(name, state);
    return state;
  }

  /** The series an attribute set feeds; `null` when it is left out for good, `undefined` for this tick only. */
  private _binding(
    instrument: InstrumentState,
    attributes: Attributes,
    nowMs: number
  ): Binding | undefined {
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
      if (binding === undefined) return undefined;
      map.set(key, binding);
    }
    instrument.byIdentity.set(attributes, binding);
    return binding;
  }

  private _bind(
    instrument: InstrumentState,
    attributes: Attributes,
    nowMs: number
  ): Binding | undefined {
    if (attributes[OVERFLOW_ATTRIBUTE] === true) {
      this._warnings.warn(
        `overflow:${instrument.name}`,
        WARNING_CODES.cardinalityOverflow,
        `LegacyMetricsReader: instrument ${instrument.name} reached its cardinality limit; further attribute sets are summed ` +
          'into an overflow series (raise cardinalityLimit)'
      );
    }
    let name: unknown;
    try {
      name = (this._options.legacyName ?? defaultLegacyName)(
        instrument.name,
        attributes
      );
    } catch (error) {
      // Not remembered: the next tick asks again, and only this tick's data of the series is lost.
      this._fault(
        `legacyName:${instrument.name}:${errorText(error)}`,
        `legacyName threw for instrument ${instrument.name} (${errorText(error)}); ` +
          `the data of ${JSON.stringify(attributes)} is left out of this tick`,
        error
      );
      return undefined;
    }
    if (name === undefined) return null;
    if (typeof name !== 'string' || name === '' || name.includes('/')) {
      this._warn(
        `name:${instrument.name}:${String(name)}`,
        `legacyName gave ${JSON.stringify(name)} for ${instrument.name}: expected a non-empty string without "/"; the series is left out`
      );
      return null;
    }
    let totals = this.totals.get(name);
    if (totals === undefined) {
      totals = new NameTotals(
        instrument.kind,
        instrument.integer,
        this._tickGen
      );
      if (totals.kind === 'histogram')
        totals.index = this._records.push(totals.publish());
      this.totals.set(name, totals);
    } else if (totals.kind !== instrument.kind) {
      this._warn(
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
    return this._seriesFor(totals, name, hostType, host, nowMs);
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
    const gen = this._tickGen;
    series = createSeries(totals, nowMs, gen, this._records.size);
    this._records.push(series.publish());
    byPlacement.set(key, series);
    for (const variant of VARIANTS) {
      const groupName = variant === 'host_type' ? hostType : (host ?? hostType);
      const view = this.views[variant];
      const group =
        groupName === undefined ? view.global : view.group(groupName, gen);
      group.addMember(name, series);
      if (groupName !== undefined && !view.catalog.has(name)) {
        view.catalog.set(name, {
          kind: totals.kind,
          integer: totals.integer,
          createdAtMs: nowMs,
          since: gen,
        });
      }
      view.structureGen = gen;
    }
    return series;
  }
}

function createSeries(
  totals: NameTotals,
  nowMs: number,
  gen: number,
  index: number
): Series {
  switch (totals.kind) {
    case 'spiral':
      return new SpiralSeries(totals, nowMs, gen, index);
    case 'histogram':
      return new HistogramSeries(totals, nowMs, gen, index);
    case 'counter':
    case 'gauge':
      return new ValueSeries(totals.kind, totals, nowMs, gen, index);
  }
}

/**
 * The reader asks for observable up-down counters as cumulative last values (see
 * LegacyMetricsReader), and for everything else with delta temporality: the SDK reports them as
 * gauges, which they are served as counters.
 */
function instrumentKind(metric: MetricData): MetricKind | undefined {
  const kind = kindOf(metric);
  return kind === 'gauge' &&
    metric.aggregationTemporality === AggregationTemporality.CUMULATIVE
    ? 'counter'
    : kind;
}

/** The SDK's instrument type, which its descriptors carry at run time without declaring it. */
function isObservable(metric: MetricData): boolean {
  const type = (metric.descriptor as { readonly type?: unknown }).type;
  return typeof type === 'string' && OBSERVABLE_TYPES.has(type);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
