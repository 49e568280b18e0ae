/**
 * How one listener behaves, validated once for every kind of listener (the standalone server,
 * the configured listeners, the Prometheus endpoint): its timeouts and its connection cap.
 */
import { DEFAULT_LISTENER_TIMEOUTS } from '../config/types';
import { invalidOption, positiveIntegerOption } from '../optionValidation';

/**
 * How long a client may take, in milliseconds. A request to a metrics endpoint is a few hundred
 * bytes, so these are seconds, not the minutes a general web server allows: a client that
 * trickles its headers or a body cannot hold a connection slot for longer.
 */
export interface ListenerTimeouts {
  /**
   * The longest a whole request (headers and any body) may take to arrive; then 408 and close.
   * @default 10000
   */
  requestTimeout?: number;
  /**
   * The longest the headers may take to arrive; then 408 and close. At most `requestTimeout`.
   * @default 5000
   */
  headersTimeout?: number;
  /**
   * How long an idle keep-alive connection stays open for the next request.
   * @default 5000
   */
  keepAliveTimeout?: number;
}

/** The keys of {@link ListenerTimeouts}, for option checks. */
export const TIMEOUT_KEYS = Object.freeze(
  Object.keys(DEFAULT_LISTENER_TIMEOUTS)
) as readonly (keyof ListenerTimeouts)[];

/** Validates timeouts given at `path` (each at `path.requestTimeout` …) and applies the defaults. */
export function resolveTimeouts(
  path: string,
  given: Record<string, unknown>
): Required<ListenerTimeouts> {
  const at = (key: string): string => (path === '' ? key : `${path}.${key}`);
  const timeouts = {
    requestTimeout: positiveIntegerOption(
      at('requestTimeout'),
      given['requestTimeout'],
      DEFAULT_LISTENER_TIMEOUTS.requestTimeout
    ),
    headersTimeout: positiveIntegerOption(
      at('headersTimeout'),
      given['headersTimeout'],
      DEFAULT_LISTENER_TIMEOUTS.headersTimeout
    ),
    keepAliveTimeout: positiveIntegerOption(
      at('keepAliveTimeout'),
      given['keepAliveTimeout'],
      DEFAULT_LISTENER_TIMEOUTS.keepAliveTimeout
    ),
  };
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
