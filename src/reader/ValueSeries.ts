import { Series, type LastValueRule } from './series';

/**
 * UpDownCounter and Gauge kinds: the exact value and the ms since the series was created. The
 * value is the sum of the increases added (up-down counters) and of the last value of each
 * source (gauges, observable up-down counters: one source per attribute set and instrument), so
 * that every series that shares a name combines by the same rule, a sum, whatever its kind.
 *
 * Most series have one source at most: its value is kept in fields of the series, which a data
 * point then reads and writes without touching an array; a second source moves every source's
 * value into arrays.
 */
export class ValueSeries extends Series<number> {
  private _added = 0;
  private _addedAny = false;
  private _sources = 0;
  /** The only source's last value and whether it reported, while there is at most one. */
  private _oneValue = 0;
  private _onePresent = false;
  /** Every source's last value, once there are two or more. */
  private _lastValues: number[] | undefined = undefined;
  /** Whether each source reported and was not forgotten since: only those count for `max`, `min`, `average`. */
  private _present: boolean[] | undefined = undefined;

  /** Whether its record is made without a loop: of one source of last values at most. */
  get recordIsCheap(): boolean {
    return this._sources <= 1;
  }

  /** A new source of last values, which counts 0 until it reports. */
  source(): ValueSource {
    const at = this._sources++;
    if (at === 1) {
      this._lastValues = [this._oneValue, 0];
      this._present = [this._onePresent, false];
    } else if (at > 1) {
      this._lastValues!.push(0);
      this._present!.push(false);
    }
    return new ValueSource(this, at);
  }

  /** Takes a source's value as reported. Returns whether it changed. */
  set(at: number, value: number): boolean {
    const values = this._lastValues;
    if (values === undefined) {
      const was = this._onePresent;
      this._onePresent = true;
      if (was && Object.is(value, this._oneValue)) return false;
      this._oneValue = value;
      return true;
    }
    const was = this._present![at];
    this._present![at] = true;
    if (was === true && Object.is(value, values[at])) return false;
    values[at] = value;
    return true;
  }

  /** Forgets a source's value (a cluster worker gone): it counts 0 again. Returns whether it changed. */
  forget(at: number): boolean {
    const values = this._lastValues;
    if (values === undefined) {
      if (!this._onePresent) return false;
      this._onePresent = false;
      this._oneValue = 0;
      return true;
    }
    if (this._present![at] !== true) return false;
    this._present![at] = false;
    values[at] = 0;
    return true;
  }

  /** Adds a finite delta (an up-down counter's). Returns whether the value changed. */
  add(delta: number): boolean {
    if (delta === 0) return false;
    this._added += delta;
    this._addedAny = true;
    return true;
  }

  publish(): number {
    if (this._sources === 0) return this._added;
    // One source: every rule gives its value (0 until it reports, and once forgotten).
    let value = this._oneValue;
    const values = this._lastValues;
    if (values !== undefined) {
      // Summed afresh, in the sources' order: a running difference would drift, and keep NaN for good.
      const rule = this.totals.lastValues;
      value = rule === 'sum' ? values[0]! : this._combinePresent(rule, values);
      if (rule === 'sum')
        for (let i = 1; i < values.length; i++) value += values[i]!;
    }
    return this._addedAny ? value + this._added : value;
  }

  /** The sources that reported, combined by `rule`; 0 when none did. */
  private _combinePresent(
    rule: Exclude<LastValueRule, 'sum'>,
    values: readonly number[]
  ): number {
    let result = 0;
    let count = 0;
    for (let i = 0; i < values.length; i++) {
      if (!this._present![i]) continue;
      const value = values[i]!;
      if (count === 0) result = value;
      else if (rule === 'max') result = Math.max(result, value);
      else if (rule === 'min') result = Math.min(result, value);
      else result += value;
      count++;
    }
    return rule === 'average' && count > 0 ? result / count : result;
  }
}

/** One source of last values of a {@link ValueSeries}: what an attribute set of a gauge binds to. */
export class ValueSource {
  constructor(
    readonly series: ValueSeries,
    private readonly _at: number
  ) {}

  /** Takes the value as reported, exactly. Returns whether the series' value changed. */
  set(value: number): boolean {
    return this.series.set(this._at, value);
  }

  /** Forgets the value (its reporter is gone). Returns whether the series' value changed. */
  forget(): boolean {
    return this.series.forget(this._at);
  }
}
