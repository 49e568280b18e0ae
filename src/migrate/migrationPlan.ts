/**
 * From a collectd curl_json poller to Prometheus: what `migrate` produces before it is written
 * out. readMigrationInputs (migrationInputs) reads the server; planMigration (migrationPlanner)
 * plans from what was read.
 */
import type { MetricKind } from '../snapshot/legacyValues';
import type {
  CurlJsonKey,
  CurlJsonPoller,
  CurlJsonUrl,
} from './curlJsonPoller';

/** What `migrate` reads besides the poller's file (see readMigrationInputs). */
export interface MigrationOptions {
  /** The legacy API's base (`http://127.0.0.1:8088/api`): read for the listing and the maps. */
  readonly legacy?: string;
  /** The server's Prometheus endpoint. @default the legacy URLs' hosts, port 9464, /metrics */
  readonly prometheus?: string;
}

/** One legacy key a `<Key>` reads on one `<URL>`, and the rule that reproduces it. */
export interface Mapping {
  readonly url: CurlJsonUrl;
  readonly key: CurlJsonKey;
  /** The key path with wildcards replaced: `metrics/xmppMessageSent/count`. */
  readonly path: string;
  readonly name: string;
  readonly field: string;
  readonly kind: MetricKind;
  /** The host type or host, raw; undefined for global and /all. */
  readonly group: string | undefined;
  /** The recording rule; undefined where no Prometheus series gives the field. */
  readonly rule: string | undefined;
}

/** A recording rule. */
export interface RecordingRule {
  readonly record: string;
  readonly expr: string;
}

/** A finding for report.txt: a stable tag and one sentence. */
export interface Finding {
  readonly tag: string;
  readonly text: string;
}

/** Everything `migrate` produces, before it is written out. */
export interface MigrationPlan {
  readonly poller: CurlJsonPoller;
  /** The legacy API's base, when it was read. */
  readonly legacy: string | undefined;
  readonly prometheusTargets: readonly URL[];
  readonly intervalS: number;
  readonly mappings: readonly Mapping[];
  readonly rules: readonly RecordingRule[];
  readonly pitfalls: readonly Finding[];
  readonly unmapped: readonly Finding[];
  readonly notes: readonly Finding[];
}
