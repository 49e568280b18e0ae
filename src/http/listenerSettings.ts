/**
 * How one listener behaves, validated once for every kind of listener (the standalone server,
 * the configured listeners, the Prometheus endpoint): its timeouts and its connection cap.
 */
import {
  DEFAULT_LISTENER_TIMEOUTS,
  type ListenerTimeouts,
} from '../config/types';
import {
  invalidOption,
  optionPath,
  positiveIntegerOption,
} from '../optionValidation';

/** The keys of {@link ListenerTimeouts}, for option checks. */
export const TIMEOUT_KEYS = Object.freeze(
  Object.keys(DEFAULT_LISTENER_TIMEOUTS)
) as readonly (keyof ListenerTimeouts)[];

/** Validates timeouts given at `path` (each at `path.requestTimeout` …) and applies the defaults. */
export function resolveTimeouts(
  path: string,
  given: Record<string, unknown>
): Required<ListenerTimeouts> {
  const at = (key: string): string => optionPath(path, key);
  const timeouts = Object.fromEntries(
    TIMEOUT_KEYS.map(key => [
      key,
      positiveIntegerOption(
        at(key),
        given[key],
        DEFAULT_LISTENER_TIMEOUTS[key]
      ),
    ])
  ) as Required<ListenerTimeouts>;
  if (timeouts.headersTimeout > timeouts.requestTimeout) {
    // Node refuses a headers timeout beyond the request timeout.
    const explicit = given['headersTimeout'] !== undefined;
    invalidOption(
      at(explicit ? 'headersTimeout' : 'requestTimeout'),
      explicit ? timeouts.headersTimeout : timeouts.requestTimeout,
      explicit
        ? `at most requestTimeout (${timeouts.requestTimeout})`
        : `at least headersTimeout (${timeouts.headersTimeout})`
    );
  }
  return timeouts;
}

/** A connection cap: a positive integer or `Infinity`, or `fallback` when left out. */
export function maxConnectionsOption(
  path: string,
  value: unknown,
  fallback: number
): number {
  const maxConnections = value ?? fallback;
  if (
    typeof maxConnections !== 'number' ||
    !(maxConnections >= 1) ||
    !(Number.isSafeInteger(maxConnections) || maxConnections === Infinity)
  )
    invalidOption(path, maxConnections, 'a positive integer or Infinity');
  return maxConnections;
}

/** How one listener behaves, once validated. */
export interface ListenerSettings {
  /** Connections beyond this are closed at once; `Infinity` for no cap. */
  readonly maxConnections: number;
  readonly timeouts: Required<ListenerTimeouts>;
}
