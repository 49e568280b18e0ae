import {
  ValueType,
  type Attributes,
  type Counter,
  type Gauge,
  type Histogram,
  type Meter,
  type UpDownCounter,
} from '@opentelemetry/api';
import { HOST_TYPE_ATTRIBUTE } from '../src';

/**
 * The metric workload of the benchmarks: a messaging server with `hostTypes` host types, each
 * with the same `metrics` instruments, plus a few global metrics, and a rotating 10% of the
 * series updated every second.
 */

export type ScaleName = 'S' | 'M' | 'L' | 'XL';

export interface Scale {
  readonly name: ScaleName;
  readonly hostTypes: number;
  readonly metrics: number;
}

export const SCALES: Readonly<Record<ScaleName, Scale>> = Object.freeze({
  S: { name: 'S', hostTypes: 2, metrics: 50 },
  M: { name: 'M', hostTypes: 100, metrics: 100 },
  L: { name: 'L', hostTypes: 1_000, metrics: 100 },
  XL: { name: 'XL', hostTypes: 10_000, metrics: 20 },
});

export function isScaleName(value: string): value is ScaleName {
  return Object.hasOwn(SCALES, value);
}

/** Metrics without a host type: served by `/api/metrics/global`. */
export const GLOBAL_METRICS = 10;
/** The share of all series that get data every second. */
export const UPDATE_FRACTION = 0.1;

export type Kind = 'spiral' | 'counter' | 'gauge' | 'histogram';
/** Two spirals for every counter, gauge and histogram: a messaging server counts more than it samples. */
const KIND_CYCLE: readonly Kind[] = [
  'spiral',
  'spiral',
  'counter',
  'gauge',
  'histogram',
];
const KIND_WORD: Record<Kind, string> = {
  spiral: 'Spiral',
  counter: 'Counter',
  gauge: 'Gauge',
  histogram: 'Histogram',
};

/** The kind of a metric of the workload, from its name (`benchSpiral000`, `benchGlobalGauge03`). */
export function kindOfMetric(name: string): Kind {
  for (const kind of KIND_CYCLE)
    if (name.includes(KIND_WORD[kind])) return kind;
  throw new Error(`${name} is not a metric of the workload`);
}

export function hostTypeName(index: number): string {
  return `ht-${String(index).padStart(5, '0')}.example.com`;
}

/** Every host type of a scale, in configuration order. */
export function hostTypeNames(scale: Scale): string[] {
  return Array.from({ length: scale.hostTypes }, (_, i) => hostTypeName(i));
}

export function metricName(index: number): string {
  return `bench${KIND_WORD[KIND_CYCLE[index % KIND_CYCLE.length]!]}${String(index).padStart(3, '0')}`;
}

export function globalMetricName(index: number): string {
  return `benchGlobal${KIND_WORD[KIND_CYCLE[index % KIND_CYCLE.length]!]}${String(index).padStart(2, '0')}`;
}

/** A host type and a metric that the benchmark requests individually. */
export function sampleOf(scale: Scale): { hostType: string; metric: string } {
  return {
    hostType: hostTypeName(Math.floor(scale.hostTypes / 2)),
    metric: metricName(0),
  };
}

type Instrument =
  | { readonly kind: 'spiral'; readonly instrument: Counter }
  | { readonly kind: 'counter'; readonly instrument: UpDownCounter }
  | { readonly kind: 'gauge'; readonly instrument: Gauge }
  | { readonly kind: 'histogram'; readonly instrument: Histogram };

function createInstrument(meter: Meter, name: string, kind: Kind): Instrument {
  switch (kind) {
    case 'spiral':
      return {
        kind,
        instrument: meter.createCounter(name, { valueType: ValueType.INT }),
      };
    case 'counter':
      return {
        kind,
        instrument: meter.createUpDownCounter(name, {
          valueType: ValueType.INT,
        }),
      };
    case 'gauge':
      return {
        kind,
        instrument: meter.createGauge(name, { valueType: ValueType.INT }),
      };
    case 'histogram':
      return { kind, instrument: meter.createHistogram(name, { unit: 'ms' }) };
  }
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

const EMPTY_ATTRIBUTES: Attributes = Object.freeze({});

/** The instruments of one scale on one meter, and the recordings that feed them. */
export class Workload {
  readonly hostTypes: readonly string[];
  /** Per-host-type series plus global ones. */
  readonly seriesCount: number;
  private readonly _perHostType: readonly Instrument[];
  private readonly _global: readonly Instrument[];
  /** One attributes object per host type, reused for every recording, as instrumented code usually keeps them. */
  private readonly _attributes: readonly Attributes[];
  private readonly _stride: number;
  private _cursor = 0;
  private _random = 0x2545f491;

  /**
   * @param freshAttributes each recording makes its attributes object afresh, as code that
   *   writes `{ host_type: hostType }` at every call does, rather than keeping one per host type
   */
  constructor(
    meter: Meter,
    readonly scale: Scale,
    private readonly _freshAttributes = false
  ) {
    this.hostTypes = hostTypeNames(scale);
    this._attributes = this.hostTypes.map(name =>
      Object.freeze({ [HOST_TYPE_ATTRIBUTE]: name })
    );
    this._perHostType = Array.from({ length: scale.metrics }, (_, i) =>
      createInstrument(meter, metricName(i), KIND_CYCLE[i % KIND_CYCLE.length]!)
    );
    this._global = Array.from({ length: GLOBAL_METRICS }, (_, i) =>
      createInstrument(
        meter,
        globalMetricName(i),
        KIND_CYCLE[i % KIND_CYCLE.length]!
      )
    );
    this.seriesCount = scale.hostTypes * scale.metrics + GLOBAL_METRICS;
    // Visiting series in steps of a stride coprime with their count touches each once per round,
    // scattered over host types and instruments rather than host type by host type.
    let stride = 7919;
    while (gcd(stride, this.seriesCount) !== 1) stride += 2;
    this._stride = stride % this.seriesCount || 1;
  }

  /** Records once into every series, so that each exists from the start. */
  populate(): void {
    for (let i = 0; i < this.seriesCount; i++) this._record(i);
  }

  /** Records into the next `count` series of the rotation. */
  update(count: number): void {
    for (let i = 0; i < count; i++) {
      this._record(this._cursor);
      this._cursor = (this._cursor + this._stride) % this.seriesCount;
    }
  }

  /** The series updated per second. */
  get updatesPerSecond(): number {
    return Math.round(this.seriesCount * UPDATE_FRACTION);
  }

  /** A deterministic xorshift32, so that every run records the same values. */
  private _next(): number {
    let x = this._random;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this._random = x >>> 0;
    return this._random / 0x1_0000_0000;
  }

  private _record(series: number): void {
    const perHostType = this.scale.hostTypes * this.scale.metrics;
    let target: Instrument;
    let attributes: Attributes;
    if (series < perHostType) {
      target = this._perHostType[series % this.scale.metrics]!;
      const hostType = Math.floor(series / this.scale.metrics);
      attributes = this._freshAttributes
        ? { [HOST_TYPE_ATTRIBUTE]: this.hostTypes[hostType]! }
        : this._attributes[hostType]!;
    } else {
      target = this._global[series - perHostType]!;
      attributes = EMPTY_ATTRIBUTES;
    }
    switch (target.kind) {
      case 'spiral':
        target.instrument.add(1 + Math.floor(this._next() * 5), attributes);
        break;
      case 'counter':
        target.instrument.add(Math.floor(this._next() * 7) - 3, attributes);
        break;
      case 'gauge':
        target.instrument.record(Math.floor(this._next() * 1000), attributes);
        break;
      case 'histogram':
        // A few latencies per update, log-uniform between 0.1 ms and 3 s.
        for (let i = 0; i < 3; i++)
          target.instrument.record(
            0.1 * Math.exp(this._next() * 10.3),
            attributes
          );
        break;
    }
  }
}

/**
 * Spreads `perSecond` updates over the second in `batches` equal parts, as traffic would,
 * rather than in one burst that a tick or a request then waits behind.
 */
export class UpdateSchedule {
  private _batch = 0;

  constructor(
    private readonly _workload: Workload,
    readonly batches: number
  ) {}

  /** The updates of the next batch. */
  next(): void {
    const perSecond = this._workload.updatesPerSecond;
    const from = Math.floor((this._batch * perSecond) / this.batches);
    const to = Math.floor(((this._batch + 1) * perSecond) / this.batches);
    this._batch = (this._batch + 1) % this.batches;
    this._workload.update(to - from);
  }
}
