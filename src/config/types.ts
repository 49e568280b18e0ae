/**
 * What the configuration loader returns: the HTTP listeners of the messaging server's
 * configuration file that carry the legacy metrics API handler group.
 */
import type { Variant } from '../attributes';
import type { DeprecationOptions } from './deprecationOptions';

/** The name of a handler a handler group may list. */
export type KnownHandler = 'service_api_metrics' | 'service_api_users';

/** Names of the handlers a handler group may list. */
export const KNOWN_HANDLERS: readonly KnownHandler[] = [
  'service_api_metrics',
  'service_api_users',
];

/** Values used when the configuration file leaves a setting out. */
export const CONFIG_DEFAULTS = {
  /** IP version of a TOML listener without `ip_version` or `ip_address`. */
  ipVersion: 4,
  /** `transport.num_acceptors` / `{num_acceptors, N}`. */
  numAcceptors: 100,
  /** `transport.max_connections` / `{max_connections, N}`. */
  maxConnections: 1024,
  /** `variant` of a handler group. */
  variant: 'host_type',
  /** `handlers` of a handler group: every known handler. */
  handlers: KNOWN_HANDLERS,
} as const satisfies {
  ipVersion: 4 | 6;
  numAcceptors: number;
  maxConnections: number;
  variant: Variant;
  handlers: readonly string[];
};

/**
 * How long a client may take, in milliseconds, on every listener (configured, standalone and
 * Prometheus). A request to a metrics endpoint is a few hundred bytes, so these are seconds, not
 * the minutes a general web server allows: a client that trickles its headers or a body cannot
 * hold a connection slot for longer.
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

/** The defaults of {@link ListenerTimeouts}. */
export const DEFAULT_LISTENER_TIMEOUTS = Object.freeze({
  requestTimeout: 10_000,
  headersTimeout: 5_000,
  keepAliveTimeout: 5_000,
});

/** One handler group (`[[listen.http.handlers.service_api]]` or a `modules` entry). */
export interface HandlerGroupConfig {
  /** The host the request's Host header must name; `"_"` matches any host. */
  host: string;
  /** The URL prefix, starting with `/`, e.g. `/api`. Kept exactly as written. */
  path: string;
  /**
   * Which flavour of the API to serve (an extension of the original configuration).
   * @default 'host_type'
   */
  variant: Variant;
  /**
   * The handlers listed, a non-empty subset of the known handlers (`service_api_metrics`, `service_api_users`) without duplicates.
   * Only `service_api_metrics` is served by this package.
   * @default ['service_api_metrics', 'service_api_users']
   */
  handlers: string[];
  /**
   * How the group announces the API's end (an extension: a TOML `deprecation` table, a term
   * `{deprecation, [...]}` option).
   * @default undefined
   */
  deprecation?: DeprecationOptions;
  /** Where it was defined: `listen.http[0].handlers.service_api[1]` or `line 4, column 9`. */
  place: string;
}

/**
 * One HTTP listener carrying at least one handler group of ours. Its timeouts are the TOML
 * `transport.request_timeout`, `headers_timeout` and `keep_alive_timeout` (extensions of the
 * original configuration); left out, they are undefined and the listener defaults apply.
 */
export interface ListenerConfig extends ListenerTimeouts {
  /** TCP port, 0–65535; 0 lets the system choose. */
  port: number;
  /**
   * The address to bind, only when the file sets one (TOML `ip_address`, term `{Port, "Addr"}`).
   * `undefined` means "bind loopback", which the caller decides.
   */
  ipAddress: string | undefined;
  /**
   * 6 when `ipAddress` is an IPv6 literal; otherwise TOML `ip_version` (term form: 4).
   * @default 4
   */
  ipVersion: 4 | 6;
  /**
   * Positive integer. Validated for compatibility, has no effect on Node.
   * @default 100
   */
  numAcceptors: number;
  /**
   * Positive integer, or `Infinity` for `"infinity"`.
   * @default 1024
   */
  maxConnections: number;
  /** The handler groups, in file order (never empty). */
  handlerGroups: HandlerGroupConfig[];
  /** Where it was defined: `listen.http[0]` or `line 3, column 5`. */
  place: string;
}

/** Everything the loader found in one configuration file. */
export interface LegacyApiConfig {
  /** The file, as given. */
  file: string;
  /** The form the file was read in. */
  format: 'toml' | 'term';
  /** Our listeners in file order; empty when the file has none. */
  listeners: ListenerConfig[];
}
