import { diag } from '@opentelemetry/api';
import {
  AggregationTemporality,
  AggregationType,
  InstrumentType,
  MetricReader,
  TimeoutError,
  type AggregationOption,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import type { Snapshot } from '../snapshot/Snapshot';
import { errorText, WARNING_CODES, WarnOnce } from '../warnings';
import { MetricStore } from './MetricStore';
import {
  SERVED_SNAPSHOT,
  ServedStore,
  type ServingStatus,
} from './ServedStore';
import { WorkerChannel } from './WorkerChannel';
import { SlotTicker } from './slotClock';
import {
  resolveReaderOptions,
  type LegacyMetricsReaderOptions,
  type ResolvedReaderOptions,
} from './options';

/** How one tick's own work shared the event loop (see {@link LegacyMetricsReader.lastTickSlices}). */
export interface TickSlices {
  /** How many slices the work took. */
  readonly slices: number;
  /** The longest slice, in wall-clock milliseconds: the longest the event loop waited for it. */
  readonly longestMs: number;
  /**
   * The most CPU time of the event loop's thread in one slice, in ms (NaN before Node 23.9), as
   * the kernel counts it: on many, in ticks of 1 to 4 ms, so a bound rather than a measure.
   */
  readonly longestCpuMs: number;
  /** The slices together, in wall-clock milliseconds: how long the event loop spent on the tick's own work. */
  readonly totalMs: number;
}

function isTimeout(error: unknown): boolean {
  // By message too: a second copy of the SDK would have its own TimeoutError class.
  return (
    error instanceof TimeoutError ||
    (error instanceof Error && error.message === 'Operation timed out.')
  );
}

/** Observable up-down counters as last values, every other instrument by the SDK's default. */
export function observableCountersAsLastValues(
  type: InstrumentType
): AggregationOption {
  return type === InstrumentType.OBSERVABLE_UP_DOWN_COUNTER
    ? { type: AggregationType.LAST_VALUE }
    : { type: AggregationType.DEFAULT };
}

/**
 * An OpenTelemetry MetricReader that keeps the legacy metric semantics (spirals with a windowed
 * `one`, counters, gauges, windowed histograms) for the `legacyMetricsApi` fastify plugin.
 *
 * Register it on the MeterProvider beside any other reader (the Prometheus exporter, an OTLP
 * exporter): it asks the SDK for its own aggregation (delta temporality, exponential histograms,
 * a cardinality limit that holds thousands of host types), which changes nothing for them.
 * Once registered it collects once per slot, with a time limit of one slot, and publishes a new
 * {@link Snapshot}, which never changes once published.
 */
export class LegacyMetricsReader extends MetricReader {
  private readonly _options: ResolvedReaderOptions;
  private readonly _store: MetricStore;
  private readonly _served: ServedStore;
  /** Aligned to slot boundaries, so that a slot's data lands in that slot. */
  private readonly _ticker: SlotTicker;
  /** The last slot applied: the window never moves back, whatever a test's clock does. */
  private _slot = -Infinity;
  private readonly _warnings = new WarnOnce();
  /** With the `cluster` option: where collections go instead of the store. */
  private readonly _channel: WorkerChannel | undefined;
  private _lastTick: TickSlices = {
    slices: 0,
    longestMs: 0,
    longestCpuMs: 0,
    totalMs: 0,
  };

  constructor(options: LegacyMetricsReaderOptions = {}) {
    const resolved = resolveReaderOptions(options);
    const histogram: AggregationOption = {
      type: AggregationType.EXPONENTIAL_HISTOGRAM,
      options: { maxSize: resolved.histogramMaxBuckets, recordMinMax: true },
    };
    super({
      // Deltas make a tick cost what changed since the last one, not what exists. Observable
      // up-down counters are the exception: as sums, the SDK turns their observations into
      // differences, and one NaN or a large step (1e17 then 1) spoils every later value. As
      // last values they are exact, and cumulative temporality marks them apart from gauges.
      aggregationTemporalitySelector: type =>
        type === InstrumentType.OBSERVABLE_UP_DOWN_COUNTER
          ? AggregationTemporality.CUMULATIVE
          : AggregationTemporality.DELTA,
      aggregationSelector: type =>
        type === InstrumentType.HISTOGRAM
          ? histogram
          : observableCountersAsLastValues(type),
      cardinalitySelector: () => resolved.cardinalityLimit,
    });
    if (resolved.cluster) WorkerChannel.check('cluster');
    this._options = resolved;
    this._channel = resolved.cluster
      ? new WorkerChannel(resolved.meters)
      : undefined;
    this._store = new MetricStore(resolved);
    this._served = new ServedStore(this._store, () => resolved.now());
    this._ticker = new SlotTicker(
      () => this._collectAndPublish(),
      resolved.slotMs,
      resolved.monotonicNow
    );
  }

  /**
   * What the legacy API serves now: replaced after every tick, at most one slot old. A snapshot
   * read here never changes, however long it is kept; its copies of the figures are reused once
   * the garbage collector has found it unreachable.
   */
  get snapshot(): Snapshot {
    return this._served.snapshot;
  }

  /**
   * What the legacy API serves now, for a request that reads it within one turn and keeps
   * nothing of it: its copies are reused as soon as the next tick has replaced it.
   * @internal
   */
  [SERVED_SNAPSHOT](): Snapshot {
    return this._served[SERVED_SNAPSHOT]();
  }

  /**
   * Whether the legacy API can serve this reader: `unregistered` until the SDK hands it its
   * metric producer, `serving` from then on, `shutdown` once shutdown began.
   */
  get status(): ServingStatus {
    return this._served.status;
  }

  /** The reader's wall clock (its `now` option), in milliseconds since the epoch. */
  now(): number {
    return this._served.now();
  }

  /** How many legacy series the reader holds. */
  get seriesCount(): number {
    return this._served.seriesCount;
  }

  /**
   * How the reader's own work in the last tick (applying, expiring and publishing after the
   * SDK's collection) shared the event loop: in how many slices, the longest of them, and all of
   * them together. Each slice is bounded by the `sliceMs` option, give or take one data point or
   * series. With the `cluster` option, no slices: the worker sends its collection and the
   * primary applies it.
   */
  get lastTickSlices(): TickSlices {
    return this._lastTick;
  }

  protected override onInitialized(): void {
    this._served.serve();
    this._ticker.start();
  }

  protected override onForceFlush(): Promise<void> {
    return this._ticker.runAfresh();
  }

  protected override async onShutdown(): Promise<void> {
    this._served.shutDown();
    await this._ticker.stop();
    // A worker's last recordings reach the primary, which keeps them after the worker is gone.
    if (this._channel !== undefined) await this._ticker.run();
  }

  /** One tick: collects once and publishes a new snapshot. Never throws. */
  private async _collectAndPublish(): Promise<void> {
    let result: Awaited<ReturnType<MetricReader['collect']>> | undefined;
    try {
      // A callback that takes longer than a slot loses its own observations for this tick
      // rather than making everyone's data late.
      result = await this.collect({ timeoutMillis: this._options.slotMs });
    } catch (error) {
      // A failing tick must not take the host process down; the previous snapshot stays served.
      diag.error('LegacyMetricsReader: tick failed', error);
      return;
    }
    if (this._channel !== undefined) {
      this._channel.send(result.resourceMetrics);
      this._reportErrors(result.errors);
      return;
    }
    // Slots advance on the monotonic clock: a step of the wall clock (an NTP correction, a VM
    // resumed) neither refills nor empties the window. The wall clock only stamps the snapshot.
    const now = this._options.now();
    const monotonicMs = this._options.monotonicNow();
    const slot = Math.max(
      this._slot,
      Math.floor(monotonicMs / this._options.slotMs)
    );
    this._slot = slot;
    // The work runs in slices of `sliceMs`, so that the host's requests and I/O are served
    // between them; the snapshot published before serves meanwhile, whole.
    const slicer = this._store.slicer();
    const errors = result.errors;
    let collection: ResourceMetrics | undefined = result.resourceMetrics;
    // A suspended async function keeps its locals: these let the collection go once copied.
    // eslint-disable-next-line no-useless-assignment
    result = undefined;
    try {
      // The collection is the tick's own: copied out of the SDK's objects at once, then let go
      // of, so that no garbage collection during the slices copies it. Applied first: the
      // series it feeds slide their windows as they are fed, and the wheel then expires the
      // others.
      await this._store.captureSliced(collection, slicer);
      collection = undefined;
      await this._store.applyCapturedSliced(slot, monotonicMs, slicer);
      await this._store.expireSliced(slot, slicer);
      this._reportErrors(errors);
    } catch (error) {
      // Faults are isolated per series in the store; this is a defect, reported and survived.
      diag.error('LegacyMetricsReader: tick failed', error);
    } finally {
      // What was applied is published: with delta temporality, what is not is gone for good.
      await this._served.publish(now, monotonicMs, slicer);
      slicer.end();
      const { slices, longestMs, longestCpuMs, totalMs } = slicer;
      this._lastTick = Object.freeze({
        slices,
        longestMs,
        longestCpuMs,
        totalMs,
      });
    }
  }

  private _reportErrors(errors: readonly unknown[]): void {
    let timeouts = 0;
    for (const error of errors) {
      if (isTimeout(error)) {
        timeouts++;
        continue;
      }
      const message = errorText(error);
      this._warnings.warn(
        `error:${message}`,
        WARNING_CODES.collectError,
        `LegacyMetricsReader: collection error: ${message}`,
        error
      );
    }
    if (timeouts === 0) return;
    // The SDK reports a timeout without saying whose callback it was: the gauges that went
    // silent are the public clue, named as a guess.
    const meters = this._store.silentGaugeMeters();
    const where =
      meters.length === 0
        ? 'an observable callback'
        : `an observable callback (perhaps of meter ${meters.map(m => JSON.stringify(m)).join(' or ')}, whose gauges reported before and not in this tick)`;
    this._warnings.warn(
      `timeout:${meters.join('\u0000')}`,
      WARNING_CODES.collectTimeout,
      `LegacyMetricsReader: ${where} did not finish within the slot (${this._options.slotMs} ms); ` +
        'its observations are left out of the ticks it is late for, and the other instruments are served on time'
    );
  }
}
