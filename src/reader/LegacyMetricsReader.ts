import { diag } from '@opentelemetry/api';
import {
  AggregationTemporality,
  AggregationType,
  InstrumentType,
  MetricReader,
  type AggregationOption,
} from '@opentelemetry/sdk-metrics';
import { PACKAGE_METER_NAME } from '../attributes';
import { MetricStore } from './MetricStore';
import {
  resolveReaderOptions,
  type LegacyMetricsReaderOptions,
  type ResolvedReaderOptions,
} from './options';
import { Snapshot } from '../snapshot/Snapshot';

/**
 * An OpenTelemetry MetricReader that keeps the legacy metric semantics (spirals with a windowed
 * `one`, counters, gauges, windowed histograms) for the `legacyMetricsApi` fastify plugin.
 *
 * Register it on the MeterProvider beside any other reader (the Prometheus exporter, an OTLP
 * exporter): it asks the SDK for its own aggregation (delta temporality, exponential histograms,
 * a cardinality limit that holds thousands of host types), which changes nothing for them.
 * Once registered it collects once per slot and publishes a new {@link Snapshot}.
 */
export class LegacyMetricsReader extends MetricReader {
  private readonly _options: ResolvedReaderOptions;
  private readonly _store: MetricStore;
  private _snapshot: Snapshot;
  private _timer: NodeJS.Timeout | undefined;
  private _tickInFlight: Promise<void> | undefined;
  private _stopped = false;

  constructor(options: LegacyMetricsReaderOptions = {}) {
    const resolved = resolveReaderOptions(options);
    const histogram: AggregationOption = {
      type: AggregationType.EXPONENTIAL_HISTOGRAM,
      options: { maxSize: resolved.histogramMaxBuckets, recordMinMax: true },
    };
    super({
      // Deltas make a tick cost what changed since the last one, not what exists.
      aggregationTemporalitySelector: () => AggregationTemporality.DELTA,
      aggregationSelector: type =>
        type === InstrumentType.HISTOGRAM
          ? histogram
          : { type: AggregationType.DEFAULT },
      cardinalitySelector: () => resolved.cardinalityLimit,
    });
    this._options = resolved;
    this._store = new MetricStore(resolved);
    this._snapshot = new Snapshot(this._store, 0, resolved.now());
  }

  /** What the legacy API serves now: replaced after every tick, at most one slot old. */
  get snapshot(): Snapshot {
    return this._snapshot;
  }

  /** The reader's clock (its `now` option), in milliseconds since the epoch. */
  now(): number {
    return this._options.now();
  }

  /** Whether per-host-type data is folded into global metrics (its `allMetricsAreGlobal` option). */
  get allMetricsAreGlobal(): boolean {
    return this._options.allMetricsAreGlobal;
  }

  /** How many legacy series the reader holds. */
  get seriesCount(): number {
    return this._store.seriesCount;
  }

  protected override onInitialized(): void {
    this._schedule();
  }

  protected override async onForceFlush(): Promise<void> {
    // A tick already under way may have collected before the caller's last recording.
    await this._tickInFlight;
    await this._tick();
  }

  protected override async onShutdown(): Promise<void> {
    this._stopped = true;
    clearTimeout(this._timer);
    this._timer = undefined;
    await this._tickInFlight;
  }

  private _schedule(): void {
    if (this._stopped) return;
    // Aligned to slot boundaries, so that a slot's data lands in that slot.
    const slotMs = this._options.slotMs;
    const delay = slotMs - (this._options.now() % slotMs);
    this._timer = setTimeout(() => {
      void this._tick().finally(() => this._schedule());
    }, delay);
    this._timer.unref();
  }

  /** Collects once and publishes a new snapshot. Never overlaps itself, never throws. */
  private _tick(): Promise<void> {
    this._tickInFlight ??= this._collectAndPublish().finally(() => {
      this._tickInFlight = undefined;
    });
    return this._tickInFlight;
  }

  private async _collectAndPublish(): Promise<void> {
    try {
      const { resourceMetrics, errors } = await this.collect();
      for (const error of errors)
        diag.error('LegacyMetricsReader: collection error', error);
      const now = this._options.now();
      const slot = Math.floor(now / this._options.slotMs);
      this._store.expire(slot);
      // The package's own usage telemetry goes to Prometheus and OTLP, not to the legacy API.
      this._store.apply(
        {
          ...resourceMetrics,
          scopeMetrics: resourceMetrics.scopeMetrics.filter(
            scope => scope.scope.name !== PACKAGE_METER_NAME
          ),
        },
        slot,
        now
      );
      this._snapshot = new Snapshot(
        this._store,
        this._snapshot.generation + 1,
        now
      );
    } catch (error) {
      // A failing tick must not take the host process down; the previous snapshot stays served.
      diag.error('LegacyMetricsReader: tick failed', error);
    }
  }
}
