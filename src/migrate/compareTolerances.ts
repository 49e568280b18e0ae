/**
 * What `compare` holds each kind of legacy key to, as it states it in its output.
 */
import { DEFAULT_WINDOW_MS } from './legacyKeyQuery';
import { PERCENTILE_RELATIVE_ERROR } from './keyComparison';
import { MAX_BUCKET_RATIO } from './percentileBuckets';

/**
 * How often the exposition is read while the legacy snapshot's slot runs (at most: a large
 * exposition is read back to back). A gauge (an up-down counter, an observable gauge) moves both
 * ways: two reads one slot apart do not bound the value it had at the snapshot's moment, two reads
 * this close together do.
 */
export const SAMPLE_INTERVAL_MS = 50;

const WINDOW_S = DEFAULT_WINDOW_MS / 1000;

/** What each kind of key must satisfy, as `compare` states it. */
export const TOLERANCES: Readonly<Record<string, string>> = Object.freeze({
  exact: `count, value: equal to the exposition at a moment within the legacy snapshot's slot: between two consecutive reads of the exposition, read every ${SAMPLE_INTERVAL_MS} ms (or back to back when a read takes longer) from before the slot began until after the legacy API was read (a gauge moves both ways: it is taken to move in one direction between two reads)`,
  window: `one, n: equal to the total while nothing has left the legacy ${WINDOW_S} s window (count = one), otherwise at most the total; mean: within 1 (integer histograms are truncated) of _sum/_count while the window holds every value, not compared once values have left it`,
  bucket: `percentiles: within the exposition's explicit bucket that holds the same rank, widened by ${(PERCENTILE_RELATIVE_ERROR * 100).toFixed(1)} % (the legacy estimate's error at 160 buckets), while the window holds every value; a disagreement when the histogram cannot express the percentile: the rank or the value in the +Inf bucket, or in a bucket whose upper bound is more than ${MAX_BUCKET_RATIO}× its lower bound`,
  none: 'min, max, ms_since_reset: no Prometheus series has them; not compared',
});
