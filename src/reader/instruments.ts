/**
 * The instruments the reader has seen, by meter (instrumentation scope) and name, and what each
 * of their attribute sets feeds. Decisions are taken once: whether a meter is served when it
 * first reports, an instrument's kind when it first reports, an attribute set's series when it
 * first appears. A tick then costs a lookup per scope, per instrument and per data point.
 */
import { ValueType, type Attributes } from '@opentelemetry/api';
import { DataPointType, type MetricData } from '@opentelemetry/sdk-metrics';
import { getOrMake } from '../getOrMake';
import type { MetricKind } from '../snapshot/legacyValues';
import type { MeterFilter, MeterScope } from './meterSelection';
import { metricShape, type KindsByShape } from './metricShape';
import { setKeyOf, SingleAttributes, type SetKey } from './attributeSets';
import { pointFeedOf, type PointFeed } from './pointFeeds';
import type { Series } from './series';
import type { ValueSource } from './ValueSeries';

/**
 * What an attribute set of one instrument feeds, resolved once: a series its increases are
 * added to, a source of last values of its own in a series, or `null`: left out for good. A
 * spiral, an up-down counter and a series' first source of last values bind to the series'
 * number in the store's columns; a histogram to its series.
 */
export type Binding = Series | number | ValueSource | null;

/**
 * Makes the binding of an attribute set met for the first time (`pointCount`: how many data
 * points its instrument brought in the collection); undefined for a failure of this tick only.
 */
export type MakeBinding = (
  instrument: InstrumentState,
  attributes: Attributes,
  pointCount: number
) => Binding | undefined;

/** One instrument of one meter. */
export interface InstrumentState {
  readonly name: string;
  readonly kind: MetricKind;
  readonly integer: boolean;
  readonly scope: MeterScope;
  /** Reports last values (gauges, observable up-down counters), not increases. */
  readonly lastValue: boolean;
  /** What each of its data points does to its binding, decided by its kind. */
  readonly feed: PointFeed;
  /** The last tick generation that brought data points of the instrument. */
  seenGen: number;
  /**
   * Attribute sets of one attribute with a string value (`{host_type: 'a'}`, `{host: 'b'}`),
   * by the number {@link singles} gives the attribute: found without building a key, whether
   * the application keeps its attributes objects or makes one for each recording.
   */
  readonly bySingle: Binding[];
  /** The numbers of such attributes, shared by every instrument of the registry. */
  readonly singles: SingleAttributes;
  /**
   * Every other attribute set by object first (those of one attribute are remembered by object
   * in {@link singles}): the SDK hands back the object it was first given in the interval, the
   * same one each time for an application that keeps it. Undefined for a cluster worker's
   * instruments, whose messages are decoded afresh each time.
   */
  readonly byIdentity: WeakMap<Attributes, Binding> | undefined;
  /** Every other attribute set, by {@link attributesKey}. */
  readonly byKey: Map<string, Binding>;
}

/** A served meter: its instruments by name, then by kind (a name registered twice with two kinds). */
interface MeterState {
  readonly scope: MeterScope;
  readonly instruments: Map<string, InstrumentState[]>;
  /** Reported by a cluster worker, not by the process's own SDK. */
  readonly fromWorker: boolean;
}

const KINDS: KindsByShape<MetricKind> = {
  monotonicSum: 'spiral',
  upDownSum: 'counter',
  gauge: 'gauge',
  // An observable up-down counter's last value.
  cumulativeGauge: 'counter',
  exponentialHistogram: 'histogram',
};

/** A scope's identity: the SDK tells meters apart by name, version and schema URL. */
function scopeKey(scope: MeterScope): string {
  return `${scope.name}\u0000${scope.version ?? ''}\u0000${scope.schemaUrl ?? ''}`;
}

/** A scope as `legacyName` receives it: a copy of its own, without fields that are absent. */
function scopeOf(scope: MeterScope): MeterScope {
  const copy: { name: string; version?: string; schemaUrl?: string } = {
    name: scope.name,
  };
  if (scope.version !== undefined) copy.version = scope.version;
  if (scope.schemaUrl !== undefined) copy.schemaUrl = scope.schemaUrl;
  return Object.freeze(copy);
}

/** Every instrument seen, by meter; `null` for a meter the legacy API does not serve. */
export class InstrumentRegistry {
  private readonly _meters = new Map<string, MeterState | null>();
  /** The keys of `_meters` registered for each named source (a cluster worker). */
  private readonly _sourceKeys = new Map<string, string[]>();
  /** The keys of the attribute sets of the workers' messages, by object, while a message lives. */
  private readonly _workerSetKeys = new WeakMap<Attributes, SetKey>();
  private readonly _singles = new SingleAttributes();

  constructor(private readonly _filter: MeterFilter) {}

  /**
   * The state of a served meter; `null` when the legacy API leaves it out (decided once).
   * @param source who reports it: each source (a cluster worker) has instruments, and so last
   *   values, of its own; `''` is the process itself
   */
  meter(scope: MeterScope, source = ''): MeterState | null {
    const key =
      source === '' ? scopeKey(scope) : `${source}\u0002${scopeKey(scope)}`;
    return getOrMake(this._meters, key, () => {
      if (source !== '')
        getOrMake(this._sourceKeys, source, () => []).push(key);
      return this._filter.serves(scope.name)
        ? {
            scope: scopeOf(scope),
            instruments: new Map(),
            fromWorker: source !== '',
          }
        : null;
    });
  }

  /**
   * Forgets every instrument of `source`, returning the sources of last values it fed: a value
   * series' number for its first source, else the source.
   */
  forget(source: string): (number | ValueSource)[] {
    const values: (number | ValueSource)[] = [];
    for (const key of this._sourceKeys.get(source) ?? []) {
      const meter = this._meters.get(key);
      this._meters.delete(key);
      for (const list of meter?.instruments.values() ?? [])
        for (const instrument of list)
          if (instrument.lastValue)
            for (const binding of [
              ...instrument.bySingle,
              ...instrument.byKey.values(),
            ])
              if (binding != null) values.push(binding as number | ValueSource);
    }
    this._sourceKeys.delete(source);
    return values;
  }

  /**
   * The instrument of `meter` a metric comes from, registered on first sight; a refusal when
   * its aggregation cannot be served. One name with two kinds in one meter is two instruments.
   */
  instrument(
    meter: MeterState,
    metric: MetricData
  ): InstrumentState | 'explicitBuckets' {
    const name = metric.descriptor.name;
    const kind = KINDS[metricShape(metric)];
    if (kind === undefined) return 'explicitBuckets';
    // Asked for every metric of every collection: found without making a closure.
    let list = meter.instruments.get(name);
    if (list === undefined) meter.instruments.set(name, (list = []));
    // Indexed: an iterator would be made here on each call until the compiler optimizes it.
    for (let i = 0; i < list.length; i++)
      if (list[i]!.kind === kind) return list[i]!;
    const lastValue = metric.dataPointType === DataPointType.GAUGE;
    const state: InstrumentState = {
      name,
      kind,
      integer: metric.descriptor.valueType === ValueType.INT,
      scope: meter.scope,
      lastValue,
      feed: pointFeedOf(kind, lastValue),
      seenGen: 0,
      bySingle: [],
      singles: this._singles,
      byIdentity: meter.fromWorker ? undefined : new WeakMap(),
      byKey: new Map(),
    };
    list.push(state);
    return state;
  }

  /**
   * The binding of an attribute set that `knownBinding` (attributeSets.ts, asked first, on the
   * tick's path) does not know, made by `bind` on first sight. `bind` returns undefined for a
   * failure of this tick only: nothing is remembered, and the next tick asks again.
   * @param pointCount how many data points the instrument brought in this collection
   */
  binding(
    instrument: InstrumentState,
    attributes: Attributes,
    pointCount: number,
    bind: MakeBinding
  ): Binding | undefined {
    // A worker's message shares one object per attribute set among its instruments: its key is
    // made once per message; the process's own sets are keyed once per instrument and set, and
    // a set of several attributes once per object when the application makes one per recording.
    let setKey: SetKey | undefined;
    const byIdentity = instrument.byIdentity;
    if (byIdentity === undefined) {
      setKey = this._workerSetKeys.get(attributes);
      if (setKey === undefined) {
        setKey = setKeyOf(attributes);
        this._workerSetKeys.set(attributes, setKey);
      }
    } else setKey = setKeyOf(attributes);
    const single = setKey.single;
    const number =
      single === undefined
        ? undefined
        : this._singles.numberOrNew(single, setKey.key);
    let binding =
      number === undefined
        ? instrument.byKey.get(setKey.key)
        : instrument.bySingle[number];
    if (binding === undefined) {
      binding = bind(instrument, attributes, pointCount);
      if (binding === undefined) return undefined;
      if (number === undefined) instrument.byKey.set(setKey.key, binding);
      else instrument.bySingle[number] = binding;
    }
    // Objects are remembered only here, as an instrument meets a set: those the application
    // keeps are met early, and objects made for one recording do not pile up in the maps.
    if (byIdentity === undefined) return binding;
    if (number === undefined) byIdentity.set(attributes, binding);
    else this._singles.remember(attributes, number);
    return binding;
  }

  /**
   * The meters of the last-value instruments (gauges, observable up-down counters) that reported
   * before but brought nothing in the tick of generation `gen`. The SDK's collection says neither
   * which instruments are observable nor whose callback ran out of time; last values are what
   * callbacks usually report, so these meters are where a late callback is to be looked for.
   */
  silentGaugeMeters(gen: number): string[] {
    const meters = new Set<string>();
    for (const meter of this._meters.values()) {
      if (meter === null) continue;
      for (const list of meter.instruments.values())
        for (const instrument of list)
          if (instrument.lastValue && instrument.seenGen < gen)
            meters.add(meter.scope.name);
    }
    return [...meters].sort();
  }
}
