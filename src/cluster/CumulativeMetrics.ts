/**
 * The primary's cumulative state for its Prometheus endpoint: each live worker's last value of
 * every series, and what the workers that exited had counted. Counters, up-down counters and
 * histogram buckets are summed and carried past a worker's exit, so they never go down when a
 * worker is replaced; gauges (and observable up-down counters) combine the live workers' values
 * by the legacy API's per-name rule, and leave with their worker.
 */
import type { Attributes } from '@opentelemetry/api';
import { getOrMake } from '../getOrMake';
import {
  AggregationTemporality,
  type MetricData,
  type ResourceMetrics,
  type ScopeMetrics,
} from '@opentelemetry/sdk-metrics';
import { defaultLegacyName } from '../reader/naming';
import type { ResolvedReaderOptions } from '../reader/options';
import type { LastValueRule } from '../reader/series';
import type {
  CumulativeChanges,
  CumulativeHistogram,
  CumulativeMetricChanges,
} from './decodeCumulative';
import type { CumulativeKind } from './encodeCumulative';
import { metricData } from './metricData';

type Value = number | CumulativeHistogram;

interface Series {
  readonly attributes: Attributes;
  /** Worker id → its last value. */
  readonly live: Map<number, Value>;
  /** What exited workers counted (counters, up-down counters, histograms). */
  carried: Value | undefined;
}

interface Instrument {
  readonly scope: ScopeMetrics['scope'];
  readonly name: string;
  readonly kind: CumulativeKind;
  integer: boolean;
  description: string;
  unit: string;
  readonly boundaries: readonly number[];
  readonly series: Map<string, Series>;
}

function isLastValue(kind: CumulativeKind): boolean {
  return kind === 'g';
}

function add(total: Value | undefined, value: Value): Value {
  if (total === undefined)
    return typeof value === 'number'
      ? value
      : { ...value, counts: [...value.counts] };
  if (typeof total === 'number' || typeof value === 'number')
    return (total as number) + (value as number);
  total.count += value.count;
  total.sum += value.sum;
  total.min = Math.min(total.min, value.min);
  total.max = Math.max(total.max, value.max);
  for (let i = 0; i < total.counts.length; i++)
    total.counts[i]! += value.counts[i] ?? 0;
  return total;
}

function combine(rule: LastValueRule, values: number[]): number {
  if (rule === 'max') return Math.max(...values);
  if (rule === 'min') return Math.min(...values);
  const sum = values.reduce((a, b) => a + b, 0);
  return rule === 'average' ? sum / values.length : sum;
}

/** Why a worker's metric was not taken: its kind or buckets differ from another worker's. */
export type RefusedMetric = (name: string, reason: string) => void;

/** See the module comment. */
export class CumulativeMetrics {
  private readonly _instruments = new Map<string, Instrument>();
  /** Workers whose gauges are not counted until they send again. */
  private readonly _silent = new Set<number>();
  private _collected: ResourceMetrics | undefined;

  constructor(
    private readonly _options: Pick<
      ResolvedReaderOptions,
      'legacyName' | 'lastValueRules'
    >
  ) {}

  /** Takes a worker's changes; metrics that clash with another worker's are refused. */
  apply(
    workerId: number,
    changes: CumulativeChanges,
    refused: RefusedMetric
  ): void {
    this._silent.delete(workerId);
    this._collected = undefined;
    for (const { scope, metrics } of changes)
      for (const metric of metrics)
        this._applyMetric(workerId, scope, metric, refused);
  }

  /** A worker exited: its counts are carried, its gauges leave. */
  forget(workerId: number): void {
    this._silent.delete(workerId);
    this._collected = undefined;
    for (const instrument of this._instruments.values())
      for (const series of instrument.series.values()) {
        const value = series.live.get(workerId);
        if (value === undefined) continue;
        series.live.delete(workerId);
        if (!isLastValue(instrument.kind))
          series.carried = add(series.carried, value);
      }
  }

  /** A live worker went silent: its gauges are not counted until it sends again. */
  silence(workerId: number): void {
    this._silent.add(workerId);
    this._collected = undefined;
  }

  /** The combined state as a collection, for the Prometheus serializer; the same object until a change. */
  collect(resource: ResourceMetrics['resource']): ResourceMetrics {
    if (this._collected?.resource === resource) return this._collected;
    const scopes = new Map<string, ScopeMetrics>();
    for (const instrument of this._instruments.values()) {
      const data = this._metricData(instrument);
      if (data.dataPoints.length === 0) continue;
      const key = `${instrument.scope.name}\0${instrument.scope.version ?? ''}`;
      getOrMake(scopes, key, () => ({
        scope: instrument.scope,
        metrics: [],
      })).metrics.push(data);
    }
    this._collected = { resource, scopeMetrics: [...scopes.values()] };
    return this._collected;
  }

  private _applyMetric(
    workerId: number,
    scope: ScopeMetrics['scope'],
    metric: CumulativeMetricChanges,
    refused: RefusedMetric
  ): void {
    const key = `${scope.name}\0${scope.version ?? ''}\0${metric.name}`;
    let instrument = this._instruments.get(key);
    if (instrument === undefined) {
      instrument = { ...metric, scope, series: new Map() };
      this._instruments.set(key, instrument);
    } else if (instrument.kind !== metric.kind) {
      refused(
        metric.name,
        `its kind ${metric.kind} is not ${instrument.kind}, another worker's`
      );
      return;
    } else if (instrument.boundaries.join() !== metric.boundaries.join()) {
      refused(
        metric.name,
        `its bucket boundaries are not another worker's (${instrument.boundaries.join(', ')})`
      );
      return;
    }
    if (!metric.integer) instrument.integer = false;
    instrument.description ||= metric.description;
    instrument.unit ||= metric.unit;
    for (const point of metric.points) {
      let series = instrument.series.get(point.key);
      if (series === undefined) {
        series = {
          attributes: point.attributes,
          live: new Map(),
          carried: undefined,
        };
        instrument.series.set(point.key, series);
      }
      series.live.set(workerId, point.value);
    }
  }

  private _rule(instrument: Instrument, attributes: Attributes): LastValueRule {
    const rules = this._options.lastValueRules;
    if (rules === undefined || rules.size === 0) return 'sum';
    let name: string | undefined;
    try {
      name = this._options.legacyName?.(
        instrument.name,
        attributes,
        instrument.scope
      );
    } catch {
      // The legacy reader reports a throwing legacyName; here the series keeps the default rule.
    }
    return (
      rules.get(name ?? defaultLegacyName(instrument.name, attributes)) ?? 'sum'
    );
  }

  private _metricData(instrument: Instrument): MetricData {
    const dataPoints = [];
    for (const series of instrument.series.values()) {
      let value: Value | undefined;
      if (isLastValue(instrument.kind)) {
        const values: number[] = [];
        for (const [id, v] of series.live)
          if (!this._silent.has(id)) values.push(v as number);
        if (values.length === 0) continue;
        value = combine(this._rule(instrument, series.attributes), values);
      } else {
        // add() copies the first value: neither the carried total nor a live value changes.
        for (const v of [series.carried, ...series.live.values()])
          if (v !== undefined) value = add(value, v);
        if (value === undefined) continue;
      }
      dataPoints.push({
        startTime: [0, 0],
        endTime: [0, 0],
        attributes: series.attributes,
        value:
          typeof value === 'number'
            ? value
            : {
                buckets: {
                  boundaries: instrument.boundaries,
                  counts: value.counts,
                },
                count: value.count,
                sum: value.sum,
                min: value.min,
                max: value.max,
              },
      });
    }
    return metricData(
      {
        ...instrument,
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
      },
      dataPoints
    );
  }
}
