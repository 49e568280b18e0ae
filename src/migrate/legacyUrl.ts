/**
 * How `migrate` and `compare` read a legacy API URL (a poller's `<URL>`, `--host-type`) and which
 * host type a segment names: the one place they know the legacy route grammar.
 */

/**
 * The host type (or host) of `groups` that a URL segment names: the one spelt so, else the one
 * whose alias it is (spaces become `_`, as the original's prefixes did: `test type` is served at
 * `/host_type/test_type`).
 */
export function groupOfSegment(
  groups: readonly string[],
  segment: string
): string | undefined {
  return (
    groups.find(g => g === segment) ??
    groups.find(g => g.replaceAll(' ', '_') === segment)
  );
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
