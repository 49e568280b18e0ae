/** How curl_json matches a `<Key>` path against the names and fields of a legacy map. */
import { getOrMake } from '../getOrMake';
import type { CurlJsonKey } from './curlJsonPoller';

/** A tree of key paths, as curl_json matches them: at each level an exact part wins over `*`. */
export class KeyTree {
  private readonly _root = new Map<
    string,
    Map<string, Map<string, CurlJsonKey>>
  >();
  /** The keys without the shape of a map's (`metrics/<name>/<field>`) or a single metric's (`metric/<field>`) path. */
  readonly misshapen: CurlJsonKey[] = [];

  /** @param single whether the URL serves a single metric (`metric/<field>` paths) */
  constructor(
    keys: readonly CurlJsonKey[],
    readonly single: boolean
  ) {
    for (const key of keys) {
      const parts = key.path.split('/');
      if (single) parts.splice(1, 0, '');
      const [root, name, field] = parts as [string, string, string];
      if (
        parts.length !== 3 ||
        (root !== (single ? 'metric' : 'metrics') && root !== '*')
      ) {
        this.misshapen.push(key);
        continue;
      }
      const names = getOrMake(this._root, root, () => new Map());
      getOrMake(names, name, () => new Map()).set(field, key);
    }
  }

  /** The `<Key>` that reads `field` of `name`, if any. */
  match(name: string, field: string): CurlJsonKey | undefined {
    const names =
      this._root.get(this.single ? 'metric' : 'metrics') ?? this._root.get('*');
    const fields = names?.get(this.single ? '' : name) ?? names?.get('*');
    return fields?.get(field) ?? fields?.get('*');
  }
}
