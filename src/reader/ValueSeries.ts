import type { PublishedRecords } from './records';
import { Series, type LastValueRule, type NameTotals } from './series';
import type { ValueColumns } from './ValueColumns';

/**
 * UpDownCounter and Gauge kinds: the exact value and the ms since the series was created. The
 * value is the sum of the increases added (up-down counters) and of the last value of each
 * source (gauges, observable up-down counters: one source per attribute set and instrument), so
 * that every series that shares a name combines by the same rule, a sum, whatever its kind.
 *
 * Its working state is a number of {@link ValueColumns}, which the points of its attribute sets
 * feed directly. Most series have one source at most; a second source moves every source's value
 * into arrays of the series, combined by the name's rule.
 */
export class ValueSeries extends Series<number> {
  /** Its number in the columns: what its attribute sets bind to. */
  readonly number: number;
  /** How many sources of last values it has. */
  private _sourceCount = 0;
  /**
   * Every source's last value, and whether each reported and was not forgotten since (only those
   * count for `max`, `min`, `average`): kept once there are two sources or more. Made then, as
   * most series never have a second source, and two arrays for each would be much of the
   * objects the collector traces.
   */
  private _sources: { values: number[]; present: boolean[] } | undefined =
    undefined;

  constructor(
    totals: NameTotals,
    createdAtMonotonicMs: number,
    since: number,
    /** Where its working state is. */
    readonly columns: ValueColumns
  ) {
    super(totals, createdAtMonotonicMs, since);
    this.number = columns.create(this);
  }

  /** A new source of last values, which counts 0 until it reports. */
  source(): ValueSource {
    const at = this._sourceCount++;
    this.columns.addSource(this.number, at);
    return new ValueSource(this, at);
  }

  /** Adds a finite delta (an up-down counter's). Returns whether the value changed. */
  add(delta: number): boolean {
    return this.columns.add(this.number, delta);
  }

  publish(): number {
    return this.columns.value(this.number);
  }

  recordIn(published: PublishedRecords): number {
    return published.values.value(this.number);
  }

  /**
   * Called by the columns as a source joins the first (`firstValue`, `firstPresent`) or further
   * ones: from then on the series keeps every source's value.
   * @internal
   */
  share(firstValue?: number, firstPresent?: boolean): void {
    const { values, present } = (this._sources ??= { values: [], present: [] });
    if (firstValue !== undefined) {
      values.push(firstValue);
      present.push(firstPresent === true);
    }
    values.push(0);
    present.push(false);
  }

  /** A source's value as reported, once the series keeps them. Returns whether it changed. @internal */
  setShared(at: number, value: number): boolean {
    const { values, present } = this._sources!;
    const was = present[at];
    present[at] = true;
    if (was === true && Object.is(value, values[at])) return false;
    values[at] = value;
    return true;
  }

  /** Forgets a source's value, once the series keeps them. Returns whether it changed. @internal */
  forgetShared(at: number): boolean {
    const { values, present } = this._sources!;
    if (present[at] !== true) return false;
    present[at] = false;
    values[at] = 0;
    return true;
  }

  /** The sources' values combined by the name's rule, summed afresh in their order. @internal */
  combined(): number {
    const { values, present } = this._sources!;
    const rule = this.totals.lastValues;
    if (rule !== 'sum') return combinePresent(rule, values, present);
    // A running difference would drift, and keep NaN for good.
    let value = values[0]!;
    for (let i = 1; i < values.length; i++) value += values[i]!;
    return value;
  }
}

/** The values of the sources `present`, combined by `rule`; 0 when none is. */
function combinePresent(
  rule: Exclude<LastValueRule, 'sum'>,
  values: readonly number[],
  present: readonly boolean[]
): number {
  let result = 0;
  let count = 0;
  for (let i = 0; i < values.length; i++) {
    if (!present[i]) continue;
    const value = values[i]!;
    if (count === 0) result = value;
    else if (rule === 'max') result = Math.max(result, value);
    else if (rule === 'min') result = Math.min(result, value);
    else result += value;
    count++;
  }
  return rule === 'average' && count > 0 ? result / count : result;
}

/** One source of last values of a {@link ValueSeries}: what an attribute set of a gauge binds to. */
export class ValueSource {
  constructor(
    readonly series: ValueSeries,
    private readonly _at: number
  ) {}

  /**
   * What its attribute set binds to: the first source of a series, its series' number, which the
   * columns take directly; any other, itself.
   */
  get binding(): number | ValueSource {
    return this._at === 0 ? this.series.number : this;
  }

  /** Takes the value as reported, exactly. Returns whether the series' value changed. */
  set(value: number): boolean {
    return this.series.columns.set(this.series.number, this._at, value);
  }

  /** Forgets the value (its reporter is gone). Returns whether the series' value changed. */
  forget(): boolean {
    return this.series.columns.forget(this.series.number, this._at);
  }
}
