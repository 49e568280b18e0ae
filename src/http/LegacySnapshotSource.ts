import type { Snapshot } from '../snapshot/Snapshot';

/**
 * What the HTTP layer serves: a {@link LegacyMetricsReader} in one process, or a
 * `LegacyClusterAggregator` in a `node:cluster` primary, which serves every worker's data.
 */
export interface LegacySnapshotSource {
  /** What is served now: replaced after every tick. */
  readonly snapshot: Snapshot;
  /** `serving`, or why the API answers 503. */
  readonly status: 'unregistered' | 'serving' | 'shutdown';
  /** The wall clock, in milliseconds since the epoch. */
  now(): number;
  /** Whether per-host-type data is folded into global metrics. */
  readonly allMetricsAreGlobal: boolean;
}
