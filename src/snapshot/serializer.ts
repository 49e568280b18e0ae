import type { LegacyValue } from './legacyValues';

/** A map of legacy metrics as served: name and value, in serving order. */
export type MetricEntries = ReadonlyArray<
  readonly [name: string, value: LegacyValue]
>;

/**
 * Turns legacy documents into response bodies in one format. Pure: no HTTP, no state.
 * The shapes are the original API's (see the README's endpoint table).
 */
export interface LegacySerializer {
  /** The exact Content-Type the original sent, without a charset parameter. */
  readonly contentType: string;
  /** `{"host_types":[…],"metrics":[…],"global":[…]}` (`hosts` in the host variant). */
  listing(
    groupsKey: string,
    groups: readonly string[],
    metrics: readonly string[],
    global: readonly string[]
  ): string;
  /** `{"metrics":{name: value, …}}`, or `{"metrics":[]}` when there is nothing. */
  metrics(entries: MetricEntries): string;
  /** `{"metric": value}`. */
  metric(value: LegacyValue): string;
  /** The fixed error shape: `{"error":code,"message":…}`. */
  error(code: string, message: string): string;
}

/**
 * A `listing` that writes the groups, `metrics` and `global` lists in that order with
 * `list`, between `open` and `close`: the one layout both formats share.
 */
export function listingOf(
  open: string,
  separator: string,
  close: string,
  list: (key: string, names: readonly string[]) => string
): LegacySerializer['listing'] {
  return (groupsKey, groups, metrics, global) =>
    `${open}${list(groupsKey, groups)}${separator}${list('metrics', metrics)}${separator}${list('global', global)}${close}`;
}
