import type { Variant } from '../attributes';
import type { LegacyFormat } from './contentNegotiation';
import type { DeprecationPolicy } from './deprecation';
import { jsonSerializer } from '../snapshot/jsonSerializer';
import { SPIRAL_FIELDS } from '../snapshot/legacyValues';
import type { LegacySerializer } from '../snapshot/serializer';
import type { LegacyResponse, Snapshot } from '../snapshot/Snapshot';
import { withExtraMetric } from '../snapshot/withExtraMetric';
import { xmlSerializer } from '../snapshot/xmlSerializer';

/** The in-band metric's name: a poller's existing `metrics/*\/count` key picks it up. */
export const IN_BAND_METRIC_NAME = 'legacyApiSunsetDays';

const BASE: Record<LegacyFormat, LegacySerializer> = {
  json: jsonSerializer,
  xml: xmlSerializer,
};

/**
 * Serves the legacy API with the in-band sunset metric: a spiral whose `count` and `one` both
 * are the days left until the sunset at the snapshot's time, rounded up (0 once it has passed),
 * in every map of metrics, in the listing and at its own single-metric paths. Both fields, as
 * pollers type `count` as a counter (`derive`), which writers that store rates turn into 0, and
 * `one` as a gauge, which every writer stores as read. It is not an instrument, so Prometheus and
 * OTLP never see it. Its value follows the snapshot's time, so bodies stay cached per snapshot.
 */
export class InBandSunsetMetric {
  private _snapshot: Snapshot | undefined;
  private _serializers: Record<LegacyFormat, LegacySerializer> = BASE;

  constructor(
    private readonly _policy: DeprecationPolicy,
    private readonly _variant: Variant,
    private readonly _allMetricsAreGlobal: boolean
  ) {}

  /** The serializer of `format` for `snapshot`: its bodies carry the metric. */
  serializer(snapshot: Snapshot, format: LegacyFormat): LegacySerializer {
    if (snapshot !== this._snapshot) {
      this._snapshot = snapshot;
      const value = this._value(snapshot);
      const placement = { listedPerGroup: !this._allMetricsAreGlobal };
      this._serializers = {
        json: withExtraMetric(
          jsonSerializer,
          IN_BAND_METRIC_NAME,
          value,
          placement
        ),
        xml: withExtraMetric(
          xmlSerializer,
          IN_BAND_METRIC_NAME,
          value,
          placement
        ),
      };
    }
    return this._serializers[format];
  }

  /** The response to a path below the prefix, as {@link Snapshot.respond} gives it, with the metric. */
  respond(
    snapshot: Snapshot,
    segments: readonly string[],
    format: LegacyFormat
  ): LegacyResponse {
    const serializer = this.serializer(snapshot, format);
    const [root, section, name, metric, ...rest] = segments;
    if (root === 'metrics' && rest.length === 0) {
      const ownPath =
        ((section === 'all' || section === 'global') &&
          name === IN_BAND_METRIC_NAME &&
          metric === undefined) ||
        (section === this._variant &&
          name !== undefined &&
          metric === IN_BAND_METRIC_NAME &&
          snapshot.respond(this._variant, [root, section, name], serializer)
            .status === 200);
      if (ownPath) {
        return {
          status: 200,
          body: Buffer.from(serializer.metric(this._value(snapshot))),
        };
      }
    }
    return snapshot.respond(this._variant, segments, serializer);
  }

  /** The spiral's `count` and `one` at the snapshot's time. */
  private _value(snapshot: Snapshot): {
    names: typeof SPIRAL_FIELDS;
    numbers: number[];
    integer: boolean;
  } {
    const days = this._policy.daysLeft(snapshot.timeMs);
    return { names: SPIRAL_FIELDS, numbers: [days, days], integer: true };
  }
}
