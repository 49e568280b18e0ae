/**
 * A cluster worker's share of the primary's Prometheus endpoint: a reader with the Prometheus
 * exporter's own temporality and aggregation (cumulative sums, explicit-bucket histograms) that
 * sends, at every slot boundary, the series whose value changed since it last sent, to the primary.
 */
import {
  AggregationTemporality,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  checkOptionObject,
  optionPath,
  positiveIntegerOption,
} from '../optionValidation';
import { CUMULATIVE_MESSAGE_TYPE } from '../reader/clusterWire';
import { observableCountersAsLastValues } from '../reader/LegacyMetricsReader';
import { DEFAULT_READER_OPTIONS } from '../reader/options';
import { SlotTicker } from '../reader/slotClock';
import { sendToPrimary, WorkerChannel } from '../reader/WorkerChannel';
import { errorText, WARNING_CODES, WarnOnce } from '../warnings';
import { encodeCumulativeChanges, SentValues } from './encodeCumulative';

/** Options of {@link createClusterPrometheusReader}. */
export interface ClusterPrometheusReaderOptions {
  /**
   * How often the worker sends, in milliseconds: its legacy reader's `slotMs`, so that the
   * primary's exposition is as fresh as its legacy API.
   * @default 1000
   */
  intervalMs?: number;
  /**
   * The most attribute sets kept per instrument, as the legacy reader's `cardinalityLimit`.
   * @default 100000
   */
  cardinalityLimit?: number;
}

/**
 * Sends each cumulative collection's changes; a message lost makes the next one whole. It ticks
 * on the legacy reader's slot boundaries (the same steady clock), so that in a worker both see an
 * observable gauge in the same turn: the primary's legacy API and its exposition then sum the
 * same samples, where two unaligned timers would each catch the host between different steps.
 */
class ClusterCumulativeReader extends MetricReader {
  private readonly _sent = new SentValues();
  private readonly _warnings = new WarnOnce();
  private readonly _ticker: SlotTicker;

  constructor(intervalMs: number, cardinalityLimit: number) {
    super({
      aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE,
      // As last values, observable up-down counters have the same value and exposition (a gauge)
      // as the exporter's cumulative sums, and the primary combines them as gauges, told from the
      // instrument type here rather than from the collected data, which does not carry it.
      aggregationSelector: observableCountersAsLastValues,
      cardinalitySelector: () => cardinalityLimit,
    });
    this._ticker = new SlotTicker(() => this._collectAndSend(), intervalMs);
  }

  protected override onInitialized(): void {
    this._ticker.start();
  }

  protected override onForceFlush(): Promise<void> {
    return this._ticker.runAfresh();
  }

  protected override async onShutdown(): Promise<void> {
    await this._ticker.stop();
    // The worker's last values reach the primary, which keeps them after the worker is gone.
    await this._ticker.run();
  }

  /** One tick: collects once and sends the changes. Never throws. */
  private async _collectAndSend(): Promise<void> {
    let metrics: ResourceMetrics;
    try {
      ({ resourceMetrics: metrics } = await this.collect({
        timeoutMillis: this._ticker.slotMs,
      }));
    } catch (error) {
      // Its callbacks' errors and timeouts are the legacy reader's to report: the same
      // callbacks run for both readers, so only a collection that failed whole is told here.
      const message = errorText(error);
      this._warnings.warn(
        `error:${message}`,
        WARNING_CODES.collectError,
        `cluster Prometheus reader: collection failed: ${message}`,
        error
      );
      return;
    }
    const { body, refused } = encodeCumulativeChanges(metrics, this._sent);
    for (const name of refused)
      this._warnings.warn(
        `exponential:${name}`,
        WARNING_CODES.explicitBuckets,
        `cluster Prometheus reader: instrument ${name} is aggregated as an exponential histogram (a View chose it); ` +
          "it is left out of the primary's Prometheus exposition, which shows explicit-bucket histograms only"
      );
    if (body === undefined) return;
    // A failure is warned about by the outbox; a message not sent makes the next one whole.
    const sent = await sendToPrimary(
      { type: CUMULATIVE_MESSAGE_TYPE, body },
      'cumulative metrics'
    );
    if (!sent) this._sent.clear();
  }
}

const OPTION_KEYS = ['intervalMs', 'cardinalityLimit'];

/**
 * The reader a `node:cluster` worker adds to its MeterProvider so that the primary's Prometheus
 * endpoint (see `createClusterPrimaryWithLegacyApi`) serves its instruments, summed with the
 * other workers'. `createMeterProviderWithLegacyApi({ cluster: true })` adds it itself.
 * @throws InvalidOptionError outside a `node:cluster` worker, or for an invalid option
 */
export function createClusterPrometheusReader(
  options: ClusterPrometheusReaderOptions = {},
  path = ''
): MetricReader {
  checkOptionObject(path, options, OPTION_KEYS);
  WorkerChannel.check(path === '' ? 'createClusterPrometheusReader' : path);
  const at = (key: string): string => optionPath(path, key);
  return new ClusterCumulativeReader(
    positiveIntegerOption(
      at('intervalMs'),
      options.intervalMs,
      DEFAULT_READER_OPTIONS.slotMs
    ),
    positiveIntegerOption(
      at('cardinalityLimit'),
      options.cardinalityLimit,
      DEFAULT_READER_OPTIONS.cardinalityLimit
    )
  );
}
