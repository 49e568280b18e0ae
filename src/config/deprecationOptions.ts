/**
 * The deprecation settings of a handler group (an extension of the original configuration): as
 * given in code, TOML or terms, and once resolved.
 */

/** One scheduled brownout: the legacy API answers 410 Gone for `duration` from `start` on. */
export interface BrownoutOptions {
  /**
   * When the window opens: an ISO 8601 date-time with an offset (`2026-05-04T10:00:00Z`), a date
   * alone (midnight UTC), or a `Date`.
   */
  start: string | Date;
  /** How long the window lasts: an ISO 8601 duration such as `PT30M`, `PT2H` or `P1D`. */
  duration: string;
}

/** How the legacy API announces its end. Every field but `since` is optional. */
export interface DeprecationOptions {
  /**
   * When the API became (or becomes) deprecated: an ISO 8601 date-time with an offset, a date
   * alone (midnight UTC), or a `Date`. Sent as the `Deprecation` header (RFC 9745).
   */
  since: string | Date;
  /**
   * When the API is switched off, in the same forms; never before `since`. Sent as the `Sunset`
   * header (RFC 8594).
   * @default undefined (no Sunset header)
   */
  sunset?: string | Date;
  /**
   * The absolute http(s) URL of the replacement, e.g. the Prometheus endpoint: a
   * `Link: <…>; rel="successor-version"` header and part of every 410 body.
   * @default undefined (with `createMeterProviderWithLegacyApi`: its Prometheus URL)
   */
  successor?: string;
  /**
   * The absolute http(s) URL of a page about the deprecation: a `Link: <…>; rel="deprecation"` header.
   * @default undefined
   */
  documentation?: string;
  /**
   * Add the spiral `legacyApiSunsetDays` (`count` and `one`: the days left until `sunset`, rounded
   * up, 0 once it has passed) to every host type or host and to the global metrics, for pollers
   * that never show headers. Needs `sunset`.
   * @default false
   */
  inBand?: boolean;
  /**
   * Answer every request with 410 Gone from the sunset instant on. Needs `sunset`.
   * @default false
   */
  enforceSunset?: boolean;
  /**
   * Windows during which every GET and HEAD answers 410 Gone, to rehearse the switch-off.
   * @default []
   */
  brownouts?: readonly BrownoutOptions[];
}

/** Deprecation settings after validation: instants in milliseconds since the epoch. */
export interface ResolvedDeprecation {
  readonly sinceMs: number;
  readonly sunsetMs: number | undefined;
  /** Normalized by the URL parser, so that it is safe inside a Link header. */
  readonly successor: string | undefined;
  readonly documentation: string | undefined;
  readonly inBand: boolean;
  readonly enforceSunset: boolean;
  /** The windows as given, each `[startMs, endMs)`. */
  readonly brownouts: ReadonlyArray<{
    readonly startMs: number;
    readonly endMs: number;
  }>;
}
