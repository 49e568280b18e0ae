import type { Attributes } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  MetricReader,
  type Histogram,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { PACKAGE_METER_NAME } from '../../src';
import { USAGE_INSTRUMENTS } from '../../src/http/usageInstruments';

/** Orders data points by their attributes, whatever the order of their keys. */
export function byAttributes(
  a: { attributes: Attributes },
  b: { attributes: Attributes }
): number {
  const key = (attributes: Attributes) =>
    JSON.stringify(Object.entries(attributes).sort());
  return key(a.attributes).localeCompare(key(b.attributes));
}

/** Stands for Prometheus and OTLP: what the SDK hands every other reader of the usage instruments. */
export class UsageCollector extends MetricReader {
  constructor() {
    super({
      aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE,
    });
  }

  /** Collects right away: a collection records the durations still pending. */
  async metric(name: string): Promise<MetricData | undefined> {
    const { resourceMetrics } = await this.collect();
    return resourceMetrics.scopeMetrics
      .filter(scope => scope.scope.name === PACKAGE_METER_NAME)
      .flatMap(scope => scope.metrics)
      .find(metric => metric.descriptor.name === name);
  }

  /** Each data point's attributes and value (a histogram's count), sorted for comparison. */
  async points(
    name: string
  ): Promise<Array<{ attributes: Attributes; value: number }>> {
    const metric = await this.metric(name);
    if (metric === undefined) return [];
    return metric.dataPoints
      .map(point => ({
        attributes: point.attributes,
        value:
          metric.dataPointType === DataPointType.HISTOGRAM
            ? (point.value as { count: number }).count
            : (point.value as number),
      }))
      .sort(byAttributes);
  }

  /** The `http.server.request.duration` histogram of every attribute set, merged. */
  async durations(): Promise<{
    count: number;
    sum: number;
    min: number;
    max: number;
  }> {
    const metric = await this.metric(USAGE_INSTRUMENTS.requestDuration);
    const merged = { count: 0, sum: 0, min: Infinity, max: -Infinity };
    for (const point of metric?.dataPoints ?? []) {
      const value = point.value as Histogram;
      merged.count += value.count;
      merged.sum += value.sum ?? NaN;
      merged.min = Math.min(merged.min, value.min ?? NaN);
      merged.max = Math.max(merged.max, value.max ?? NaN);
    }
    return merged;
  }

  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }

  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}
