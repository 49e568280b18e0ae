/**
 * What `compare` reads on the legacy side: each host type (or host) the listing names, or those
 * asked for, and the global metrics, each with its own placement, whatever its name.
 */
import { groupOfSegment } from './legacyUrl';
import type { Placement } from './expositionIndex';
import { fetchListing, type LegacyListing } from './fetchServer';
import { MigrationError } from './MigrationError';

/** One legacy map to compare: its name, where its series are, and its URL. */
export interface Group {
  readonly name: string;
  readonly placement: Placement;
  readonly url: string;
}

/** The groups to compare: the listing's (or those asked for), then the global metrics. */
export async function groupsOf(
  hostTypes: readonly string[] | undefined,
  base: string
): Promise<{ listing: LegacyListing; groups: Group[] }> {
  const listing = await fetchListing(base, { tool: 'compare' });
  const url = (name: string): string =>
    `${base}/metrics/${listing.variant}/${encodeURIComponent(name)}`;
  const named = (name: string): Group => ({
    name,
    placement: { label: listing.variant, value: name },
    url: url(name),
  });
  let groups: Group[];
  if (hostTypes !== undefined && hostTypes.length > 0)
    groups = hostTypes.map(name => {
      const raw = groupOfSegment(listing.groups, name);
      if (raw === undefined)
        throw new MigrationError(
          `--host-type: found ${JSON.stringify(name)}, expected one of ${listing.groups.map(g => JSON.stringify(g)).join(', ')}`
        );
      return named(raw);
    });
  else
    groups = [
      ...listing.groups.map(named),
      {
        name: 'global',
        placement: { label: 'global' },
        url: `${base}/metrics/global`,
      },
    ];
  return { listing, groups };
}
