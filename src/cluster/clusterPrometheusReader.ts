/**
 * A cluster worker's share of the primary's Prometheus endpoint: a reader with the Prometheus
 * exporter's own temporality and aggregation (cumulative sums, explicit-bucket histograms) that
 * sends, every interval, the series whose value changed since it last sent, to the primary.
 */
import type { ExportResult } from '@opentelemetry/core';
import {
  AggregationTemporality,
  AggregationType,
  InstrumentType,
  PeriodicExportingMetricReader,
  type AggregationOption,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  checkOptionObject,
  optionPath,
  positiveIntegerOption,
} from '../optionValidation';
import { CUMULATIVE_MESSAGE_TYPE } from '../reader/clusterWire';
import { DEFAULT_READER_OPTIONS } from '../reader/options';
import { sendToPrimary, WorkerChannel } from '../reader/WorkerChannel';
import { WARNING_CODES, WarnOnce } from '../warnings';
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

/** ExportResultCode.SUCCESS, without a runtime import of `@opentelemetry/core`, which is not a dependency. */
const SUCCESS: ExportResult = { code: 0 };

/** Sends each cumulative collection's changes; a message lost makes the next one whole. */
class ClusterCumulativeExporter implements PushMetricExporter {
  private readonly _sent = new SentValues();
  private readonly _warnings = new WarnOnce();

  export(
    metrics: ResourceMetrics,
    resultCallback: (result: ExportResult) => void
  ): void {
    const { body, refused } = encodeCumulativeChanges(metrics, this._sent);
    for (const name of refused)
      this._warnings.warn(
        `exponential:${name}`,
        WARNING_CODES.explicitBuckets,
        `cluster Prometheus reader: instrument ${name} is aggregated as an exponential histogram (a View chose it); ` +
          "it is left out of the primary's Prometheus exposition, which shows explicit-bucket histograms only"
      );
    if (body === undefined) {
      resultCallback(SUCCESS);
      return;
    }
    void sendToPrimary(
      { type: CUMULATIVE_MESSAGE_TYPE, body },
      'cumulative metrics'
    ).then(sent => {
      if (!sent) this._sent.clear();
      // A failure is warned about by the outbox; the SDK's own error report would repeat it every interval.
      resultCallback(SUCCESS);
    });
  }

  selectAggregationTemporality(): AggregationTemporality {
    return AggregationTemporality.CUMULATIVE;
  }

  /**
   * Observable up-down counters as last values: the same value and the same exposition (a
   * gauge) as the exporter's cumulative sum, and the kind the primary combines as a gauge, told
   * from the instrument type here rather than from the collected data, which does not carry it.
   */
  selectAggregation(type: InstrumentType): AggregationOption {
    return type === InstrumentType.OBSERVABLE_UP_DOWN_COUNTER
      ? { type: AggregationType.LAST_VALUE }
      : { type: AggregationType.DEFAULT };
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
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
): PeriodicExportingMetricReader {
  checkOptionObject(path, options, OPTION_KEYS);
  WorkerChannel.check(path === '' ? 'createClusterPrometheusReader' : path);
  const at = (key: string): string => optionPath(path, key);
  const intervalMs = positiveIntegerOption(
    at('intervalMs'),
    options.intervalMs,
    DEFAULT_READER_OPTIONS.slotMs
  );
  return new PeriodicExportingMetricReader({
    exporter: new ClusterCumulativeExporter(),
    exportIntervalMillis: intervalMs,
    exportTimeoutMillis: intervalMs,
    cardinalityLimits: {
      default: positiveIntegerOption(
        at('cardinalityLimit'),
        options.cardinalityLimit,
        DEFAULT_READER_OPTIONS.cardinalityLimit
      ),
    },
  });
}
