import type { Attributes } from '@opentelemetry/api';
import type { MetricData, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { VARIANTS, type Variant } from '../attributes';
import { WARNING_CODES, WarnOnce } from '../warnings';
import {
  InstrumentRegistry,
  type Binding,
  type InstrumentState,
} from './instruments';
import {
  describeInstrument,
  LegacyNamer,
  type SeriesPlace,
} from './LegacyNamer';
import { LegacyNameTable } from './LegacyNameTable';
import type { MeterScope } from './meterSelection';
import type { ResolvedReaderOptions } from './options';
import { RecordTableEditor } from './RecordTable';
import {
  HistogramSeries,
  type NameTotals,
  type Series,
  SpiralSeries,
  ValueSeries,
  ValueSource,
} from './series';
import { StoreView } from './StoreView';
import { VariantIndex } from './VariantIndex';
import type { HistogramRecord } from './WindowedHistogram';

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
 * Times are on the monotonic clock, which the wall clock's steps leave alone.
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
  private readonly _names: LegacyNameTable;
  private readonly _instruments: InstrumentRegistry;
  private readonly _namer: LegacyNamer;
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
    this._instruments = new InstrumentRegistry(_options.meters);
    this._namer = new LegacyNamer(_options, this._warnings);
    this._names = new LegacyNameTable(this._records, this._warnings, _options);
    this.views = {
      host_type: new VariantIndex(_options.hostTypes),
      host: new VariantIndex(_options.hosts ?? _options.hostTypes),
    };
    const monotonicMs = _options.monotonicNow();
    this._view = new StoreView(
      this,
      this._records.publish(),
      0,
      _options.now(),
      monotonicMs
    );
  }

  /** Legacy name → what every series of that name shares: what `/all` serves is summed from it. */
  get totals(): ReadonlyMap<string, NameTotals> {
    return this._names.totals;
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

  /**
   * Feeds one collection's data points into `slot`; `monotonicMs` dates the series it creates.
   * Meters the legacy API does not serve are skipped. Each `source` (a cluster worker) has last values of its own.
   */
  apply(
    resourceMetrics: ResourceMetrics,
    slot: number,
    monotonicMs: number,
    source = ''
  ): void {
    for (const scopeMetrics of resourceMetrics.scopeMetrics) {
      const meter = this._instruments.meter(scopeMetrics.scope, source);
      if (meter === null) continue;
      for (const metric of scopeMetrics.metrics) {
        const instrument = this._instruments.instrument(meter, metric);
        if (instrument === 'explicitBuckets') this._warnExplicit(metric);
        else this._applyMetric(instrument, metric, slot, monotonicMs);
      }
    }
  }

  /** Drops the last values of `source` (a cluster worker gone); its increases stay counted. */
  forgetSource(source: string): void {
    for (const value of this._instruments.forget(source))
      if (value.forget()) this._changed(value.series);
  }

  /**
   * Publishes what the tick changed as new records, and returns the content of the next
   * snapshot, stamped with the wall-clock `timeMs`. The snapshots published before keep their
   * own version of the records.
   */
  publish(timeMs: number, monotonicMs: number): StoreView {
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
    this._view = new StoreView(
      this,
      records.publish(),
      gen,
      timeMs,
      monotonicMs
    );
    this._tickGen = gen + 1;
    return this._view;
  }

  /**
   * The meters of the observable instruments that reported before but brought nothing in the
   * tick under way: where a callback that ran out of time is to be looked for.
   */
  silentObservableMeters(): string[] {
    return this._instruments.silentObservableMeters(this._tickGen);
  }

  /** Whether the instrument `name` of meter `scope` brought data points in the tick under way. */
  reportedThisTick(scope: MeterScope, name: string): boolean {
    return this._instruments.reported(scope, name, this._tickGen);
  }

  private _changed(series: Series): void {
    if (series.dirtyGen === this._tickGen) return;
    series.dirtyGen = this._tickGen;
    this._dirty.push(series);
  }

  private _applyMetric(
    instrument: InstrumentState,
    metric: MetricData,
    slot: number,
    monotonicMs: number
  ): void {
    instrument.seenGen = this._tickGen;
    const points = metric.dataPoints;
    for (const point of points) {
      const attributes = point.attributes;
      // The identity fast path first: no closure to allocate for the usual data point.
      const cached = instrument.byIdentity.get(attributes);
      const binding =
        cached !== undefined
          ? cached
          : this._instruments.binding(instrument, attributes, () =>
              this._bind(instrument, attributes, points.length, monotonicMs)
            );
      if (binding === null || binding === undefined) continue;
      if (binding instanceof ValueSource) {
        // A gauge, or an observable up-down counter's last observation: kept exactly as reported.
        if (binding.set(point.value as number)) this._changed(binding.series);
        continue;
      }
      if (binding instanceof HistogramSeries) {
        const value = point.value;
        if (typeof value === 'object' && 'scale' in value && value.count > 0) {
          if (binding.add(slot, value)) this._scheduleExpiry(slot, binding);
          this._changed(binding);
        }
        continue;
      }
      const value = point.value as number;
      if (!Number.isFinite(value)) {
        const message = `LegacyMetricsReader: ${describeInstrument(instrument)} reported an increase of ${value}; the increases that are not finite numbers are left out (this one for ${JSON.stringify(attributes)})`;
        this._warnings.warn(
          `increase:${instrument.scope.name}:${instrument.name}`,
          WARNING_CODES.seriesFault,
          message,
          new Error(message)
        );
        continue;
      }
      if (value === 0) continue;
      if (binding instanceof SpiralSeries) {
        if (binding.add(slot, value)) this._scheduleExpiry(slot, binding);
        this._changed(binding);
      } else if (binding instanceof ValueSeries && binding.add(value)) {
        this._changed(binding);
      }
    }
  }

  private _scheduleExpiry(slot: number, series: Series): void {
    const at = slot + this._windowSlots;
    const list = this._expiries.get(at);
    if (list === undefined) this._expiries.set(at, [series]);
    else list.push(series);
  }

  private _warnExplicit(metric: MetricData): void {
    const name = metric.descriptor.name;
    this._warnings.warn(
      `explicit:${name}`,
      WARNING_CODES.explicitBuckets,
      `LegacyMetricsReader: instrument ${name} is aggregated as an explicit-bucket histogram (a View chose it); ` +
        'it is left out of the legacy API, which needs exponential histograms for its percentiles'
    );
  }

  /** What a new attribute set feeds: its series, or a source of its own in it for last values. */
  private _bind(
    instrument: InstrumentState,
    attributes: Attributes,
    pointCount: number,
    monotonicMs: number
  ): Binding | undefined {
    const place = this._namer.place(instrument, attributes, pointCount);
    if (place === null || place === undefined) return place;
    const totals = this._names.claim(instrument, place.name, this._tickGen);
    if (totals === null) return null;
    const series = this._seriesFor(totals, place, monotonicMs);
    return instrument.lastValue ? (series as ValueSeries).source() : series;
  }

  private _seriesFor(
    totals: NameTotals,
    { name, hostType, host }: SeriesPlace,
    monotonicMs: number
  ): Series {
    const byPlacement =
      host === undefined
        ? submap(this._series, name)
        : submap(submap(this._hostSeries, name), hostType ?? NO_HOST_TYPE);
    const key = host ?? hostType ?? NO_HOST_TYPE;
    let series = byPlacement.get(key);
    if (series !== undefined) return series;
    const gen = this._tickGen;
    series = createSeries(totals, monotonicMs, gen, this._records.size);
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
          createdAtMonotonicMs: monotonicMs,
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
  monotonicMs: number,
  gen: number,
  index: number
): Series {
  switch (totals.kind) {
    case 'spiral':
      return new SpiralSeries(totals, monotonicMs, gen, index);
    case 'histogram':
      return new HistogramSeries(totals, monotonicMs, gen, index);
    case 'counter':
    case 'gauge':
      return new ValueSeries(totals.kind, totals, monotonicMs, gen, index);
  }
}
