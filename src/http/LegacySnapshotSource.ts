import type { SERVED_SNAPSHOT, ServingStatus } from '../reader/ServedStore';
import type { Snapshot } from '../snapshot/Snapshot';

/**
 * The mark of a `LegacyClusterAggregator`, which sits above the HTTP layer: the plugin accepts
 * it as a reader without importing it. A registered symbol, so that it survives duplicate installs.
 */
export const CLUSTER_AGGREGATOR = Symbol.for(
  'otel-legacy-metrics-api.clusterAggregator'
);

/** Whether `value` is a `LegacyClusterAggregator`. */
export function isClusterAggregator(
  value: unknown
): value is LegacySnapshotSource {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[CLUSTER_AGGREGATOR] === true
  );
}

/**
 * What the HTTP layer serves: a {@link LegacyMetricsReader} in one process, or a
 * `LegacyClusterAggregator` in a `node:cluster` primary, which serves every worker's data.
 */
export interface LegacySnapshotSource {
  /**
   * What is served now: replaced after every tick. A snapshot read here never changes, however
   * long it is kept; its copies of the figures are reused once the garbage collector has found it
   * unreachable.
   */
  readonly snapshot: Snapshot;
  /**
   * What is served now, read by a request within one turn and never kept: its copies are reused
   * as soon as the next tick has replaced it. Falls back to {@link snapshot} where absent.
   * @internal
   */
  [SERVED_SNAPSHOT]?(): Snapshot;
  /** `serving`, or why the API answers 503. */
  readonly status: ServingStatus;
  /** The wall clock, in milliseconds since the epoch. */
  now(): number;
}
