import type { Attributes } from '@opentelemetry/api';
import type { Variant } from '../attributes';
import { getOrMake } from '../getOrMake';
import type { Binding, InstrumentState } from './instruments';
import type { LegacyNamer, SeriesPlace } from './LegacyNamer';
import type { LegacyNameTable } from './LegacyNameTable';
import type { HistogramColumns } from './HistogramColumns';
import { HistogramSeries } from './HistogramSeries';
import { type NameTotals, type Series, SpiralSeries } from './series';
import type { SpiralColumns } from './SpiralColumns';
import type { ValueColumns } from './ValueColumns';
import { ValueSeries } from './ValueSeries';
import type { VariantIndex } from './VariantIndex';

/**
 * Where the series keep their working state (spirals, counters and gauges) or, for histogram
 * windows, the numbers of their records.
 */
export interface StoreColumns {
  readonly spirals: SpiralColumns;
  readonly values: ValueColumns;
  readonly histograms: HistogramColumns;
}

/** The key of the global group among host types. */
const NO_HOST_TYPE = '\u0000';

/** One function for every submap made: no closure is made for each series. */
const newMap = <V>(): Map<string, V> => new Map<string, V>();

function submap<K, V>(map: Map<K, Map<string, V>>, key: K): Map<string, V> {
  return getOrMake(map, key, newMap<V>);
}

/** A new series of `totals`' kind, numbered in its kind's `columns`. */
function createSeries(
  totals: NameTotals,
  monotonicMs: number,
  gen: number,
  columns: StoreColumns
): Series {
  switch (totals.kind) {
    case 'spiral':
      return new SpiralSeries(totals, monotonicMs, gen, columns.spirals);
    case 'histogram':
      return new HistogramSeries(
        totals,
        monotonicMs,
        gen,
        columns.histograms.create()
      );
    case 'counter':
    case 'gauge':
      return new ValueSeries(totals, monotonicMs, gen, columns.values);
  }
}

/**
 * Every legacy series, by name and placement, and what a new attribute set binds to. A series
 * is made once, on the first data point of its place, and entered into both variants' indexes
 * with the generation of the tick under way, which the snapshots published before skip.
 */
export class SeriesDirectory {
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

  constructor(
    private readonly _namer: LegacyNamer,
    private readonly _names: LegacyNameTable,
    private readonly _columns: StoreColumns,
    private readonly _views: Record<Variant, VariantIndex>
  ) {}

  /**
   * What a new attribute set feeds: its series, or a source of its own in it for last values;
   * `null` when left out for good, undefined for a failure of this tick only.
   * @param gen the generation of the tick under way
   */
  bind(
    instrument: InstrumentState,
    attributes: Attributes,
    pointCount: number,
    monotonicMs: number,
    gen: number
  ): Binding | undefined {
    const place = this._namer.place(instrument, attributes, pointCount);
    if (place === null || place === undefined) return place;
    const totals = this._names.claim(instrument, place.name, gen);
    if (totals === null) return null;
    const series = this._seriesFor(totals, place, monotonicMs, gen);
    if (instrument.lastValue) return (series as ValueSeries).source().binding;
    // Spirals and values bind to their number in the columns, histograms to their series.
    return series instanceof HistogramSeries
      ? series
      : (series as SpiralSeries | ValueSeries).number;
  }

  private _seriesFor(
    totals: NameTotals,
    { name, hostType, host }: SeriesPlace,
    monotonicMs: number,
    gen: number
  ): Series {
    const byPlacement =
      host === undefined
        ? submap(this._series, name)
        : submap(submap(this._hostSeries, name), hostType ?? NO_HOST_TYPE);
    const key = host ?? hostType ?? NO_HOST_TYPE;
    let series = byPlacement.get(key);
    if (series !== undefined) return series;
    series = createSeries(totals, monotonicMs, gen, this._columns);
    byPlacement.set(key, series);
    // Each variant in turn, spelled out: this runs once per new series, mostly before the
    // compiler has optimized it, where a loop over the variants would make its iterator's objects.
    this._enter(this._views.host_type, hostType, name, series, gen);
    this._enter(this._views.host, host ?? hostType, name, series, gen);
    return series;
  }

  /** Enters `series` under `name` in the group `groupName` of `view` (global when undefined). */
  private _enter(
    view: VariantIndex,
    groupName: string | undefined,
    name: string,
    series: Series,
    gen: number
  ): void {
    const group =
      groupName === undefined ? view.global : view.group(groupName, gen);
    group.addMember(name, series);
    if (groupName !== undefined && !view.catalog.has(name))
      view.catalog.set(name, series);
    view.structureGen = gen;
  }
}
