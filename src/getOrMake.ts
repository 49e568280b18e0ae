/** The value of `key` in `map`; made by `make` and kept there the first time it is asked for. */
export function getOrMake<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
