import type { Attributes } from '@opentelemetry/api';
import type { MetricKind } from '../snapshot/legacyValues';
import { knownBinding } from './attributeSets';
import type { Binding, InstrumentState } from './instruments';
import type { HistogramSeries } from './HistogramSeries';
import type { SpiralColumns } from './SpiralColumns';
import type { ValueColumns } from './ValueColumns';
import type { ValueSource } from './ValueSeries';
import type { Slicer } from './Slicer';
import { H_COUNT, type CapturedCollection } from './CapturedCollection';

/*
 * The loop that feeds one instrument's data points into its series. An instrument's kind
 * decides once, at its registration, what all its attribute sets bind to and so what the loop
 * does with each point (a {@link PointFeed}); a data point on the steady path (an attribute set
 * bound before) costs a lookup and an update, with nothing allocated.
 */

/** What the loops need of the store in one tick. */
export interface PointSink {
  /** The slot the tick feeds. */
  readonly slot: number;
  /**
   * The last slot that leaves the window in this tick: a histogram expires through it as its
   * point is applied, where its window is read anyway, so that the expiry wheel need not.
   */
  readonly through: number;
  /** The generation of the tick. */
  readonly gen: number;
  /** The binding of an attribute set not seen by identity yet (the slow path). */
  bind(
    instrument: InstrumentState,
    attributes: Attributes,
    pointCount: number
  ): Binding | undefined;
  /** Stages the record of a histogram that changed, while it is at hand. */
  histogramChanged(series: HistogramSeries): void;
  /** Schedules the expiry of the data `series` got in the tick's slot. */
  schedule(series: HistogramSeries): void;
  /** Every spiral's working state. */
  readonly spirals: SpiralColumns;
  /** Every up-down counter's and gauge's working state. */
  readonly values: ValueColumns;
  /** Reports an increase that is not a finite number. */
  badIncrease(
    instrument: InstrumentState,
    value: number,
    attributes: Attributes
  ): void;
}

/**
 * What one kind of binding does with a data point of its instrument: the part of the loop that
 * differs by kind. Each is small, and the loop's call of it sees at most four functions, which
 * the compiler inlines.
 */
export type PointFeed = (
  binding: NonNullable<Binding>,
  capture: CapturedCollection,
  at: number,
  instrument: InstrumentState,
  sink: PointSink
) => void;

const feedSpiral: PointFeed = (binding, capture, at, instrument, sink) => {
  const value = capture.values[at]!;
  if (value === 0) return;
  if (!Number.isFinite(value))
    sink.badIncrease(instrument, value, capture.attributes[at]!);
  // A spiral binds to its number in the columns: no object of the series is read.
  else sink.spirals.add(binding as number, sink.slot, value);
};

const feedValue: PointFeed = (binding, capture, at, instrument, sink) => {
  const value = capture.values[at]!;
  if (value === 0) return;
  if (!Number.isFinite(value))
    sink.badIncrease(instrument, value, capture.attributes[at]!);
  // An up-down counter binds to its series' number in the columns.
  else sink.values.add(binding as number, value);
};

const feedLastValue: PointFeed = (binding, capture, at, _instrument, sink) => {
  // Kept exactly as reported, NaN included. A series' first source binds to its number.
  const value = capture.values[at]!;
  if (typeof binding === 'number') sink.values.set(binding, 0, value);
  else (binding as ValueSource).set(value);
};

const feedHistogram: PointFeed = (binding, capture, at, _instrument, sink) => {
  const series = binding as HistogramSeries;
  const packed = capture.histograms;
  const from = capture.values[at]!;
  // A histogram whose buckets did not change since the last collection is left alone.
  if (packed[from + H_COUNT] === 0) return;
  // The window slides first, as the expiry wheel would have slid it.
  series.expireThrough(sink.through);
  if (series.addPacked(sink.slot, packed, from)) sink.schedule(series);
  sink.histogramChanged(series);
};

/** What the points of an instrument of `kind` feed, decided once when it registers. */
export function pointFeedOf(kind: MetricKind, lastValue: boolean): PointFeed {
  if (lastValue) return feedLastValue;
  switch (kind) {
    case 'spiral':
      return feedSpiral;
    case 'histogram':
      return feedHistogram;
    default:
      return feedValue;
  }
}

/**
 * What feeding one data point costs the slicer (see {@link Slicer.due}): about 0.4 µs for a set
 * bound before, and about 3 µs for one that makes its series (on the first tick, every one).
 */
const FEED_COST = 4;
const BIND_COST = 32;

/**
 * Feeds the points of metric `metric` of `capture` from `from` into their series. Returns where
 * it stopped: the metric's end when done, less when `slicer` ended the slice.
 */
export function feedPoints(
  capture: CapturedCollection,
  metric: number,
  from: number,
  sink: PointSink,
  slicer: Slicer
): number {
  const instrument = capture.instruments[metric]!;
  const feed = instrument.feed;
  const attributes = capture.attributes;
  const end = capture.metricEnd(metric);
  const pointCount = end - capture.metricStart(metric);
  let at = from;
  while (at < end) {
    const set = attributes[at]!;
    const known = knownBinding(instrument, set);
    const binding =
      known !== undefined ? known : sink.bind(instrument, set, pointCount);
    if (binding != null) feed(binding, capture, at, instrument, sink);
    at++;
    if (slicer.due(known !== undefined ? FEED_COST : BIND_COST)) break;
  }
  return at;
}
