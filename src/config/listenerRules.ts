/**
 * The validation rules both configuration forms share: value checks, the wording of
 * what is expected, and the checks across handler groups and listeners.
 *
 * Every problem reads `found X, expected Y`, after the file and the place.
 */
import { ConfigError } from '../errors';
import { DEFAULT_LISTENER_TIMEOUTS, type ListenerConfig } from './types';

import { EXPECTED_OPTION, isPort as isPortNumber } from '../optionValidation';

/** Why a `tls` / `ssl` setting on our listener is refused rather than ignored. */
export const TLS_NOT_SUPPORTED =
  'TLS is not supported by this listener; terminate TLS in a reverse proxy';

/** What each checked value should have been, shared by both forms. */
export const EXPECTED = {
  port: EXPECTED_OPTION.port,
  ipAddress: 'an IPv4 or IPv6 address such as "127.0.0.1" or "::1"',
  ipVersion: '4 or 6',
  positiveInteger: EXPECTED_OPTION.positiveInteger,
  host: 'a non-empty string ("_" for any host)',
  path: 'a string starting with "/"',
  timeout: 'a positive integer of milliseconds',
} as const;

/**
 * The listener timeouts a configuration may set (extensions of the original's transport
 * options), by their key in the file, in milliseconds.
 */
export const TIMEOUT_SETTINGS = {
  request_timeout: 'requestTimeout',
  headers_timeout: 'headersTimeout',
  keep_alive_timeout: 'keepAliveTimeout',
} as const;

/**
 * Rejects a headers timeout beyond the request timeout (Node refuses it): the whole request
 * cannot take less time than its headers.
 */
export function checkTimeouts(
  listener: ListenerConfig,
  headersTimeoutPlace: string,
  file: string
): void {
  const { headersTimeout, requestTimeout } = listener;
  if (headersTimeout === undefined) return;
  const limit = requestTimeout ?? DEFAULT_LISTENER_TIMEOUTS.requestTimeout;
  if (headersTimeout > limit) {
    throw new ConfigError(
      file,
      headersTimeoutPlace,
      `found ${headersTimeout}, expected at most the request timeout (${limit})`
    );
  }
}

/** True for an integer port, 0–65535. */
export function isPort(value: bigint): boolean {
  return isPortNumber(Number(value));
}

/** True for a positive integer JavaScript can hold exactly. */
export function isPositiveCount(value: bigint): boolean {
  return value >= 1n && value <= BigInt(Number.MAX_SAFE_INTEGER);
}

/** True for a valid handler group host. */
export function isHost(value: string): boolean {
  return value !== '';
}

/** True for a valid handler group path. */
export function isPath(value: string): boolean {
  return value.startsWith('/');
}

/**
 * Rejects two handler groups with the same host and path on one listener: only one of
 * them could ever answer.
 */
export function checkUniqueGroups(
  listener: ListenerConfig,
  file: string
): void {
  const seen = new Map<string, string>();
  for (const group of listener.handlerGroups) {
    const key = JSON.stringify([group.host, group.path]);
    const first = seen.get(key);
    if (first !== undefined) {
      throw new ConfigError(
        file,
        group.place,
        `found host ${JSON.stringify(group.host)} and path ${JSON.stringify(group.path)} a second time, ` +
          `expected each host and path once per listener (first at ${first})`
      );
    }
    seen.set(key, group.place);
  }
}

/**
 * Rejects two listeners on the same address and port, which could not both bind.
 * Port 0 is exempt: each such listener gets a port of its own.
 */
export function checkUniqueAddresses(
  listeners: readonly ListenerConfig[],
  file: string
): void {
  const seen = new Map<string, string>();
  for (const listener of listeners) {
    if (listener.port === 0) continue;
    const key = JSON.stringify([listener.ipAddress ?? null, listener.port]);
    const first = seen.get(key);
    if (first !== undefined) {
      const address = listener.ipAddress ?? 'the default address';
      throw new ConfigError(
        file,
        listener.place,
        `found port ${listener.port} on ${address} a second time, expected each address and port once (first at ${first})`
      );
    }
    seen.set(key, listener.place);
  }
}
