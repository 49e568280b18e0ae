import type { DeprecationPolicy } from './deprecation';
import { SPIRAL_FIELDS } from '../snapshot/legacyValues';
import type { Snapshot } from '../snapshot/Snapshot';
import { withExtraMetric } from '../snapshot/withExtraMetric';

/** The in-band metric's name: a poller's existing `metrics/*\/count` key picks it up. */
export const IN_BAND_METRIC_NAME = 'legacyApiSunsetDays';

/**
 * The in-band sunset metric: a spiral whose `count` and `one` both are the days left until the
 * sunset at the snapshot's time, rounded up (0 once it has passed), added to each snapshot's
 * content (see {@link withExtraMetric}). Both fields, as pollers type `count` as a counter
 * (`derive`), which writers that store rates turn into 0, and `one` as a gauge, which every
 * writer stores as read. It is not an instrument, so Prometheus and OTLP never see it. Its value
 * follows the snapshot's time, so the decorated snapshot caches its bodies as any other.
 */
export class InBandSunsetMetric {
  private _base: Snapshot | undefined;
  private _decorated: Snapshot | undefined;

  constructor(private readonly _policy: DeprecationPolicy) {}

  /** `snapshot` with the metric, made once per snapshot. */
  decorate(snapshot: Snapshot): Snapshot {
    if (snapshot !== this._base || this._decorated === undefined) {
      const days = this._policy.daysLeft(snapshot.timeMs);
      const value = {
        names: SPIRAL_FIELDS,
        numbers: [days, days],
        integer: true,
      };
      this._base = snapshot;
      this._decorated = snapshot.withContent(content =>
        withExtraMetric(content, IN_BAND_METRIC_NAME, value)
      );
    }
    return this._decorated;
  }
}
