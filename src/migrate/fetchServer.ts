/**
 * Reading a live server for the migration tools: the legacy API's listing and maps (for
 * `compare`, each host type or host the listing names, or those asked for, and the global
 * metrics, each with its own placement, whatever its name), and the Prometheus exposition of the
 * same instruments.
 */
import { IN_BAND_METRIC_NAME } from '../http/inBandSunsetMetric';
import { boundedGet, type MigrationTool } from './boundedGet';
import type { Variant } from '../attributes';
import type { ExpositionIndex, ExpositionRead } from './expositionIndex';
import { groupOfSegment, mapUrl, type SeriesPlacement } from './legacyUrl';
import { MigrationError } from './MigrationError';
import { readLimits } from './readLimits';

/**
 * How one of the tools reads a server: the tool named in the User-Agent (`compare` passes
 * `{ tool: 'compare' }`). The limits are those of the environment (see readLimits).
 */
export interface ServerReadOptions {
  readonly tool?: MigrationTool;
}

/** A legacy metric value: datapoint name → number (or the original's `[]`, `"undefined"`…). */
export type LegacyMetricValue = Readonly<Record<string, unknown>>;

/** The legacy API's listing, in either variant. */
export interface LegacyListing {
  readonly variant: Variant;
  /** Host types (or hosts), raw: spaces kept. */
  readonly groups: readonly string[];
  readonly metrics: readonly string[];
  readonly global: readonly string[];
}

function describeJson(value: unknown): string {
  if (value === null) return 'JSON null';
  if (Array.isArray(value)) return 'a JSON array';
  return `a JSON ${typeof value}`;
}

/** GETs a legacy API URL as a JSON object; undefined on a 404. */
async function fetchLegacyJson(
  url: string,
  options: ServerReadOptions = {}
): Promise<Record<string, unknown> | undefined> {
  const limits = readLimits();
  const result = await boundedGet(url, {
    accept: 'application/json',
    tool: options.tool,
    limits,
    maxBytes: limits.maxJsonBytes,
  });
  if (result.status === 404) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(result.body) as unknown;
  } catch {
    throw new MigrationError(
      `${url}: found a body that is not JSON, expected the legacy metrics API`
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new MigrationError(
      `${url}: found ${describeJson(value)}, expected a JSON object (the legacy metrics API)`
    );
  return value as Record<string, unknown>;
}

/** The base of the legacy API without a trailing `/` or `/metrics`: `http://127.0.0.1:8088/api`. */
export function legacyBase(server: string): string {
  return server.replace(/\/+$/, '').replace(/\/metrics$/, '');
}

/**
 * A deprecated API's in-band countdown is the API's own, not an instrument: it has no
 * Prometheus series, and nothing is to be migrated or compared for it.
 */
function withoutInBandMetric(names: string[]): string[] {
  return names.filter(name => name !== IN_BAND_METRIC_NAME);
}

/** Reads the listing at `<base>/metrics`. */
export async function fetchListing(
  server: string,
  options: ServerReadOptions = {}
): Promise<LegacyListing> {
  const url = `${legacyBase(server)}/metrics`;
  const body = await fetchLegacyJson(url, options);
  const variant = Array.isArray(body?.host_types) ? 'host_type' : 'host';
  const groups = body?.[variant === 'host_type' ? 'host_types' : 'hosts'];
  if (
    !Array.isArray(groups) ||
    !Array.isArray(body!.metrics) ||
    !Array.isArray(body!.global)
  )
    throw new MigrationError(
      `${url}: found ${body === undefined ? 'a 404' : 'another body'}, expected the legacy metrics listing {"host_types":[…],"metrics":[…],"global":[…]}`
    );
  return {
    variant,
    groups: groups.map(String),
    metrics: withoutInBandMetric(body!.metrics.map(String)),
    global: withoutInBandMetric(body!.global.map(String)),
  };
}

/** One legacy map to compare: its name, where its series are, and its URL. */
export interface Group {
  readonly name: string;
  readonly placement: SeriesPlacement;
  readonly url: string;
}

/** The groups to compare: the listing's (or those asked for), then the global metrics. */
export async function groupsOf(
  hostTypes: readonly string[] | undefined,
  base: string
): Promise<{ listing: LegacyListing; groups: Group[] }> {
  const listing = await fetchListing(base, { tool: 'compare' });
  const group = (name: string, placement: SeriesPlacement): Group => ({
    name,
    placement,
    url: mapUrl(base, placement),
  });
  const named = (name: string): Group =>
    group(name, { label: listing.variant, value: name });
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
      group('global', { label: 'global' }),
    ];
  return { listing, groups };
}

/** Reads a map endpoint (`/metrics/host_type/x`, `/metrics/global`); undefined on a 404. */
export async function fetchMetricsMap(
  url: string,
  options: ServerReadOptions = {}
): Promise<Map<string, LegacyMetricValue> | undefined> {
  const body = await fetchLegacyJson(url, options);
  if (body === undefined) return undefined;
  const metrics = body.metrics;
  if (Array.isArray(metrics)) return new Map();
  if (typeof metrics !== 'object' || metrics === null)
    throw new MigrationError(
      `${url}: found a body without "metrics", expected {"metrics":{…}}`
    );
  return new Map(
    Object.entries(metrics as Record<string, unknown>).filter(
      (entry): entry is [string, LegacyMetricValue] =>
        entry[0] !== IN_BAND_METRIC_NAME &&
        typeof entry[1] === 'object' &&
        entry[1] !== null &&
        !Array.isArray(entry[1])
    )
  );
}

/**
 * Reads the exposition at `url` into `index` as it arrives; fails with a MigrationError naming
 * the URL.
 */
export async function readExposition(
  url: string,
  index: ExpositionIndex
): Promise<ExpositionRead> {
  const parse = index.begin(Date.now());
  /** A step of the parse, its failure said as a MigrationError naming the URL. */
  const readable = <T>(step: () => T): T => {
    try {
      return step();
    } catch (error) {
      throw new MigrationError(
        `${url}: ${(error as Error).message}, expected a Prometheus exposition`
      );
    }
  };
  const limits = readLimits();
  const result = await boundedGet(url, {
    accept: 'text/plain;version=0.0.4',
    tool: 'compare',
    limits,
    maxBytes: limits.maxExpositionBytes,
    onText: text => readable(() => parse.write(text)),
  });
  if (result.status === 404)
    throw new MigrationError(
      `${url}: found a 404, expected a Prometheus exposition`
    );
  return readable(() => parse.end());
}
