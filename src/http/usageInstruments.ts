/**
 * The usage telemetry's OpenTelemetry instruments: the HTTP semantic conventions' request
 * duration, and per client and route the requests so far and the last request's time, observed
 * from a {@link ClientTable}. Request durations are recorded in batches; how soon a collection
 * sees them is said at {@link FLUSH_AFTER_MS}.
 */
import type {
  Attributes,
  BatchObservableCallback,
  Histogram,
  Meter,
  MeterProvider,
  ObservableCounter,
  ObservableGauge,
} from '@opentelemetry/api';
import { AggregationType, type ViewOptions } from '@opentelemetry/sdk-metrics';
import { PACKAGE_METER_NAME } from '../attributes';
import type { ClientTable } from './clientTable';

/** The names of the usage instruments. */
export const USAGE_INSTRUMENTS = Object.freeze({
  /** Histogram, seconds, as the HTTP semantic conventions define it. */
  requestDuration: 'http.server.request.duration',
  /** Counter (observable) of requests by client and route. */
  clientRequests: 'legacy_api.client.requests',
  /** Observable gauge: a client's last request on a route, in unix seconds. */
  clientLastRequest: 'legacy_api.client.last_request.time',
});

/** The semantic conventions' buckets for `http.server.request.duration`. */
const DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];
/**
 * Views that make each request's duration one recording whatever the number of readers. Without a
 * View the SDK keeps a storage per reader, and a reader with its own histogram aggregation (the
 * legacy reader's exponential one) costs a second recording per request. `createMeterProviderWithLegacyApi`
 * adds them; give them to your own MeterProvider (`views`) for the same effect.
 */
export const USAGE_VIEWS: readonly ViewOptions[] = Object.freeze([
  {
    meterName: PACKAGE_METER_NAME,
    instrumentName: USAGE_INSTRUMENTS.requestDuration,
    aggregation: {
      type: AggregationType.EXPLICIT_BUCKET_HISTOGRAM,
      options: { boundaries: DURATION_BUCKETS },
    },
  } satisfies ViewOptions,
]);

/** How many request durations wait at most before they are recorded. */
const PENDING_LIMIT = 256;
/**
 * How long a request duration waits at most before it is recorded. Every collection also records
 * what is pending from the observable callback, so with the SDK's order (observable callbacks
 * before the synchronous instruments' storages) a collection sees every request answered before
 * it. No order is promised, though: in any order, a collection sees every request answered more
 * than this before it, and a later one sees the rest.
 */
export const FLUSH_AFTER_MS = 10;

/** One attribute set of `http.server.request.duration` and its durations not yet recorded. */
export interface DurationSeries {
  readonly attributes: Attributes;
  readonly pending: number[];
}

/** The instruments of one plugin registration or request listener. */
export class UsageInstruments {
  private readonly _meter: Meter;
  private readonly _duration: Histogram;
  private readonly _requests: ObservableCounter;
  private readonly _lastRequest: ObservableGauge;
  /**
   * Every duration series, each with the durations not yet handed to the SDK. The SDK hashes a
   * histogram's attributes on every `record`, which on the request path costs several times what
   * recording a batch in one loop does, and handing small batches over in each turn of the event
   * loop costs a server under load a measurable share of its throughput; so durations wait until
   * {@link PENDING_LIMIT} are pending, {@link FLUSH_AFTER_MS} have passed, or a collection starts.
   */
  private readonly _series: DurationSeries[] = [];
  private _pendingCount = 0;
  private _flush: NodeJS.Timeout | undefined;
  private readonly _onTimer = (): void => {
    this._flush = undefined;
    this._recordPending();
  };
  private _recordPending(): void {
    if (this._pendingCount === 0) return;
    for (const { attributes, pending } of this._series) {
      for (const duration of pending)
        this._duration.record(duration, attributes);
      pending.length = 0;
    }
    this._pendingCount = 0;
  }
  private readonly _observe: BatchObservableCallback = result => {
    this._recordPending();
    for (const slot of this._clients.slots()) {
      result.observe(this._requests, slot.count, slot.attributes);
      result.observe(this._lastRequest, slot.lastMs / 1000, slot.attributes);
    }
  };

  constructor(
    meterProvider: MeterProvider,
    private readonly _clients: ClientTable
  ) {
    const meter = (this._meter = meterProvider.getMeter(PACKAGE_METER_NAME));
    this._duration = meter.createHistogram(USAGE_INSTRUMENTS.requestDuration, {
      description: 'Duration of HTTP server requests.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this._requests = meter.createObservableCounter(
      USAGE_INSTRUMENTS.clientRequests,
      {
        description:
          'Requests to the legacy metrics API by client (address and User-Agent) and route.',
        unit: '{request}',
      }
    );
    this._lastRequest = meter.createObservableGauge(
      USAGE_INSTRUMENTS.clientLastRequest,
      {
        description:
          "Time of a client's last request to the legacy metrics API on a route, in unix seconds.",
        unit: 's',
      }
    );
  }

  private get _observables(): [ObservableCounter, ObservableGauge] {
    return [this._requests, this._lastRequest];
  }

  /** Starts observing the client table. */
  start(): void {
    this._meter.addBatchObservableCallback(this._observe, this._observables);
  }

  /** Records what is pending and stops observing. */
  stop(): void {
    clearTimeout(this._flush);
    this._flush = undefined;
    this._recordPending();
    this._meter.removeBatchObservableCallback(this._observe, this._observables);
  }

  /** A new series of `http.server.request.duration`. */
  series(attributes: Attributes): DurationSeries {
    const series = { attributes, pending: [] };
    this._series.push(series);
    return series;
  }

  /**
   * Adds a duration in seconds to `series`; it reaches the SDK within {@link FLUSH_AFTER_MS}, or
   * at the next collection if that comes first.
   */
  addDuration(series: DurationSeries, seconds: number): void {
    series.pending.push(seconds);
    if (++this._pendingCount >= PENDING_LIMIT) this._recordPending();
    else this._flush ??= setTimeout(this._onTimer, FLUSH_AFTER_MS).unref();
  }
}
