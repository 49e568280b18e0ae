import type { Attributes } from '@opentelemetry/api';
import type {
  DataPoint,
  ExponentialHistogram,
} from '@opentelemetry/sdk-metrics';
import type { Binding, InstrumentState } from './instruments';
import type {
  HistogramSeries,
  Series,
  SpiralSeries,
  ValueSeries,
  ValueSource,
} from './series';
import type { Slicer } from './Slicer';

/*
 * The loops that feed one instrument's data points into its series, one loop per kind of
 * binding: an instrument's kind decides once what all its attribute sets bind to, so each loop
 * calls one class's methods only, and a data point on the steady path (an attribute set bound
 * before) costs a lookup and an update, with nothing allocated.
 */

/** What the loops need of the store in one tick. */
export interface PointSink {
  /** The slot the tick feeds. */
  readonly slot: number;
  /** The generation of the tick: a series whose `dirtyGen` is this is already marked changed. */
  readonly gen: number;
  /** The binding of an attribute set not seen by identity yet (the slow path). */
  bind(
    instrument: InstrumentState,
    attributes: Attributes,
    pointCount: number
  ): Binding | undefined;
  /** Marks `series` changed in this tick. */
  changed(series: Series): void;
  /** Schedules the expiry of the data `series` got in the tick's slot. */
  schedule(series: Series): void;
  /** Reports an increase that is not a finite number. */
  badIncrease(instrument: InstrumentState, point: DataPoint<unknown>): void;
}

type Points = readonly DataPoint<unknown>[];

/** The binding of a point's attribute set: by identity, else the slow path. */
function bindingOf(
  instrument: InstrumentState,
  point: DataPoint<unknown>,
  points: Points,
  sink: PointSink
): Binding | undefined {
  const cached = instrument.byIdentity.get(point.attributes);
  return cached !== undefined
    ? cached
    : sink.bind(instrument, point.attributes, points.length);
}

/**
 * Feeds `points` of `instrument` from `from` into their series. Returns where it stopped:
 * `points.length` when done, less when `slicer` ended the slice.
 */
export function feedPoints(
  instrument: InstrumentState,
  points: Points,
  from: number,
  sink: PointSink,
  slicer: Slicer
): number {
  if (instrument.lastValue)
    return feedLastValues(instrument, points, from, sink, slicer);
  switch (instrument.kind) {
    case 'spiral':
      return feedSpirals(instrument, points, from, sink, slicer);
    case 'histogram':
      return feedHistograms(instrument, points, from, sink, slicer);
    default:
      return feedValues(instrument, points, from, sink, slicer);
  }
}

function feedSpirals(
  instrument: InstrumentState,
  points: Points,
  from: number,
  sink: PointSink,
  slicer: Slicer
): number {
  const { slot, gen } = sink;
  let at = from;
  while (at < points.length) {
    const point = points[at++]!;
    const series = bindingOf(instrument, point, points, sink) as
      SpiralSeries | null | undefined;
    const value = point.value as number;
    if (series != null && value !== 0) {
      if (!Number.isFinite(value)) sink.badIncrease(instrument, point);
      else {
        if (series.add(slot, value)) sink.schedule(series);
        if (series.dirtyGen !== gen) sink.changed(series);
      }
    }
    if (slicer.due()) break;
  }
  return at;
}

function feedValues(
  instrument: InstrumentState,
  points: Points,
  from: number,
  sink: PointSink,
  slicer: Slicer
): number {
  const gen = sink.gen;
  let at = from;
  while (at < points.length) {
    const point = points[at++]!;
    const series = bindingOf(instrument, point, points, sink) as
      ValueSeries | null | undefined;
    const value = point.value as number;
    if (series != null && value !== 0) {
      if (!Number.isFinite(value)) sink.badIncrease(instrument, point);
      else if (series.add(value) && series.dirtyGen !== gen)
        sink.changed(series);
    }
    if (slicer.due()) break;
  }
  return at;
}

function feedLastValues(
  instrument: InstrumentState,
  points: Points,
  from: number,
  sink: PointSink,
  slicer: Slicer
): number {
  const gen = sink.gen;
  let at = from;
  while (at < points.length) {
    const point = points[at++]!;
    const source = bindingOf(instrument, point, points, sink) as
      ValueSource | null | undefined;
    // Kept exactly as reported, NaN included.
    if (
      source != null &&
      source.set(point.value as number) &&
      source.series.dirtyGen !== gen
    )
      sink.changed(source.series);
    if (slicer.due()) break;
  }
  return at;
}

function feedHistograms(
  instrument: InstrumentState,
  points: Points,
  from: number,
  sink: PointSink,
  slicer: Slicer
): number {
  const { slot, gen } = sink;
  let at = from;
  while (at < points.length) {
    const point = points[at++]!;
    const series = bindingOf(instrument, point, points, sink) as
      HistogramSeries | null | undefined;
    const value = point.value as ExponentialHistogram;
    // A histogram whose buckets did not change since the last collection is left alone.
    if (series != null && value.count > 0) {
      if (series.add(slot, value)) sink.schedule(series);
      if (series.dirtyGen !== gen) sink.changed(series);
    }
    if (slicer.due()) break;
  }
  return at;
}
