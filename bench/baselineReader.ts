import {
  AggregationTemporality,
  AggregationType,
  InstrumentType,
  MetricReader,
  type AggregationOption,
} from '@opentelemetry/sdk-metrics';
import { DEFAULT_READER_OPTIONS } from '../src/reader/options';

/**
 * A reader with the legacy reader's aggregation (delta temporality, exponential histograms, the
 * same cardinality limit) that drops what it collects: the same process with it instead of the
 * legacy reader shows what the legacy reader adds beyond the SDK's own collection.
 */
export class BaselineReader extends MetricReader {
  constructor(histogramMaxBuckets: number) {
    const histogram: AggregationOption = {
      type: AggregationType.EXPONENTIAL_HISTOGRAM,
      options: { maxSize: histogramMaxBuckets, recordMinMax: true },
    };
    super({
      aggregationTemporalitySelector: () => AggregationTemporality.DELTA,
      aggregationSelector: type =>
        type === InstrumentType.HISTOGRAM
          ? histogram
          : { type: AggregationType.DEFAULT },
      cardinalitySelector: () => DEFAULT_READER_OPTIONS.cardinalityLimit,
    });
  }

  protected override async onForceFlush(): Promise<void> {
    await this.collect();
  }

  protected override async onShutdown(): Promise<void> {}
}
