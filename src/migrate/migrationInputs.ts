/**
 * What `migrate` reads before it plans: the Prometheus targets from the options and, with
 * `--legacy`, the server's listing, its exposition and the map of every URL the poller reads.
 */
import { DEFAULT_METER_PROVIDER_OPTIONS } from '../provider/createMeterProviderWithLegacyApi';
import { ExpositionIndex } from './expositionIndex';
import {
  fetchListing,
  fetchMetricsMap,
  legacyBase,
  readExposition,
  type LegacyListing,
  type LegacyMetricValue,
} from './fetchServer';
import type { CurlJsonPoller } from './curlJsonPoller';
import {
  groupOfSegment,
  mapUrl,
  parseLegacyUrl,
  type LegacyTarget,
  type Placement,
} from './legacyUrl';
import { MigrationError } from './MigrationError';
import type { Finding, MigrationOptions } from './migrationPlan';
import { SeriesMatcher } from './seriesMatch';

const { port: DEFAULT_PROMETHEUS_PORT, endpoint: DEFAULT_PROMETHEUS_PATH } =
  DEFAULT_METER_PROVIDER_OPTIONS.prometheus;

/** What the server serves, as read for the plan. */
export interface ServedLegacyApi {
  readonly base: string;
  readonly listing: LegacyListing;
  /** The exposition's index and a matcher over it; undefined when it could not be read. */
  readonly exposition: ExpositionIndex | undefined;
  readonly matcher: SeriesMatcher | undefined;
  /** Each map read, by URL; undefined where it answered 404. */
  readonly maps: ReadonlyMap<
    string,
    Map<string, LegacyMetricValue> | undefined
  >;
}

/** Everything the planner needs besides the poller. */
export interface MigrationInputs {
  readonly legacy: string | undefined;
  readonly prometheusTargets: URL[];
  /** The server, with `--legacy`. */
  readonly served: ServedLegacyApi | undefined;
  /** What the reading itself found: the first notes of the report. */
  readonly notes: Finding[];
}

/** Where a poller URL's map is served, or why the server serves none for it. */
export type ServedMap =
  | { readonly url: string; readonly placement: Placement }
  | { readonly unserved: 'variant' | 'group' };

/**
 * The map of the server that a poller URL reads: the server's own variant, and its spelling of
 * the host type (a space where the URL has the `_` alias).
 */
export function servedMap(
  target: LegacyTarget,
  base: string,
  listing: LegacyListing
): ServedMap {
  let { placement } = target;
  if ('value' in placement) {
    if (placement.label !== listing.variant) return { unserved: 'variant' };
    const group = groupOfSegment(listing.groups, placement.value);
    if (group === undefined) return { unserved: 'group' };
    placement = { label: placement.label, value: group };
  }
  return { url: mapUrl(base, placement), placement };
}

function defaultPrometheusTargets(poller: CurlJsonPoller): URL[] {
  const hosts = new Set<string>();
  // A URL that cannot be read is reported as such by the planner; an IPv6 hostname keeps its brackets.
  for (const { url } of poller.urls)
    if (URL.canParse(url)) hosts.add(new URL(url).hostname);
  if (hosts.size === 0) hosts.add('127.0.0.1');
  return [...hosts].map(
    host =>
      new URL(
        `http://${host}:${DEFAULT_PROMETHEUS_PORT}${DEFAULT_PROMETHEUS_PATH}`
      )
  );
}

function checkedUrl(value: string, option: string, expected: string): URL {
  if (!URL.canParse(value))
    throw new MigrationError(
      `--${option}: found ${JSON.stringify(value)}, expected ${expected}`
    );
  return new URL(value);
}

/**
 * Reads what `poller`'s migration needs. Without `options.legacy` nothing is read: the plan is
 * made from the file alone, and says so.
 * @throws MigrationError when an option is not a URL or the legacy API cannot be read
 */
export async function readMigrationInputs(
  poller: CurlJsonPoller,
  options: MigrationOptions
): Promise<MigrationInputs> {
  const prometheusTargets =
    options.prometheus === undefined
      ? defaultPrometheusTargets(poller)
      : [
          checkedUrl(
            options.prometheus,
            'prometheus',
            'a URL such as http://127.0.0.1:9464/metrics'
          ),
        ];
  const { legacy } = options;
  if (legacy === undefined)
    return {
      legacy,
      prometheusTargets,
      served: undefined,
      notes: [
        {
          tag: 'partial',
          text: 'No --legacy: wildcards were expanded over the metric names this file names explicitly, host types were taken from the URLs as written, and names were mapped as instrument names without attributes. The result is partial: run again with --legacy to expand over what the server serves.',
        },
      ],
    };
  checkedUrl(
    legacy,
    'legacy',
    "the legacy API's base URL such as http://127.0.0.1:8088/api"
  );
  const notes: Finding[] = [];
  const listing = await fetchListing(legacy, { tool: 'migrate' });
  const expositionUrl = prometheusTargets[0]!.href;
  let exposition: ExpositionIndex | undefined;
  let matcher: SeriesMatcher | undefined;
  try {
    exposition = new ExpositionIndex(listing.variant);
    await readExposition(expositionUrl, exposition);
    matcher = new SeriesMatcher(exposition.families.values(), [
      ...listing.metrics,
      ...listing.global,
    ]);
  } catch (error) {
    exposition = undefined;
    notes.push({
      tag: 'no-exposition',
      text: `The Prometheus endpoint ${expositionUrl} could not be read (${(error as Error).message}): each legacy name is mapped as an instrument name without attributes; names such as backends.auth.authorize that an attribute forms may be wrong.`,
    });
  }
  const base = legacyBase(legacy);
  const maps = new Map<string, Map<string, LegacyMetricValue> | undefined>();
  for (const { url } of poller.urls) {
    const target = parseLegacyUrl(url);
    const map = target && servedMap(target, base, listing);
    if (map !== undefined && 'url' in map && !maps.has(map.url))
      maps.set(map.url, await fetchMetricsMap(map.url, { tool: 'migrate' }));
  }
  return {
    legacy,
    prometheusTargets,
    served: { base, listing, exposition, matcher, maps },
    notes,
  };
}
