/**
 * The results of a pure function of request text (an Accept header, a URL), so that a poller's
 * repeated request costs a lookup. Bounded, and emptied when full: arbitrary text (a scan)
 * cannot grow memory and only costs its computing, and later pollers are remembered again.
 */
export class BoundedMemo<K, V> {
  private readonly _values = new Map<K, V>();

  constructor(
    private readonly _limit: number,
    private readonly _compute: (key: K) => V
  ) {}

  get(key: K): V {
    let value = this._values.get(key);
    if (value === undefined) {
      value = this._compute(key);
      if (this._values.size >= this._limit) this._values.clear();
      this._values.set(key, value);
    }
    return value;
  }
}
