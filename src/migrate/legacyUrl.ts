/**
 * How `migrate` reads the legacy API URL of a poller's `<URL>` block and spells a host type in
 * one: the one place it knows the legacy route grammar.
 */

/**
 * The URL segment the legacy API also accepts for a host type: spaces become `_`, as the
 * original's prefixes did (`test type` is served at `/host_type/test_type`).
 */
export function hostTypeSegment(hostType: string): string {
  return hostType.replaceAll(' ', '_');
}

/** Where a legacy URL points. */
export interface LegacyTarget {
  readonly placement: 'host_type' | 'host' | 'global' | 'all';
  /** The host type (or host) segment, percent-decoded. */
  readonly segment?: string;
  /** The metric of a single-metric URL. */
  readonly metric?: string;
  /** The URL up to `/metrics`, exclusive. */
  readonly base: string;
}

/** Reads a legacy API URL: `…/metrics/host_type/<x>[/<metric>]`, `…/metrics/global[/<metric>]`, `…/metrics/all[/<metric>]`. */
export function parseLegacyUrl(url: string): LegacyTarget | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const segments = parsed.pathname.split('/');
  while (segments.at(-1) === '') segments.pop();
  const at = segments.lastIndexOf('metrics');
  if (at === -1) return undefined;
  const rest = segments.slice(at + 1);
  const base = `${parsed.origin}${segments.slice(0, at).join('/')}`;
  const decode = (s: string | undefined): string | undefined =>
    s === undefined ? undefined : decodeURIComponent(s);
  if (
    (rest[0] === 'host_type' || rest[0] === 'host') &&
    rest.length >= 2 &&
    rest.length <= 3
  )
    return {
      placement: rest[0],
      segment: decode(rest[1]),
      metric: decode(rest[2]),
      base,
    };
  if ((rest[0] === 'global' || rest[0] === 'all') && rest.length <= 2)
    return { placement: rest[0], metric: decode(rest[1]), base };
  return undefined;
}
