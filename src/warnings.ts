/**
 * Warnings meant for an operator. Each goes to `process.emitWarning` with a stable code, so Node
 * prints it by default and `--no-warnings` or a `process.on('warning')` handler controls it, and
 * to OpenTelemetry's diag logger, for applications that route their telemetry logs there.
 */
import { diag } from '@opentelemetry/api';

/** The stable codes of this package's warnings. */
export const WARNING_CODES = Object.freeze({
  /** A listener is bound to an address other machines can reach; the API has no authentication. */
  exposed: 'LEGACY_API_EXPOSED',
  /** A histogram aggregated with explicit buckets by a View cannot be served and is left out. */
  explicitBuckets: 'LEGACY_API_EXPLICIT_BUCKETS',
  /** A series is left out for good: its legacy name is invalid, or taken by another kind of instrument. */
  seriesLeftOut: 'LEGACY_API_SERIES_LEFT_OUT',
  /** An instrument reached its cardinality limit: further attribute sets go to an overflow series. */
  cardinalityOverflow: 'LEGACY_API_CARDINALITY_OVERFLOW',
  /** A fault in one series (a throwing legacyName, a non-finite increase) cost it that tick's data. */
  seriesFault: 'LEGACY_API_SERIES_FAULT',
  /** An observable callback did not finish within a slot: its observations were left out of that tick. */
  collectTimeout: 'LEGACY_API_COLLECT_TIMEOUT',
  /** A collection reported an error (an observable callback threw), or failed whole. */
  collectError: 'LEGACY_API_COLLECT_ERROR',
  /** A client polls the legacy API for the first time (or the client table is full). */
  newClient: 'LEGACY_API_NEW_CLIENT',
  /** A scheduled brownout of a deprecated legacy API started: GET and HEAD now answer 410 Gone. */
  brownoutStarted: 'LEGACY_API_BROWNOUT_STARTED',
  /** A scheduled brownout of a deprecated legacy API ended: requests are answered again. */
  brownoutEnded: 'LEGACY_API_BROWNOUT_ENDED',
  /** A deprecated legacy API reached its sunset (from then on, every request answers 410 Gone if it is enforced). */
  sunset: 'LEGACY_API_SUNSET',
  /** A cluster worker could not send its metrics to the primary (the IPC channel closed). */
  clusterSendFailed: 'LEGACY_API_CLUSTER_SEND_FAILED',
  /** The primary dropped a worker's message: malformed, oversized or of another version. */
  clusterMessageDropped: 'LEGACY_API_CLUSTER_MESSAGE_DROPPED',
  /** A live worker sent nothing for too many slots: its gauges are no longer counted. */
  clusterWorkerSilent: 'LEGACY_API_CLUSTER_WORKER_SILENT',
  /** A cluster worker dropped a message because too many were still queued for the primary. */
  clusterQueueFull: 'LEGACY_API_CLUSTER_QUEUE_FULL',
} as const);

/** The type every warning of this package has, for `process.on('warning')` handlers. */
export const WARNING_TYPE = 'LegacyMetricsApiWarning';

/** What a warning says of a thrown value: an Error's message, or the value as text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Emits one operator warning. With `error`, it reports a fault: diag gets it as an error, with
 * the error itself.
 */
export function emitLegacyWarning(
  code: string,
  message: string,
  error?: unknown
): void {
  if (error === undefined) diag.warn(message);
  else diag.error(message, error);
  process.emitWarning(message, { type: WARNING_TYPE, code });
}

/**
 * Warns once per key: repeated causes (the same failing series on every tick) are reported once,
 * not once per occurrence. The set of keys is bounded so that an unbounded stream of distinct
 * causes cannot grow memory; past the bound, warnings are dropped.
 */
export class WarnOnce {
  private readonly _seen = new Set<string>();

  constructor(private readonly _limit = 1000) {}

  warn(key: string, code: string, message: string, error?: unknown): void {
    if (this._seen.has(key) || this._seen.size >= this._limit) return;
    this._seen.add(key);
    emitLegacyWarning(code, message, error);
  }
}
