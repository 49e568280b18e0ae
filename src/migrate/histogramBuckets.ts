/**
 * `migrate`'s check of each histogram's explicit buckets against the legacy percentiles the
 * poller reads: where Prometheus cannot express them, one finding per instrument, with the
 * boundaries that would, in code.
 */
import { quantileOf } from './legacyKeyQuery';
import { type PrometheusSeries } from './prometheusNames';
import type { ExpositionIndex } from './expositionIndex';
import type { LegacyMetricValue } from './fetchServer';
import type { Finding } from './migrationPlan';
import {
  boundariesFix,
  bucketShortfall,
  suggestedBoundaries,
} from './percentileBuckets';

interface Shortfalls {
  readonly instrument: string;
  readonly bounds: readonly number[];
  max: number;
  readonly keys: Map<string, string>;
}

/** Collects the percentiles a histogram's buckets cannot express, by family. */
export class HistogramBuckets {
  private readonly _byFamily = new Map<string, Shortfalls>();

  /** @param exposition the server's exposition, when it was read: without it nothing is checked */
  constructor(private readonly _exposition: ExpositionIndex | undefined) {}

  /** Checks `field` of a legacy histogram `value`, read at `where`. */
  check(
    instrument: string,
    series: PrometheusSeries,
    where: string,
    field: string,
    value: LegacyMetricValue | undefined
  ): void {
    const family = this._exposition?.families.get(series.family);
    const legacy = value?.[field];
    if (
      family === undefined ||
      series.type !== 'histogram' ||
      quantileOf(field) === undefined ||
      typeof legacy !== 'number' ||
      (value?.n ?? 0) === 0
    )
      return;
    const bounds = [...family.les.keys()]
      .filter(le => Number.isFinite(le))
      .sort((a, b) => a - b);
    const shortfall = bucketShortfall(bounds, legacy);
    if (shortfall === undefined) return;
    let entry = this._byFamily.get(series.family);
    if (entry === undefined) {
      entry = { instrument, bounds, max: 0, keys: new Map() };
      this._byFamily.set(series.family, entry);
    }
    const max = typeof value?.max === 'number' ? value.max : legacy;
    entry.max = Math.max(entry.max, max, legacy);
    entry.keys.set(`${where}`, `${field} is ${shortfall}`);
  }

  /** One finding per instrument whose buckets fall short. */
  findings(): Finding[] {
    return [...this._byFamily].map(([family, entry]) => ({
      tag: 'histogram-buckets',
      text: [
        `${family} (instrument ${JSON.stringify(entry.instrument)}): its Prometheus buckets cannot express the legacy percentiles: ${[...entry.keys].map(([where, why]) => `${where}: ${why}`).join('; ')}. Their rules will not follow the legacy values, and compare reports them as disagreements.`,
        `Give the instrument boundaries that cover its values (up to ${entry.max} seen), as advice: the Prometheus exporter follows it and the legacy reader keeps its own exponential buckets (a View would change the legacy reader's aggregation too):`,
        `    ${boundariesFix(entry.instrument, suggestedBoundaries(entry.bounds, entry.max))}`,
      ].join('\n  '),
    }));
  }
}
