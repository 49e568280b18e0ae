import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { WarnOnce } from '../warnings';
import {
  captureCursor,
  CollectionFeed,
  feedCursor,
  type CaptureCursor,
  type FeedCursor,
} from './CollectionFeed';
import type { PointSink } from './pointFeeds';
import { CapturedCollection } from './CapturedCollection';
import { ColumnRecycler } from './ColumnRecycler';
import { type ColumnCopier, COPY_AT_ONCE, SlicedCopies } from './columns';
import { ExpiryWheel } from './ExpiryWheel';
import { InstrumentRegistry } from './instruments';
import { LegacyNamer } from './LegacyNamer';
import { LegacyNameTable } from './LegacyNameTable';
import type { ResolvedReaderOptions } from './options';
import { Publication } from './Publication';
import { HistogramColumns } from './HistogramColumns';
import { HistogramNames } from './HistogramNames';
import type { HistogramSeries } from './HistogramSeries';
import type { NameTotals } from './series';
import { PublishedRecords } from './records';
import { SeriesDirectory, type StoreColumns } from './SeriesDirectory';
import { CountingSlicer, Slicer } from './Slicer';
import { SpiralColumns } from './SpiralColumns';
import { ValueColumns } from './ValueColumns';
import { StoreView } from './StoreView';
import { VariantIndex } from './VariantIndex';
import type { Variant } from '../attributes';

/**
 * Every legacy series the reader knows, and the two variants' views of them. The reader's tick
 * is the only writer: `expire` slides the window, `apply` feeds the delta data points of one
 * collection into the current slot, both on the series' working state, and `publish` turns what
 * changed into new records and returns the content of the next snapshot. `apply` and `expire`
 * may come in either order within a tick: a windowed series fed a point slides its window first,
 * as `expire` would (cheapest with `apply` first, while its window is at hand). Work per tick is
 * proportional to the data points and the expiring slots, never to the number of series.
 * Times are on the monotonic clock, which the wall clock's steps leave alone.
 *
 * Each step also comes sliced (`expireSliced`, `captureSliced` then `applyCapturedSliced`,
 * `publishSliced`): the same work in slices of bounded time, yielding to the event loop between
 * them. Nothing a snapshot reads changes before the publication's last, synchronous step, so
 * the snapshot published before serves, whole, while the next one is built. One tick at a time:
 * the steps of two ticks must not interleave.
 *
 * A fault in one data point (a `legacyName` that throws, an increase that is not a finite
 * number) costs that series its data for that tick, with one warning per cause; the rest of the
 * collection is applied and published.
 */
export class MetricStore {
  readonly views: Record<Variant, VariantIndex>;
  private readonly _names: LegacyNameTable;
  private readonly _instruments: InstrumentRegistry;
  private readonly _feed: CollectionFeed;
  private readonly _expiries: ExpiryWheel<HistogramSeries>;
  private readonly _columns: StoreColumns;
  private readonly _warnings = new WarnOnce();
  private readonly _histogramNames = new HistogramNames();
  /** The arrays of publications no snapshot reaches any more, for the next ones' copies. */
  readonly recycler = new ColumnRecycler();
  /** What changed in the tick under way: published at its end. */
  private readonly _publication: Publication;
  private readonly _histogramChanged = (series: HistogramSeries): void =>
    this._publication.histogramChanged(series, this._tickGen);
  /** The data points of the collection being applied, copied out of the SDK's objects. */
  private readonly _capture = new CapturedCollection();

  /** The generation of the tick under way: one more than the last published. */
  private _tickGen = 1;
  private _view: StoreView;

  constructor(private readonly _options: ResolvedReaderOptions) {
    const windowSlots = _options.windowMs / _options.slotMs;
    this._expiries = new ExpiryWheel(windowSlots);
    this._columns = {
      spirals: new SpiralColumns(windowSlots),
      values: new ValueColumns(),
      histograms: new HistogramColumns(),
    };
    this._publication = new Publication(
      this._columns.histograms,
      this._histogramNames
    );
    this._names = new LegacyNameTable(
      this._histogramNames,
      this._warnings,
      _options
    );
    this.views = {
      host_type: new VariantIndex(_options.hostTypes),
      host: new VariantIndex(_options.hosts ?? _options.hostTypes),
    };
    this._instruments = new InstrumentRegistry(_options.meters);
    this._feed = new CollectionFeed(
      this._instruments,
      new SeriesDirectory(
        new LegacyNamer(_options, this._warnings),
        this._names,
        this._columns,
        this.views
      ),
      this._expiries,
      this._columns,
      this._warnings,
      this._histogramChanged
    );
    const monotonicMs = _options.monotonicNow();
    this._view = new StoreView(
      this,
      this._published(COPY_AT_ONCE),
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

  /**
   * A budget for the sliced steps of one tick (the reader's `sliceMs`): pass the same one to
   * each step, so that a slice may span the end of one step and the start of the next.
   */
  slicer(): Slicer {
    const { sliceMs, slicePoints } = this._options;
    return slicePoints === Infinity
      ? new Slicer(sliceMs)
      : new CountingSlicer(slicePoints, sliceMs);
  }

  /** Slides the window to end at `slot`: slots at or before `slot - windowSlots` leave it. */
  expire(slot: number): void {
    this._expire(slot, Slicer.unbounded());
  }

  /** {@link expire} in slices of `slicer`'s budget. */
  async expireSliced(slot: number, slicer = this.slicer()): Promise<void> {
    while (!this._expire(slot, slicer)) await slicer.pause();
  }

  /** Expires spirals, then histograms. Returns true when done, false when `slicer` ended the slice. */
  private _expire(slot: number, slicer: Slicer): boolean {
    if (!this._columns.spirals.expire(slot, slicer)) return false;
    const through = slot - this._expiries.windowSlots;
    return this._expiries.expire(slot, slicer, (list, at) => {
      const series = list[at]!;
      if (series.expireThrough(through)) this._histogramChanged(series);
    });
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
    this._captured(
      resourceMetrics,
      captureCursor(),
      Slicer.unbounded(),
      source,
      false
    );
    const sink = this._feed.sink(slot, monotonicMs, this._tickGen);
    this._feedCaptured(feedCursor(), sink, Slicer.unbounded());
  }

  /**
   * The first step of {@link apply} in slices, for a collection nobody reads afterwards (the
   * reader's own, a cluster worker's decoded message): copies its data points out of the SDK's
   * objects, in the tick's first slice unless the collection is very large (a first tick, every
   * series new). The caller then lets go of the collection, so that the garbage collections
   * during the slices that follow need not copy it, and calls {@link applyCapturedSliced}.
   */
  async captureSliced(
    resourceMetrics: ResourceMetrics,
    slicer: Slicer,
    source = ''
  ): Promise<void> {
    const cursor = captureCursor();
    while (!this._captured(resourceMetrics, cursor, slicer, source, true))
      await slicer.pause();
  }

  /**
   * Copies from `cursor` until done (true) or until `slicer` ends the slice (false: call again
   * to resume). A copy that fails is dropped whole, so that the next starts afresh.
   */
  private _captured(
    resourceMetrics: ResourceMetrics,
    cursor: CaptureCursor,
    slicer: Slicer,
    source: string,
    release: boolean
  ): boolean {
    try {
      return this._feed.capture(
        resourceMetrics,
        cursor,
        this._capture,
        this._tickGen,
        slicer,
        source,
        release
      );
    } catch (error) {
      this._capture.clear();
      throw error;
    }
  }

  /** The second step of {@link apply} in slices: feeds what {@link captureSliced} copied into `slot`. */
  async applyCapturedSliced(
    slot: number,
    monotonicMs: number,
    slicer: Slicer
  ): Promise<void> {
    const sink = this._feed.sink(slot, monotonicMs, this._tickGen);
    const cursor = feedCursor();
    while (!this._feedCaptured(cursor, sink, slicer)) await slicer.pause();
  }

  /**
   * Feeds the captured points from `cursor` until done (true, the capture emptied) or until
   * `slicer` ends the slice (false: call again to resume).
   */
  private _feedCaptured(
    cursor: FeedCursor,
    sink: PointSink,
    slicer: Slicer
  ): boolean {
    const capture = this._capture;
    try {
      if (!this._feed.feed(capture, cursor, sink, slicer)) return false;
    } catch (error) {
      capture.clear();
      throw error;
    }
    capture.clear();
    return true;
  }

  /** Drops the last values of `source` (a cluster worker gone); its increases stay counted. */
  forgetSource(source: string): void {
    for (const binding of this._instruments.forget(source))
      if (typeof binding === 'number') this._columns.values.forget(binding, 0);
      else binding.forget();
  }

  /**
   * Publishes what the tick changed, and returns the content of the next snapshot, stamped with
   * the wall-clock `timeMs`. The snapshots published before keep their own copies.
   */
  publish(timeMs: number, monotonicMs: number): StoreView {
    this._columns.values.settle(Slicer.unbounded());
    this._publication.makeSums(Slicer.unbounded());
    return this._swap(timeMs, monotonicMs, this._published(COPY_AT_ONCE));
  }

  /**
   * {@link publish} in slices of `slicer`'s budget: the copies' arrays made ready, shared last
   * values combined, the names' sums made and the columns copied in slices, and the new content
   * replaces the old in one step at the end.
   */
  async publishSliced(
    timeMs: number,
    monotonicMs: number,
    slicer = this.slicer()
  ): Promise<StoreView> {
    while (!this.recycler.prepare(slicer)) await slicer.pause();
    while (!this._columns.values.settle(slicer)) await slicer.pause();
    while (!this._publication.makeSums(slicer)) await slicer.pause();
    const copies = new SlicedCopies(this.recycler);
    const records = this._published(copies);
    while (!copies.copy(slicer)) await slicer.pause();
    return this._swap(timeMs, monotonicMs, records);
  }

  /**
   * The meters of the last-value instruments (gauges) that reported before but brought nothing
   * in the tick under way: where a callback that ran out of time may be.
   */
  silentGaugeMeters(): string[] {
    return this._instruments.silentGaugeMeters(this._tickGen);
  }

  /**
   * The one step that makes the tick visible: the new content, `records`, replaces the old at
   * once. Nothing may change the columns between their copies and this step.
   */
  private _swap(
    timeMs: number,
    monotonicMs: number,
    records: PublishedRecords
  ): StoreView {
    const gen = this._tickGen;
    this._names.publishFlags();
    this._publication.finish();
    this._view = new StoreView(this, records, gen, timeMs, monotonicMs);
    this._tickGen = gen + 1;
    return this._view;
  }

  /**
   * What a snapshot reads: the columns, copied by `copies`, and the histogram names' frames and
   * sums as they are now.
   */
  private _published(copies: ColumnCopier): PublishedRecords {
    const names = this._histogramNames.publish();
    return new PublishedRecords(
      this._columns.spirals.publish(copies),
      this._columns.values.publish(copies),
      this._columns.histograms.publish(names.frames, copies),
      names.sums,
      copies
    );
  }
}
